package lockstep

import (
	"testing"

	"github.com/boardmesh/boardmesh/crypto"
	"github.com/boardmesh/boardmesh/engine"
)

// outsiderEquivocation makes two different actions for the current slot
// signed by id (who need not be a member), and evidence of them signed by
// reporter.
func outsiderEquivocation(t *testing.T, n *simNet, id, reporter *crypto.Identity) *crypto.Envelope {
	t.Helper()
	st := n.peers[0].node.Status()
	legal := n.peers[0].node.State().Legal(nil)
	mk := func(a engine.Action) *crypto.Envelope {
		e := &crypto.Envelope{Session: st.Session, Seq: st.Seq, Kind: crypto.KindAction,
			StateHash: n.peers[0].node.Hashes()[st.Seq], Body: engine.AppendAction(nil, a)}
		crypto.Sign(id, e)
		return e
	}
	ev := &crypto.Envelope{Session: st.Session, Kind: crypto.KindEvidence, Body: encodeEvidence(mk(legal[0]), mk(legal[1]))}
	crypto.Sign(reporter, ev)
	return ev
}

// checkUntouched asserts that peer i neither stopped, nor committed, nor
// raised an event that blames a player.
func checkUntouched(t *testing.T, n *simNet, i int, entries int, what string) {
	t.Helper()
	p := n.peers[i]
	if p.node.Status().Phase == PhaseStopped {
		t.Fatalf("%s stopped the game", what)
	}
	if len(p.node.Log()) != entries {
		t.Fatalf("%s changed the log (%d entries, was %d)", what, len(p.node.Log()), entries)
	}
	for _, ev := range p.events {
		if ev.Kind == EventEquivocation || ev.Kind == EventCheat && ev.Seat > 0 {
			t.Fatalf("%s raised an event against a player: %s", what, ev)
		}
	}
}

// TestOutsiderEvidenceChangesNothing: evidence signed by an outsider about
// itself once stopped any running game, blaming the outsider as if it were
// a player. Now it is ignored and counted, and nothing else happens.
func TestOutsiderEvidenceChangesNothing(t *testing.T) {
	n := startDice(t, "outsider-evidence", 3, Config{})
	outsider, _ := crypto.GenerateIdentity(seededReader("outsider"))
	entries := len(n.peers[0].node.Log())
	n.peers[0].events = nil
	ev := outsiderEquivocation(t, n, outsider, outsider)
	if err := n.peers[0].node.Step(ev); err == nil {
		t.Fatal("outsider evidence accepted")
	}
	n.drain(0)
	checkUntouched(t, n, 0, entries, "outsider evidence")
	if c := n.peers[0].node.Status().Counters; c.Outsider != 1 {
		t.Fatalf("outsider envelopes counted %d, want 1", c.Outsider)
	}
	// A member's evidence against an outsider is no proof against anyone
	// at this table either.
	member := n.peers[1].id
	ev = outsiderEquivocation(t, n, outsider, member)
	if err := n.peers[0].node.Step(ev); err == nil {
		t.Fatal("evidence about an outsider accepted")
	}
	n.drain(0)
	checkUntouched(t, n, 0, entries, "evidence about an outsider")
	// The game goes on.
	n.setBots(diceGame)
	if !n.run(100000, n.allOver(n.all()...)) {
		t.Fatal("the game did not finish after the outsider's evidence")
	}
	n.checkAgree(n.all()...)
}

// TestVerifyRefusesProofAgainstOutsider: a log ending in "proof" of an
// equivocation by a non-member once verified, naming the outsider as the
// cheater.
func TestVerifyRefusesProofAgainstOutsider(t *testing.T) {
	n := startDice(t, "verify-outsider-proof", 3, Config{})
	outsider, _ := crypto.GenerateIdentity(seededReader("outsider"))
	log := append(append([]*crypto.Envelope(nil), n.peers[0].node.Log()...), outsiderEquivocation(t, n, outsider, n.peers[1].id))
	if r, err := Verify(log, testGames); err == nil {
		t.Fatalf("Verify accepted proof against an outsider (cheater %s)", r.Cheater)
	}
	// The same proof about a member verifies and names the member.
	a, _ := n.actor()
	log[len(log)-1] = outsiderEquivocation(t, n, n.peers[a].id, n.peers[(a+1)%3].id)
	r, err := Verify(log, testGames)
	if err != nil || r.Cheater != n.peers[a].id.ID() {
		t.Fatalf("Verify of proof against a member: %v, cheater %s", err, r.Cheater)
	}
}
