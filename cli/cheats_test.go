package cli

import (
	"crypto/rand"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/boardmesh/boardmesh/crypto"
	"github.com/boardmesh/boardmesh/engine/dragonslair"
	"github.com/boardmesh/boardmesh/engine/games"
	"github.com/boardmesh/boardmesh/lockstep"
	"github.com/boardmesh/boardmesh/p2p"
)

func testMembers(t *testing.T, names ...string) []lockstep.Member {
	t.Helper()
	var out []lockstep.Member
	for _, n := range names {
		id, err := crypto.GenerateIdentity(rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, lockstep.Member{ID: id.ID(), Name: n})
	}
	return out
}

// TestCheatsNamedInPlainWords: every kind of cheat lockstep reports is
// named with its seat counted from 1 and its author's name; a forged
// signature does not blame the peer it names; what is no one's fault (a
// duplicate, a stale re-send) is not called a cheat.
func TestCheatsNamedInPlainWords(t *testing.T) {
	members := testMembers(t, "Alice", "Mallory", "Bob")
	// Seat 1 is Bob, seat 2 Alice, seat 3 Mallory.
	st := lockstep.Status{Members: members, Seats: []int{2, 0, 1}}
	mallory := members[1].ID
	ev := func(err error) lockstep.Event {
		return lockstep.Event{Kind: lockstep.EventRejected, Peer: mallory, Seat: 2, Seq: 12, Err: err}
	}
	cases := []struct {
		ev   lockstep.Event
		what string
		text string
	}{
		{ev(fmt.Errorf("%w: step 12 was not Mallory's to take", lockstep.ErrNotYourTurn)), "out-of-turn",
			"Seat 3 (Mallory) sent an action out of turn: step 12 was not Mallory's to take"},
		{ev(fmt.Errorf("%w: you cannot buy that", lockstep.ErrIllegal)), "illegal",
			"Seat 3 (Mallory) sent an illegal move: you cannot buy that"},
		{ev(fmt.Errorf("%w: Mallory has 1a2b (turn 5) at step 12, ours is 3c4d (turn 5)", lockstep.ErrCheckpoint)), "wrong-checkpoint",
			"Seat 3 (Mallory)'s checkpoint at step 12 disagrees with ours: Mallory has 1a2b (turn 5) at step 12, ours is 3c4d (turn 5)"},
		{ev(fmt.Errorf("%w: reveal 4", lockstep.ErrBadReveal)), "bad-reveal",
			"Seat 3 (Mallory) sent a bad reveal (not the next link of its hash chain): reveal 4"},
		{ev(lockstep.ErrBadSignature), "forged",
			"An envelope claiming to come from Seat 3 (Mallory) has a forged signature; it was dropped (Mallory is not blamed)"},
		{lockstep.Event{Kind: lockstep.EventEquivocation, Peer: mallory, Seat: -1, Err: lockstep.ErrEquivocation}, "equivocation",
			"Seat 3 (Mallory) signed two different envelopes for one slot; the proof is in the log"},
	}
	for _, c := range cases {
		got, ok := cheatOf(c.ev, st)
		if !ok || got.What != c.what || got.Text != c.text || got.Seat != 3 || got.Name != "Mallory" {
			t.Errorf("%v:\n got %+v (%v)\nwant %s: %q", c.ev.Err, got, ok, c.what, c.text)
		}
	}
	// Before the seat draw there is no seat; a stranger is an outsider.
	stranger := testMembers(t, "x")[0].ID
	got, ok := cheatOf(lockstep.Event{Kind: lockstep.EventRejected, Peer: stranger, Seat: -1, Err: lockstep.ErrNotMember}, lockstep.Status{Members: members})
	if !ok || got.Seat != 0 || !strings.HasPrefix(got.Text, "An outsider (peer …") {
		t.Errorf("an outsider: %+v", got)
	}
	for _, err := range []error{lockstep.ErrDuplicate, lockstep.ErrStale, lockstep.ErrDropped} {
		if c, ok := cheatOf(ev(err), st); ok {
			t.Errorf("%v is named a cheat: %q", err, c.Text)
		}
	}
}

// TestEquivocationStopExitsCheating: an equivocation that stops a live
// game exits with the documented code 4 (a desync is 3), and the output
// names the cheat in plain words, in text and in JSON.
func TestEquivocationStopExitsCheating(t *testing.T) {
	id, err := crypto.GenerateIdentity(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	peerNet, err := p2p.HostLobby(p2p.NetConfig{Identity: id, Name: "Alice", Home: t.TempDir(), NoQUIC: true, Games: games.Lookup}, dragonslair.Game, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer peerNet.Close()
	members := testMembers(t, "Mallory", "Bob")
	st := lockstep.Status{Phase: lockstep.PhaseStopped, Members: members, Seats: []int{1, 0}}
	for _, asJSON := range []bool{false, true} {
		io, _, out, errOut := TestIO()
		rep := &netReporter{io: io, json: asJSON}
		rep.update(p2p.Update{Status: st, Events: []lockstep.Event{{Kind: lockstep.EventEquivocation, Peer: members[0].ID, Seat: -1, Err: lockstep.ErrEquivocation}}})
		err := printNetSummary(io, asJSON, peerNet, rep, fmt.Errorf("%w: equivocation", p2p.ErrStopped))
		if code := exitCode(err); code != ExitCheating {
			t.Fatalf("json=%v: exit %d (%v), want %d", asJSON, code, err, ExitCheating)
		}
		all := out.String() + errOut.String()
		want := "Seat 2 (Mallory) signed two different envelopes for one slot"
		if !strings.Contains(all, want) {
			t.Fatalf("json=%v: the output does not name the cheat (%q):\n%s", asJSON, want, all)
		}
		if asJSON && !strings.Contains(out.String(), `"event":"cheat"`) {
			t.Fatalf("no cheat object in the JSON output:\n%s", out.String())
		}
	}
	var ec *ExitCodeError
	if !errors.As(printNetSummary(&IOStreams{Out: new(strings.Builder), ErrOut: new(strings.Builder)}, false, peerNet, &netReporter{desync: "x"}, p2p.ErrStopped), &ec) || ec.Code != ExitDesync {
		t.Fatal("a desync does not exit 3")
	}
}
