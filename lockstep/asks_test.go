package lockstep

import (
	"testing"

	"github.com/boardmesh/boardmesh/engine/dragonslair"
	"github.com/boardmesh/boardmesh/engine/games"
)

// waitingTable is a 4-peer Dragon's Lair table part-way into the game
// whose bots have stopped, so that it waits for the one seat to act, as a
// table waits for a human who thinks; it returns that seat's peer.
func waitingTable(t *testing.T, seed string) (*simNet, int) {
	t.Helper()
	g := dragonslair.Game
	n := newSimNet(t, seed, 4, faults{maxDelay: 5}, games.Lookup, Config{})
	n.setBots(g)
	n.lobby(g, nil)
	if !n.run(100000, func() bool { return len(n.peers[0].node.Log()) >= 40 }) {
		t.Fatal("the game did not start")
	}
	for _, p := range n.peers {
		p.bot = nil
	}
	actor := -1
	quiet := func() bool {
		actor = -1
		for i, p := range n.peers {
			if len(p.node.Log()) != len(n.peers[0].node.Log()) {
				return false
			}
			if p.node.CanAct() {
				actor = i
			}
		}
		return actor >= 0 && len(n.flight) == 0 && len(n.answers) == 0
	}
	if !n.run(100000, quiet) {
		t.Fatal("the table never came to wait for one seat")
	}
	return n, actor
}

// TestLongWaitAsksFew: while a table waits a minute for one player, a
// peer asks the others for a gap a few times, not once a second. Nothing
// is lost in such a wait; each ask is answered with forkOverlap entries
// the asker has (and at a secret table the card envelopes near them).
// Before the asks backed off (asks.go), every peer asked 55-60 times in
// the minute, and was answered 64 entries each time.
func TestLongWaitAsksFew(t *testing.T) {
	n, actor := waitingTable(t, "long-wait")
	asks := make([]int, len(n.peers))
	entries := make([]int, len(n.peers))
	start := n.now
	for n.now < start+60000 {
		n.step()
		// What this step asked is in flight: each answer is delivered at
		// the next step.
		for _, a := range n.answers {
			asks[a.to]++
			entries[a.to] += len(a.a.Entries)
		}
	}
	for i := range n.peers {
		if asks[i] > 10 || entries[i] > 10*forkOverlap {
			t.Errorf("%s (the seat waited for: %v) asked %d times in a minute's wait and was answered %d entries, want at most 10 and %d",
				n.peers[i].name, i == actor, asks[i], entries[i], 10*forkOverlap)
		}
	}
	t.Logf("asks per peer in 60 s: %v; entries answered: %v", asks, entries)
	// The table goes on when the player acts, and ends identical.
	n.setBots(dragonslair.Game)
	if !n.run(200000, n.allOver(n.all()...)) {
		t.Fatal("the game did not finish after the wait")
	}
	n.checkAgree(n.all()...)
}

// TestLostInLongWaitRecovered: the player acts after a long wait (the
// asks have backed off to their cap) and one peer hears nothing of it, nor
// of anything the others send for a while after: once it hears them
// again it has the action within the cap of the backoff (ResendAfter
// times maxAskBackoff), from their answers, and the game ends identical
// everywhere.
func TestLostInLongWaitRecovered(t *testing.T) {
	n, actor := waitingTable(t, "lost-in-wait")
	deaf := (actor + 1) % len(n.peers)
	start := n.now
	n.run(100000, func() bool { return n.now >= start+40000 })
	at := len(n.peers[actor].node.Log())
	for from := range n.peers {
		n.cut[from][deaf] = true
	}
	st := n.peers[actor].node.State()
	a := dragonslair.Game.Bots[0].New().Choose(st, st.Legal(nil), n.peers[actor].botRand)
	if err := n.peers[actor].node.Act(a); err != nil {
		t.Fatal(err)
	}
	n.drain(actor)
	cut := n.now
	n.run(100000, func() bool { return n.now >= cut+5000 })
	if got := len(n.peers[deaf].node.Log()); got != at {
		t.Fatalf("%s committed %d entries while it heard nothing", n.peers[deaf].name, got-at)
	}
	n.heal()
	healed := n.now
	limit := healed + maxAskBackoff*DefaultResendAfter + 1000
	if !n.run(100000, func() bool { return len(n.peers[deaf].node.Log()) > at || n.now > limit }) || n.now > limit {
		t.Fatalf("%s lacked the action %d ms after it heard the others again", n.peers[deaf].name, n.now-healed)
	}
	t.Logf("%s had the action %d ms after it heard the others again", n.peers[deaf].name, n.now-healed)
	n.setBots(dragonslair.Game)
	if !n.run(200000, n.allOver(n.all()...)) {
		t.Fatal("the game did not finish after the wait")
	}
	n.checkAgree(n.all()...)
}
