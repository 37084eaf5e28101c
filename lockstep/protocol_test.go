package lockstep

import (
	"fmt"
	"strings"
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

// TestVersionMismatchRefused: a peer whose program has another rules
// version of the game refuses the roster and says why; it commits nothing.
func TestVersionMismatchRefused(t *testing.T) {
	// No re-proposal during the test: the host waits (AcceptTimeout is tested apart).
	n := newSimNet(t, "version", 3, faults{maxDelay: 1}, testGames, Config{AcceptTimeout: 1 << 40})
	old := *diceGame
	old.Version = "dicerace/0"
	n.peers[2].cfg.Games = func(string) (*engine.Game, error) { return &old, nil }
	node, err := New(n.peers[2].cfg)
	if err != nil {
		t.Fatal(err)
	}
	n.peers[2].node = node
	n.lobby(diceGame, nil)
	n.run(500, func() bool { return false })
	var refused *Event
	for i, ev := range n.peers[2].events {
		if ev.Kind == EventRefused {
			refused = &n.peers[2].events[i]
		}
	}
	if refused == nil || !strings.Contains(refused.Text, "dicerace/1") || !strings.Contains(refused.Text, "dicerace/0") {
		t.Fatalf("no refusal naming both versions: %v", n.peers[2].events)
	}
	if len(n.peers[2].node.Log()) != 0 {
		t.Fatal("the refusing peer committed entries")
	}
	// The others wait for its accept, and say so.
	if w := n.peers[0].node.Waiting(); len(w) != 1 || w[0].Peer != n.peers[2].id.ID() || w[0].What != "an accept" {
		t.Fatalf("host waits for %v", w)
	}
}

// TestLateJoinerSpectates: a peer that joins after the roster follows the
// game as a spectator and ends with the same log.
func TestLateJoinerSpectates(t *testing.T) {
	n := newSimNet(t, "late", 3, faults{maxDelay: 10}, testGames, Config{})
	late := n.peers[2]
	n.peers = n.peers[:2]
	n.setBots(diceGame)
	n.lobby(diceGame, nil)
	n.run(50, func() bool { return false })
	n.peers = append(n.peers, late)
	n.cut = append(n.cut, make([]bool, 3))
	for i := range n.cut {
		n.cut[i] = append(n.cut[i], false)[:3]
	}
	if err := late.node.Join(n.peers[0].node.Status().Lobby); err != nil {
		t.Fatal(err)
	}
	n.drain(2)
	if !n.run(200000, n.allOver(0, 1, 2)) {
		t.Fatalf("spectator did not follow to the end: %+v", late.node.Status())
	}
	n.checkAgree(0, 1, 2)
	if late.node.Status().MySeat != -1 {
		t.Fatal("late joiner got a seat")
	}
}
