package dragonslair_test

import (
	"fmt"

	"github.com/boardmesh/boardmesh/engine"
	"github.com/boardmesh/boardmesh/engine/dragonslair"
)

// A game is set up through the registry's engine.Game value and driven
// by chance steps (beacon bytes) and the seats' actions, one actor at a
// time, until it is over.
func Example() {
	s, err := dragonslair.Game.Setup(3, engine.Options{{Name: "heroes", Value: "none"}})
	if err != nil {
		panic(err)
	}
	chance := engine.SeededChance{Seed: []byte("example")}
	var n uint64
	for step := 0; step < 4; step++ {
		who := s.ToAct()
		if who.Kind == engine.ActorChance {
			s.ApplyChance(chance.Beacon(n))
			n++
			continue
		}
		legal := s.Legal(nil)
		fmt.Printf("%s may: %s\n", who, s.Describe(legal[0]))
		s.Apply(who.Seat, legal[0])
	}
	fmt.Println(s.Turn(), "turns ended")
	// Output:
	// seat 0 may: Turn over the next card (into hall 1, escape bonus +0)
	// seat 0 may: Turn over the next card (into hall 2, escape bonus +0)
	// 0 turns ended
}
