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

// TestPlayoutsWithPlayersLeaving drops seats at random points of seeded
// games: the dropped seats are never asked to act again, every invariant
// holds, and every game still ends with a winner who stayed.
func TestPlayoutsWithPlayersLeaving(t *testing.T) {
	games := 300
	if testing.Short() {
		games = 40
	}
	for g := 0; g < games; g++ {
		n := 2 + g%7
		st, err := Game.Setup(n, variantOptions[g%len(variantOptions)])
		if err != nil {
			t.Fatal(err)
		}
		s := st.(*State)
		seed := []byte(fmt.Sprintf("drops/%d", g))
		r := engine.NewRand(seed)
		chance := engine.SeededChance{Seed: seed}
		bs := make([]engine.Bot, n)
		for i := range bs {
			bs[i] = bots[i%len(bots)].New()
		}
		var chanceN uint64
		left := 0
		for step := 0; s.phase != phaseOver; step++ {
			if step > 100000 {
				t.Fatalf("game %d did not end", g)
			}
			if r.Intn(250) == 0 && left < n {
				seat := r.Intn(n)
				if !s.seats[seat].dropped {
					if err := s.Drop(seat); err != nil {
						t.Fatalf("game %d: drop of seat %d: %v", g, seat, err)
					}
					left++
				}
			} else if who := s.ToAct(); who.Kind == engine.ActorChance {
				if err := s.ApplyChance(chance.Beacon(chanceN)); err != nil {
					t.Fatal(err)
				}
				chanceN++
			} else if who.Kind == engine.ActorSeat {
				if s.seats[who.Seat].dropped {
					t.Fatalf("game %d: seat %d left but is asked to act", g, who.Seat)
				}
				legal := s.Legal(nil)
				if err := s.Apply(who.Seat, bs[who.Seat].Choose(s, legal, r)); err != nil {
					t.Fatal(err)
				}
			}
			if err := invariant(s); err != nil {
				t.Fatalf("game %d, step %d: %v", g, step, err)
			}
		}
		for _, w := range s.Result().Winners {
			if s.seats[w].dropped && left < n {
				t.Fatalf("game %d: seat %d left and won", g, w)
			}
		}
	}
}
