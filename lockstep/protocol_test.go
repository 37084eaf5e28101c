package lockstep

import (
	"fmt"
	"testing"

	"github.com/boardmesh/boardmesh/engine"
)

func TestDiceRaceCleanNetwork(t *testing.T) {
	for players := 2; players <= 4; players++ {
		n := newSimNet(t, fmt.Sprint("clean", players), players, faults{maxDelay: 1}, testGames, Config{})
		n.setBots(diceGame)
		n.lobby(diceGame, nil)
		if !n.run(200000, n.allOver(n.all()...)) {
			t.Fatalf("%d players: game did not finish: %+v", players, n.peers[0].node.Status())
		}
		r := n.checkAgree(n.all()...)
		if r.Result == nil || len(r.Steps) == 0 {
			t.Fatalf("replay has no result")
		}
	}
}

func TestDiceRaceFaultyNetwork(t *testing.T) {
	for seed := 0; seed < 20; seed++ {
		players := 2 + seed%5
		n := newSimNet(t, fmt.Sprint("faulty", seed), players, faults{drop: 100, dup: 100, maxDelay: 200}, testGames, Config{})
		n.setBots(diceGame)
		n.lobby(diceGame, engine.Options{{Name: "goal", Value: "30"}})
		if !n.run(400000, n.allOver(n.all()...)) {
			t.Fatalf("seed %d: game did not finish: %+v", seed, n.peers[0].node.Status())
		}
		n.checkAgree(n.all()...)
	}
}
