package lockstep

import (
	"testing"

	"github.com/boardmesh/boardmesh/crypto"
)

// TestHostileVoterCannotStallHonestMajority: five seats, E has left, D
// is hostile. A, B and C vote to drop E; D signs its vote for E but holds
// it back. After their drop period A and B vote again, to drop D and E (D
// has not voted: "gone too"). Now D shows its vote for E to C alone,
// before C extends: C's round for E is complete and it takes E's drop; A
// and B, whose greatest vote is D's and E's, may not take E's drop by the
// rule of greatest votes, and their own round can no longer complete (it
// needs C). D then leaves.
//
// A, B and C are honest and a strict majority of the five seats. Before
// settles (settle.go) A and B waited for each other for good (the
// review's finding on 9f8df69). Now C, having taken E's drop where
// another round was voted, settles on it; A and B, each seeing that the
// greater round's voter C settled, settle too, and take E's drop once the
// other has: the three finish the game with one log. Without D's timing
// (its vote for E shown to nobody) the same table finishes too: the
// control case.
func TestHostileVoterCannotStallHonestMajority(t *testing.T) {
	t.Run("control: D shows its vote to nobody", func(t *testing.T) { hostileDropStall(t, false) })
	t.Run("hostile D times its vote", func(t *testing.T) { hostileDropStall(t, true) })
}

func hostileDropStall(t *testing.T, hostile bool) {
	n := startDice(t, "review drop stall", 5, Config{StallAfter: 2000, DropAfter: 6000})
	ft := &forkTable{t: t, n: n, votes: map[string]*crypto.Envelope{}}
	ft.e, _ = n.actor()
	rest := n.others(ft.e)
	ft.a, ft.b, ft.c, ft.d = rest[0], rest[1], rest[2], rest[3]
	n.crash(ft.e)
	ft.holdVotes()
	a, b, c, d, e := ft.a, ft.b, ft.c, ft.d, ft.e
	at := len(n.peers[a].node.Log())
	for _, v := range []int{a, b, c, d} {
		ft.vote(v, e) // D's is signed, but only D decides who sees it
	}
	for _, to := range []int{a, b, c} {
		for _, v := range []int{a, b, c} {
			if v != to {
				ft.deliver(to, v, e)
			}
		}
	}
	// A and B, after their drop period: D is gone too.
	ft.vote(a, d, e)
	ft.vote(b, d, e)
	ft.deliver(b, a, d, e)
	ft.deliver(c, a, d, e)
	ft.deliver(a, b, d, e)
	ft.deliver(c, b, d, e)
	if hostile {
		// D's vote for E reaches C first: C takes E's drop.
		ft.deliver(c, d, e)
		if got := ft.dropAt(c, at); !equalInts(got, []int{ft.seat(e)}) {
			t.Fatalf("C committed %v at entry %d; the scenario wants E's drop", got, at)
		}
		ft.deliver(a, d, e)
		ft.deliver(b, d, e)
	}
	// D leaves; the network is fair from now on and every honest node
	// votes by itself after its drop period (Config.DropAfter).
	n.crash(d)
	for _, p := range n.peers {
		p.hook = nil
	}
	n.setBots(diceGame)
	honest := []int{a, b, c}
	if !n.run(100000, n.allOver(honest...)) {
		t.Fatalf("A, B and C, honest and 3 of 5 seats, never finished the game after one hostile seat's timing: "+
			"A at entry %d (%v), B at %d (%v), C at %d (%v); drops at entry %d: A %v, B %v, C %v",
			len(n.peers[a].node.Log()), n.peers[a].node.Status().Phase,
			len(n.peers[b].node.Log()), n.peers[b].node.Status().Phase,
			len(n.peers[c].node.Log()), n.peers[c].node.Status().Phase,
			at, ft.dropAt(a, at), ft.dropAt(b, at), ft.dropAt(c, at))
	}
	n.checkAgree(honest...)
}

// TestHeldPairFreedAtSixSeats: the held pair the protocol doc named as a
// table that waits. Six seats, F gone. A, B, C, D and E vote F out; E
// holds its vote back; A and B extend theirs to E and F (four of six
// voters: a majority). E's vote for F then reaches C and D first, which
// take F's drop; A and B, whose greater round needs C and D, were held
// for good before settles. Now C and D settle on F's drop when A's and
// B's votes reach them, A and B settle too, and the five left finish the
// game with one log.
func TestHeldPairFreedAtSixSeats(t *testing.T) {
	n := startDice(t, "held pair six seats", 6, Config{})
	ft := &forkTable{t: t, n: n, votes: map[string]*crypto.Envelope{}}
	f, _ := n.actor()
	rest := n.others(f)
	a, b, c, d, e := rest[0], rest[1], rest[2], rest[3], rest[4]
	n.crash(f)
	ft.holdVotes()
	at := len(n.peers[a].node.Log())
	for _, v := range rest {
		ft.vote(v, f)
	}
	for _, to := range rest {
		for _, v := range []int{a, b, c, d} {
			if v != to {
				ft.deliver(to, v, f)
			}
		}
	}
	ft.vote(a, e, f)
	ft.vote(b, e, f)
	ft.deliver(a, b, e, f)
	ft.deliver(b, a, e, f)
	for _, to := range []int{c, d, a, b} {
		ft.deliver(to, e, f) // E's late vote: C and D first
	}
	for _, i := range []int{c, d} {
		if got := ft.dropAt(i, at); !equalInts(got, []int{ft.seat(f)}) {
			t.Fatalf("%s committed %v at entry %d; the scenario wants F's drop", n.peers[i].name, got, at)
		}
	}
	for _, i := range []int{a, b} {
		if got := ft.dropAt(i, at); got != nil {
			t.Fatalf("%s, whose greatest vote drops E and F, committed %v before any settle", n.peers[i].name, got)
		}
	}
	for _, p := range n.peers {
		p.hook = nil
	}
	n.setBots(diceGame)
	live := []int{a, b, c, d, e}
	if !n.run(200000, n.allOver(live...)) {
		t.Fatalf("the five left never finished: A at entry %d (%v), waiting %v", len(n.peers[a].node.Log()),
			n.peers[a].node.Status().Phase, n.peers[a].node.Waiting())
	}
	for _, i := range live {
		if got := ft.dropAt(i, at); !equalInts(got, []int{ft.seat(f)}) {
			t.Fatalf("%s committed %v at entry %d, want F's drop", n.peers[i].name, got, at)
		}
	}
	n.checkAgree(live...)
}
