package deal

import (
	"fmt"
	"testing"
)

// TestWaitingSeatsPrepareTheirShuffles: in a chain every seat but the
// first waits for the shuffle before its own, and makes the half of its
// proof that does not need the deck in that wait, so its link costs the
// other half when the deck comes; the first seat is handed its deck at
// once and has nothing to wait for. A reshuffle's chain is prepared the
// same way. (This harness gives every seat a turn to work while seat 1
// shuffles; a seat whose deck came before it found time to prepare makes
// the whole proof then, as before.)
func TestWaitingSeatsPrepareTheirShuffles(t *testing.T) {
	for _, n := range []int{2, 4} {
		t.Run(fmt.Sprintf("%d seats", n), func(t *testing.T) {
			tb := newTable(t, n, []Deck{seqDeck(0, 20, 100)})
			// preparedAfter checks that deck is ready at every seat and
			// that each seat but the first made each of its chains' links
			// from a preparation.
			preparedAfter := func(deck uint8, chains int) {
				t.Helper()
				tb.run()
				tb.noCheats()
				for i, m := range tb.ms {
					if !m.DeckReady(deck) {
						t.Fatalf("seat %d: deck %d is not ready", i+1, deck)
					}
					want := chains
					if i == 0 {
						want = 0
					}
					if m.prepared != want {
						t.Errorf("seat %d made %d of its %d shuffles from a preparation, want %d", i+1, m.prepared, chains, want)
					}
				}
			}
			preparedAfter(0, 1)
			b := tb.open(Opening{Deck: 0, Pos: 0, To: 1})
			tb.run()
			tb.noCheats()
			if len(tb.opened(1, b)) != 1 {
				t.Fatal("the draw was not opened")
			}
			for _, m := range tb.ms {
				if err := m.Reshuffle(2, []Handle{{Deck: 0, Pos: 0}, {Deck: 0, Pos: 1}, {Deck: 0, Pos: 2}}); err != nil {
					t.Fatal(err)
				}
			}
			preparedAfter(2, 2)
		})
	}
}
