package cardsource_test

import (
	"testing"

	"github.com/boardmesh/boardmesh/crypto"
	"github.com/boardmesh/boardmesh/engine"
	"github.com/boardmesh/boardmesh/engine/dominion"
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
	t.Parallel() // its own simulated clock and disks: it runs beside the others
	nt := heldVoterTable(t, dominion.Game, "across dominion", "P3", p2Waits4s)
	restarted := false
	var releasedAt int64
	shares := nt.withhold
	nt.withhold = func(from int, env *crypto.Envelope) bool {
		if from == 1 && nt.released && !restarted && env.Kind == crypto.KindDrop {
			return true // its host restarts before the vote leaves
		}
		return shares(from, env)
	}
	nt.onIdle = func() {
		if !nt.armed {
			return
		}
		if !nt.released {
			if !nt.votedDrop(0) {
				return
			}
			if nt.votedDrop(1) {
				t.Fatal("the second peer voted before the shares came; the scenario did not happen")
			}
			nt.release()
			releasedAt = nt.now
			nt.hostCloses(2, 1)
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
	nt.onlyCheatsOf(2)
	nt.sameEntries(1)
	nt.onlyDropped("P3", 0, 1)
}
