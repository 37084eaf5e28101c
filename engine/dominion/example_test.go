package dominion_test

import (
	"fmt"

	"github.com/boardmesh/boardmesh/engine"
	"github.com/boardmesh/boardmesh/engine/dominion"
)

// A game starts waiting for chance (the first hands); then the seat to act
// picks among its legal actions until a card effect asks someone else.
func Example() {
	s, err := dominion.Game.Setup(2, engine.Options{{Name: "kingdom", Value: "first-game"}})
	if err != nil {
		panic(err)
	}
	fmt.Println(s.ToAct())
	if err := s.ApplyChance(engine.Derive([]byte("example"), "beacon", 0)); err != nil {
		panic(err)
	}
	fmt.Println(s.ToAct())
	for _, a := range s.Legal(nil) {
		fmt.Println(s.Describe(a))
	}
	// Output:
	// chance
	// seat 0
	// Play Copper
	// Play all Treasures
	// Buy Copper ($0)
	// Buy Curse ($0)
	// End turn without buying
}
