package serpentcity

import (
	"testing"

	"github.com/boardmesh/boardmesh/engine"
	"github.com/boardmesh/boardmesh/engine/enginetest"
)

// TestNoSeatLearnsHiddenCards: no seat's history line or screen names a
// Special Card another player holds, unless its own view shows that card.
func TestNoSeatLearnsHiddenCards(t *testing.T) {
	enginetest.NoLeaks(t, Game, enginetest.PrivacyConfig{Games: 4, Players: []int{2, 4},
		Hidden: func(st engine.State, seat int) []string {
			s := st.(*State)
			var out []string
			for p := range s.pl {
				if p == seat {
					continue
				}
				for d := range s.pl[p].hand {
					for _, h := range s.pl[p].hand[d] {
						// An open table: the state holds every card.
						if k := s.kind(h, p); k >= 0 {
							out = append(out, s.cfg.decks[d][k].Name)
						}
					}
				}
			}
			return out
		}})
}
