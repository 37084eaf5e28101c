package dominion

import (
	"bytes"
	"testing"

	"github.com/boardmesh/boardmesh/engine"
	"github.com/boardmesh/boardmesh/engine/enginetest"
)

// unchanged runs f on st and fails unless it errs and leaves st's encoding
// as it was.
func unchanged(t *testing.T, what string, st engine.State, f func() error) {
	t.Helper()
	before := engine.Encode(st)
	if err := f(); err == nil {
		t.Fatalf("%s was accepted", what)
	}
	if !bytes.Equal(before, engine.Encode(st)) {
		t.Fatalf("%s was refused but changed the state", what)
	}
}

// A secret table refuses, with the state unchanged, an opening nobody
// asked for, a private card given to another seat's engine, a card the
// deck does not have, and moves whose shown cards are missing, too many,
// or not what the move needs.
func TestSecretTableRefuses(t *testing.T) {
	tab, err := enginetest.NewSecretTable(Game, 4, spyKingdom, nil, []byte("refuse"))
	if err != nil {
		t.Fatal(err)
	}
	// The deal is a beacon step; then the first hands wait for the cards.
	for _, p := range tab.Peers {
		if err := p.ApplyChance(make([]byte, 32)); err != nil {
			t.Fatal(err)
		}
	}
	p0 := tab.Peers[0].(*State)
	want := p0.Openings(nil)
	if p0.ToAct().Kind != engine.ActorCards || len(want) != 20 {
		t.Fatalf("after the deal: actor %v, %d openings", p0.ToAct(), len(want))
	}
	o := want[0] // seat 1's first card, on seat 1's own engine
	unchanged(t, "an opening nobody asked for", p0, func() error {
		return p0.Open(engine.Opening{Deck: o.Deck, Pos: 7, To: 0}, Copper)
	})
	unchanged(t, "an opening to another seat", p0, func() error {
		return p0.Open(engine.Opening{Deck: o.Deck, Pos: o.Pos, To: 1}, Copper)
	})
	unchanged(t, "a Gold in a starting deck", p0, func() error { return p0.Open(o, Gold) })
	unchanged(t, "no card value on its recipient's engine", p0, func() error { return p0.Open(o, engine.NoCard) })
	p1 := tab.Peers[1].(*State)
	if p1.ToAct().Kind != engine.ActorCards {
		t.Fatalf("seat 2's engine waits for %v", p1.ToAct())
	}
	unchanged(t, "seat 1's card on seat 2's engine", p1, func() error { return p1.Open(o, Copper) })
	unchanged(t, "a move while the cards are dealt", p1, func() error { return p1.ApplyRevealed(0, engine.Action{Op: opEndTurn}, nil) })

	// Finish the deal on a fresh table and look at seat 1's first move.
	tab, err = enginetest.NewSecretTable(Game, 4, spyKingdom, nil, []byte("refuse"))
	if err != nil {
		t.Fatal(err)
	}
	if err := tab.Chance(); err != nil {
		t.Fatal(err)
	}
	own := tab.Peers[0].(*State)
	other := tab.Peers[2].(*State)
	var copper, estate engine.Handle
	hasCopper, hasEstate := false, false
	for _, h := range own.p[0].hand {
		switch own.card(h, 0) {
		case Copper:
			copper, hasCopper = h, true
		case Estate:
			estate, hasEstate = h, true
		}
	}
	if !hasCopper || !hasEstate {
		t.Fatalf("the dealt hand needs a Copper and an Estate: choose another seed")
	}
	play := func(h engine.Handle) engine.Action { return engine.Action{Op: opTreasure, Args: []int32{h.Arg()}} }
	unchanged(t, "a Treasure played with no card shown", other, func() error { return other.ApplyRevealed(0, play(copper), []int{}) })
	unchanged(t, "a Treasure played with two cards shown", other, func() error { return other.ApplyRevealed(0, play(copper), []int{Copper, Copper}) })
	unchanged(t, "an Estate shown as a Treasure", other, func() error { return other.ApplyRevealed(0, play(estate), []int{Estate}) })
	unchanged(t, "a Gold shown from a starting deck", other, func() error { return other.ApplyRevealed(0, play(copper), []int{Gold}) })
	unchanged(t, "a card of another seat's hand", other, func() error {
		return other.ApplyRevealed(0, play(other.p[1].hand[0]), []int{Copper})
	})
	unchanged(t, "an Estate shown as a Treasure on its owner's engine", own, func() error { return own.ApplyRevealed(0, play(estate), []int{Estate}) })
	// The honest move is accepted everywhere.
	if err := tab.Act(play(copper)); err != nil {
		t.Fatal(err)
	}
	if own.coins != 1 || other.coins != 1 {
		t.Fatalf("coins %d and %d after a Copper", own.coins, other.coins)
	}
	// Once shown, the Copper is public on every engine.
	if c, ok := other.Cards().Public(copper); !ok || c != Copper {
		t.Fatalf("the Copper played is not public on seat 3's engine")
	}
}
