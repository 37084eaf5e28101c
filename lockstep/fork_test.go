package lockstep

import (
	"testing"

	"github.com/boardmesh/boardmesh/crypto"
)

// dropVoteAt is seat voter's signed vote to drop seats at log position at.
func dropVoteAt(n *simNet, voter int, at uint64, seats []int) *crypto.Envelope {
	p := n.peers[0].node
	return n.signAs(voter, &crypto.Envelope{Session: p.Status().Session, Seq: at, Kind: crypto.KindDrop,
		StateHash: p.m.hashes[p.m.seq], Body: encodeSeats(seats)})
}

// TestOneMemberCannotForkAPeerOut: a gap answer whose committed log
// differs from ours once stopped us if it held one signed drop vote for
// our seat at that position — so one member could stop any other peer
// with its own vote. Now the drop group must hold a vote from every
// voter the drop needs; one member's (or a minority's) vote changes
// nothing and the game goes on, while the whole group still tells a
// peer that the others went on without it.
func TestOneMemberCannotForkAPeerOut(t *testing.T) {
	n := startDice(t, "fork", 4, Config{})
	victim := 0
	p := n.peers[victim].node
	at := uint64(len(p.Log()))
	if at < 2 {
		t.Fatal("no log yet")
	}
	idx := at - 1
	seat := p.mySeat()
	var others []int
	for i := range n.peers {
		if i != victim {
			others = append(others, i)
		}
	}
	for _, liars := range [][]int{others[:1], others[:2]} {
		var entries []*crypto.Envelope
		for _, l := range liars {
			entries = append(entries, dropVoteAt(n, l, idx, []int{seat}))
		}
		_ = p.StepAnswer(GapAnswer{Peer: n.peers[liars[0]].id.ID(), From: idx, Entries: entries})
		n.drain(victim)
		if p.Status().Phase == PhaseStopped {
			t.Fatalf("%d member(s)' drop votes stopped the victim: %v", len(liars), n.peers[victim].events)
		}
	}
	n.setBots(diceGame)
	if !n.run(200000, n.allOver(n.all()...)) {
		t.Fatalf("the game did not finish: %+v", p.Status())
	}
	n.checkAgree(n.all()...)

	// The whole group (every other seat's vote) is the others' word that
	// they went on without us: that stops the lone peer.
	n2 := startDice(t, "fork-all", 3, Config{})
	q := n2.peers[victim].node
	idx = uint64(len(q.Log())) - 1
	var all []*crypto.Envelope
	for i := range n2.peers {
		if i != victim {
			all = append(all, dropVoteAt(n2, i, idx, []int{q.mySeat()}))
		}
	}
	_ = q.StepAnswer(GapAnswer{Peer: n2.peers[1].id.ID(), From: idx, Entries: all})
	if q.Status().Phase != PhaseStopped {
		t.Fatal("a complete drop group did not tell the lone peer it was dropped")
	}
}
