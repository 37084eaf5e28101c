package cardsource_test

import (
	"testing"

	"github.com/boardmesh/boardmesh/crypto"
	"github.com/boardmesh/boardmesh/engine"
	"github.com/boardmesh/boardmesh/engine/dominion"
	"github.com/boardmesh/boardmesh/lockstep"
)

// TestRestartedPeerAsksEachSeatItWaitsFor: the scenario of
// TestNodeRestartedPeerCannotBeLedToDropAnHonestSeat (P1, a modified
// client, votes at once to drop P3 at a wait for cards and then sends
// nothing but drop votes; P3's shares come; P2 restarts past the wait),
// except that for 3 s after P2's restart every catch-up ask of P2 that
// names no peer goes to P1, which a runner may pick (p2p's gapPeer, when
// the ask names nobody), and which answers with what it chooses; an ask
// that names a peer goes to that peer. P3 is honest and at the same
// position as P2, with nothing new to send (it waits for P1, as P2 does).
//
// A restarted peer counts a seat that has not answered its card catch-up
// as waited for from its first ask (noteWaited); after joinAfter (here
// 500 ms) it joins P1's held vote, and P1 and P2 are every voter P3's
// drop needs. The review of 192f700 showed honest P3, never reached,
// dropped so on one hostile peer's word. Now the restarted peer asks each
// seat it waits for by name (restartAsks), honest P3 answers, and the
// table drops P1 instead: in both cases, the asks that name nobody
// answered or not.
func TestRestartedPeerAsksEachSeatItWaitsFor(t *testing.T) {
	t.Run("asks that name nobody answered", func(t *testing.T) { restartLedToDrop(t, false) })
	t.Run("asks that name nobody lost", func(t *testing.T) { restartLedToDrop(t, true) })
}

func restartLedToDrop(t *testing.T, unanswered bool) {
	nt := newNodeGameTable(t, dominion.Game, 3, "across dominion", false, func(i int, c *lockstep.Config) {
		c.DropAfter, c.StallAfter, c.ResendAfter = 2000, 500, 200
	})
	var late []*crypto.Envelope
	armed, released, restarted, p1Silent := false, false, false, false
	nt.withhold = func(from int, env *crypto.Envelope) bool {
		if from == 0 && p1Silent {
			return env.Kind != crypto.KindDrop // P1 shows its drop votes only
		}
		if released || from != 2 || env.Kind != crypto.KindShare {
			return false
		}
		if !armed {
			st := nt.nodes[2].State()
			me := nt.nodes[2].Status().MySeat
			needsP3 := false
			for _, o := range st.(engine.CardState).Openings(nil) {
				needsP3 = needsP3 || o.To != me
			}
			next := afterCards(st)
			if !needsP3 || next == nil {
				return false
			}
			p1 := nt.seatOf(2, "P1")
			who := next.ToAct()
			if !(who.Kind == engine.ActorSeat && who.Seat == p1 || who.Kind == engine.ActorChance || next.Turn() != st.Turn()) {
				return false
			}
			armed = true
		}
		late = append(late, env)
		return true
	}
	noAnswer := false // P2's asks that name nobody go to P1
	nt.lost = func(from, to int, q lockstep.GapRequest) bool {
		if q.To != "" {
			return q.To != nt.ids[from].ID() // an ask that names a peer goes to it
		}
		return noAnswer && to == 1 && from != 0
	}
	run := nt.run
	voted, votedAt := false, int64(0)
	var restartedAt int64
	onIdle := func() {
		if restarted || !armed {
			return
		}
		if !voted {
			voted, votedAt = true, nt.now
			if err := nt.nodes[0].VoteDrop([]int{nt.seatOf(0, "P3")}); err != nil {
				t.Fatalf("P1's vote: %v", err)
			}
			run()
			p1Silent = true
			return
		}
		if nt.now == votedAt {
			return
		}
		if !released {
			released = true
			for _, env := range late {
				for j := 0; j < 2; j++ {
					nt.inbox[j] = append(nt.inbox[j], env.Marshal())
				}
			}
			return
		}
		restarted, restartedAt = true, nt.now
		if unanswered {
			noAnswer = true
		}
		nt.restart(1, false, "honest restart")
		t.Logf("restarted P2 at seq %d waits for %v", nt.nodes[1].Status().Seq, nt.nodes[1].Waiting())
	}
	nt.cheatsOK = true
	// playTicking's loop, until P2 has dropped someone or gives up.
	r := engine.NewRand([]byte("bots"))
	p3Dropped, p1Dropped := false, false
	for steps := 0; steps < 20000 && !p3Dropped && !p1Dropped; steps++ {
		busy := run()
		for i, node := range nt.nodes {
			if !nt.live(i) || i == 0 && p1Silent {
				continue
			}
			if node.CanAct() {
				st := node.State()
				if err := node.Act(engine.RandomBot{}.Choose(st, st.Legal(nil), r)); err != nil {
					t.Fatal(err)
				}
				busy = true
			}
		}
		if !busy {
			onIdle()
			busy = run()
		}
		if !busy {
			nt.now += 100
			if noAnswer && nt.now-restartedAt >= 3000 {
				noAnswer = false // the runner picks P3 too again
			}
			for i, node := range nt.nodes {
				if nt.live(i) {
					node.Tick(nt.now)
				}
			}
		}
		if restarted {
			st := nt.nodes[1].Status()
			p3Dropped = st.Dropped[nt.seatOf(1, "P3")]
			p1Dropped = st.Dropped[nt.seatOf(1, "P1")]
		}
		if st := nt.nodes[0].Status(); st.Phase == lockstep.PhaseOver && !restarted {
			t.Fatal("the game ended before P2 restarted; the scenario did not happen")
		}
	}
	if !restarted {
		t.Fatal("P2 never restarted; the scenario did not happen")
	}
	if p3Dropped {
		t.Fatalf("restarted P2 joined hostile P1's vote and dropped honest P3 (asks that name nobody lost: %v; dropped %v)",
			unanswered, nt.nodes[1].Status().Dropped)
	}
	if !p1Dropped {
		t.Fatalf("P2 dropped neither P1 nor P3: %v", nt.nodes[1].Waiting())
	}
}
