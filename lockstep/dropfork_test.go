package lockstep

import (
	"fmt"
	"strings"
	"testing"

	"github.com/boardmesh/boardmesh/crypto"
	"github.com/boardmesh/boardmesh/engine"
)

// forkTable is a table of five dice-race peers whose drop votes are held
// back from the network, for the test to deliver in the order it chooses:
// e is the peer to act, which vanishes; d is slow; a, b and c vote.
type forkTable struct {
	t             *testing.T
	n             *simNet
	a, b, c, d, e int
	// votes holds every drop vote a peer signed, by author and seat set,
	// instead of broadcasting it.
	votes map[string]*crypto.Envelope
}

func newForkTable(t *testing.T, seed string) *forkTable {
	n := startDice(t, seed, 5, Config{})
	ft := &forkTable{t: t, n: n, votes: map[string]*crypto.Envelope{}}
	ft.e, _ = n.actor()
	rest := n.others(ft.e)
	ft.a, ft.b, ft.c, ft.d = rest[0], rest[1], rest[2], rest[3]
	n.crash(ft.e)
	ft.holdVotes()
	return ft
}

// holdVotes keeps every drop vote a peer signs in ft.votes instead of
// broadcasting it, for deliver.
func (ft *forkTable) holdVotes() {
	for i, p := range ft.n.peers {
		p.hook = func(env *crypto.Envelope) []*crypto.Envelope {
			if env.Kind != crypto.KindDrop {
				return []*crypto.Envelope{env}
			}
			ft.votes[ft.key(i, env.Body)] = env
			return nil
		}
	}
}

func (ft *forkTable) seat(i int) int { return ft.n.peers[i].node.mySeat() }

func (ft *forkTable) key(author int, body []byte) string {
	return string(ft.n.peers[author].id.ID()) + "/" + string(body)
}

// vote has peer i vote to drop the seats of peers.
func (ft *forkTable) vote(i int, peers ...int) {
	ft.t.Helper()
	var seats []int
	for _, p := range peers {
		seats = append(seats, ft.seat(p))
	}
	if err := ft.n.peers[i].node.VoteDrop(seats); err != nil {
		ft.t.Fatalf("%s: vote to drop %v: %v", ft.n.peers[i].name, seats, err)
	}
	ft.n.drain(i)
}

// deliver hands voter's vote to drop the seats of peers to peer to, as
// the network would (a decoded copy).
func (ft *forkTable) deliver(to, voter int, peers ...int) {
	ft.t.Helper()
	var seats []int
	for _, p := range peers {
		seats = append(seats, ft.seat(p))
	}
	env := ft.votes[ft.key(voter, encodeSeats(sortedSeats(seats)))]
	if env == nil {
		ft.t.Fatalf("%s never voted to drop %v", ft.n.peers[voter].name, seats)
	}
	wire, err := crypto.Unmarshal(env.Marshal())
	if err != nil {
		ft.t.Fatal(err)
	}
	_ = ft.n.peers[to].node.Step(wire)
	ft.n.drain(to)
}

// dropAt reports the seats of the drop peer i committed at log index at,
// or nil.
func (ft *forkTable) dropAt(i int, at int) []int {
	log := ft.n.peers[i].node.Log()
	if len(log) <= at || log[at].Kind != crypto.KindDrop {
		return nil
	}
	seats, _ := decodeSeats(log[at].Body, 5)
	return seats
}

// finish checks that a, b, c and d committed one drop, of want's seats, at
// log index at, then lets the game run to its end with bots and checks
// that their logs are identical and verify.
func (ft *forkTable) finish(at int, want ...int) {
	ft.t.Helper()
	var seats []int
	for _, p := range want {
		seats = append(seats, ft.seat(p))
	}
	seats = sortedSeats(seats)
	for _, i := range []int{ft.a, ft.b, ft.c, ft.d} {
		if got := ft.dropAt(i, at); !equalInts(got, seats) {
			ft.t.Fatalf("%s committed the drop of seats %v at entry %d, want %v: two honest peers, two logs",
				ft.n.peers[i].name, got, at, seats)
		}
	}
	for _, p := range ft.n.peers {
		p.hook = nil
	}
	ft.n.setBots(diceGame)
	live := []int{ft.a, ft.b, ft.c, ft.d}
	if !ft.n.run(200000, ft.n.allOver(live...)) {
		ft.t.Fatalf("the game did not finish: %+v", ft.n.peers[ft.a].node.Status())
	}
	ft.n.checkAgree(live...)
}

// TestDropVotesOfTwoSetsDoNotFork: at five seats the peer to act (E)
// vanishes; A, B and C vote to drop it; D is slow. A, B and C then vote
// again to drop D and E (it has not voted either, and is gone too), and
// D's vote to drop E alone arrives late. Both rounds are complete now:
// A, B, C and D for E; A, B and C for D and E. A peer that took the first
// complete round in its buffer committed E's drop where D's late vote
// reached it before the others' second votes (A here), and D's and E's
// where it did not (B, C): two honest peers, two logs. A voter takes only
// the round of its own greatest vote (or one that drops its own seat), so
// every peer commits the drop of D and E, and the game goes on with
// identical logs.
func TestDropVotesOfTwoSetsDoNotFork(t *testing.T) {
	ft := newForkTable(t, "drop fork")
	a, b, c, d, e := ft.a, ft.b, ft.c, ft.d, ft.e
	at := len(ft.n.peers[a].node.Log())
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
	// A: D's late vote first, then the others' second votes.
	ft.deliver(a, d, e)
	ft.deliver(a, b, d, e)
	ft.deliver(a, c, d, e)
	// B and C: the second votes first.
	for _, to := range []int{b, c} {
		for _, v := range []int{a, b, c} {
			if v != to {
				ft.deliver(to, v, d, e)
			}
		}
		ft.deliver(to, d, e)
	}
	// D: the second votes before the last of the first ones.
	for _, v := range []int{a, b, c} {
		ft.deliver(d, v, d, e)
	}
	for _, v := range []int{a, b, c} {
		ft.deliver(d, v, e)
	}
	ft.finish(at, d, e)
}

// TestDropVoteSurvivesRestartBetweenVotes: as
// TestDropVotesOfTwoSetsDoNotFork, but A restarts from its disk after its
// first vote, votes again after the restart, and restarts once more before
// D's late vote reaches it. The votes it signed are on its disk, so after
// each restart it knows its greatest vote there and still takes only that
// round.
func TestDropVoteSurvivesRestartBetweenVotes(t *testing.T) {
	ft := newForkTable(t, "drop fork restart")
	n := ft.n
	a, b, c, d, e := ft.a, ft.b, ft.c, ft.d, ft.e
	at := len(n.peers[a].node.Log())
	restartA := func() {
		n.crash(a)
		n.restart(a)
		n.answers = nil // its catch-up asks are lost: the test delivers
		for _, v := range []int{b, c} {
			ft.deliver(a, v, e)
		}
	}
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
	restartA()
	for _, v := range []int{a, b, c} {
		ft.vote(v, d, e)
	}
	restartA()
	ft.deliver(a, d, e)
	if got := ft.dropAt(a, at); got != nil {
		t.Fatalf("A, restarted after its vote to drop D and E, committed the drop of seats %v on D's late vote", got)
	}
	ft.deliver(a, b, d, e)
	ft.deliver(a, c, d, e)
	for _, to := range []int{b, c} {
		for _, v := range []int{a, b, c} {
			if v != to {
				ft.deliver(to, v, d, e)
			}
		}
		ft.deliver(to, d, e)
	}
	for _, v := range []int{a, b, c} {
		ft.deliver(d, v, d, e)
	}
	for _, v := range []int{a, b, c} {
		ft.deliver(d, v, e)
	}
	ft.finish(at, d, e)
}

// TestDropVoteFreedBySettles: only A votes again to drop D and E; B, C
// and D take E's drop on D's late vote before they would. A's own
// greatest vote can then never complete (B, C and D went on without it),
// and A may not take E's drop on the others' word that they committed it:
// that word could be a hostile peer's lie
// (TestHostileGapAnswerDoesNotForkTheDrop). A used to stay held at that
// position for good, and the others dropped it. Now A's late vote reaches
// B, C and D after they took E's drop, and each settles on the drop it
// took (settle.go); A's greater round needs B and C, both settled, so A
// settles too and takes E's drop: all four finish the game with identical
// logs that verify, and nobody accuses anyone of a cheat.
func TestDropVoteFreedBySettles(t *testing.T) {
	ft := newForkTable(t, "drop fork freed")
	n := ft.n
	a, b, c, d, e := ft.a, ft.b, ft.c, ft.d, ft.e
	at := len(n.peers[a].node.Log())
	for _, v := range []int{a, b, c, d} {
		ft.vote(v, e)
	}
	for _, to := range []int{a, b, c, d} {
		for _, v := range []int{a, b, c, d} {
			if v != to && !(to == a && v == d) {
				ft.deliver(to, v, e)
			}
		}
	}
	ft.vote(a, d, e)
	ft.deliver(a, d, e)
	for _, i := range []int{b, c, d} {
		if got := ft.dropAt(i, at); !equalInts(got, []int{ft.seat(e)}) {
			t.Fatalf("%s committed %v at entry %d, want E's drop", n.peers[i].name, got, at)
		}
	}
	if got := ft.dropAt(a, at); got != nil || len(n.peers[a].node.Log()) != at {
		t.Fatalf("A, whose greatest vote drops D and E, went on before any settle: %v at entry %d (log of %d entries)",
			got, at, len(n.peers[a].node.Log()))
	}
	// A's vote for D and E now reaches the others, and their settles
	// and catch-up answers reach A (Tick asks them).
	for _, p := range n.peers {
		p.hook = nil
	}
	if !n.run(20000, func() bool { return ft.dropAt(a, at) != nil }) {
		t.Fatalf("A is still held at entry %d: %+v", at, n.peers[a].node.Waiting())
	}
	ft.finish(at, e)
	settled := false
	for _, ev := range n.peers[a].events {
		settled = settled || strings.Contains(ev.Text, "settled on the drop of")
	}
	if !settled {
		t.Fatalf("A took E's drop without saying it settled on it")
	}
	n.noAccusations(a, b, c, d)
}

// TestDropVotesInAnyOrderAgree: the race of TestDropVotesOfTwoSetsDoNotFork
// in many orders. D votes to drop E; A, B and C vote to drop E, or D and
// E, and each may vote for the other set too at any point before it has
// taken a drop; every vote reaches every other voter, each in its own
// order.
// However the votes interleave, A, B and C commit one drop, the same: a
// voter whose greatest vote (D and E) the others went past by taking E's
// drop first settles on E's drop once a peer its round needs did
// (settle.go), and takes it. D, which the second votes drop, either
// follows them or, having taken E's drop alone, stops and says that the
// others dropped it. Those that went on finish with identical logs that
// verify, and nobody is accused of a cheat.
func TestDropVotesInAnyOrderAgree(t *testing.T) {
	cases := 400
	if testing.Short() {
		cases = 10
	}
	for k := 0; k < cases; k++ {
		t.Run(fmt.Sprint(k), func(t *testing.T) { dropVotesInOrder(t, k) })
	}
}

func dropVotesInOrder(t *testing.T, k int) {
	ft := newForkTable(t, fmt.Sprintf("drop order %d", k))
	n := ft.n
	a, b, c, d, e := ft.a, ft.b, ft.c, ft.d, ft.e
	at := len(n.peers[a].node.Log())
	rng := engine.NewRand([]byte(fmt.Sprintf("drop order schedule %d", k)))
	// An event is a delivery of voter's vote to drop E (two: D and E)
	// to peer to, or (to < 0) voter's vote for that set.
	type event struct {
		to, voter int
		two       bool
	}
	voters := []int{a, b, c, d}
	var events []event
	cast := func(v int, two bool) {
		if two {
			ft.vote(v, d, e)
		} else {
			ft.vote(v, e)
		}
		for _, to := range voters {
			if to != v {
				events = append(events, event{to: to, voter: v, two: two})
			}
		}
	}
	cast(d, false)
	for _, v := range []int{a, b, c} {
		// Mostly E first, then perhaps D and E ("gone too"); sometimes
		// D and E first, then E alone (the seats a vote waits for
		// shrink: D's input came): a peer's votes at one position need
		// not extend one another.
		first := rng.Intn(4) == 0
		cast(v, first)
		if first || rng.Intn(3) > 0 {
			events = append(events, event{to: -1, voter: v, two: !first})
		}
	}
	for len(events) > 0 {
		i := rng.Intn(len(events))
		ev := events[i]
		events = append(events[:i], events[i+1:]...)
		switch {
		case ev.to >= 0 && ev.two:
			ft.deliver(ev.to, ev.voter, d, e)
		case ev.to >= 0:
			ft.deliver(ev.to, ev.voter, e)
		case len(n.peers[ev.voter].node.Log()) == at:
			// Not yet past the position (an honest peer never votes
			// at a position it has committed).
			cast(ev.voter, ev.two)
		}
	}
	for _, p := range n.peers {
		p.hook = nil
	}
	n.setBots(diceGame)
	dStopped := func() bool { return n.peers[d].node.Status().Phase == PhaseStopped }
	// A game with no held voter ends within 8,000 steps in every order
	// (80 simulated seconds); a table with one was still waiting after
	// five times that, which is all a bounded run can show.
	n.run(40000, func() bool { return n.allOver(a, b, c)() && (dStopped() || n.allOver(d)()) })
	// Every one of A, B and C took one drop, the same.
	var want []int
	var live, held []int
	for _, i := range []int{a, b, c} {
		got := ft.dropAt(i, at)
		if got == nil {
			if len(n.peers[i].node.Log()) != at {
				t.Fatalf("%s committed %s at entry %d, no drop", n.peers[i].name, n.peers[i].node.Log()[at].Kind, at)
			}
			held = append(held, i)
			continue
		}
		if want != nil && !equalInts(got, want) {
			t.Fatalf("%s committed the drop of seats %v at entry %d, another %v: two honest peers, two logs",
				n.peers[i].name, got, at, want)
		}
		want = got
		live = append(live, i)
	}
	if want == nil {
		t.Fatalf("none of A, B and C committed a drop at entry %d; D %v", at, ft.dropAt(d, at))
	}
	if dStopped() {
		// D took E's drop alone, the others D's and E's: it went on
		// alone, a peer the others dropped, and its log is no longer
		// theirs; it stops (on their first checkpoint, which differs
		// from its own, or on a gap answer).
		if !containsInt(want, ft.seat(d)) || equalInts(ft.dropAt(d, at), want) {
			t.Fatalf("D stopped, with the drop of seats %v at entry %d, the others %v", ft.dropAt(d, at), at, want)
		}
	} else {
		if got := ft.dropAt(d, at); !equalInts(got, want) {
			t.Fatalf("D committed the drop of seats %v at entry %d, the others %v: two honest peers, two logs", got, at, want)
		}
		live = append(live, d)
	}
	if len(held) > 0 {
		// Before settles (settle.go) 257 of 400 orders left one or two
		// voters held here for good.
		var names []string
		for _, i := range held {
			names = append(names, n.peers[i].name)
		}
		t.Fatalf("%v held at entry %d, its greatest vote gone past: %+v", names, at, n.peers[held[0]].node.Waiting())
	}
	if !n.allOver(live...)() {
		t.Fatalf("the game did not finish: A %v, D %v; the drops at entry %d: A %v, B %v, C %v, D %v",
			n.peers[a].node.Status().Phase, n.peers[d].node.Status().Phase, at, ft.dropAt(a, at), ft.dropAt(b, at), ft.dropAt(c, at), ft.dropAt(d, at))
	}
	n.noAccusations(a, b, c, d)
	n.checkAgree(live...)
}

// TestHostileGapAnswerDoesNotForkTheDrop: A, B, C and D vote to drop E;
// then A, B and C vote to drop D and E. A is hostile: it gives its vote
// for D and E to B only, so B takes that drop (rightly: every voter it
// needs voted). A then answers C's gap request with the four votes for E
// as its "committed" entries at that position. Were C to take the drop a
// peer outside its votes shows it committed, it would commit E's drop and
// B D's and E's: two honest peers, two logs, on one peer's word. C takes
// only the round of its own greatest vote, so it stays at the position
// until A's vote for D and E reaches it, and then commits B's drop.
func TestHostileGapAnswerDoesNotForkTheDrop(t *testing.T) {
	ft := newForkTable(t, "drop fork hostile answer")
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
	ft.deliver(c, b, d, e)
	ft.deliver(c, d, e)
	dDE := sortedSeats([]int{ft.seat(d), ft.seat(e)})
	if got := ft.dropAt(b, at); !equalInts(got, dDE) {
		t.Fatalf("B committed %v at entry %d, want the drop of D and E", got, at)
	}
	if got := ft.dropAt(c, at); got != nil {
		t.Fatalf("C committed %v at entry %d before A's answer", got, at)
	}
	// A's answer: the four votes for E, as if it had committed them.
	var entries []*crypto.Envelope
	for _, v := range []int{a, b, c, d} {
		env := ft.votes[ft.key(v, encodeSeats([]int{ft.seat(e)}))]
		wire, err := crypto.Unmarshal(env.Marshal())
		if err != nil {
			t.Fatal(err)
		}
		entries = append(entries, wire)
	}
	_ = n.peers[c].node.StepAnswer(GapAnswer{Peer: n.peers[a].id.ID(), From: uint64(at), Entries: entries})
	n.drain(c)
	if got := ft.dropAt(c, at); got != nil {
		t.Fatalf("C committed the drop of seats %v at entry %d on A's answer; B committed %v: two honest peers, two logs", got, at, dDE)
	}
	ft.deliver(c, a, d, e)
	if got := ft.dropAt(c, at); !equalInts(got, dDE) {
		t.Fatalf("C committed %v at entry %d once A's vote reached it, want the drop of D and E as B", got, at)
	}
	for _, i := range []int{b, c} {
		if !crypto.Equal(n.peers[i].node.Log()[at], n.peers[b].node.Log()[at]) {
			t.Fatalf("%s and B differ at entry %d", n.peers[i].name, at)
		}
	}
}
