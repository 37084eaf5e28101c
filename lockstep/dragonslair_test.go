package lockstep

import (
	"flag"
	"fmt"
	"testing"

	"github.com/boardmesh/boardmesh/crypto"
	"github.com/boardmesh/boardmesh/engine"
	"github.com/boardmesh/boardmesh/engine/dragonslair"
	"github.com/boardmesh/boardmesh/engine/games"
)

// dlRuns is the number of seeded full Dragon's Lair games over the
// simulated network; -short runs a tenth of them. 200 seeds meet every
// table size with every fault mix about seven times, and every crash,
// partition and quitter case many times (crashes 36, partitions 29,
// quitters 19), in two fifths of the time the 500 of before took;
// a longer soak is a flag away:
//
//	go test -run TestDragonsLairOverFaultyNetwork -dl.runs 5000 ./lockstep/
var dlRuns = flag.Int("dl.runs", 200, "seeded Dragon's Lair games of TestDragonsLairOverFaultyNetwork")

// dlStepLimit bounds one game in 10 ms steps of simulated time.
var dlStepLimit = 1000000

// TestDragonsLairOverFaultyNetwork plays full games of The Sleeping
// Dragon's Lair with 2–8 bot peers over a network that drops, duplicates,
// delays and reorders, with partitions and crash-restarts mixed in, and
// checks that every peer ends with the identical log and hash sequence
// and that the log verifies on its own.
func TestDragonsLairOverFaultyNetwork(t *testing.T) {
	runs := *dlRuns
	if testing.Short() {
		runs = max(runs/10, 1)
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
	cfg := Config{}
	quits := seed%9 == 0 && players >= 3 // a table of two cannot drop: no majority
	if quits {
		cfg = Config{StallAfter: 2000, DropAfter: 6000}
	}
	n := newSimNet(t, fmt.Sprint("dl", seed), players, f, games.Lookup, cfg)
	n.setBots(g)
	victim := seed % players
	peers := n.all()
	if quits {
		// Every ninth game, one peer stops revealing after a while and
		// is dropped by the others' agreement; the game's Dropper takes
		// its seat.
		quitter := (victim + 1) % players
		from := uint64(3 + seed%20)
		n.peers[quitter].hook = func(env *crypto.Envelope) []*crypto.Envelope {
			if env.Kind == crypto.KindReveal && env.Seq >= from {
				return nil
			}
			return []*crypto.Envelope{env}
		}
		peers = append(peers[:quitter:quitter], peers[quitter+1:]...)
	}
	n.lobby(g, nil)
	// Every fifth game crashes a peer mid-game and restarts it from its
	// disk; every seventh cuts one off for a while.
	n.run(300+seed%200, func() bool { return false })
	// Crashes and partitions are left out of the games with a quitter: a
	// peer cut off for longer than DropAfter is rightly dropped too, and a
	// dropped peer that went on alone cannot rejoin (it stops and says so,
	// see Node.forked), so "every honest peer finishes" would not hold.
	if seed%5 == 0 && !quits {
		n.crash(victim)
		n.run(200, func() bool { return false })
		n.restart(victim)
	}
	if seed%7 == 0 && !quits {
		n.isolate(victim)
		n.run(300, func() bool { return false })
		n.heal()
	}
	if !n.run(dlStepLimit, n.allOver(peers...)) {
		for _, i := range n.all() {
			evs := n.peers[i].events
			if len(evs) > 12 {
				evs = evs[len(evs)-12:]
			}
			t.Logf("%s (seat %d): %v", n.peers[i].name, n.peers[i].node.mySeat(), evs)
			var votes []string
			for _, ev := range n.peers[i].events {
				if ev.Kind == EventDropVote || ev.Kind == EventDropped || ev.Kind == EventWaiting {
					votes = append(votes, fmt.Sprintf("%v@%d", ev, ev.Seq))
				}
			}
			t.Logf("%s: log %d, voted %v, votes %v", n.peers[i].name, len(n.peers[i].node.Log()), n.peers[i].node.voted, votes)
		}
		for _, i := range peers[1:] {
			a, b := n.peers[peers[0]].node.Log(), n.peers[i].node.Log()
			for k := 0; k < len(a) && k < len(b); k++ {
				if !crypto.Equal(a[k], b[k]) {
					t.Logf("%s vs %s: first difference at entry %d: %s seq %d by %s vs %s seq %d by %s", n.peers[peers[0]].name, n.peers[i].name,
						k, a[k].Kind, a[k].Seq, n.peers[0].node.m.nameOf(a[k].Author), b[k].Kind, b[k].Seq, n.peers[0].node.m.nameOf(b[k].Author))
					break
				}
			}
		}
		t.Fatalf("seed %d, %d players: game did not finish: %+v", seed, players, n.peers[peers[0]].node.Status())
	}
	r := n.checkAgree(peers...)
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

// TestDropDuringEarlyAction: a peer stops sending checkpoints and is
// dropped at a checkpoint round while the next turn's first action, sent
// with its author's checkpoint (Node.CanAct), is already buffered
// everywhere. The drop changes the state (Dragon's Lair's Dropper), so
// that action is never committed; its author is not named for it (it was
// its move when it signed), and the game goes on to the end.
func TestDropDuringEarlyAction(t *testing.T) {
	g := dragonslair.Game
	voided := 0
	for seed := 0; seed < 6; seed++ {
		n := newSimNet(t, fmt.Sprint("early-drop", seed), 4, faults{maxDelay: 1}, games.Lookup,
			Config{StallAfter: 1500, DropAfter: 5000})
		n.setBots(g)
		quitter := seed % 4
		from := uint64(20 + 7*seed)
		n.peers[quitter].hook = func(env *crypto.Envelope) []*crypto.Envelope {
			if env.Kind == crypto.KindCheckpoint && env.Seq >= from {
				return nil
			}
			return []*crypto.Envelope{env}
		}
		n.lobby(g, nil)
		var honest []int
		for i := range n.peers {
			if i != quitter {
				honest = append(honest, i)
			}
		}
		if !n.run(2000000, n.allOver(honest...)) {
			t.Fatalf("seed %d: honest peers did not finish: %+v", seed, n.peers[honest[0]].node.Status())
		}
		r := n.checkAgree(honest...)
		for _, i := range honest {
			for _, ev := range n.peers[i].events {
				if ev.Kind == EventCheat && ev.Peer != n.peers[quitter].id.ID() {
					t.Errorf("seed %d: %s names an honest peer: %s", seed, n.peers[i].name, ev.Text)
				}
			}
		}
		// The case this test is for: an honest peer's action signed for
		// a step that became the drop.
		for _, i := range honest {
			for s, env := range n.peers[i].node.sent {
				if s.kind == crypto.KindAction && env.Seq < uint64(len(r.Steps)) && r.Steps[env.Seq].Kind == "drop" {
					voided++
				}
			}
		}
	}
	if voided == 0 {
		t.Fatal("no early action was overtaken by a drop: the test did not test its case")
	}
}
