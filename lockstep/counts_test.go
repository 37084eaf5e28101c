package lockstep

import (
	"testing"

	"github.com/boardmesh/boardmesh/crypto"
)

// TestMessageCounts counts broadcasts on a clean network: an action costs
// one broadcast, a chance step one round of reveals (one per seated peer,
// sent without waiting for each other), a turn end one round of
// checkpoints (one per seated peer). Nothing else is sent after the lobby.
func TestMessageCounts(t *testing.T) {
	for players := 2; players <= 5; players++ {
		cfg := Config{ResendAfter: 1 << 40, StallAfter: 1 << 40}
		n := newSimNet(t, "counts", players, faults{maxDelay: 1}, testGames, cfg)
		n.setBots(diceGame)
		n.lobby(diceGame, nil)
		if !n.run(100000, n.allOver(n.all()...)) {
			t.Fatal("game did not finish")
		}
		r := n.checkAgree(n.all()...)
		log := n.peers[0].node.Log()
		inLog := map[crypto.Kind]int{}
		for _, env := range log {
			inLog[env.Kind]++
		}
		var actions, chance int
		for _, s := range r.Steps {
			switch s.Kind {
			case "action":
				actions++
			case "chance":
				chance++
			}
		}
		checkpointRounds := inLog[crypto.KindCheckpoint] / players
		want := map[crypto.Kind]int{
			crypto.KindJoin:       players,
			crypto.KindRoster:     1,
			crypto.KindAccept:     players,
			crypto.KindAction:     actions,
			crypto.KindReveal:     players * (chance + 1), // +1: the seat draw
			crypto.KindCheckpoint: players * checkpointRounds,
		}
		if inLog[crypto.KindCheckpoint]%players != 0 || checkpointRounds < r.Final.Turn() {
			t.Fatalf("%d players: %d checkpoints for %d turns", players, inLog[crypto.KindCheckpoint], r.Final.Turn())
		}
		for k := crypto.KindJoin; k <= crypto.KindState; k++ {
			if n.sent[k] != want[k] {
				t.Errorf("%d players: %d %s broadcasts, want %d", players, n.sent[k], k, want[k])
			}
		}
		t.Logf("%d players: %d actions, %d chance steps, %d turn ends: %v broadcasts", players, actions, chance, checkpointRounds, n.sent)
	}
}

// TestChainExtension plays with chains of four reveals, so every peer
// extends its chain many times; the logs still agree and verify.
func TestChainExtension(t *testing.T) {
	n := newSimNet(t, "extend", 3, faults{drop: 50, dup: 50, maxDelay: 50}, testGames, Config{ChainLength: 4})
	n.setBots(diceGame)
	n.lobby(diceGame, nil)
	if !n.run(200000, n.allOver(n.all()...)) {
		t.Fatalf("game did not finish: %+v", n.peers[0].node.Status())
	}
	n.checkAgree(n.all()...)
	ext := 0
	for _, env := range n.peers[0].node.Log() {
		if env.Kind == crypto.KindExtend {
			ext++
		}
	}
	if ext < 3 {
		t.Fatalf("only %d extensions with chains of 4", ext)
	}
}

// TestRestartMidGame crashes a peer, lets the others go on without it,
// and restarts it from its disk log: it replays, re-verifies and catches
// up, and never signs a second envelope for a slot.
func TestRestartMidGame(t *testing.T) {
	for seed := 0; seed < 5; seed++ {
		n := newSimNet(t, "restart"+string(rune('a'+seed)), 3, faults{drop: 50, maxDelay: 30}, testGames, Config{})
		n.setBots(diceGame)
		n.lobby(diceGame, nil)
		n.run(100+seed*37, func() bool { return false })
		n.crash(1)
		n.run(300, func() bool { return false })
		n.restart(1)
		if !n.run(200000, n.allOver(n.all()...)) {
			t.Fatalf("seed %d: game did not finish after the restart: %+v", seed, n.peers[1].node.Status())
		}
		n.checkAgree(n.all()...)
		for _, p := range n.peers {
			for _, ev := range p.events {
				if ev.Kind == EventEquivocation || ev.Kind == EventDesync {
					t.Fatalf("seed %d: %s: %v", seed, p.name, ev)
				}
			}
		}
	}
}
