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
			var out []string
			for _, sl := range append(s.top[:s.topN:s.topN], s.bottom[:s.botN]...) {
				c, bound := boundCard(s, sl.h)
				if bound && knownBy(s, sl.h) != 0 && (seat < 0 || !s.cards.Seen(sl.h, seat)) {
					out = append(out, c.String())
				}
			}
			return out
		}})
}
