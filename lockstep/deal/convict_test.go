package deal

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/boardmesh/boardmesh/crypto"
)

// shareLies are the two ways a seat's signed share envelope proves it a
// cheat: a share of the wrong card (two entries swapped: each a valid
// point with a valid proof, for another ciphertext), and an envelope that
// leaves out a share it owes.
var shareLies = []struct {
	kind CheatKind
	edit func(es []shareEntry) []shareEntry
}{
	{CheatWrongShare, func(es []shareEntry) []shareEntry {
		es[0].Share, es[1].Share = es[1].Share, es[0].Share
		return es
	}},
	{CheatMissingShare, func(es []shareEntry) []shareEntry { return es[:len(es)-1] }},
}

// TestShareCheatDropsTheCheater: at 3 and 4 seats, seat 2 signs a wrong
// share envelope for a draw of seat 1 and seat 3. Every honest seat names
// seat 2 with its signed envelope as evidence and does not stop: it says
// it waits for seat 2's drop, refuses whatever seat 2 signs from then on
// (even a second, honest envelope for the slot, which would otherwise
// stop the table as an equivocation), and once the table drops seat 2 the
// draw finishes with the shares of its rebuilt key, seat 2's own card is
// shown to all, and the deal goes on without it. Without the rule the
// machines stop at the cheat and the drop is refused.
func TestShareCheatDropsTheCheater(t *testing.T) {
	for _, n := range []int{3, 4} {
		for _, lie := range shareLies {
			t.Run(fmt.Sprintf("%d seats %s", n, lie.kind), func(t *testing.T) {
				const cheater = 1
				tb := newTable(t, n, []Deck{seqDeck(0, 20, 0)})
				tb.run()
				tb.open(Opening{Deck: 0, Pos: 0, To: cheater})
				tb.run()
				tb.noCheats()
				held, ok := tb.ms[cheater].Card(Handle{Deck: 0, Pos: 0})
				if !ok {
					t.Fatal("seat 2 did not draw")
				}
				var honest *crypto.Envelope
				tb.tamper(cheater, crypto.KindShare, func(env *crypto.Envelope) *crypto.Envelope {
					es, _ := decodeShares(env.Body)
					if len(es) < 2 {
						return nil
					}
					honest = env
					return tb.resign(cheater, env, encodeShares(lie.edit(es)))
				})
				tb.open(Opening{Deck: 0, Pos: 1, To: 0}, Opening{Deck: 0, Pos: 2, To: 2})
				tb.run()
				tb.named(lie.kind, cheater, 1)
				if honest == nil {
					t.Fatal("seat 2 never sent its shares")
				}
				for i, m := range tb.ms {
					if i == cheater {
						continue
					}
					if m.Stopped() || !m.Convicted(cheater) {
						t.Fatalf("seat %d: stopped %v, seat 2 convicted %v", i+1, m.Stopped(), m.Convicted(cheater))
					}
					if _, ok := m.Card(Handle{Deck: 0, Pos: uint16(1 + i/2)}); ok && (i == 0 || i == 2) {
						t.Fatalf("seat %d drew with seat 2's lie", i+1)
					}
					waits := false
					for _, w := range m.Waiting() {
						waits = waits || w.Seat == cheater && strings.Contains(w.What, "its drop")
					}
					if !waits {
						t.Errorf("seat %d waits for %v, want seat 2's drop", i+1, m.Waiting())
					}
					// Seat 2's honest envelope, late: refused, nothing stops.
					if err := m.Step(honest); !errors.Is(err, ErrConvicted) {
						t.Errorf("seat %d takes seat 2's second envelope: %v", i+1, err)
					}
					if m.Stopped() {
						t.Fatalf("seat %d stopped at seat 2's second envelope", i+1)
					}
				}
				tb.hook = nil
				tb.drop(cheater)
				tb.run()
				for i, m := range tb.ms {
					if i == cheater {
						continue
					}
					if cs := tb.cheats(i); len(cs) != 1 {
						t.Errorf("seat %d named %d cheats, want seat 2's one: %v", i+1, len(cs), cs)
					}
					if c, ok := m.PublicCard(Handle{Deck: 0, Pos: 0}); !ok || c != held {
						t.Errorf("seat %d sees seat 2's card as %d (%v), want %d", i+1, c, ok, held)
					}
					for _, w := range m.Waiting() {
						t.Errorf("seat %d still waits for %v", i+1, w)
					}
				}
				c1, ok1 := tb.ms[0].Card(Handle{Deck: 0, Pos: 1})
				c3, ok3 := tb.ms[2].Card(Handle{Deck: 0, Pos: 2})
				if !ok1 || !ok3 || c1 == c3 || c1 == held || c3 == held {
					t.Fatalf("after the drop seat 1 drew %d (%v), seat 3 %d (%v); seat 2 held %d", c1, ok1, c3, ok3, held)
				}
				// The deal goes on: a public opening, with no share of seat 2.
				tb.openLive([]int{cheater}, Opening{Deck: 0, Pos: 5, To: Public})
				tb.run()
				c, ok := tb.ms[0].PublicCard(Handle{Deck: 0, Pos: 5})
				for i, m := range tb.ms {
					if i == cheater {
						continue
					}
					if d, dok := m.PublicCard(Handle{Deck: 0, Pos: 5}); !ok || !dok || d != c {
						t.Errorf("seat %d sees card 6 as %d (%v), seat 1 as %d (%v)", i+1, d, dok, c, ok)
					}
				}
			})
		}
	}
}

// TestShareCheatAtTwoSeats: at a table of two, seat 2's wrong share for
// seat 1's draw is named with its evidence; seat 1 does not stop but waits
// for seat 2's drop, which a table of two cannot make (the game pauses,
// lockstep offers the claim of the win).
func TestShareCheatAtTwoSeats(t *testing.T) {
	tb := newTable(t, 2, []Deck{seqDeck(0, 6, 0)})
	tb.run()
	tb.tamper(1, crypto.KindShare, func(env *crypto.Envelope) *crypto.Envelope {
		es, _ := decodeShares(env.Body)
		if len(es) < 2 {
			return nil
		}
		return tb.resign(1, env, encodeShares(shareLies[0].edit(es)))
	})
	tb.open(Opening{Deck: 0, Pos: 0, To: 0}, Opening{Deck: 0, Pos: 1, To: 0})
	tb.run()
	tb.named(CheatWrongShare, 1, 1)
	m := tb.ms[0]
	if m.Stopped() || !m.Convicted(1) {
		t.Fatalf("stopped %v, seat 2 convicted %v", m.Stopped(), m.Convicted(1))
	}
	if w := m.Waiting(); len(w) != 1 || w[0].Seat != 1 || !strings.Contains(w[0].What, "proven wrong") {
		t.Errorf("seat 1 waits for %v", w)
	}
	if text := tb.cheats(0)[0].Text; !strings.Contains(text, "cannot go on without a valid share of seat 2") {
		t.Errorf("the cheat says %q", text)
	}
	if err := m.Drop(1); !errors.Is(err, ErrBadInput) {
		t.Errorf("a 2-seat drop: %v", err)
	}
}
