package cardsource_test

import (
	"testing"

	"github.com/boardmesh/boardmesh/engine/dominion"
	"github.com/boardmesh/boardmesh/engine/games"
	"github.com/boardmesh/boardmesh/lockstep"
)

// TestNodeHeldVoterJoinedAfterRestartPastTheWait: at a secret Dominion table of
// three, P3's decryption shares for a wait after which the table needs P1
// again are slow. P1 (drop period 2 s) votes P3 out while the wait is
// open and is held by that vote; then the shares come, P3's host closes,
// and P2 (drop period 4 s, which had not voted) goes past the wait and
// waits for P1. Now P2 restarts from its disk: it replays past the wait
// (the shares are on its disk) and has forgotten that P3 kept it waiting
// there. P3 answers nothing since; the time since the restart is real
// waiting for it, and once it is long enough P2 joins P1's vote: P3 alone
// is dropped, the two play to the end with identical logs, and the log
// verifies, and P2 replays its disk to where it is. (Without the
// restart, "went on", P2 joins as well: P3 kept it waiting at the wait.)
func TestNodeHeldVoterJoinedAfterRestartPastTheWait(t *testing.T) {
	t.Parallel() // its own simulated clock and disks: it runs beside the others
	t.Run("went on", func(t *testing.T) { heldVoterJoined(t, false) })
	t.Run("restarted", func(t *testing.T) { heldVoterJoined(t, true) })
}

// heldVoterJoined is TestNodeHeldVoterJoinedAfterRestartPastTheWait, with P2
// restarting past the wait if restart is set.
func heldVoterJoined(t *testing.T, restart bool) {
	nt := heldVoterTable(t, dominion.Game, "across dominion", "P1", p2Waits4s)
	restarted := false
	var before uint64
	nt.onIdle = func() {
		if !nt.armed || restarted {
			return
		}
		if !nt.released {
			if !nt.votedDrop(0) {
				return
			}
			if nt.votedDrop(1) {
				t.Fatal("P2 voted before the shares came; the scenario did not happen")
			}
			before = nt.nodes[1].Status().Seq
			nt.release()
			// Its host closes: nothing more of P3's goes out, nor any
			// answer to a catch-up.
			nt.hostCloses(2, 0)
			return
		}
		// P2 went past the wait (one step further, at the same log
		// position) and waits for P1, held: it restarts now.
		if nt.nodes[1].Status().Seq == before {
			t.Fatal("the shares did not end P2's wait for cards; the scenario did not happen")
		}
		restarted = true
		if !restart {
			return
		}
		nt.restart(1, false, "held restart")
		if nt.nodes[1].Status().Seq == before {
			t.Fatal("restarted, P2 is back in the wait for cards; the scenario did not happen")
		}
	}
	nt.cheatsOK = true
	nt.playTicking()
	if !restarted {
		t.Fatal("the game ended before P2 restarted; the scenario did not happen")
	}
	// P3's host is closed but its node still receives in this harness:
	// dropped, it refuses what the others go on with (their envelopes
	// past its position overflow its buffer). Only the two honest peers
	// that play on must name nobody.
	nt.onlyCheatsOf(2)
	nt.sameEntries(1)
	if _, err := lockstep.Verify(nt.nodes[0].Log(), games.Lookup); err != nil {
		t.Fatalf("the log does not verify: %v", err)
	}
	nt.replaysSame(1)
	nt.onlyDropped("P3", 0, 1)
}

// TestNodeRestartedPeerCannotBeLedToDropAnHonestSeat is
// TestNodeHeldVoterCannotDropAnHonestSeat with P2 restarted once P3's
// shares ended its wait: P1, a modified client, voted at once to drop P3
// and sends nothing more. Restarted, P2 counts as waiting for P3 only the
// time P3 has not answered its card catch-up since, which honest P3 does
// at once: so P2 does not join P1's vote, P2 and P3 vote P1 out, and the
// two play to the end with identical logs.
func TestNodeRestartedPeerCannotBeLedToDropAnHonestSeat(t *testing.T) {
	t.Parallel() // its own simulated clock and disks: it runs beside the others
	nt := heldVoterTable(t, dominion.Game, "across dominion", "P1", func(i int, c *lockstep.Config) {
		// Restarted, P2 asks for a catch-up at its first tick, and then
		// each re-send period: here shorter than its join period, as it
		// is by default, so that P3's checkpoint, lost with P2's memory,
		// is back before it counts as a wait for P3.
		c.ResendAfter = 200
	})
	restarted := false
	nt.onIdle = func() {
		if restarted || !nt.armed || !nt.p1VotedTickAgo() {
			return
		}
		if !nt.released {
			nt.release()
			return
		}
		restarted = true
		nt.restart(1, false, "honest restart")
	}
	nt.cheatsOK = true
	nt.playTicking()
	if !restarted {
		t.Fatal("the game ended before P2 restarted; the scenario did not happen")
	}
	nt.sameEntriesAs(1, 2)
	nt.onlyDropped("P1", 1, 2)
}
