package lockstep

import (
	"testing"

	"github.com/boardmesh/boardmesh/crypto"
	"github.com/boardmesh/boardmesh/engine"
)

// TestLyingStateEnvelopeBlamesItsAuthor: a member sends a state envelope
// whose hashes contradict a checkpoint it signed with everyone. That once
// stopped the game with a desync report naming an honest player's move
// as the first divergent entry. Now the author is named as the suspect
// (CheatLyingState) and the game goes on; a state that differs only
// where nobody signed a differing hash stops nothing and blames nobody.
func TestLyingStateEnvelopeBlamesItsAuthor(t *testing.T) {
	n := newSimNet(t, "liar", 3, faults{maxDelay: 5}, testGames, Config{})
	n.setBots(diceGame)
	n.lobby(diceGame, nil)
	if !n.run(100000, func() bool { return len(n.peers[0].node.m.cps) >= 3 }) {
		t.Fatal("no checkpoints agreed")
	}
	liar, victim := 2, 0
	p := n.peers[victim].node
	m := p.m
	seq, from := m.seq, m.cps[1]
	hashes := append([]crypto.Hash(nil), m.hashes[from:seq+1]...)
	hashes[0][0] ^= 1 // the agreed checkpoint at from, signed by the liar too
	lie := stateEnvelope(n, liar, seq, &stateBody{From: from, Hashes: hashes, State: []byte{1}}, hashes[len(hashes)-1])
	n.peers[victim].events = nil
	_ = p.Step(lie)
	n.drain(victim)
	named := false
	for _, ev := range n.peers[victim].events {
		if ev.Kind == EventDesync {
			t.Fatalf("a lying state raised a desync report: %s", ev.Text)
		}
		named = named || ev.Kind == EventCheat && ev.Cheat == CheatLyingState && ev.Peer == n.peers[liar].id.ID()
	}
	if !named || p.Status().Phase == PhaseStopped {
		t.Fatalf("the liar is not named, or the game stopped: %v", n.peers[victim].events)
	}
	// Differing only at the current step, with no signed differing hash.
	hashes = append([]crypto.Hash(nil), m.hashes[m.agreed:seq+1]...)
	hashes[len(hashes)-1][0] ^= 1
	odd := stateEnvelope(n, liar, seq, &stateBody{From: m.agreed, Hashes: hashes, State: []byte{1}}, hashes[len(hashes)-1])
	_ = p.Step(odd)
	n.drain(victim)
	for _, ev := range n.peers[victim].events {
		if ev.Kind == EventDesync || ev.Kind == EventCheat && ev.Peer != n.peers[liar].id.ID() {
			t.Fatalf("an unsupported state blamed someone: %s", ev.Text)
		}
	}
	if p.Status().Phase == PhaseStopped {
		t.Fatal("an unsupported state stopped the game")
	}
	if !n.run(200000, n.allOver(n.all()...)) {
		t.Fatalf("the game did not finish: %+v", p.Status())
	}
	n.checkAgree(n.all()...)
}

// TestUnsupportedStateIsHeldThenExposed: a member sends a state that
// differs from ours only at the current step, which nobody has signed a
// hash for yet (no checkpoint since the last agreed one, no action at it).
// It could be a peer whose engine has just gone wrong, so it is held, not
// thrown away; but it stops nothing and blames nobody. Its author then
// goes on signing our state hashes, which proves the state a lie: it is
// named, and the game ends normally with identical logs.
func TestUnsupportedStateIsHeldThenExposed(t *testing.T) {
	n := newSimNet(t, "held", 3, faults{maxDelay: 5}, testGames, Config{})
	n.setBots(diceGame)
	n.lobby(diceGame, nil)
	victim, liar := 0, 2
	p := n.peers[victim].node
	m := p.m
	mid := func() bool {
		return len(m.cps) >= 2 && m.seq > m.agreed && m.group == nil && p.State() != nil && p.State().ToAct().Kind == engine.ActorSeat
	}
	if !n.run(100000, mid) {
		t.Fatal("the game never reached a step after an agreed checkpoint")
	}
	seq := m.seq
	hashes := append([]crypto.Hash(nil), m.hashes[m.agreed:seq+1]...)
	hashes[len(hashes)-1][0] ^= 1
	odd := stateEnvelope(n, liar, seq, &stateBody{From: m.agreed, Hashes: hashes, State: []byte{1}}, hashes[len(hashes)-1])
	if err := p.Step(odd); err != nil {
		t.Fatalf("Step: %v", err)
	}
	n.drain(victim)
	if len(p.held) != 1 || p.Status().Phase == PhaseStopped {
		t.Fatalf("the state is not held (%d), or the game stopped (%v)", len(p.held), p.Status().Phase)
	}
	// More of them are bounded: at most maxStatesPerAuthor held, the rest
	// counted as dropped.
	dropped := p.Status().Counters.Dropped
	for b := byte(2); b < 6; b++ {
		_ = p.Step(stateEnvelope(n, liar, seq, &stateBody{From: m.agreed, Hashes: hashes, State: []byte{b}}, hashes[len(hashes)-1]))
	}
	n.drain(victim)
	if len(p.held) != maxStatesPerAuthor || p.Status().Counters.Dropped != dropped+5-maxStatesPerAuthor || p.Status().Phase == PhaseStopped {
		t.Fatalf("five held states: %d kept, %d dropped, phase %v", len(p.held), p.Status().Counters.Dropped-dropped, p.Status().Phase)
	}
	if !n.run(200000, n.allOver(n.all()...)) {
		t.Fatalf("the game did not finish: %+v", p.Status())
	}
	named := false
	for i, peer := range n.peers {
		for _, ev := range peer.events {
			if ev.Kind == EventDesync || ev.Kind == EventCheat && ev.Peer != n.peers[liar].id.ID() {
				t.Fatalf("%s: a state nothing signed disputes blamed someone: %s", peer.name, ev.Text)
			}
			named = named || i == victim && ev.Kind == EventCheat && ev.Cheat == CheatLyingState
		}
	}
	if !named || len(p.held) != 0 {
		t.Fatalf("the liar was not named once it signed our hashes (held %d): %v", len(p.held), n.peers[victim].events)
	}
	n.checkAgree(n.all()...)
}
