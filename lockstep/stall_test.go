package lockstep

import (
	"testing"

	"github.com/boardmesh/boardmesh/crypto"
	"github.com/boardmesh/boardmesh/engine/dragonslair"
	"github.com/boardmesh/boardmesh/engine/games"
)

// TestStalledPeerAsksEveryPeerInPlay: a stalled node's gap requests name
// the other seated peers still in play, each in turn, and never a dropped
// one. (Before, the node left the choice to the runner; the simulated
// network's random pick asked the dropped, silent peer five times in a
// row while the input it lacked was committed, and so no longer re-sent,
// everywhere else: the table then dropped that honest peer, case 198 of
// TestDragonsLairOverFaultyNetwork.)
func TestStalledPeerAsksEveryPeerInPlay(t *testing.T) {
	g := dragonslair.Game
	n := newSimNet(t, "ask-in-turn", 4, faults{maxDelay: 1}, games.Lookup, Config{StallAfter: 1500, DropAfter: 5000})
	n.setBots(g)
	quitter := 2
	n.peers[quitter].hook = func(env *crypto.Envelope) []*crypto.Envelope {
		if env.Kind == crypto.KindReveal && env.Seq >= 5 {
			return nil
		}
		return []*crypto.Envelope{env}
	}
	n.lobby(g, nil)
	seat := func(i int) int { return n.peers[i].node.mySeat() }
	if !n.run(200000, func() bool { return n.peers[0].node.m.dropped != nil && n.peers[0].node.m.dropped[seat(quitter)] }) {
		t.Fatal("the quitting peer was not dropped")
	}
	asked := map[crypto.PeerID]int{}
	n.onRequest = func(from int, req GapRequest) {
		if from == 0 {
			asked[req.To]++
		}
	}
	// Cut P0 off: it stalls and asks for the gap once per resend period.
	n.isolate(0)
	n.run(1000, func() bool { return false })
	for _, i := range []int{1, 3} {
		if asked[n.peers[i].id.ID()] == 0 {
			t.Errorf("stalled P0 never asked %s, a peer in play: asked %v", n.peers[i].name, asked)
		}
	}
	if k := asked[n.peers[quitter].id.ID()]; k > 0 {
		t.Errorf("stalled P0 asked the dropped %s %d times", n.peers[quitter].name, k)
	}
	if k := asked[""]; k > 0 {
		t.Errorf("stalled P0 left the peer to ask unnamed %d times", k)
	}
}

// TestDroppedPeerThatWentOnAloneStops: a peer the others can no longer
// hear (it still hears them) is dropped by their agreement, while it,
// having every input, commits a few entries past the drop position on
// its own. Once it is heard again its gap requests must show it where the
// logs part, so that it stops and says so (Node.forked) instead of
// waiting forever; the others finish the game with identical logs.
func TestDroppedPeerThatWentOnAloneStops(t *testing.T) {
	g := dragonslair.Game
	n := newSimNet(t, "went-on-alone", 3, faults{maxDelay: 1}, games.Lookup, Config{StallAfter: 2000, DropAfter: 6000})
	n.setBots(g)
	n.lobby(g, nil)
	n.run(300, func() bool { return false })
	// P0's messages and answers no longer reach the others.
	n.cut[0][1], n.cut[0][2] = true, true
	mine := n.peers[0].node.mySeat()
	if !n.run(200000, func() bool { return n.peers[1].node.m.dropped[mine] && n.peers[2].node.m.dropped[mine] }) {
		t.Fatal("the unheard peer was not dropped")
	}
	at := len(n.peers[1].node.Log())
	n.heal()
	stopped := func() bool {
		for _, ev := range n.peers[0].events {
			if ev.Kind == EventDropped && ev.Peer == n.peers[0].id.ID() {
				return true
			}
		}
		return false
	}
	if !n.run(200000, func() bool { return stopped() && n.allOver(1, 2)() }) {
		t.Fatalf("P0 (log %d, the others' %d after the drop) did not stop: %v; the others over: %v",
			len(n.peers[0].node.Log()), at, n.peers[0].node.Status().Waiting, n.allOver(1, 2)())
	}
	n.checkAgree(1, 2)
}
