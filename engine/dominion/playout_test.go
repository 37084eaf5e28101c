package dominion

import (
	"fmt"
	"testing"

	"github.com/boardmesh/boardmesh/engine"
	"github.com/boardmesh/boardmesh/engine/enginetest"
)

// invariant checks card conservation (every card in exactly one place, so
// the counts over all places equal the set-up's totals), that no count is
// negative, and that a choice is asked only with a card being played.
func invariant(st engine.State) error {
	s := st.(*State)
	want := s.initialTotals()
	var got counts
	add := func(where string, z *counts) error {
		for c, v := range z {
			if v < 0 {
				return fmt.Errorf("%s has %d %s", where, v, cards[c].name)
			}
			got[c] += v
		}
		return nil
	}
	if err := add("supply", &s.supply); err != nil {
		return err
	}
	if err := add("trash", &s.trash); err != nil {
		return err
	}
	for i := range s.p {
		p := &s.p[i]
		for _, z := range []struct {
			n string
			z *counts
		}{{"hand", &p.hand}, {"pool", &p.pool}, {"discard", &p.disc}, {"play", &p.play}} {
			if err := add(fmt.Sprintf("seat %d %s", i, z.n), z.z); err != nil {
				return err
			}
		}
		for _, c := range p.top {
			got[c]++
		}
	}
	for _, c := range s.aside {
		got[c]++
	}
	if got != want {
		for c := range got {
			if got[c] != want[c] {
				return fmt.Errorf("%d %s in the game, want %d", got[c], cards[c].name, want[c])
			}
		}
	}
	if s.actions < 0 || s.buys < 0 || s.coins < 0 {
		return fmt.Errorf("negative actions/buys/coins %d/%d/%d", s.actions, s.buys, s.coins)
	}
	if s.ask > askMain && len(s.stack) == 0 {
		return fmt.Errorf("choice %d asked with no card being played", s.ask)
	}
	if s.phase != phaseOver && s.req == reqNone && s.ask == askNone {
		return fmt.Errorf("nobody to act")
	}
	return nil
}

func randomKingdom(i int) engine.Options {
	return engine.Options{{Name: optRandom, Value: "true"}}
}

func TestPlayoutsRandomKingdoms(t *testing.T) {
	games := 400
	if testing.Short() {
		games = 40
	}
	enginetest.Playouts(t, Game, enginetest.Config{
		Games:     games,
		Players:   []int{2, 3, 4},
		Options:   randomKingdom,
		Invariant: invariant,
		SyncEvery: 3,
	})
}

func TestPlayoutsManyPlayers(t *testing.T) {
	games := 60
	if testing.Short() {
		games = 6
	}
	enginetest.Playouts(t, Game, enginetest.Config{
		Games:     games,
		Players:   []int{5, 6},
		Options:   randomKingdom,
		Invariant: invariant,
		SyncEvery: 5,
	})
}
