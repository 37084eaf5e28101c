package infinitecity

import (
	"testing"

	"github.com/boardmesh/boardmesh/engine"
	"github.com/boardmesh/boardmesh/engine/enginetest"
)

// TestNoSeatLearnsHiddenTiles: no seat's history line or screen names a
// tile of another player's hand or of a Library look that is not also in
// its own view.
func TestNoSeatLearnsHiddenTiles(t *testing.T) {
	enginetest.NoLeaks(t, Game, enginetest.PrivacyConfig{Games: 4, Players: []int{2, 4},
		Hidden: func(st engine.State, seat int) []string {
			s := st.(*State)
			var out []string
			for p, h := range s.hands {
				if p != seat {
					for _, k := range kindsOf(s, h, p) {
						out = append(out, s.set.Kinds[k].Name)
					}
				}
			}
			if seat != s.current {
				for _, k := range kindsOf(s, s.peek, s.current) {
					out = append(out, s.set.Kinds[k].Name)
				}
			}
			return out
		}})
}
