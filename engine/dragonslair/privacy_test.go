package dragonslair

import (
	"testing"

	"github.com/boardmesh/boardmesh/engine"
	"github.com/boardmesh/boardmesh/engine/enginetest"
)

// TestNoSeatLearnsPeekedCards: the cards a seat has seen on top of the
// pile or sent under it (Crystal Sphere, Elf Tracker) are named to no
// other seat, in its history or on its screen.
func TestNoSeatLearnsPeekedCards(t *testing.T) {
	enginetest.NoLeaks(t, Game, enginetest.PrivacyConfig{Games: 30, Players: []int{2, 4},
		Hidden: func(st engine.State, seat int) []string {
			s := st.(*State)
			var mask uint8
			if seat >= 0 {
				mask = 1 << seat
			}
			var out []string
			for _, sl := range s.top[:s.topN] {
				if sl.known != 0 && sl.known&mask == 0 {
					out = append(out, sl.card.String())
				}
			}
			for _, sl := range s.bottom[:s.botN] {
				if sl.known != 0 && sl.known&mask == 0 {
					out = append(out, sl.card.String())
				}
			}
			return out
		}})
}
