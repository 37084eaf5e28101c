package infinitecity

import (
	"errors"
	"strings"
	"testing"

	"github.com/boardmesh/boardmesh/engine"
)

func TestSetupDealsHandsAroundTheFaceDownPlus(t *testing.T) {
	for n := 2; n <= 6; n++ {
		es, err := Game.Setup(n, nil)
		if err != nil {
			t.Fatal(err)
		}
		s := es.(*State)
		if s.ToAct().Kind != engine.ActorChance {
			t.Fatalf("%d players: a new game waits for %s, want the deal (chance)", n, s.ToAct())
		}
		// Late binding: before the deal no tile has an identity.
		if unbound(s) != 120 || len(s.pile) != 115 {
			t.Fatalf("%d players: before the deal %d tiles unknown and %d in the pile, want 120 and 115", n, unbound(s), len(s.pile))
		}
		want := map[[2]int]bool{{0, 0}: true, {1, 0}: true, {-1, 0}: true, {0, 1}: true, {0, -1}: true}
		for _, c := range s.board {
			if !want[[2]int{c.x, c.y}] || c.kind != faceDown {
				t.Fatalf("%d players: starting tile at (%d,%d) kind %d; want a face-down plus", n, c.x, c.y, c.kind)
			}
		}
		if len(s.board) != 5 {
			t.Fatalf("%d players: %d starting tiles, want 5", n, len(s.board))
		}
		anyChance(t, s)
		for p, h := range s.hands {
			if len(h) != 5 || s.supply[p] != 15 {
				t.Fatalf("%d players: seat %d has %d tiles and %d markers, want 5 and 15", n, p, len(h), s.supply[p])
			}
		}
		if len(s.pile) != 115-5*n || s.ToAct() != engine.SeatActor(0) {
			t.Fatalf("%d players: pile %d and %s to act, want %d and seat 0", n, len(s.pile), s.ToAct(), 115-5*n)
		}
		if unbound(s) != len(s.pile)+5 {
			t.Fatalf("%d players: the face-down plus is not still unknown", n)
		}
		// Each seat sees its own hand and nobody else's.
		for p, h := range s.hands {
			for q := -1; q < n; q++ {
				for _, pos := range h {
					if k := s.tileOf(pos, q); (k >= 0) != (q == p) {
						t.Fatalf("%d players: seat %d's tile %d known to seat %d: %v", n, p+1, pos, q+1, k >= 0)
					}
				}
			}
		}
	}
}

func TestTileMustTouchTheCityAndGetsAMarker(t *testing.T) {
	s := table(t, 2)
	s.put(t, 0, 0, "Factory")
	s.give(t, 0, "Factory", "Bank")
	valid(t, s)
	fac := held(t, s, "Factory")
	illegal(t, refuse(t, s, 0, engine.Action{Op: OpPlay, Args: []int32{fac, 2, 0}}))
	illegal(t, refuse(t, s, 0, engine.Action{Op: OpPlay, Args: []int32{fac, 1, 1}})) // corner only
	illegal(t, refuse(t, s, 0, engine.Action{Op: OpPlay, Args: []int32{fac, 0, 0}}))
	illegal(t, refuse(t, s, 0, engine.Action{Op: OpPlay, Args: []int32{handle(s.pile[0]).Arg(), 1, 0}})) // not in the hand
	if err := refuse(t, s, 1, engine.Action{Op: OpPlay, Args: []int32{fac, 1, 0}}); !errors.Is(err, engine.ErrNotYourTurn) {
		t.Fatalf("seat 1 playing in seat 0's turn: %v, want not your turn", err)
	}
	if spots := s.spots(nil); len(spots) != 4 {
		t.Fatalf("a lone tile offers %v, want its 4 edge neighbours", spots)
	}
	if got := len(s.Legal(nil)); got != 8 {
		t.Fatalf("2 kinds of tile in hand and 4 squares give %d actions, want 8", got)
	}
	play(t, s, "Bank", 0, 1)
	if m := marksAt(t, s, 0, 1); !eq(m, []int{1, 0}) || s.supply[0] != 14 {
		t.Fatalf("laid tile has markers %v and seat 0 has %d left, want [1 0] and 14", m, s.supply[0])
	}
	if s.ran[kind(t, "Bank")] != 1 {
		t.Fatalf("a Bank's (empty) instruction was not counted")
	}
}

func TestRefillToFiveThenTheTurnPasses(t *testing.T) {
	s := table(t, 3)
	s.put(t, 0, 0, "Factory")
	s.give(t, 0, "Factory", "Temple", "Bank")
	s.give(t, 1, "Factory")
	play(t, s, "Temple", 1, 0)
	if s.ToAct().Kind != engine.ActorChance || s.Turn() != 0 {
		t.Fatalf("after the last instruction %s is to act at turn %d, want the refill draw in turn 0", s.ToAct(), s.Turn())
	}
	pile := len(s.pile)
	anyChance(t, s)
	if len(s.hands[0]) != 5 || len(s.pile) != pile-3 {
		t.Fatalf("seat 0 holds %d tiles and the pile fell by %d, want 5 and 3", len(s.hands[0]), pile-len(s.pile))
	}
	if s.ToAct() != engine.SeatActor(1) || s.Turn() != 1 {
		t.Fatalf("%s is to act in turn %d, want seat 1 in turn 1", s.ToAct(), s.Turn())
	}
}

func TestMarkerOnFaceDownTileFlipsItAndRunsItsInstruction(t *testing.T) {
	s := table(t, 2)
	s.put(t, 0, 0, "")
	s.give(t, 0, "Housing", "Factory")
	play(t, s, "Housing", 1, 0)
	if got := s.Legal(nil); len(got) != 1 || !got[0].Equal(engine.Action{Op: OpTile, Args: []int32{0, 0}}) {
		t.Fatalf("Housing next to one tile offers %v", got)
	}
	pick(t, s, 0, 0)
	if s.ToAct().Kind != engine.ActorChance || s.board[s.find(0, 0)].kind != faceDown {
		t.Fatalf("the marked face-down tile is not waiting to be turned over")
	}
	chanceTo(t, s, flippedTo(t, 0, 0, "Construction Site"))
	if m := marksAt(t, s, 0, 0); !eq(m, []int{1, 0}) {
		t.Fatalf("flipped tile has markers %v, want [1 0]", m)
	}
	// The Construction Site's instruction now runs: seat 0 plays again.
	if s.ToAct() != engine.SeatActor(0) || s.top().kind != tkPlay || s.top().src != kind(t, "Construction Site") {
		t.Fatalf("after flipping a Construction Site: %s", s.prompt())
	}
	play(t, s, "Factory", -1, 0)
	if s.supply[0] != 12 || s.ran[kind(t, "Construction Site")] != 1 {
		t.Fatalf("seat 0 has %d markers left, want 12 (3 used)", s.supply[0])
	}
}

func TestMarkerOnFaceUpTileDoesNotRunItsInstruction(t *testing.T) {
	s := table(t, 2)
	s.put(t, 0, 0, "Construction Site")
	s.give(t, 0, "Housing", "Factory")
	play(t, s, "Housing", 1, 0)
	pick(t, s, 0, 0)
	if s.ToAct().Kind != engine.ActorChance || s.top().kind != tkRefill {
		t.Fatalf("after marking a face-up Construction Site: %s, want the turn to end", s.prompt())
	}
	if s.ran[kind(t, "Construction Site")] != 0 {
		t.Fatalf("the marked Construction Site's instruction ran")
	}
}

func TestConstructionSitesChain(t *testing.T) {
	s := table(t, 2)
	s.put(t, 0, 0, "Factory")
	s.give(t, 0, "Construction Site", "Construction Site", "Construction Site", "Factory")
	play(t, s, "Construction Site", 1, 0)
	play(t, s, "Construction Site", 2, 0)
	play(t, s, "Construction Site", 3, 0)
	if s.ToAct() != engine.SeatActor(0) {
		t.Fatalf("the third Construction Site does not let seat 0 play again")
	}
	play(t, s, "Factory", 4, 0)
	if s.supply[0] != 11 || len(s.hands[0]) != 0 || s.ran[kind(t, "Construction Site")] != 3 {
		t.Fatalf("after a chain of 3 Construction Sites: %d markers, %d tiles in hand", s.supply[0], len(s.hands[0]))
	}
	if s.top().kind != tkRefill || s.top().n != 5 {
		t.Fatalf("the chain did not end the turn with a refill of 5: %s", s.prompt())
	}
}

func TestConstructionSiteWithAnEmptyHandEndsTheTurn(t *testing.T) {
	s := table(t, 2)
	s.put(t, 0, 0, "Factory")
	s.give(t, 0, "Construction Site")
	play(t, s, "Construction Site", 1, 0)
	if s.top().kind != tkRefill {
		t.Fatalf("with no tile left to play: %s", s.prompt())
	}
}

// lastMarker leaves seat 0 with one marker (the others out of the game) so
// that its next tile uses its last one.
func lastMarker(s *State) {
	s.supply[0], s.lost[0] = 1, 14
}

func TestLastMarkerStopsTilePlacingInstructionsAndGivesOthersALastTurn(t *testing.T) {
	s := table(t, 3)
	s.put(t, 0, 0, "Factory")
	lastMarker(s)
	s.supply[2], s.lost[2] = 0, 15 // seat 2 starts its last turn with no markers
	s.give(t, 0, "Construction Site", "Factory")
	s.give(t, 1, "Construction Site", "Factory")
	s.give(t, 2, "Factory")
	play(t, s, "Construction Site", 1, 0)
	if s.endSeat != 0 || s.top().kind != tkRefill {
		t.Fatalf("after seat 0's last marker on a Construction Site: end seat %d, %s", s.endSeat, s.prompt())
	}
	if s.ran[kind(t, "Construction Site")] != 0 {
		t.Fatalf("the Construction Site's instruction ran after the last marker")
	}
	anyChance(t, s)
	if s.ToAct() != engine.SeatActor(1) {
		t.Fatalf("%s is to act, want seat 1's last turn", s.ToAct())
	}
	// Others play their last turn by the normal rules, chains included.
	play(t, s, "Construction Site", 0, 1)
	play(t, s, "Factory", 0, 2)
	anyChance(t, s)
	if s.ToAct().Kind != engine.ActorOver || s.reason != endMarkers {
		t.Fatalf("after the last round: %s to act, reason %d; want over (seat 2 skipped without markers)", s.ToAct(), s.reason)
	}
	if len(s.hands[2]) != 1 {
		t.Fatalf("seat 2 was not skipped")
	}
	r := s.Result()
	if r.Reason == "" || len(r.Winners) == 0 {
		t.Fatalf("incomplete result %+v", r)
	}
}

func TestLastMarkerStillRunsInstructionsThatPlaceNoTiles(t *testing.T) {
	s := table(t, 2)
	s.put(t, 0, 0, "Factory")
	lastMarker(s)
	s.give(t, 0, "Post Office")
	play(t, s, "Post Office", 1, 0)
	if s.top().kind != tkDraw {
		t.Fatalf("Post Office with the last marker: %s, want a draw of 2", s.prompt())
	}
	anyChance(t, s)
	if len(s.hands[0]) != 2 {
		t.Fatalf("seat 0 drew to %d tiles, want 2", len(s.hands[0]))
	}

	s = table(t, 2)
	s.put(t, 0, 0, "Factory")
	lastMarker(s)
	s.give(t, 0, "Library")
	play(t, s, "Library", 1, 0)
	if s.top().kind != tkRefill {
		t.Fatalf("Library with the last marker: %s, want the turn to end", s.prompt())
	}
}

func TestLastPowerStationEndsTheGameAtOnce(t *testing.T) {
	s := table(t, 2)
	for i, name := range []string{"Power Station", "Factory", "Power Station", "Factory", "Power Station", "Factory", "Power Station"} {
		s.put(t, i*2-6, 0, name) // far enough apart to leave room
		if i < 6 {
			s.put(t, i*2-5, 0, "Housing")
		}
	}
	s.give(t, 0, "Power Station", "Construction Site")
	valid(t, s)
	play(t, s, "Power Station", 7, 0)
	if s.ToAct().Kind != engine.ActorOver || s.reason != endPower {
		t.Fatalf("after the fifth Power Station: %s to act, reason %d", s.ToAct(), s.reason)
	}
	if !strings.Contains(s.Result().Reason, "Power Station") {
		t.Fatalf("reason %q does not name the Power Stations", s.Result().Reason)
	}
}

func TestFlippedLastPowerStationEndsTheGame(t *testing.T) {
	s := table(t, 2)
	for i := 0; i < 4; i++ {
		s.put(t, i*2, 0, "Power Station")
		s.put(t, i*2+1, 0, "Factory")
	}
	s.put(t, 8, 0, "")
	s.give(t, 0, "Housing")
	play(t, s, "Housing", 9, 0)
	pick(t, s, 8, 0)
	chanceTo(t, s, flippedTo(t, 8, 0, "Power Station"))
	if s.reason != endPower {
		t.Fatalf("a flipped fifth Power Station did not end the game: %s", s.prompt())
	}
}

func TestNoTilesLeftEndsTheGame(t *testing.T) {
	opts := engine.Options{{Name: "tiles", Value: "7 Factory: none"}, {Name: "hand", Value: "1"}}
	es, err := Game.Setup(2, opts)
	if err != nil {
		t.Fatal(err)
	}
	s := es.(*State)
	anyChance(t, s)
	if len(s.pile) != 0 {
		t.Fatalf("pile %d, want 0", len(s.pile))
	}
	must(t, s, s.Legal(nil)[0])
	if s.ToAct() != engine.SeatActor(1) {
		t.Fatalf("%s to act, want seat 1 (no refill from an empty pile)", s.ToAct())
	}
	must(t, s, s.Legal(nil)[0])
	if s.reason != endNoTiles {
		t.Fatalf("with no tiles anywhere: %s", s.prompt())
	}
}

func TestPlazaDrawsNewTilesNextToIt(t *testing.T) {
	s := table(t, 2)
	s.put(t, 0, 0, "Factory")
	s.put(t, 1, 0, "Plaza")
	s.put(t, -1, 0, "") // a face-down Plaza would not count; this one is unknown
	s.give(t, 0, "Factory")
	fac := held(t, s, "Factory")
	err := refuse(t, s, 0, engine.Action{Op: OpPlay, Args: []int32{fac, 0, 1}})
	illegal(t, err)
	if !strings.Contains(err.Error(), "Plaza") {
		t.Fatalf("refusal %q does not explain the Plaza rule", err)
	}
	got := s.spots(nil)
	want := [][2]int{{1, -1}, {2, 0}, {1, 1}}
	if len(got) != 3 || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Fatalf("spots next to a Plaza: %v, want %v", got, want)
	}
	play(t, s, "Factory", 2, 0)

	// A Plaza with no free square next to it restricts nothing.
	s = table(t, 2)
	s.put(t, 0, 0, "Plaza")
	for _, d := range dirs {
		s.put(t, d[0], d[1], "Factory")
	}
	s.give(t, 0, "Factory")
	play(t, s, "Factory", 2, 0)
}

func TestPowerStationProtectsItselfAndItsNeighbours(t *testing.T) {
	s := table(t, 2)
	s.put(t, 0, 0, "Power Station", 0, 1)
	s.put(t, 1, 0, "Factory", 0, 1)
	s.put(t, 2, 0, "Factory", 0, 1)
	s.put(t, 1, 1, "Factory", 0, 1) // diagonal to the Power Station: not protected
	s.give(t, 0, "Security Guardpost")
	play(t, s, "Security Guardpost", 2, 1)
	for _, a := range s.Legal(nil) {
		if a.Args[0] <= 1 && a.Args[1] == 0 {
			t.Fatalf("%s offered next to a Power Station", s.Describe(a))
		}
	}
	err := refuse(t, s, 0, engine.Action{Op: OpTile, Args: []int32{1, 0}})
	illegal(t, err)
	if !strings.Contains(err.Error(), "protected") {
		t.Fatalf("refusal %q does not say the tile is protected", err)
	}
	pick(t, s, 1, 1)
}

func TestDropTakesAPlayerOutOfTheGame(t *testing.T) {
	es, _ := Game.Setup(3, nil)
	s := es.(*State)
	anyChance(t, s)
	must(t, s, s.Legal(nil)[0])
	for s.ToAct().Kind == engine.ActorChance {
		anyChance(t, s)
	}
	// The seat to act leaves in the middle of its turn: its hand and any
	// tiles a Library shows it go back into the pile.
	cur := s.ToAct().Seat
	pile := len(s.pile) + len(s.hands[cur]) + len(s.peek)
	if err := s.Drop(cur); err != nil {
		t.Fatal(err)
	}
	valid(t, s)
	if s.ToAct().Seat == cur || len(s.pile) != pile || len(s.hands[cur]) != 0 {
		t.Fatalf("after seat %d left: %s to act, pile %d (want %d)", cur, s.ToAct(), len(s.pile), pile)
	}
	if err := s.Drop(cur); err == nil {
		t.Fatalf("a seat could leave twice")
	}
	for p := 0; p < 3; p++ {
		if p != cur {
			if err := s.Drop(p); err != nil {
				t.Fatal(err)
			}
			valid(t, s)
		}
	}
	if s.reason != endAllLeft || s.ToAct().Kind != engine.ActorOver {
		t.Fatalf("with every player gone: %s", s.prompt())
	}
}

func TestContractErrors(t *testing.T) {
	es, _ := Game.Setup(2, nil)
	s := es.(*State)
	if err := s.Apply(0, engine.Action{Op: OpDone}); !errors.Is(err, engine.ErrNotYourTurn) {
		t.Fatalf("acting during the deal: %v", err)
	}
	anyChance(t, s)
	if err := s.ApplyChance(make([]byte, 32)); !errors.Is(err, engine.ErrNotChance) {
		t.Fatalf("chance bytes while seat 0 is to act: %v", err)
	}
	illegal(t, refuse(t, s, 0, engine.Action{Op: OpDone}))
	illegal(t, refuse(t, s, 0, engine.Action{Op: 99}))
	illegal(t, refuse(t, s, 0, engine.Action{Op: OpPlay, Args: []int32{1, 2}}))
	illegal(t, refuse(t, s, 0, engine.Action{Op: OpPlay, Args: []int32{-1, 1, 1}}))
}
