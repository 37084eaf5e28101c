package lockstep

import (
	"errors"
	"strings"
	"testing"

	"github.com/boardmesh/boardmesh/crypto"
)

// settleAs signs, with peer i's key outside its node (a modified
// client), a settle on the seats of peers at log position at.
func (ft *forkTable) settleAs(i int, at int, peers ...int) *crypto.Envelope {
	var seats []int
	for _, p := range peers {
		seats = append(seats, ft.seat(p))
	}
	return ft.n.signAs(i, &crypto.Envelope{Session: ft.n.peers[i].node.Status().Session, Seq: uint64(at),
		Kind: crypto.KindSettle, Body: encodeSeats(sortedSeats(seats))})
}

// TestLyingSettleForksNothing: what a hostile voter can still do with a
// settle is hold an honest peer, never split two logs. Five seats, E
// gone. A, B, C and D vote E out, and A, B and C vote again for D and E
// before D's vote for E reaches them. B gets A's and C's second votes and
// takes the drop of D and E. Hostile C, whose key signed that second vote,
// also signs a settle on E's drop and gives it to A alone, with D's vote
// for E: A, its greater round's voter C having settled, settles on E's
// drop too. B never settles on it (B settles on the drop it took), so A
// takes neither drop: not E's (B took another), and not D's and E's, which
// it gave its word against, though every vote of that round reaches it,
// and not after a restart either (its settle is on its disk). C and D then
// go silent. A is held (a liveness cost, as before settles), no two logs
// part, and neither A nor B accuses anyone.
func TestLyingSettleForksNothing(t *testing.T) {
	t.Run("running", func(t *testing.T) { lyingSettle(t, false) })
	t.Run("A restarted after settling", func(t *testing.T) { lyingSettle(t, true) })
}

func lyingSettle(t *testing.T, restart bool) {
	ft := newForkTable(t, "lying settle")
	n := ft.n
	a, b, c, d, e := ft.a, ft.b, ft.c, ft.d, ft.e
	at := len(n.peers[a].node.Log())
	for _, v := range []int{a, b, c, d} {
		ft.vote(v, e)
	}
	for _, to := range []int{a, b, c} {
		for _, v := range []int{a, b, c} {
			if v != to {
				ft.deliver(to, v, e)
			}
		}
	}
	for _, v := range []int{a, b, c} {
		ft.vote(v, d, e)
	}
	ft.deliver(b, a, d, e)
	ft.deliver(b, c, d, e)
	if got := ft.dropAt(b, at); !equalInts(got, sortedSeats([]int{ft.seat(d), ft.seat(e)})) {
		t.Fatalf("B committed %v at entry %d; the scenario wants D's and E's drop", got, at)
	}
	// C's lie, and D's vote for E, reach A only.
	if err := n.peers[a].node.Step(ft.settleAs(c, at, e)); err != nil {
		t.Fatalf("A refused C's settle: %v", err)
	}
	n.drain(a)
	ft.deliver(a, d, e)
	if !strings.Contains(waitText(n.peers[a].node), "settled on the drop of") {
		t.Fatalf("A did not settle on E's drop on C's word: %+v", n.peers[a].node.Waiting())
	}
	if restart {
		n.crash(a)
		n.restart(a)
		n.answers = nil // the test delivers
		for _, v := range []int{b, c, d} {
			ft.deliver(a, v, e)
		}
	}
	// Every vote of D's and E's round reaches A now; so does the network,
	// B's settle on the drop it took and its catch-up answers included.
	ft.deliver(a, b, d, e)
	ft.deliver(a, c, d, e)
	// C goes silent after its lie (its own node would settle on the drop
	// it takes, and its two settles would prove it a cheat:
	// TestTwoSettlesAreEquivocation), and so does D.
	n.crash(c)
	n.crash(d)
	for _, p := range n.peers {
		p.hook = nil
	}
	n.run(20000, func() bool { return false })
	if got := ft.dropAt(a, at); got != nil || len(n.peers[a].node.Log()) != at {
		t.Fatalf("A, settled on E's drop, committed %v at entry %d (log of %d): it broke its word, on which another peer could have taken E's drop",
			got, at, len(n.peers[a].node.Log()))
	}
	if !strings.Contains(waitText(n.peers[a].node), "settled on the drop of") {
		t.Fatalf("A's status does not say it is held by its settle: %+v", n.peers[a].node.Waiting())
	}
	if err := n.peers[a].node.VoteDrop([]int{ft.seat(b)}); !errors.Is(err, ErrPhase) {
		t.Fatalf("A, settled here, voted for another drop: %v", err)
	}
	n.noAccusations(a, b)
}

// waitText is everything Waiting says, for a test to search.
func waitText(node *Node) string {
	var s []string
	for _, w := range node.Waiting() {
		s = append(s, w.String())
	}
	return strings.Join(s, "; ")
}

// TestTwoSettlesAreEquivocation: a voter that signs two settles for one
// log position, naming two drops, is proven a cheat to every peer, and
// the proof in the log verifies.
func TestTwoSettlesAreEquivocation(t *testing.T) {
	ft := newForkTable(t, "two settles")
	n := ft.n
	a, b, c, e := ft.a, ft.b, ft.c, ft.e
	at := len(n.peers[a].node.Log())
	if err := n.peers[a].node.Step(ft.settleAs(c, at, e)); err != nil {
		t.Fatalf("first settle: %v", err)
	}
	n.drain(a)
	err := n.peers[a].node.Step(ft.settleAs(c, at, b, e))
	n.drain(a)
	if !errors.Is(err, ErrEquivocation) {
		t.Fatalf("a second settle for one position: %v, want an equivocation", err)
	}
	for _, p := range n.peers {
		p.hook = nil
	}
	n.run(200, func() bool { return false })
	for _, i := range []int{a, b, ft.d} {
		named := false
		for _, ev := range n.peers[i].events {
			named = named || ev.Kind == EventEquivocation && ev.Peer == n.peers[c].id.ID() && strings.Contains(ev.Text, "settle")
		}
		if !named || n.peers[i].node.Status().Phase != PhaseStopped {
			t.Fatalf("%s did not name C's two settles and stop: %v", n.peers[i].name, n.peers[i].events)
		}
	}
	r, err := Verify(n.peers[a].node.Log(), testGames)
	if err != nil || r.Cheater != n.peers[c].id.ID() {
		t.Fatalf("Verify of A's log: %v, cheater %v", err, r.Cheater)
	}
}

// TestBadSettlesAreRefused: a settle that is malformed, of another
// session, or of a position already committed changes nothing; a settle
// is never a log entry, so a log holding one fails to verify.
func TestBadSettlesAreRefused(t *testing.T) {
	ft := newForkTable(t, "bad settles")
	n := ft.n
	a, c, e := ft.a, ft.c, ft.e
	at := len(n.peers[a].node.Log())
	st := n.peers[a].node.Status()
	withHash := ft.settleAs(c, at, e)
	withHash.StateHash = n.peers[a].node.Hashes()[st.Seq]
	crypto.Sign(n.peers[c].id, withHash)
	expectRejected(t, n, a, withHash, ErrBadBody)
	expectRejected(t, n, a, n.signAs(c, &crypto.Envelope{Session: st.Session, Seq: uint64(at), Kind: crypto.KindSettle,
		Body: encodeSeats([]int{7})}), ErrBadBody)
	other := st.Session
	other[0] ^= 1
	expectRejected(t, n, a, n.signAs(c, &crypto.Envelope{Session: other, Seq: uint64(at), Kind: crypto.KindSettle,
		Body: encodeSeats([]int{ft.seat(e)})}), ErrWrongSession)
	expectRejected(t, n, a, ft.settleAs(c, at-1, e), ErrStale)
	log := append([]*crypto.Envelope(nil), n.peers[a].node.Log()...)
	log = append(log, ft.settleAs(c, at, e))
	if _, err := Verify(log, testGames); !errors.Is(err, ErrUnexpected) {
		t.Fatalf("Verify of a log with a settle entry: %v, want it refused", err)
	}
}

// TestHeldVotersGoOnBySettlingOnNoDrop: the "live, honest peers that
// voted one another out" of the faulty-network games (seed 342 of
// TestDragonsLairOverFaultyNetwork at 8 seats). Five seats. E acts, but
// its action is slow to reach A and B, which vote E out; C and D get it
// first and commit it. Held by their votes, A and B could go on only once
// every other voter of E's drop showed it went on without voting, and
// each of the two is such a voter held like the other: they waited for
// each other for good, and a table with a drop period dropped both. Now C
// and D, getting A's and B's votes after they went on, settle on no drop
// there; A and B, each round they voted having a voter that settled so,
// settle on no drop too, and commit E's action once the other has: all
// five finish with one log, and nobody is accused.
func TestHeldVotersGoOnBySettlingOnNoDrop(t *testing.T) {
	n := startDice(t, "held voters no drop", 5, Config{})
	ft := &forkTable{t: t, n: n, votes: map[string]*crypto.Envelope{}}
	e, _ := n.actor()
	rest := n.others(e)
	a, b, c, d := rest[0], rest[1], rest[2], rest[3]
	ft.holdVotes()
	var act *crypto.Envelope
	n.peers[e].hook = func(env *crypto.Envelope) []*crypto.Envelope {
		if env.Kind == crypto.KindAction && act == nil {
			act = env
			return nil
		}
		return []*crypto.Envelope{env}
	}
	at := len(n.peers[a].node.Log())
	if err := n.peers[e].node.Act(legalAction(n)); err != nil {
		t.Fatal(err)
	}
	n.drain(e)
	if act == nil {
		t.Fatal("E's action was not signed")
	}
	ft.vote(a, e)
	ft.vote(b, e)
	ft.deliver(a, b, e)
	ft.deliver(b, a, e)
	give := func(to int) {
		wire, err := crypto.Unmarshal(act.Marshal())
		if err != nil {
			t.Fatal(err)
		}
		_ = n.peers[to].node.Step(wire)
		n.drain(to)
	}
	give(c)
	give(d)
	give(a)
	give(b)
	for _, i := range []int{c, d} {
		if log := n.peers[i].node.Log(); len(log) <= at || log[at].Kind != crypto.KindAction {
			t.Fatalf("%s did not commit E's action at entry %d", n.peers[i].name, at)
		}
	}
	for _, i := range []int{a, b} {
		if len(n.peers[i].node.Log()) != at {
			t.Fatalf("%s, which voted E out, committed entry %d before anyone settled", n.peers[i].name, at)
		}
	}
	for _, p := range n.peers {
		p.hook = nil
	}
	n.setBots(diceGame)
	all := []int{a, b, c, d, e}
	if !n.run(200000, n.allOver(all...)) {
		t.Fatalf("the table never finished: A at entry %d, waiting %v", len(n.peers[a].node.Log()), n.peers[a].node.Waiting())
	}
	n.checkAgree(all...)
	n.noAccusations(all...)
}
