package serpentcity

import (
	"strings"
	"testing"

	"github.com/boardmesh/boardmesh/engine"
)

// TestWalksAreLegalStepByStep: over bot games, every walk offered applies
// step by step, ends on the space its label names, and costs what it says.
func TestWalksAreLegalStepByStep(t *testing.T) {
	walks := 0
	for i := range 3 {
		st, _ := Game.Setup(3, nil)
		bots := []engine.Bot{Game.Bots[0].New(), Game.Bots[0].New(), Game.Bots[0].New()}
		seed := []byte{byte(i), 'w'}
		_, err := engine.PlayOut(st, bots, engine.SeededChance{Seed: seed}, engine.NewRand(seed), 100000, false, func(_, next engine.State, _ engine.Step) {
			s := next.(*State)
			if s.ToAct().Kind != engine.ActorSeat {
				return
			}
			for _, c := range s.Combos(s.Legal(nil)) {
				walks++
				cp := s.Clone().(*State)
				mp := cp.mp
				for k, a := range c.Steps {
					if err := cp.Apply(s.cur, a); err != nil {
						t.Fatalf("%q: step %d (%v) is illegal: %v", c.Label, k+1, a, err)
					}
				}
				if !strings.Contains(c.Label, "to space "+itoa((int(c.Steps[len(c.Steps)-1].Args[0])+1)%s.cfg.R+1)) {
					t.Fatalf("%q does not end where its last step goes", c.Label)
				}
				if spent := mp - cp.mp; !strings.Contains(c.Label, itoa(spent)+" MP") {
					t.Fatalf("%q cost %d MP", c.Label, spent)
				}
			}
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if walks == 0 {
		t.Fatal("no walk was ever offered")
	}
}
