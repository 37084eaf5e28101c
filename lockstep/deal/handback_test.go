package deal

import (
	"errors"
	"testing"
)

// TestCardPassedOnAndBack: a card opened to seat 1, then to seat 2 (the
// card passes on: seat 2 re-masks it), can no longer be shown by seat 1,
// though seat 1 knows it; opened to seat 1 again (it comes back: seat 1
// re-masks it, seat 2 posts its share), seat 1 shows it and every peer
// checks it, while seat 2 cannot. This is what the engine's card source
// asks after two Embassy swaps (engine.Cards.Want on a secret table).
func TestCardPassedOnAndBack(t *testing.T) {
	for _, n := range []int{2, 3} {
		tb := newTable(t, n, []Deck{seqDeck(0, 12, 0)})
		tb.run()
		h := Handle{Deck: 0, Pos: 5}
		tb.open(Opening{Deck: 0, Pos: h.Pos, To: 0})
		tb.run()
		card, ok := tb.ms[0].Card(h)
		if !ok {
			t.Fatalf("%d seats: seat 1 did not learn its card", n)
		}
		tb.open(Opening{Deck: 0, Pos: h.Pos, To: 1})
		tb.run()
		if c, ok := tb.ms[1].Card(h); !ok || c != card {
			t.Fatalf("%d seats: seat 2 learnt %d (%v), seat 1 had %d", n, c, ok, card)
		}
		if _, err := tb.ms[0].RevealShare(h, 40); !errors.Is(err, ErrBadInput) {
			t.Fatalf("%d seats: seat 1 can show a card it passed on: %v", n, err)
		}
		b := tb.open(Opening{Deck: 0, Pos: h.Pos, To: 0})
		tb.run()
		tb.noCheats()
		if ev := tb.opened(0, b); len(ev) != 1 || !ev[0].Known || ev[0].Card != card {
			t.Fatalf("%d seats: seat 1's opening back: %v", n, ev)
		}
		if _, err := tb.ms[1].RevealShare(h, 41); !errors.Is(err, ErrBadInput) {
			t.Fatalf("%d seats: seat 2 can show a card handed back: %v", n, err)
		}
		share, err := tb.ms[0].RevealShare(h, 41)
		if err != nil {
			t.Fatalf("%d seats: seat 1 cannot show the card handed back: %v", n, err)
		}
		for v, m := range tb.ms {
			if _, pub := m.PublicCard(h); pub {
				t.Fatalf("%d seats: seat %d knows the card before it is shown", n, v+1)
			}
			if err := m.CheckReveal(0, h, 41, card, share); err != nil {
				t.Fatalf("%d seats: seat %d refuses seat 1's reveal: %v", n, v+1, err)
			}
			if c, ok := m.PublicCard(h); !ok || c != card {
				t.Fatalf("%d seats: seat %d sees %d (%v), want %d", n, v+1, c, ok, card)
			}
		}
		tb.collect()
		tb.noCheats()
	}
}
