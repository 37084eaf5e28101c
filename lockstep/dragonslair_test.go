package lockstep

import (
	"fmt"
	"testing"

	"github.com/boardmesh/boardmesh/engine"
	"github.com/boardmesh/boardmesh/engine/dragonslair"
	"github.com/boardmesh/boardmesh/engine/games"
)

// dlRuns is the number of seeded full Dragon's Lair games over the
// simulated network; -short runs a tenth of them.
const dlRuns = 500

// TestDragonsLairOverFaultyNetwork plays full games of The Sleeping
// Dragon's Lair with 2–8 bot peers over a network that drops, duplicates,
// delays and reorders, with partitions and crash-restarts mixed in, and
// checks that every peer ends with the identical log and hash sequence
// and that the log verifies on its own.
func TestDragonsLairOverFaultyNetwork(t *testing.T) {
	runs := dlRuns
	if testing.Short() {
		runs = dlRuns / 10
	}
	g := dragonslair.Game
	for seed := 0; seed < runs; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			t.Parallel()
			playDL(t, g, seed)
		})
	}
}

func playDL(t *testing.T, g *engine.Game, seed int) {
	players := 2 + seed%7
	f := faults{maxDelay: 1}
	switch seed % 4 {
	case 1:
		f = faults{drop: 50, dup: 50, maxDelay: 100}
	case 2:
		f = faults{drop: 150, dup: 100, maxDelay: 300}
	case 3:
		f = faults{dup: 200, maxDelay: 500}
	}
	n := newSimNet(t, fmt.Sprint("dl", seed), players, f, games.Lookup, Config{})
	n.setBots(g)
	n.lobby(g, nil)
	// Every fifth game crashes a peer mid-game and restarts it from its
	// disk; every seventh cuts one off for a while.
	victim := seed % players
	n.run(300+seed%200, func() bool { return false })
	if seed%5 == 0 {
		n.crash(victim)
		n.run(200, func() bool { return false })
		n.restart(victim)
	}
	if seed%7 == 0 {
		n.isolate(victim)
		n.run(300, func() bool { return false })
		n.heal()
	}
	if !n.run(2000000, n.allOver(n.all()...)) {
		t.Fatalf("seed %d, %d players: game did not finish: %+v", seed, players, n.peers[0].node.Status())
	}
	r := n.checkAgree(n.all()...)
	if r.Result == nil {
		t.Fatalf("seed %d: replay has no result", seed)
	}
}
