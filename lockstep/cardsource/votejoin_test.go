package cardsource_test

import (
	"bytes"
	"testing"

	"github.com/boardmesh/boardmesh/crypto"
	"github.com/boardmesh/boardmesh/engine"
	"github.com/boardmesh/boardmesh/engine/dominion"
	"github.com/boardmesh/boardmesh/lockstep"
)

// TestNodeHeldVoterCannotDropAnHonestSeat: at a secret Dominion table of
// three, P1 runs a modified client. In a routine wait for cards, while
// P3's decryption shares are on their way, it votes at once to drop P3,
// and then sends nothing more. P3's shares come a moment later; P2 goes
// on and waits for P1. P2 joins a held voter's vote only for seats that
// kept it waiting long (heldBy, joinAfter), which P3 never did (one
// tick): so P2 and P3 vote P1 out, not P3, and the two play to the end
// with identical logs. (When any wait counted, P2 joined P1's vote to
// drop P3, and the table stood still for good: P3 waiting for P2, P2
// held by a vote that P3 would never join.)
func TestNodeHeldVoterCannotDropAnHonestSeat(t *testing.T) {
	nt := newNodeGameTable(t, dominion.Game, 3, "across dominion", false, func(i int, c *lockstep.Config) {
		c.DropAfter, c.StallAfter = 2000, 500
	})
	var late []*crypto.Envelope
	armed, released := false, false
	nt.withhold = func(from int, env *crypto.Envelope) bool {
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
			// A wait after which the table needs P1 again (its move, a
			// reveal, a checkpoint): the moment a held voter's silence
			// holds the others.
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
	voted, votedAt := false, int64(0)
	nt.onIdle = func() {
		if released || !armed {
			return
		}
		if !voted {
			voted, votedAt = true, nt.now
			p1 := nt.nodes[0]
			if err := p1.VoteDrop([]int{nt.seatOf(0, "P3")}); err != nil {
				t.Fatalf("P1's vote: %v", err)
			}
			nt.run() // its vote goes out; then nothing more of P1's does
			nt.mute, nt.muteAfter, nt.muted, nt.escrowed = 0, 1, 0, true
			return
		}
		if nt.now == votedAt {
			return
		}
		// A tick later (P2 has seen itself wait for P3's shares), they
		// come.
		released = true
		for _, env := range late {
			for j := 0; j < 2; j++ {
				nt.inbox[j] = append(nt.inbox[j], env.Marshal())
			}
		}
	}
	nt.cheatsOK = true
	nt.playTicking()
	if !released {
		t.Fatal("the game ended before a wait for P3's shares; the scenario did not happen")
	}
	a, b := nt.entries[1], nt.entries[2]
	if len(a) != len(b) {
		t.Fatalf("P2 committed %d entries, P3 %d", len(a), len(b))
	}
	for k := range a {
		if !bytes.Equal(a[k].Marshal(), b[k].Marshal()) {
			t.Fatalf("entry %d differs between P2 and P3", k)
		}
	}
	for _, i := range []int{1, 2} {
		st := nt.nodes[i].Status()
		if st.Phase != lockstep.PhaseOver {
			t.Fatalf("peer %d is in phase %v", i+1, st.Phase)
		}
		if !st.Dropped[nt.seatOf(i, "P1")] || st.Dropped[nt.seatOf(i, "P3")] || st.Dropped[nt.seatOf(i, "P2")] {
			t.Fatalf("peer %d: dropped %v; only P1 should be", i+1, st.Dropped)
		}
	}
}
