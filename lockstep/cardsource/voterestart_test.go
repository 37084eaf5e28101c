package cardsource_test

import (
	"strings"
	"testing"

	"github.com/boardmesh/boardmesh/crypto"
	"github.com/boardmesh/boardmesh/engine"
	"github.com/boardmesh/boardmesh/engine/dominion"
	"github.com/boardmesh/boardmesh/lockstep"
)

// TestNodeHeldVoterJoinedAfterRestart: the race of
// TestNodeSecretDropVotesAcrossCardWait at a secret Dominion table of
// three (P1 votes P3 out while a wait for P3's shares is open; the shares
// then come, and P3 vanishes; P2 goes past the wait and waits for the
// held P1 and for P3), with P2 restarted from its disk in the middle of
// that wait, half a second after it went past it, long before its drop
// period ran out. How long P3 kept it waiting before the restart was in
// its memory only, and a restarted P2 that has not voted sees P3 keep it
// waiting no more (P3's envelopes are all here): it votes the held P1
// out, a vote P3, gone, never joins, and the table stands still for good.
// So P2 joins a held voter's vote at once (joinHeld), its vote on its
// disk before the restart: the table goes on without P3, and the two
// play to the end with identical logs, nobody honest named.
func TestNodeHeldVoterJoinedAfterRestart(t *testing.T) {
	nt := newNodeGameTable(t, dominion.Game, 3, "across dominion", false, func(i int, c *lockstep.Config) {
		c.DropAfter, c.StallAfter = 2000, 500
		if i == 1 {
			c.DropAfter = 4000
		}
	})
	var late []*crypto.Envelope
	armed, released, restarted := false, false, false
	var releasedAt int64
	nt.withhold = func(from int, env *crypto.Envelope) bool {
		if from == 1 && released && !restarted && env.Kind == crypto.KindDrop {
			return true // its host restarts before the vote leaves
		}
		if released || from != 2 || env.Kind != crypto.KindShare {
			return false
		}
		if !armed {
			p3 := nt.nodes[2]
			st := p3.State()
			next := afterCards(st)
			if next == nil {
				return false
			}
			me := p3.Status().MySeat
			needsP3 := false
			for _, o := range st.(engine.CardState).Openings(nil) {
				needsP3 = needsP3 || o.To != me
			}
			who := next.ToAct()
			again := who.Kind == engine.ActorSeat && who.Seat == me || who.Kind == engine.ActorChance || next.Turn() != st.Turn()
			if !needsP3 || !again {
				return false
			}
			armed = true
		}
		late = append(late, env)
		return true
	}
	nt.onIdle = func() {
		if !armed {
			return
		}
		if !released {
			if !nt.votedDrop(0) {
				return
			}
			if nt.votedDrop(1) {
				t.Fatal("the second peer voted before the shares came; the scenario did not happen")
			}
			released, releasedAt = true, nt.now
			for _, env := range late {
				for j := 0; j < 2; j++ {
					nt.inbox[j] = append(nt.inbox[j], env.Marshal())
				}
			}
			nt.mute, nt.muteAfter, nt.muted, nt.escrowed = 2, 1, 0, true
			return
		}
		if restarted || nt.now-releasedAt < 500 {
			return
		}
		// P2 went past the wait for cards half a second ago and waits
		// for P1 and P3, its drop period (4 s) far from over; its host
		// restarts (any vote it signed meanwhile on its disk, not sent).
		if nt.nodes[1].State().ToAct().Kind == engine.ActorCards {
			t.Fatal("the second peer did not go past the wait for cards; the scenario did not happen")
		}
		restarted = true
		nt.restart(1, false, "back")
	}
	nt.cheatsOK = true
	nt.playTicking()
	if !restarted {
		t.Fatal("the game ended before the second peer restarted; the scenario did not happen")
	}
	for _, c := range nt.cheats {
		if !strings.HasPrefix(c, "peer 3:") {
			t.Fatalf("cheats named at an honest table: %s", c)
		}
	}
	nt.sameEntries(1)
	for i := 0; i < 2; i++ {
		st := nt.nodes[i].Status()
		if st.Phase != lockstep.PhaseOver {
			t.Fatalf("peer %d is in phase %v", i+1, st.Phase)
		}
		if !st.Dropped[nt.seatOf(i, "P3")] || st.Dropped[nt.seatOf(i, "P1")] || st.Dropped[nt.seatOf(i, "P2")] {
			t.Fatalf("peer %d: dropped %v; only P3 should be", i+1, st.Dropped)
		}
	}
}
