package lockstep

import (
	"testing"

	"github.com/boardmesh/boardmesh/crypto"
)

// These tests pin the message orders of a desync caused by one peer with
// a buggy engine, which an earlier lying-state check got wrong about half
// the runs over real libp2p (TestInjectedDesyncIsReportedAndBundled,
// TestInjectedDesyncAcrossProcesses): whatever the order, the honest
// peers explain the desync themselves, and their logs are the bundle.

const buggy = 2 // the peer whose engine goes wrong

// desyncTable is three dice-race peers with bots; peer buggy's engine
// corrupts its state at the glitch-th apply.
func desyncTable(t *testing.T, seed string, glitch int) *simNet {
	t.Helper()
	n := newSimNet(t, seed, 3, faults{maxDelay: 1}, testGames, Config{})
	if glitch > 0 {
		p := n.peers[buggy]
		p.games = glitchGames(glitch)
		p.cfg.Games = p.games
		node, err := New(p.cfg)
		if err != nil {
			t.Fatal(err)
		}
		p.node = node
	}
	n.setBots(diceGame)
	n.lobby(diceGame, nil)
	if !n.run(10000, func() bool { return n.peers[buggy].node.Status().Phase == PhasePlaying }) {
		t.Fatal("no seat draw")
	}
	return n
}

// seatOfBuggy is the seat the draw gives the buggy peer with this seed
// (the draw does not depend on the engine's bug).
func seatOfBuggy(t *testing.T, seed string) int {
	return desyncTable(t, seed, 0).peers[buggy].node.mySeat()
}

// moveOf is the glitch that makes the buggy engine go wrong on the move
// of the first turn of seat: every turn of the dice race is two applies
// (a move, then an end or a rest), and seat s plays turn s first.
func moveOf(seat int) int { return 2*seat + 1 }

// peerOfSeat is the index of the peer of seat.
func peerOfSeat(n *simNet, seat int) int {
	for i, p := range n.peers {
		if p.node.mySeat() == seat {
			return i
		}
	}
	n.t.Fatalf("no peer has seat %d", seat)
	return -1
}

// reportOf is peer i's first desync report, or nil.
func reportOf(n *simNet, i int) *DesyncReport {
	if r := n.peers[i].node.Reports(); len(r) > 0 {
		return r[0]
	}
	return nil
}

// checkExplained checks that honest peer i reported the buggy peer's
// state, naming the glitch's step and its author, with a differing field,
// and that its log file alone (the bundle) explains the same desync.
func checkExplained(t *testing.T, n *simNet, i int, step uint64, author crypto.PeerID) {
	t.Helper()
	rep := reportOf(n, i)
	if rep == nil {
		t.Fatalf("%s did not report the desync; events %v", n.peers[i].name, n.peers[i].events)
	}
	if rep.Peer != n.peers[buggy].id.ID() || rep.Entry != step || rep.EntryAuthor != author || len(rep.Diff) == 0 {
		t.Fatalf("%s's report names %s, entry %d by %s, %d fields; want the buggy peer, entry %d by %s:\n%s",
			n.peers[i].name, shortID(rep.Peer), rep.Entry, shortID(rep.EntryAuthor), len(rep.Diff), step, shortID(author), rep)
	}
	n.drain(i)
	lf, err := ParseLog(n.peers[i].disk)
	if err != nil || len(lf.States) == 0 {
		t.Fatalf("%s's log holds no state record: %v", n.peers[i].name, err)
	}
	again, err := ExplainDesync(lf.Entries, testGames, lf.States[0])
	if err != nil || again == nil || again.Entry != rep.Entry || again.EntryAuthor != rep.EntryAuthor || len(again.Diff) == 0 {
		t.Fatalf("%s's bundle explains %v (%v); live report:\n%s", n.peers[i].name, again, err, rep)
	}
}

// blamesNoHonestPeer checks that no honest peer names the other honest
// one as a cheat or as the other side of a desync.
func blamesNoHonestPeer(t *testing.T, n *simNet, honest ...int) {
	t.Helper()
	for _, i := range honest {
		for _, ev := range n.peers[i].events {
			if (ev.Kind == EventCheat || ev.Kind == EventDesync) && ev.Peer != n.peers[buggy].id.ID() {
				t.Fatalf("%s blames an honest peer: %s", n.peers[i].name, ev.Text)
			}
		}
	}
}

// signedDiffering reports whether peer i refused an envelope of the buggy
// peer for its state hash: that is, whether the buggy peer signed a
// differing hash that peer i saw.
func signedDiffering(n *simNet, i int) bool {
	for _, ev := range n.peers[i].events {
		if ev.Kind == EventRejected && ev.Peer == n.peers[buggy].id.ID() && (ev.Cheat == CheatWrongHash || ev.Cheat == CheatWrongCheckpoint) {
			return true
		}
	}
	return false
}

// TestDesyncOfAPeerThatSignsOnlyItsState is the order of most runs over
// libp2p: the buggy engine goes wrong on an honest player's move, so the
// buggy peer refuses that player's next action (its pre-state hash is not
// the buggy state's) and signs nothing after it but its state envelope.
// Both honest peers must still report, from that state alone: the action
// in their log that it contradicts is what disputes it.
func TestDesyncOfAPeerThatSignsOnlyItsState(t *testing.T) {
	const seed = "only-state"
	seat := (seatOfBuggy(t, seed) + 1) % 3
	n := desyncTable(t, seed, moveOf(seat))
	mover := peerOfSeat(n, seat)
	other := 3 - buggy - mover
	if !n.run(20000, func() bool { return reportOf(n, mover) != nil && reportOf(n, other) != nil }) {
		t.Fatalf("the honest peers did not both report: %v / %v", reportOf(n, mover), reportOf(n, other))
	}
	for _, i := range []int{mover, other} {
		if signedDiffering(n, i) {
			t.Fatalf("%s saw the buggy peer sign a differing hash: not the order this test is about", n.peers[i].name)
		}
	}
	step := glitchStep(t, n, mover, seat)
	for _, i := range []int{mover, other} {
		checkExplained(t, n, i, step, n.peers[mover].id.ID())
	}
	blamesNoHonestPeer(t, n, mover, other)
}

// glitchStep is the step of seat's first move in peer i's log: the entry
// after which the buggy engine's state differs.
func glitchStep(t *testing.T, n *simNet, i, seat int) uint64 {
	t.Helper()
	for s, st := range n.peers[i].node.m.steps {
		if st.Kind == "action" && st.Seat == seat {
			return uint64(s)
		}
	}
	t.Fatalf("seat %d never moved", seat)
	return 0
}

// TestDesyncStateBeforeTheActionItDisputes: as above, but the honest
// mover's action reaches the other honest peer only after the buggy
// peer's state does. At that moment nothing signed disputes the state (it
// differs at a step nobody has signed yet), so it is held, not reported;
// once the action has arrived and the table stands still (the buggy peer
// signs nothing more, the mover has stopped), it is weighed again and
// explained.
func TestDesyncStateBeforeTheActionItDisputes(t *testing.T) {
	const seed = "state-first"
	seat := (seatOfBuggy(t, seed) + 1) % 3
	n := desyncTable(t, seed, moveOf(seat))
	mover := peerOfSeat(n, seat)
	other := 3 - buggy - mover
	step := uint64(0)
	n.peers[mover].hook = func(env *crypto.Envelope) []*crypto.Envelope {
		if env.Kind == crypto.KindAction && step == 0 && env.Seq > 0 {
			if s := glitchStep(t, n, mover, seat); env.Seq == s+1 {
				step = s
				n.cut[mover][other] = true
			}
		}
		return []*crypto.Envelope{env}
	}
	if !n.run(20000, func() bool { return len(n.peers[other].node.held) > 0 }) {
		t.Fatal("the buggy peer's state never reached the other honest peer")
	}
	if reportOf(n, other) != nil || n.peers[other].node.Status().Phase == PhaseStopped {
		t.Fatalf("a state that nothing signed disputes yet was reported: %s", reportOf(n, other))
	}
	n.heal()
	if !n.run(20000, func() bool { return reportOf(n, mover) != nil && reportOf(n, other) != nil }) {
		t.Fatalf("the honest peers did not both report: %v / %v", reportOf(n, mover), reportOf(n, other))
	}
	if uint64(len(n.peers[other].node.m.steps)) <= step+1 {
		t.Fatalf("%s reported before the action it disputes reached it", n.peers[other].name)
	}
	for _, i := range []int{mover, other} {
		checkExplained(t, n, i, step, n.peers[mover].id.ID())
	}
	blamesNoHonestPeer(t, n, mover, other)
}

// TestDesyncStateBeforeTheBuggyPeersHash: the buggy engine goes wrong on
// the buggy peer's own move, so its next action carries a pre-state hash
// that is not ours; here one honest peer gets the buggy peer's state
// before that action (an earlier check threw it away and never reported,
// a later one held it until the action was refused). The state alone
// explains it: the first step after which it differs is its author's own
// move (ownMoveDiverged), which names no other player. That is what a
// peer needs whose buggy engine signs no differing hash at all (at a
// secret table its card layer may stop first, and it sends its state).
func TestDesyncStateBeforeTheBuggyPeersHash(t *testing.T) {
	const seed = "hash-late"
	seat := seatOfBuggy(t, seed)
	n := desyncTable(t, seed, moveOf(seat))
	late := 0
	if late == buggy {
		late = 1
	}
	first := 3 - buggy - late
	var stashed *crypto.Envelope
	step := uint64(0)
	n.peers[buggy].hook = func(env *crypto.Envelope) []*crypto.Envelope {
		switch {
		case env.Kind == crypto.KindAction && stashed == nil && env.Seq > 0:
			if s := glitchStep(t, n, buggy, seat); env.Seq == s+1 {
				step, stashed = s, env
				n.cut[buggy][late] = true
			}
		case env.Kind == crypto.KindState:
			n.cut[buggy][late] = false
		}
		return []*crypto.Envelope{env}
	}
	if !n.run(20000, func() bool { return reportOf(n, late) != nil }) {
		t.Fatalf("the buggy peer's state alone was not reported; events %v", n.peers[late].events)
	}
	if stashed == nil || signedDiffering(n, late) {
		t.Fatalf("not the order under test: the late peer saw the buggy peer's action %v", stashed != nil)
	}
	if !n.run(20000, func() bool { return reportOf(n, first) != nil }) {
		t.Fatalf("the honest peers did not both report: %v / %v", reportOf(n, first), reportOf(n, late))
	}
	for _, i := range []int{first, late} {
		checkExplained(t, n, i, step, n.peers[buggy].id.ID())
	}
	blamesNoHonestPeer(t, n, first, late)
}
