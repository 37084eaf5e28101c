package dragonslair

import (
	"fmt"
	"testing"

	"github.com/boardmesh/boardmesh/engine"
	"github.com/boardmesh/boardmesh/engine/enginetest"
)

// variantOptions cycles the playouts through the edition, the variants
// and the hero modes.
var variantOptions = []engine.Options{
	nil,
	{{Name: optEdition, Value: "free"}},
	{{Name: optFirstGame, Value: "true"}},
	{{Name: optShortGame, Value: "true"}},
	{{Name: optChildren, Value: "true"}},
	{{Name: optHeroes, Value: "chosen"}},
	{{Name: optEdition, Value: "free"}, {Name: optChildren, Value: "true"}, {Name: optShortGame, Value: "true"}},
	{{Name: optRedField, Value: "3"}, {Name: optEggBonus, Value: "0"}},
}

// invariant is what holds after every step of every game: every card in
// exactly one place, no negative gold, at most one noise beside the bag
// while the player still decides, and the figure inside the cave.
func invariant(st engine.State) error {
	s, ok := st.(*State)
	if !ok {
		return fmt.Errorf("state of type %T", st)
	}
	if err := s.check(); err != nil {
		return err
	}
	for i := 0; i < int(s.n); i++ {
		if s.seats[i].score < 0 {
			return fmt.Errorf("seat %d has %d gold", i, s.seats[i].score)
		}
	}
	if s.hall > nest {
		return fmt.Errorf("figure in hall %d", s.hall)
	}
	switch s.phase {
	case phaseStart, phaseCard, phaseSphere, phasePeek:
		if s.noises() > 1 {
			return fmt.Errorf("%d noises beside the bag in a running turn", s.noises())
		}
	case phaseDwarf:
		if s.noises() != 2 {
			return fmt.Errorf("the Dwarf decides with %d noises", s.noises())
		}
	}
	if s.phase == phaseStart && (s.hall != 0 || s.bagCards() != 0 || s.noises() != 0) {
		return fmt.Errorf("a turn starts outside the Exit or with cards in front")
	}
	if s.phase == phaseOver && s.winner == 0 {
		return fmt.Errorf("game over without a winner")
	}
	return nil
}

func TestRandomPlayoutsKeepEveryInvariant(t *testing.T) {
	games := 430 // per player count: 7 counts, 3010 games
	if testing.Short() {
		games = 40
	}
	enginetest.Playouts(t, Game, enginetest.Config{
		Games:     games,
		Options:   func(i int) engine.Options { return variantOptions[i%len(variantOptions)] },
		Invariant: invariant,
	})
}
