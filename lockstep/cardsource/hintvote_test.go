package cardsource_test

import (
	"testing"

	"github.com/boardmesh/boardmesh/engine"
	"github.com/boardmesh/boardmesh/engine/dominion"
	"github.com/boardmesh/boardmesh/engine/games"
	"github.com/boardmesh/boardmesh/lockstep"
)

// TestHintedVerifierHeldDropRound: at a secret Dominion table of three,
// P3's decryption shares for a wait are slow; P1 and P2 both vote it out
// while the wait is open, and then the shares come to both, and P3
// vanishes. Both are held by their votes (neither ends the wait where it
// voted), so the drop is taken at the state before the wait ends, and
// the log's round of votes names that state. A live peer's history (the
// UI recorder: the Verifier with the card hint of the peer's own state)
// fed that log entry by entry must take the steps the node took and end
// where Verify ends, not pass the wait the hint could answer before the
// round and then refuse the round's votes.
func TestHintedVerifierHeldDropRound(t *testing.T) {
	t.Parallel() // its own simulated clock and disks: it runs beside the others
	nt := heldVoterTable(t, dominion.Game, "across dominion", "", nil)
	nt.onIdle = func() {
		if nt.released || !nt.armed || !nt.votedDrop(0) || !nt.votedDrop(1) {
			return
		}
		nt.release()
		nt.hostCloses(2, 1)
	}
	nt.cheatsOK = true
	nt.playTicking()
	if !nt.released {
		t.Fatal("the game ended before both voted; the scenario did not happen")
	}
	log := nt.nodes[0].Log()
	want, err := lockstep.Verify(log, games.Lookup)
	if err != nil {
		t.Fatalf("the log does not verify: %v", err)
	}
	c := nt.nodes[0].State().(engine.CardState).Cards()
	hinted := lockstep.NewVerifier(games.Lookup)
	hinted.SetCardHint(func(h engine.Handle) (int, bool) {
		v, ok := c.Public(h)
		return int(v), ok && c.Valid(h)
	})
	for i, env := range log {
		if err := hinted.Feed(env); err != nil {
			t.Fatalf("with the hint, entry %d of %d (%s): %v", i, len(log), env.Kind, err)
		}
	}
	r := hinted.Replay()
	if engine.Hash(r.Final) != engine.Hash(want.Final) || len(r.Hashes) != len(want.Hashes) {
		t.Fatalf("with the hint the replay ends at step %d, Verify at %d", len(r.Hashes), len(want.Hashes))
	}
	for k := range want.Hashes {
		if r.Hashes[k] != want.Hashes[k] {
			t.Fatalf("with the hint step %d differs from Verify's", k)
		}
	}
}
