package deal

import (
	"testing"

	"github.com/boardmesh/boardmesh/crypto"
)

// lose drops seat s's envelopes of kind on their way to seat lost: the
// seat crashed after persisting them, while sending; seat 3 got them,
// so a different envelope signed after the restart would be an
// equivocation there.
func (tb *table) lose(s int, kind crypto.Kind) {
	const lost = 0
	tb.hook = func(to int, env *crypto.Envelope) *crypto.Envelope {
		if env.Author == tb.ids[s].ID() && env.Kind == kind && to == lost {
			return nil
		}
		return env
	}
}

// TestRestart: a seat crashes right after persisting its shuffle, and
// later right after persisting its decryption shares; each time it comes
// back from its disk (secret key, own envelopes, received envelopes),
// sends what it had signed again instead of signing anew, and the table
// goes on with no cheat named and the same cards as before.
func TestRestart(t *testing.T) {
	tb := newTable(t, 3, []Deck{seqDeck(0, 10, 0)})
	tb.lose(1, crypto.KindShuffle)
	tb.run()
	if tb.ms[0].DeckReady(0) {
		t.Fatal("the deck is ready without seat 2's shuffle")
	}
	tb.hook = nil
	tb.restart(1, 77) // other randomness: a new shuffle would differ
	tb.run()
	tb.noCheats()
	for i, m := range tb.ms {
		if !m.DeckReady(0) {
			t.Fatalf("seat %d: no deck after seat 2's restart", i+1)
		}
	}
	tb.open(Opening{Deck: 0, Pos: 0, To: 1}, Opening{Deck: 0, Pos: 1, To: 2})
	tb.run()
	before, ok := tb.ms[1].Card(Handle{Deck: 0, Pos: 0})
	if !ok {
		t.Fatal("seat 2 did not draw")
	}
	// Seat 2 crashes after persisting its shares of the next batch.
	tb.lose(1, crypto.KindShare)
	tb.open(Opening{Deck: 0, Pos: 2, To: 0})
	tb.run()
	if _, ok := tb.ms[0].Card(Handle{Deck: 0, Pos: 2}); ok {
		t.Fatal("seat 1 drew without seat 2's share")
	}
	tb.hook = nil
	tb.restart(1, 78)
	for _, ops := range [][]Opening{{{Deck: 0, Pos: 0, To: 1}, {Deck: 0, Pos: 1, To: 2}}, {{Deck: 0, Pos: 2, To: 0}}} {
		if _, err := tb.ms[1].Open(ops); err != nil {
			t.Fatal(err)
		}
	}
	tb.collect()
	tb.run()
	tb.noCheats()
	if after, ok := tb.ms[1].Card(Handle{Deck: 0, Pos: 0}); !ok || after != before {
		t.Errorf("seat 2's card after the restart is %d (%v), before %d", after, ok, before)
	}
	if _, ok := tb.ms[0].Card(Handle{Deck: 0, Pos: 2}); !ok {
		t.Error("seat 1's draw did not finish after seat 2's restart")
	}
	for i := range tb.ms {
		for _, e := range tb.errs[i] {
			if e != nil && !isBenign(e) {
				t.Errorf("seat %d: %v", i+1, e)
			}
		}
	}
}

func isBenign(err error) bool { return err == ErrDuplicate }
