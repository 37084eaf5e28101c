package lockstep

import (
	"strings"
	"testing"

	"github.com/boardmesh/boardmesh/crypto"
	"github.com/boardmesh/boardmesh/engine"
)

// TestFloodIsBoundedAndNamed: a member floods a peer with envelopes for
// future steps and rounds, and with state envelopes. They were kept
// forever and re-served in every catch-up answer. Now each author's share
// of every buffer is bounded, the excess is dropped and counted, the
// flood is named once, an answer to a third peer serves none of it, and
// the game still finishes.
func TestFloodIsBoundedAndNamed(t *testing.T) {
	n := startDice(t, "flood", 3, Config{})
	victim, attacker := 0, 2
	p := n.peers[victim].node
	st := p.Status()
	// Slots the game never reaches (it ends long before step 100), each
	// signed once: a flood, not an equivocation.
	big := make([]byte, 4000)
	sent := 0
	for i := uint64(1); i <= 3000; i++ {
		kind := []crypto.Kind{crypto.KindAction, crypto.KindCheckpoint, crypto.KindReveal}[i%3]
		body := engine.AppendAction(nil, engine.Action{Op: 1})
		switch kind {
		case crypto.KindCheckpoint:
			body = encodeUintBody(i)
		case crypto.KindReveal:
			body = encodeHashBody(crypto.Hash{byte(i)})
		}
		env := n.signAs(attacker, &crypto.Envelope{Session: st.Session, Seq: st.Seq + 100 + i, Kind: kind, Body: body})
		_ = p.Step(env)
		sent++
		if i%100 == 0 {
			state := &stateBody{From: st.Seq + 100 + i, Hashes: []crypto.Hash{{byte(i)}}, State: big}
			_ = p.Step(stateEnvelope(n, attacker, st.Seq+100+i, state, crypto.Hash{byte(i)}))
		}
	}
	n.drain(victim)
	c := p.Status().Counters
	if c.Dropped == 0 || c.DroppedBytes == 0 {
		t.Fatalf("nothing of %d envelopes was dropped: %+v", sent, c)
	}
	if len(p.buf) > 3*(maxAhead+1)+16 || len(p.states) > maxStatesPerAuthor {
		t.Fatalf("the buffers hold %d envelopes and %d states", len(p.buf), len(p.states))
	}
	floods := 0
	for _, ev := range n.peers[victim].events {
		if ev.Kind == EventCheat && ev.Cheat == CheatFlood {
			floods++
			if ev.Peer != n.peers[attacker].id.ID() || ev.Seat < 1 {
				t.Fatalf("the flood names %s seat %d", shortID(ev.Peer), ev.Seat)
			}
		}
	}
	if floods == 0 || floods > 4 {
		t.Fatalf("the flood raised %d events, want one per kind (action, checkpoint, reveal, state) at most", floods)
	}
	// A catch-up answer to another peer relays no more of the flood than
	// the buffers keep, and nothing beyond what that peer could keep.
	a := p.Answer(GapRequest{To: n.peers[1].id.ID(), From: uint64(len(p.Log()))})
	relayed := 0
	for _, env := range a.Pending {
		if env.Author == n.peers[attacker].id.ID() && env.Seq >= st.Seq+100 {
			relayed++
			limit := p.m.seq
			if env.Kind == crypto.KindReveal {
				limit = p.m.round
			}
			if env.Seq > limit+serveAhead {
				t.Fatalf("the answer relays the attacker's %s for seq %d", env.Kind, env.Seq)
			}
		}
	}
	if relayed > 3*maxPerKind {
		t.Fatalf("the answer relays %d envelopes of the flood", relayed)
	}
	n.setBots(diceGame)
	if !n.run(100000, n.allOver(0, 1)) {
		t.Fatalf("the game did not finish after the flood: %+v", p.Status())
	}
}

// TestOwnKeyFloodIsNotKept: someone else floods with our own key (a
// stolen key, or the tests' cheating member) envelopes for slots far
// ahead. Our own envelope back from a peer binds us and goes to disk, so
// each was kept and persisted, without bound. Only those within the
// window of slots a node keeps are, now.
func TestOwnKeyFloodIsNotKept(t *testing.T) {
	n := startDice(t, "ownkey", 3, Config{})
	victim := 0
	p := n.peers[victim].node
	n.drain(victim)
	p.Advance()
	st := p.Status()
	before := len(p.sent)
	for i := uint64(1); i <= 1000; i++ {
		env := n.signAs(victim, &crypto.Envelope{Session: st.Session, Seq: st.Seq + maxAhead + i, Kind: crypto.KindAction,
			Body: engine.AppendAction(nil, engine.Action{Op: 1, Args: []int32{int32(i)}})})
		_ = p.Step(env)
	}
	if rd := p.Ready(); len(rd.Persist) != 0 {
		t.Fatalf("%d envelopes signed with our key for slots far ahead are to be persisted", len(rd.Persist))
	}
	if len(p.sent) != before {
		t.Fatalf("%d envelopes signed with our key for slots far ahead are kept as ours", len(p.sent)-before)
	}
}

// TestNoteFloodNamesAMemberOnce: the transport's word that a member
// floods (its envelopes dropped over its rate before they reached the
// node) names that member, with its seat counted from 1, once per log
// position; an outsider is not named.
func TestNoteFloodNamesAMemberOnce(t *testing.T) {
	n := startDice(t, "noteflood", 3, Config{})
	victim, flooder := 0, 2
	p := n.peers[victim].node
	n.drain(victim)
	p.Advance()
	events := len(n.peers[victim].events)
	p.NoteFlood(n.peers[flooder].id.ID(), "over 1000 envelopes a second, 5 dropped")
	p.NoteFlood(n.peers[flooder].id.ID(), "over 1000 envelopes a second, 7 dropped")
	p.NoteFlood(crypto.PeerID("not a member"), "over 1000 envelopes a second, 9 dropped")
	n.drain(victim)
	var named []Event
	for _, ev := range n.peers[victim].events[events:] {
		if ev.Kind == EventCheat && ev.Cheat == CheatFlood {
			named = append(named, ev)
		}
	}
	if len(named) != 1 {
		t.Fatalf("%d flood events, want 1: %+v", len(named), named)
	}
	ev := named[0]
	_, seat := p.who(n.peers[flooder].id.ID())
	if ev.Peer != n.peers[flooder].id.ID() || ev.Seat != seat || ev.Seat < 1 || !strings.Contains(ev.What, "5 dropped") {
		t.Fatalf("the flood event: peer %s seat %d (want %d), %q", shortID(ev.Peer), ev.Seat, seat, ev.What)
	}
}
