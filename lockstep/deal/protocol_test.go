package deal

import (
	"fmt"
	"testing"
)

// TestSetupAndOpenings runs 2, 4 and 8 seats through a setup of two decks,
// private draws, a peek, a public open of a drawn card, a public flip and
// a reshuffle, and checks what each seat learns: the drawer its card, the
// others nothing, everyone a public card, and all of them the same.
func TestSetupAndOpenings(t *testing.T) {
	for _, n := range []int{2, 4, 8} {
		t.Run(fmt.Sprintf("%d seats", n), func(t *testing.T) {
			tb := newTable(t, n, []Deck{seqDeck(0, 20, 100), seqDeck(1, 6, 500)})
			tb.run()
			tb.noCheats()
			for i, m := range tb.ms {
				if !m.DeckReady(0) || !m.DeckReady(1) {
					t.Fatalf("seat %d: decks not ready", i+1)
				}
			}
			// Each seat draws card i of deck 0, privately.
			var ops []Opening
			for s := 0; s < n; s++ {
				ops = append(ops, Opening{Deck: 0, Pos: uint16(s), To: s})
			}
			b := tb.open(ops...)
			tb.run()
			tb.noCheats()
			drawn := make([]uint16, n)
			seenIDs := map[uint16]bool{}
			for s := 0; s < n; s++ {
				ev := tb.opened(s, b)
				if len(ev) != n {
					t.Fatalf("seat %d: %d openings, want %d", s+1, len(ev), n)
				}
				for slot, e := range ev {
					if e.Known != (slot == s) {
						t.Errorf("seat %d knows slot %d: %v", s+1, slot+1, e.Known)
					}
				}
				c, ok := tb.ms[s].Card(Handle{Deck: 0, Pos: uint16(s)})
				if !ok || c < 100 || c >= 120 || seenIDs[c] {
					t.Fatalf("seat %d drew %d (%v)", s+1, c, ok)
				}
				seenIDs[c], drawn[s] = true, c
				for o := 0; o < n; o++ {
					if _, ok := tb.ms[o].Card(Handle{Deck: 0, Pos: uint16(s)}); ok != (o == s) {
						t.Errorf("seat %d knows seat %d's card: %v", o+1, s+1, ok)
					}
				}
			}
			// Seat 1 peeks at the next card; then seat 2 draws it (it was
			// opened to seat 1: a re-masking by seat 2 first).
			next := Handle{Deck: 0, Pos: uint16(n)}
			b = tb.open(Opening{Deck: 0, Pos: next.Pos, To: 0})
			tb.run()
			peeked, ok := tb.ms[0].Card(next)
			if !ok {
				t.Fatal("seat 1 did not learn the peeked card")
			}
			b = tb.open(Opening{Deck: 0, Pos: next.Pos, To: 1})
			tb.run()
			tb.noCheats()
			if c, ok := tb.ms[1].Card(next); !ok || c != peeked {
				t.Fatalf("seat 2 drew %d (%v) after seat 1 peeked %d", c, ok, peeked)
			}
			for o := 2; o < n; o++ {
				if _, ok := tb.ms[o].Card(next); ok {
					t.Errorf("seat %d knows the card seat 1 peeked and seat 2 drew", o+1)
				}
			}
			// Seat 1 plays its card face up; card 1 of deck 1 is flipped.
			b = tb.open(Opening{Deck: 0, Pos: 0, To: Public}, Opening{Deck: 1, Pos: 0, To: Public})
			tb.run()
			tb.noCheats()
			flip, _ := tb.ms[0].PublicCard(Handle{Deck: 1, Pos: 0})
			for s, m := range tb.ms {
				if c, ok := m.PublicCard(Handle{Deck: 0, Pos: 0}); !ok || c != drawn[0] {
					t.Errorf("seat %d sees seat 1's played card as %d (%v), want %d", s+1, c, ok, drawn[0])
				}
				if c, ok := m.PublicCard(Handle{Deck: 1, Pos: 0}); !ok || c != flip || c < 500 || c >= 506 {
					t.Errorf("seat %d sees the flip as %d (%v), seat 1 as %d", s+1, c, ok, flip)
				}
			}
			// Reshuffle: the played card, seat 2's hand card and three
			// undrawn ones become deck 7; seat 3 (seat 1 at 2 seats) draws
			// all five.
			from := []Handle{{Deck: 0, Pos: 0}, {Deck: 0, Pos: 1}, {Deck: 0, Pos: 15}, {Deck: 0, Pos: 16}, {Deck: 0, Pos: 17}}
			for _, m := range tb.ms {
				if err := m.Reshuffle(7, from); err != nil {
					t.Fatal(err)
				}
			}
			tb.run()
			tb.noCheats()
			if _, err := tb.ms[0].Open([]Opening{{Deck: 0, Pos: 15, To: 0}}); err == nil {
				t.Error("a handle taken into the reshuffle still opens")
			}
			if _, ok := tb.ms[0].PublicCard(Handle{Deck: 0, Pos: 0}); ok {
				t.Error("a handle taken into the reshuffle still names its card")
			}
			drawer := 2 % n
			var ops2 []Opening
			for p := 0; p < 5; p++ {
				ops2 = append(ops2, Opening{Deck: 7, Pos: uint16(p), To: drawer})
			}
			b = tb.open(ops2...)
			tb.run()
			tb.noCheats()
			got := map[uint16]int{}
			for p := 0; p < 5; p++ {
				c, ok := tb.ms[drawer].Card(Handle{Deck: 7, Pos: uint16(p)})
				if !ok {
					t.Fatalf("seat %d did not learn reshuffled card %d", drawer+1, p+1)
				}
				got[c]++
				for o := range tb.ms {
					if _, ok := tb.ms[o].Card(Handle{Deck: 7, Pos: uint16(p)}); ok != (o == drawer) {
						t.Errorf("seat %d knows reshuffled card %d: %v", o+1, p+1, ok)
					}
				}
			}
			if got[drawn[0]] != 1 || got[drawn[1]] != 1 || len(got) != 5 {
				t.Errorf("the reshuffled deck holds %v; want the played %d, seat 2's %d and three more", got, drawn[0], drawn[1])
			}
			_ = b
		})
	}
}
