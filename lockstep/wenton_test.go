package lockstep

import (
	"testing"

	"github.com/boardmesh/boardmesh/crypto"
)

// TestHostileWentOnAnswerDoesNotForkTheDrop: at five seats A, B, C and D
// vote to drop E, which is slow, not gone: its move comes after their
// votes. D is hostile: it gives its vote to B only, so B takes E's drop
// (rightly: every voter it needs voted). D then answers A's gap request
// with E's late move as its committed entry at that position, as if it had
// gone on without voting. Were A to go on on that one answer, it would
// commit E's move where B committed E's drop: two honest peers, two logs,
// on one peer's word. A goes on without the drop only once every voter the
// drop needs has shown it went on (C, honest, never does: it voted), so it
// stays at the position until D's vote reaches it, and then commits B's
// drop.
func TestHostileWentOnAnswerDoesNotForkTheDrop(t *testing.T) {
	n := startDice(t, "drop went on hostile answer", 5, Config{})
	e, _ := n.actor()
	rest := n.others(e)
	a, b, c, d := rest[0], rest[1], rest[2], rest[3]
	votes := map[int]*crypto.Envelope{}
	var move *crypto.Envelope
	for i, p := range n.peers {
		p.hook = func(env *crypto.Envelope) []*crypto.Envelope {
			switch {
			case env.Kind == crypto.KindDrop:
				votes[i] = env
				return nil
			case i == e && env.Kind == crypto.KindAction:
				move = env
				return nil
			}
			return []*crypto.Envelope{env}
		}
	}
	at := len(n.peers[a].node.Log())
	eSeat := n.peers[e].node.mySeat()
	for _, v := range rest {
		if err := n.peers[v].node.VoteDrop([]int{eSeat}); err != nil {
			t.Fatalf("%s: vote to drop E: %v", n.peers[v].name, err)
		}
		n.drain(v)
	}
	deliver := func(to int, env *crypto.Envelope) {
		t.Helper()
		wire, err := crypto.Unmarshal(env.Marshal())
		if err != nil {
			t.Fatal(err)
		}
		_ = n.peers[to].node.Step(wire)
		n.drain(to)
	}
	for _, v := range []int{a, c, d} {
		deliver(b, votes[v])
	}
	if log := n.peers[b].node.Log(); len(log) <= at || log[at].Kind != crypto.KindDrop {
		t.Fatalf("B did not take E's drop at entry %d with every vote", at)
	}
	for _, v := range []int{b, c} {
		deliver(a, votes[v])
	}
	// E's move, late: after every vote.
	if err := n.peers[e].node.Act(n.peers[e].node.State().Legal(nil)[0]); err != nil {
		t.Fatalf("E acts: %v", err)
	}
	n.drain(e)
	if move == nil {
		t.Fatal("E signed no move")
	}
	deliver(a, move)
	if len(n.peers[a].node.Log()) != at {
		t.Fatalf("A, which voted, committed %s at entry %d when E's late move came", n.peers[a].node.Log()[at].Kind, at)
	}
	// D's answer: E's move as its committed entry at that position.
	wire, err := crypto.Unmarshal(move.Marshal())
	if err != nil {
		t.Fatal(err)
	}
	_ = n.peers[a].node.StepAnswer(GapAnswer{Peer: n.peers[d].id.ID(), From: uint64(at), Entries: []*crypto.Envelope{wire}})
	n.drain(a)
	if log := n.peers[a].node.Log(); len(log) > at {
		t.Fatalf("A committed %s at entry %d on D's answer; B committed E's drop: two honest peers, two logs", log[at].Kind, at)
	}
	deliver(a, votes[d])
	if log := n.peers[a].node.Log(); len(log) <= at || !crypto.Equal(log[at], n.peers[b].node.Log()[at]) {
		t.Fatalf("A did not commit B's drop at entry %d once D's vote reached it", at)
	}
	n.noAccusations(rest...)
}
