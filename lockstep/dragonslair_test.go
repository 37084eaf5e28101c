package lockstep

import (
	"fmt"
	"testing"

	"github.com/boardmesh/boardmesh/crypto"
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

// TestDragonsLairDropUsesDropper: a peer that stops revealing is dropped by
// agreement, and since Dragon's Lair implements engine.Dropper the game
// decides what happens to the seat; the others finish with identical logs.
func TestDragonsLairDropUsesDropper(t *testing.T) {
	g := dragonslair.Game
	n := newSimNet(t, "dl-drop", 4, faults{drop: 30, maxDelay: 40}, games.Lookup, Config{StallAfter: 1500, DropAfter: 5000})
	n.setBots(g)
	cheat := 2
	n.peers[cheat].hook = func(env *crypto.Envelope) []*crypto.Envelope {
		if env.Kind == crypto.KindReveal && env.Seq >= 5 {
			return nil
		}
		return []*crypto.Envelope{env}
	}
	n.lobby(g, nil)
	honest := []int{0, 1, 3}
	if !n.run(2000000, n.allOver(honest...)) {
		for _, i := range honest {
			t.Logf("%s: %v", n.peers[i].name, n.peers[i].events)
		}
		t.Fatalf("honest peers did not finish: %+v", n.peers[0].node.Status())
	}
	r := n.checkAgree(honest...)
	seat := n.peers[cheat].node.mySeat()
	if !r.Dropped[seat] {
		t.Fatal("the withholding seat was not dropped")
	}
	var dropStep bool
	for _, s := range r.Steps {
		dropStep = dropStep || (s.Kind == "drop" && s.Seat == seat)
	}
	if !dropStep {
		t.Fatal("no Dropper step in the replay")
	}
}
