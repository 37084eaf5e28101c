package infinitecity

import (
	"strings"
	"testing"

	"github.com/boardmesh/boardmesh/engine"
)

// One test per instruction of the tile set. Each lays the tile, carries
// out its instruction through the legal actions, and checks the table.

func TestNoInstruction(t *testing.T) {
	s := table(t, 2)
	s.put(t, 0, 0, "Factory")
	s.give(t, 0, "Factory")
	play(t, s, "Factory", 1, 0)
	if s.top().kind != tkRefill || s.ran[kind(t, "Factory")] != 1 {
		t.Fatalf("a Factory did something: %s", s.prompt())
	}
}

func TestLibraryShowsFiveAndPlaysOne(t *testing.T) {
	s := table(t, 2)
	s.put(t, 0, 0, "Factory")
	s.give(t, 0, "Library")
	pile := len(s.pile)
	play(t, s, "Library", 1, 0)
	if s.top().kind != tkReveal {
		t.Fatalf("after a Library: %s", s.prompt())
	}
	anyChance(t, s)
	if len(s.peek) != libraryLook || len(s.pile) != pile-libraryLook {
		t.Fatalf("the Library shows %d tiles, pile %d; want 5 and %d", len(s.peek), len(s.pile), pile-5)
	}
	// Only the player using the Library sees them.
	if v := s.View(1).(*View); len(v.Peek) != 0 {
		t.Fatalf("seat 1 sees the Library's tiles")
	}
	if v := s.View(0).(*View); len(v.Peek) != libraryLook {
		t.Fatalf("seat 0 does not see the Library's tiles")
	}
	for _, a := range s.Legal(nil) {
		if a.Op != OpPlay || !has(s.peek, handlePos(a.Args[0])) {
			t.Fatalf("while choosing from the Library: %s offered", s.Describe(a))
		}
	}
	// Pick a tile with no instruction, to see the turn end after it.
	k, pos := -1, -1
	for _, x := range s.peek {
		if in := standard.Kinds[s.tileOf(x, 0)].Instr; in == InNone || in == InProtect {
			k, pos = s.tileOf(x, 0), x
		}
	}
	if k < 0 {
		k, pos = s.tileOf(s.peek[0], 0), s.peek[0]
	}
	must(t, s, engine.Action{Op: OpPlay, Args: []int32{handle(pos).Arg(), 2, 0}})
	if len(s.peek) != 0 || len(s.pile) != pile-1 || s.board[s.find(2, 0)].kind != k {
		t.Fatalf("after playing from the Library: %d still shown, pile %d (want %d)", len(s.peek), len(s.pile), pile-1)
	}
	if s.ran[kind(t, "Library")] != 1 || !eq(marksAt(t, s, 2, 0), []int{1, 0}) {
		t.Fatalf("the tile from the Library has no marker or the Library was not counted")
	}
}

func TestLibraryWithAShortPile(t *testing.T) {
	s := table(t, 2)
	s.put(t, 0, 0, "Factory")
	s.give(t, 0, "Library")
	for len(s.pile) > 3 { // the rest of the tiles go to seat 1
		for k := range standard.Kinds {
			if left(s, k) > 0 && len(s.pile) > 3 {
				s.give(t, 1, standard.Kinds[k].Name)
			}
		}
	}
	valid(t, s)
	play(t, s, "Library", 1, 0)
	anyChance(t, s)
	if len(s.peek) != 3 || len(s.pile) != 0 {
		t.Fatalf("with 3 tiles in the pile the Library shows %d", len(s.peek))
	}
}

func TestPlazaInstructionIsPassive(t *testing.T) {
	s := table(t, 2)
	s.put(t, 0, 0, "Factory")
	s.give(t, 0, "Plaza")
	play(t, s, "Plaza", 1, 0)
	if s.top().kind != tkRefill || !s.plazaOpen() {
		t.Fatalf("after a Plaza: %s", s.prompt())
	}
}

func returnOrRemove(t *testing.T, name string) *State {
	s := table(t, 3)
	s.put(t, 0, 0, "Factory", 1, 2, 0)
	s.put(t, 1, 0, "Factory", 0, 0, 1)
	s.put(t, 2, 0, "Factory")
	s.give(t, 0, name)
	play(t, s, name, 0, 1)
	var targets []string
	for _, a := range s.Legal(nil) {
		targets = append(targets, s.Describe(a))
	}
	// Tiles with markers: (0,0), (1,0) and the new tile itself.
	if len(targets) != 3 {
		t.Fatalf("%s offers %v, want the 3 tiles with markers", name, targets)
	}
	illegal(t, refuse(t, s, 0, engine.Action{Op: OpTile, Args: []int32{2, 0}}))
	pick(t, s, 0, 0)
	if m := marksAt(t, s, 0, 0); !eq(m, []int{0, 0, 0}) {
		t.Fatalf("%s left markers %v", name, m)
	}
	return s
}

func TestSecurityGuardpostReturnsMarkersToTheirOwners(t *testing.T) {
	s := returnOrRemove(t, "Security Guardpost")
	if s.supply[0] != 14 || s.supply[1] != 15 || s.lost[1] != 0 {
		t.Fatalf("supplies %v lost %v, want the markers back in supply", s.supply, s.lost)
	}
}

func TestPoliceHQReturnsMarkersToo(t *testing.T) {
	s := returnOrRemove(t, "Police HQ")
	if s.supply[1] != 15 {
		t.Fatalf("supplies %v", s.supply)
	}
}

func TestDisasterSiteRemovesMarkersFromTheGame(t *testing.T) {
	s := returnOrRemove(t, "Disaster Site")
	if s.supply[0] != 13 || s.lost[0] != 1 || s.supply[1] != 13 || s.lost[1] != 2 {
		t.Fatalf("supplies %v lost %v, want the markers out of the game", s.supply, s.lost)
	}
}

func TestTransitStationSwapsTwoTilesWithTheirMarkers(t *testing.T) {
	s := table(t, 2)
	s.put(t, 0, 0, "Bank", 1, 0)
	s.put(t, 1, 0, "Temple", 0, 2)
	s.put(t, 2, 0, "Power Station")
	s.give(t, 0, "Transit Station")
	play(t, s, "Transit Station", -1, 0)
	for _, a := range s.Legal(nil) {
		if a.Args[0] >= 1 {
			t.Fatalf("%s offered next to a Power Station", s.Describe(a))
		}
	}
	pick(t, s, 0, 0)
	illegal(t, refuse(t, s, 0, engine.Action{Op: OpTile, Args: []int32{0, 0}})) // the same tile
	if s.Legal(nil)[0].Args[0] != -1 || len(s.Legal(nil)) != 1 {
		t.Fatalf("second tile: %v, want only the Transit Station itself", s.Legal(nil))
	}
	pick(t, s, -1, 0)
	a, b := s.board[s.find(-1, 0)], s.board[s.find(0, 0)]
	if a.kind != kind(t, "Bank") || !eq(a.marks, []int{1, 0}) || b.kind != kind(t, "Transit Station") || !eq(b.marks, []int{1, 0}) {
		t.Fatalf("after the swap: (-1,0) %s %v, (0,0) %s %v", standard.Kinds[a.kind].Name, a.marks, standard.Kinds[b.kind].Name, b.marks)
	}
}

func TestPostOfficeDrawsTwo(t *testing.T) {
	s := table(t, 2)
	s.put(t, 0, 0, "Factory")
	s.give(t, 0, "Post Office", "Factory", "Factory", "Factory", "Factory")
	s.give(t, 1, "Factory")
	play(t, s, "Post Office", 1, 0)
	anyChance(t, s)
	if len(s.hands[0]) != 6 {
		t.Fatalf("after a Post Office: %d tiles in hand, want 6", len(s.hands[0]))
	}
	// More than the hand size: no refill, the turn passes.
	if s.ToAct() != engine.SeatActor(1) {
		t.Fatalf("%s to act, want seat 1", s.ToAct())
	}
}

func TestEmbassySwapsHands(t *testing.T) {
	s := table(t, 3)
	s.put(t, 0, 0, "Factory")
	s.give(t, 0, "Embassy", "Bank")
	s.give(t, 2, "Temple", "Temple", "Hotel")
	play(t, s, "Embassy", 1, 0)
	illegal(t, refuse(t, s, 0, engine.Action{Op: OpSeat, Args: []int32{0}}))
	must(t, s, engine.Action{Op: OpSeat, Args: []int32{2}})
	// Each looks at the new hand (the open source answers at once: both
	// hands were opened before).
	if len(s.hands[0]) != 3 || len(s.hands[2]) != 1 || s.tileOf(s.hands[2][0], 2) != kind(t, "Bank") {
		t.Fatalf("hands after the swap: %v", s.hands)
	}
	if !eq(kindsOf(s, s.hands[0], 0), []int{kind(t, "Hotel"), kind(t, "Temple"), kind(t, "Temple")}) {
		t.Fatalf("seat 1 does not see its new hand: %v", kindsOf(s, s.hands[0], 0))
	}
	if s.tileOf(s.hands[0][0], 1) >= 0 {
		t.Fatal("seat 2, not in the swap, sees a swapped tile")
	}
}

func markAdjacent(t *testing.T, name string) {
	s := table(t, 2)
	s.put(t, 0, 0, "Factory")
	s.put(t, 1, 0, "Factory")
	s.put(t, 2, 0, "Factory")
	s.give(t, 0, name)
	play(t, s, name, 1, 1)
	got := s.Legal(nil)
	if len(got) != 1 || !got[0].Equal(engine.Action{Op: OpTile, Args: []int32{1, 0}}) {
		t.Fatalf("%s at (1,1) offers %v, want only (1,0)", name, got)
	}
	illegal(t, refuse(t, s, 0, engine.Action{Op: OpTile, Args: []int32{0, 0}}))
	pick(t, s, 1, 0)
	if !eq(marksAt(t, s, 1, 0), []int{1, 0}) || s.supply[0] != 13 {
		t.Fatalf("%s: no marker on (1,0)", name)
	}
}

func TestHousingMarksANeighbour(t *testing.T)         { markAdjacent(t, "Housing") }
func TestHotelMarksANeighbour(t *testing.T)           { markAdjacent(t, "Hotel") }
func TestShoppingComplexMarksANeighbour(t *testing.T) { markAdjacent(t, "Shopping Complex") }

func TestStadiumMarksATileInItsRowOrColumn(t *testing.T) {
	s := table(t, 2)
	for x := 0; x < 4; x++ {
		s.put(t, x, 0, "Factory")
	}
	s.put(t, 3, 1, "Factory")
	s.put(t, 3, 2, "Factory")
	s.give(t, 0, "Stadium")
	play(t, s, "Stadium", 0, 1)
	var got [][2]int32
	for _, a := range s.Legal(nil) {
		got = append(got, [2]int32{a.Args[0], a.Args[1]})
	}
	// (0,0) in its column, (3,1) far along its row; not (1,0) or (3,2).
	if len(got) != 2 || got[0] != [2]int32{0, 0} || got[1] != [2]int32{3, 1} {
		t.Fatalf("Stadium at (0,1) offers %v", got)
	}
	pick(t, s, 3, 1)
}

func TestGuildHallMarksATileNextToOneYouControl(t *testing.T) {
	s := table(t, 2)
	s.put(t, 0, 0, "Factory", 1, 0)
	s.put(t, 1, 0, "Factory")
	s.put(t, 2, 0, "Factory")
	s.put(t, 3, 0, "Factory")
	s.put(t, 4, 0, "Factory", 0, 1)
	s.give(t, 0, "Guild Hall")
	play(t, s, "Guild Hall", 3, 1)
	var got [][2]int32
	for _, a := range s.Legal(nil) {
		got = append(got, [2]int32{a.Args[0], a.Args[1]})
	}
	// Next to seat 0's (0,0): (0,0) itself is not, (1,0) is; next to the
	// new Guild Hall at (3,1): (3,0).
	if len(got) != 2 || got[0] != [2]int32{1, 0} || got[1] != [2]int32{3, 0} {
		t.Fatalf("Guild Hall offers %v, want (1,0) and (3,0)", got)
	}
	pick(t, s, 1, 0)
}

func TestPortMovesAMarkerNextToIt(t *testing.T) {
	s := table(t, 2)
	s.put(t, 0, 0, "Factory", 1, 0)
	s.put(t, 1, 0, "Factory")
	s.put(t, 2, 0, "")
	s.give(t, 0, "Port")
	play(t, s, "Port", 2, 1)
	if got := s.Legal(nil); len(got) != 1 || got[0].Args[0] != 0 {
		t.Fatalf("Port sources %v, want only (0,0) with seat 0's marker", got)
	}
	pick(t, s, 0, 0)
	got := s.Legal(nil)
	if len(got) != 1 || got[0].Args[0] != 2 || got[0].Args[1] != 0 {
		t.Fatalf("Port destinations %v, want (2,0), the only tile next to the Port", got)
	}
	supply := s.supply[0]
	pick(t, s, 2, 0)
	if !eq(marksAt(t, s, 0, 0), []int{0, 0}) || !eq(marksAt(t, s, 2, 0), []int{1, 0}) || s.supply[0] != supply {
		t.Fatalf("the marker did not move from (0,0) to (2,0)")
	}
	// The destination was face down: it turns over and its instruction runs.
	chanceTo(t, s, flippedTo(t, 2, 0, "Housing"))
	if s.top().kind != tkTarget || s.top().src != kind(t, "Housing") {
		t.Fatalf("after flipping a Housing with a moved marker: %s", s.prompt())
	}
}

func TestSalvageYardPutsBackAndDrawsAsMany(t *testing.T) {
	s := table(t, 2)
	s.put(t, 0, 0, "Factory")
	s.give(t, 0, "Salvage Yard", "Bank", "Temple", "Temple", "Hotel", "Hotel")
	play(t, s, "Salvage Yard", 1, 0)
	pile := len(s.pile)
	must(t, s, engine.Action{Op: OpReturn, Args: []int32{held(t, s, "Bank")}})
	must(t, s, engine.Action{Op: OpReturn, Args: []int32{held(t, s, "Temple")}})
	if s.top().kind != tkDraw || s.top().n != 2 || len(s.pile) != pile+2 || len(s.hands[0]) != 3 {
		t.Fatalf("after putting back 2: %s, pile %d, hand %d", s.prompt(), len(s.pile), len(s.hands[0]))
	}
	anyChance(t, s)
	if len(s.hands[0]) != 5 || s.ran[kind(t, "Salvage Yard")] != 1 {
		t.Fatalf("hand of %d after drawing back", len(s.hands[0]))
	}

	// Stopping at once keeps the hand.
	s = table(t, 2)
	s.put(t, 0, 0, "Factory")
	s.give(t, 0, "Salvage Yard", "Bank")
	play(t, s, "Salvage Yard", 1, 0)
	must(t, s, engine.Action{Op: OpDone})
	if s.top().kind != tkRefill || len(s.hands[0]) != 1 {
		t.Fatalf("after keeping the hand: %s", s.prompt())
	}
}

func TestInstructionWithoutATargetIsSkipped(t *testing.T) {
	s := table(t, 2)
	s.put(t, 0, 0, "Power Station")
	s.give(t, 0, "Housing")
	play(t, s, "Housing", 1, 0) // its only neighbour is protected
	if s.top().kind != tkRefill || s.ran[kind(t, "Housing")] != 0 {
		t.Fatalf("Housing with no neighbour to mark: %s", s.prompt())
	}
}

// TestEmbassySwapIsToldAsASwap: the history tells a swap of hands as the
// swap, with the new hand to each of the two, and not as a draw of the
// seat whose hand grew ("seat 1 drew 2 tile(s)", as it said before).
func TestEmbassySwapIsToldAsASwap(t *testing.T) {
	s := table(t, 3)
	s.put(t, 0, 0, "Factory")
	s.give(t, 0, "Embassy", "Bank")
	s.give(t, 2, "Temple", "Temple", "Hotel")
	play(t, s, "Embassy", 1, 0)
	prev := s.Clone().(*State)
	swap := engine.Action{Op: OpSeat, Args: []int32{2}}
	must(t, s, swap)
	told := func(seat int) string { return prev.Narrate(s, engine.SeatActor(0), swap, seat).Outcome }
	for seat, want := range map[int]string{
		0: "your hand now: Hotel, Temple, Temple",
		2: "your hand now: Bank",
	} {
		if o := told(seat); !strings.Contains(o, "seat 1 and seat 3 swapped hands") || !strings.Contains(o, want) || strings.Contains(o, "drew") {
			t.Errorf("seat %d is told %q, want the swap and %q", seat+1, o, want)
		}
	}
	if o := told(1); !strings.Contains(o, "seat 1 and seat 3 swapped hands") || strings.Contains(o, "drew") || strings.Contains(o, "Bank") || strings.Contains(o, "Temple") {
		t.Errorf("seat 2, not in the swap, is told %q", o)
	}
}

// TestPostOfficeDrawIsCounted: the others are told how many tiles a seat
// drew, in words ("2 tiles"), never which: a Post Office laid from a hand
// of five and two tiles drawn is two drawn, not the one more in hand that
// the history said before.
func TestPostOfficeDrawIsCounted(t *testing.T) {
	s := table(t, 2)
	s.put(t, 0, 0, "Factory")
	s.give(t, 0, "Post Office", "Factory", "Factory", "Factory", "Factory")
	s.give(t, 1, "Factory")
	prev := s.Clone().(*State)
	po := engine.Action{Op: OpPlay, Args: []int32{held(t, s, "Post Office"), 1, 0}}
	must(t, s, po)
	told := prev.Narrate(s, engine.SeatActor(0), po, 1).Outcome
	prev = s.Clone().(*State)
	anyChance(t, s)
	if o := prev.Narrate(s, engine.ChanceActor(), engine.Action{}, 1).Outcome; o != "" {
		told += "; " + o
	}
	if !strings.Contains(told, "seat 1 drew 2 tiles") || strings.Contains(told, "(s)") || strings.Contains(told, "drew 1") {
		t.Fatalf("seat 2 is told %q, want \"seat 1 drew 2 tiles\"", told)
	}
}
