package lockstep

import (
	"errors"
	"strings"
	"testing"

	"github.com/boardmesh/boardmesh/crypto"
)

// TestEquivocationAfterGameOver: a seat signs a second, different action
// for a slot of a game that is over. The log is closed, so nothing can be
// committed to it: the peer names the equivocation and says that the
// result stands, and its log, its phase and the verified result stay what
// every peer agreed.
func TestEquivocationAfterGameOver(t *testing.T) {
	n := newSimNet(t, "equiv-after", 3, faults{maxDelay: 1}, testGames, Config{})
	n.setBots(diceGame)
	n.lobby(diceGame, nil)
	if !n.run(100000, n.allOver(n.all()...)) {
		t.Fatalf("the game did not end: %+v", n.peers[0].node.Status())
	}
	n.run(200, func() bool { return false }) // the last envelopes settle
	before := n.checkAgree(n.all()...)
	victim := 0
	log := n.peers[victim].node.Log()
	entries := len(log)
	var orig *crypto.Envelope
	for i := len(log) - 1; i >= 0 && orig == nil; i-- {
		if log[i].Kind == crypto.KindAction && log[i].Author != n.peers[victim].id.ID() {
			orig = log[i]
		}
	}
	if orig == nil {
		t.Fatal("no other seat's action in the log")
	}
	cheat := -1
	for i, p := range n.peers {
		if p.id.ID() == orig.Author {
			cheat = i
		}
	}
	x := *orig
	x.StateHash[0] ^= 1
	second := n.signAs(cheat, &x)
	n.peers[victim].events = nil
	err := n.peers[victim].node.Step(second)
	n.drain(victim)
	if !errors.Is(err, ErrEquivocation) {
		t.Fatalf("a second action for a slot after the end: %v, want an equivocation", err)
	}
	named := false
	for _, ev := range n.peers[victim].events {
		if ev.Kind == EventCheat && ev.Cheat == CheatEquivocation && ev.Peer == orig.Author {
			named = true
			if !strings.Contains(ev.Text, n.peers[cheat].name) || !strings.Contains(ev.Text, "after the game ended: the result stands") {
				t.Errorf("the event does not name %s or say the result stands: %q", n.peers[cheat].name, ev.Text)
			}
		}
	}
	if !named {
		t.Fatalf("the equivocation was not named; events %v", n.peers[victim].events)
	}
	if st := n.peers[victim].node.Status(); st.Phase != PhaseOver {
		t.Fatalf("the game over became %v", st.Phase)
	}
	if got := len(n.peers[victim].node.Log()); got != entries {
		t.Fatalf("the closed log grew from %d to %d entries", entries, got)
	}
	after := n.checkAgree(n.all()...)
	if after.Result == nil || before.Result == nil || after.Result.Reason != before.Result.Reason || after.Cheater != before.Cheater {
		t.Fatalf("the verified result changed: %+v, was %+v", after.Result, before.Result)
	}
}
