package dominion

import (
	"fmt"
	"testing"

	"github.com/boardmesh/boardmesh/engine"
)

// TestApplyAcceptsExactlyLegal checks, in many positions of seeded games,
// every action of every operation on every card id (and some out of range):
// Apply's own check must agree with Legal's list, both ways.
func TestApplyAcceptsExactlyLegal(t *testing.T) {
	games := 12
	if testing.Short() {
		games = 3
	}
	for i := 0; i < games; i++ {
		seed := []byte(fmt.Sprintf("legal/%d", i))
		st, _ := Game.Setup(2+i%3, randomKingdom(i))
		s := st.(*State)
		r := engine.NewRand(seed)
		chance := engine.SeededChance{Seed: seed}
		for step := 0; s.ToAct().Kind != engine.ActorOver && step < 5000; step++ {
			if s.ToAct().Kind == engine.ActorChance {
				if err := s.ApplyChance(chance.Beacon(uint64(step))); err != nil {
					t.Fatal(err)
				}
				continue
			}
			legal := s.Legal(nil)
			if step%3 == 0 {
				for op := 0; op <= opSentry+1; op++ {
					for c := -2; c <= NumCards; c++ {
						for _, a := range []engine.Action{act(op), act(op, c), act(op, c, sentryBack), act(op, c, 3)} {
							checkIsLegal(t, s, legal, a, fmt.Sprintf("game %d step %d", i, step))
						}
					}
					// Every handle of the seat's zones and the aside: the
					// first copy of a card is listed, a later one is not.
					p := &s.p[s.askSeat]
					for _, z := range [][]engine.Handle{p.hand, p.disc, p.deck, p.play, s.aside} {
						for _, h := range z {
							for _, a := range []engine.Action{act(op, int(h.Arg())), act(op, int(h.Arg()), sentryTrash), act(op, int(h.Arg()), sentryBack)} {
								checkIsLegal(t, s, legal, a, fmt.Sprintf("game %d step %d", i, step))
							}
						}
					}
				}
				// Play all Treasures with its cards in another order, or
				// one short, is not the listed move.
				for _, l := range legal {
					if l.Op != opAllTreasures {
						continue
					}
					rev := engine.Action{Op: l.Op}
					for k := len(l.Args) - 1; k >= 0; k-- {
						rev.Args = append(rev.Args, l.Args[k])
					}
					short := engine.Action{Op: l.Op, Args: l.Args[1:]}
					for _, a := range []engine.Action{rev, short} {
						checkIsLegal(t, s, legal, a, fmt.Sprintf("game %d step %d", i, step))
					}
				}
			}
			if err := s.Apply(s.ToAct().Seat, explorer{}.Choose(s, legal, r)); err != nil {
				t.Fatal(err)
			}
		}
	}
}

// checkIsLegal fails t unless isLegal(a) says whether legal lists a.
func checkIsLegal(t *testing.T, s *State, legal []engine.Action, a engine.Action, where string) {
	t.Helper()
	in := false
	for _, l := range legal {
		in = in || l.Equal(a)
	}
	if got := s.isLegal(a); got != in {
		t.Fatalf("%s: isLegal(%v) = %v, Legal lists it: %v; %s", where, a, got, in, s.prompt())
	}
}

// TestDrawsAreFair draws first hands from 7 Coppers and 3 Estates with
// 4000 seeded beacons: each card of the shuffled part must be equally
// likely, so a hand holds 1.5 Estates on average and the 5/2 split (no
// Estate, or all 3 in one hand) comes up as often as the counting says.
func TestDrawsAreFair(t *testing.T) {
	const n = 4000
	estates, noEstate := 0, 0
	for i := 0; i < n; i++ {
		s, _ := newState(2, nil)
		b := engine.Derive([]byte("fair"), "draw", uint64(i))
		if err := s.ApplyChance(b); err != nil {
			t.Fatal(err)
		}
		e := int(s.handOf(0)[Estate])
		estates += e
		if e == 0 {
			noEstate++
		}
	}
	mean := float64(estates) / n
	// P(no Estate in 5 of 10 with 3 Estates) = C(7,5)/C(10,5) = 21/252.
	pNone := float64(noEstate) / n
	if mean < 1.44 || mean > 1.56 {
		t.Errorf("mean Estates per first hand %.3f, want 1.5", mean)
	}
	if pNone < 0.083-0.02 || pNone > 0.083+0.02 {
		t.Errorf("hands with no Estate %.3f, want 0.083", pNone)
	}
}
