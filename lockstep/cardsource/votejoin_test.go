package cardsource_test

import (
	"testing"

	"github.com/boardmesh/boardmesh/engine/dominion"
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
	t.Parallel() // its own simulated clock and disks: it runs beside the others
	nt := heldVoterTable(t, dominion.Game, "across dominion", "P1", nil)
	nt.onIdle = func() {
		if nt.released || !nt.armed || !nt.p1VotedTickAgo() {
			return
		}
		// A tick later (P2 has seen itself wait for P3's shares), they
		// come.
		nt.release()
	}
	nt.cheatsOK = true
	nt.playTicking()
	if !nt.released {
		t.Fatal("the game ended before a wait for P3's shares; the scenario did not happen")
	}
	nt.sameEntriesAs(1, 2)
	nt.onlyDropped("P1", 1, 2)
}
