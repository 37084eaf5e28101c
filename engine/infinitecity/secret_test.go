package infinitecity

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/boardmesh/boardmesh/engine"
	"github.com/boardmesh/boardmesh/engine/enginetest"
)

// unchanged runs f on st and fails t unless f returns an error wrapping
// want and leaves the state's encoding and its seat's knowledge as they were.
func unchanged(t *testing.T, st engine.CardState, want error, what string, f func() error) {
	t.Helper()
	before := engine.Encode(st)
	kb := encodeKnowledgeOf(st)
	err := f()
	if err == nil || !errors.Is(err, want) {
		t.Fatalf("%s: %v, want %v", what, err, want)
	}
	if !bytes.Equal(before, engine.Encode(st)) || !bytes.Equal(kb, encodeKnowledgeOf(st)) {
		t.Fatalf("%s was refused but changed the state", what)
	}
}

func encodeKnowledgeOf(st engine.CardState) []byte {
	k := st.Cards().Knowledge()
	if k == nil {
		return nil
	}
	e := engine.NewEncoder(nil)
	k.Encode(e)
	return e.Bytes()
}

// TestSecretTableRefusesBadCards: what a broken or hostile card layer, or
// a move's envelope, could hand a peer's engine is refused with the state
// unchanged.
func TestSecretTableRefusesBadCards(t *testing.T) {
	es, _ := Game.Setup(4, nil)
	fresh := es.(*State)
	if err := fresh.UseSecretCards(); err != nil {
		t.Fatal(err)
	}
	if fresh.ToAct().Kind != engine.ActorCards {
		t.Fatalf("a secret table before the deal waits for %s, want cards", fresh.ToAct())
	}
	if err := fresh.ApplyChance(make([]byte, 32)); !errors.Is(err, engine.ErrNotChance) {
		t.Fatalf("a beacon dealt a secret table's cards: %v", err)
	}
	tab, err := enginetest.NewSecretTable(Game, 4, nil, nil, []byte("refuse"))
	if err != nil {
		t.Fatal(err)
	}
	s := tab.Peers[1].(*State) // seat 2's peer
	if err := s.UseSecretCards(); err == nil {
		t.Fatal("a table switched to secret cards after the deal")
	}
	cur := s.current
	if s.ToAct() != engine.SeatActor(cur) {
		t.Fatalf("after the deal %s is to act", s.ToAct())
	}
	unchanged(t, s, engine.ErrNotWaiting, "an opening nobody asked for", func() error {
		return s.Open(engine.Opening{Pos: uint16(s.pile[0]), To: 1}, 3)
	})
	// A move of the seat to act (not seat 2): the tile it lays must come
	// with its value; a wrong count, an impossible value and a card the deck
	// has no copy left of are refused.
	var play engine.Action
	for _, a := range tab.Peers[cur].Legal(nil) {
		if a.Op == OpPlay {
			play = a
			break
		}
	}
	if cur != 1 {
		unchanged(t, s, engine.ErrIllegal, "a laid tile without its value", func() error { return s.Apply(cur, play) })
	}
	unchanged(t, s, engine.ErrIllegal, "two values for one tile", func() error { return s.ApplyRevealed(cur, play, []int{0, 0}) })
	unchanged(t, s, engine.ErrIllegal, "a kind the set does not have", func() error { return s.ApplyRevealed(cur, play, []int{len(s.set.Kinds)}) })
	unchanged(t, s, engine.ErrIllegal, "a negative kind", func() error { return s.ApplyRevealed(cur, play, []int{-5}) })
	// Make all five Power Stations public on the table: a sixth is refused.
	power := kind(t, "Power Station")
	n := 0
	for p := 0; p < s.set.Total && n < 5; p++ {
		h := handle(p)
		if !s.cards.Seen(h, engine.Public) && !has(s.hands[cur], p) && !s.cards.Seen(h, 1) {
			if err := s.cards.Open(engine.Opening{Pos: uint16(p), To: engine.Public}, power); err != nil {
				t.Fatal(err)
			}
			n++
		}
	}
	unchanged(t, s, engine.ErrIllegal, "a sixth Power Station", func() error { return s.ApplyRevealed(cur, play, []int{power}) })
	// A private opening's value handed to another seat's engine.
	s2 := tab.Peers[2].(*State)
	o := engine.Opening{Pos: uint16(s2.pile[0]), To: 0}
	if err := s2.cards.Check(o, 4); !errors.Is(err, engine.ErrBadCard) {
		t.Fatalf("seat 3's engine accepts the value of a tile opened to seat 1: %v", err)
	}
}

// TestOpenTableRefusesAContradictedValue: on an open table the state holds
// every drawn tile, and a move that claims another value for its tile is
// refused.
func TestOpenTableRefusesAContradictedValue(t *testing.T) {
	s := table(t, 2)
	s.put(t, 0, 0, "Factory")
	s.give(t, 0, "Bank")
	a := engine.Action{Op: OpPlay, Args: []int32{held(t, s, "Bank"), 1, 0}}
	unchanged(t, s, engine.ErrIllegal, "a Bank laid as a Temple", func() error { return s.ApplyRevealed(0, a, []int{kind(t, "Temple")}) })
	if err := s.ApplyRevealed(0, a, []int{kind(t, "Bank")}); err != nil {
		t.Fatal(err)
	}
}

// TestSecretSwapIsToldAsTheNewHand: on a secret table the tiles an Embassy
// swap brings are opened to their new holder in the card step after the
// swap; that step tells each of the two "your hand now", as the open
// table's swap step does, not "you drew" (which it said before, so the
// history read as if the seat had drawn five tiles). The seat outside
// the swap learns no tile.
func TestSecretSwapIsToldAsTheNewHand(t *testing.T) {
	swaps := 0
	for game := 0; game < 60 && swaps < 2; game++ {
		tab, err := enginetest.NewSecretTable(Game, 3, nil, nil, []byte{byte(game), 's', 'w'})
		if err != nil {
			t.Fatal(err)
		}
		r := engine.NewRand([]byte{byte(game)})
		for step := 0; step < 400; step++ {
			who, a, ok, err := tab.NextMove(engine.RandomBot{}, r)
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				break
			}
			if a.Op != OpSeat {
				if err := tab.Act(a); err != nil {
					t.Fatal(err)
				}
				continue
			}
			// The swap, then its openings, each step narrated on each peer.
			var mids []*State
			for _, p := range tab.Peers {
				if err := p.ApplyRevealed(who.Seat, a, nil); err != nil {
					t.Fatal(err)
				}
				mids = append(mids, p.Clone().(*State))
			}
			if err := tab.Settle(); err != nil {
				t.Fatal(err)
			}
			partner := int(a.Args[0])
			for seat, p := range tab.Peers {
				o := mids[seat].Narrate(p, engine.Actor{Kind: engine.ActorCards}, engine.Action{}, seat).Outcome
				in := seat == who.Seat || seat == partner
				if in && len(p.(*State).hands[seat]) > 0 && (!strings.Contains(o, "your hand now: ") || strings.Contains(o, "you drew")) {
					t.Errorf("game %d: seat %d, in the swap, is told %q after it", game, seat+1, o)
				}
				if !in && strings.Contains(o, "your hand now") {
					t.Errorf("game %d: seat %d, outside the swap, is told %q", game, seat+1, o)
				}
			}
			swaps++
		}
	}
	if swaps == 0 {
		t.Fatal("no Embassy swap in 60 random games")
	}
}
