package deal

import (
	"fmt"
	"testing"
)

// TestTwoDropsAtOnce: at 4, 5 and 8 seats, two seats go silent at the same
// moment, in the middle of a draw that needs their shares, before either
// published its piece of the other's key. The others drop both (one vote,
// so two Drop calls at the same place of the log); each key is rebuilt
// (one with the pair escrow that leaves out the other dropped seat, the
// other then with the first's rebuilt key), the draw finishes, the cards
// both held are shown to all, and the live seats reshuffle and deal on.
// Nobody honest is named.
func TestTwoDropsAtOnce(t *testing.T) {
	for _, n := range []int{4, 5, 8} {
		for _, order := range []string{"first-first", "last-first"} {
			t.Run(fmt.Sprintf("%d seats, %s", n, order), func(t *testing.T) {
				tb := newTable(t, n, []Deck{seqDeck(0, 40, 0)})
				tb.run()
				var ops []Opening
				for s := 0; s < n; s++ {
					ops = append(ops, Opening{Deck: 0, Pos: uint16(2 * s), To: s}, Opening{Deck: 0, Pos: uint16(2*s + 1), To: s})
				}
				tb.open(ops...)
				tb.run()
				tb.noCheats()
				a, b := 1, n-1
				held := map[uint16]uint16{}
				for _, s := range []int{a, b} {
					for p := 2 * s; p < 2*s+2; p++ {
						c, ok := tb.ms[s].Card(Handle{Deck: 0, Pos: uint16(p)})
						if !ok {
							t.Fatalf("seat %d did not draw", s+1)
						}
						held[uint16(p)] = c
					}
				}
				tb.silence(a)
				tb.silence(b)
				gone := []int{a, b}
				live := []int{}
				for s := 0; s < n; s++ {
					if s != a && s != b {
						live = append(live, s)
					}
				}
				next := Handle{Deck: 0, Pos: uint16(2 * n)}
				tb.openLive(nil, Opening{Deck: 0, Pos: next.Pos, To: 0})
				tb.run()
				if _, ok := tb.ms[0].Card(next); ok {
					t.Fatal("seat 1 drew without the silent seats' shares")
				}
				first, second := a, b
				if order == "last-first" {
					first, second = b, a
				}
				for _, i := range live {
					for _, s := range []int{first, second} {
						if err := tb.ms[i].Drop(s); err != nil {
							t.Fatalf("seat %d: Drop(%d): %v", i+1, s+1, err)
						}
					}
				}
				tb.collect()
				tb.run()
				tb.noCheatsAmong(live)
				for _, i := range live {
					for _, w := range tb.ms[i].Waiting() {
						t.Errorf("seat %d still waits: %v", i+1, w)
					}
					for _, s := range gone {
						if !tb.ms[i].DropDone(s) {
							t.Errorf("seat %d: the drop of seat %d is not done", i+1, s+1)
						}
					}
					for p, c := range held {
						if got, ok := tb.ms[i].PublicCard(Handle{Deck: 0, Pos: p}); !ok || got != c {
							t.Errorf("seat %d sees a dropped seat's card %d as %d (%v), want %d", i+1, p+1, got, ok, c)
						}
					}
					if _, ok := tb.ms[i].PublicCard(Handle{Deck: 0, Pos: 0}); ok {
						t.Errorf("seat %d sees seat 1's card: the drops revealed more than the dropped hands", i+1)
					}
				}
				if _, ok := tb.ms[0].Card(next); !ok {
					t.Fatal("seat 1's draw did not finish after both keys were rebuilt")
				}
				// A reshuffle among the live seats, and a deal from it.
				var from []Handle
				for k := range live {
					from = append(from, Handle{Deck: 0, Pos: uint16(30 + k)})
				}
				for _, i := range live {
					if err := tb.ms[i].Reshuffle(5, from); err != nil {
						t.Fatal(err)
					}
				}
				tb.collect()
				tb.run()
				var deal []Opening
				for k, s := range live {
					deal = append(deal, Opening{Deck: 5, Pos: uint16(k), To: s})
				}
				tb.openLive(gone, deal...)
				tb.run()
				tb.noCheatsAmong(live)
				tb.sameDeck(live, 5, len(live))
				for k, s := range live {
					if _, ok := tb.ms[s].Card(Handle{Deck: 5, Pos: uint16(k)}); !ok {
						t.Errorf("seat %d did not draw from the deck reshuffled after the drops", s+1)
					}
				}
			})
		}
	}
}
