package lockstep

import (
	"fmt"

	"github.com/boardmesh/boardmesh/crypto"
	"github.com/boardmesh/boardmesh/engine"
)

// A secret table's log names the cards a wait opened to everyone only in
// the action after the wait (secretAction.opened), and a wait for cards
// is a step with no entry of its own. Rebuilding the state after exactly
// seq steps from a log (a desync report's side of the log, stateAt, and
// ExplainDesync's from a bundle) must therefore stop between the wait and
// the entry after it, and at the end of a log that stopped right after a
// wait (a desync stops the game before the next action) find the cards
// from a state hash signed for the state after the wait. Without this the
// state at a desync's step could not be rebuilt at a secret table: the
// report diffed our state at another step (every card drawn since looked
// like a difference), a peer could not send its state at an earlier step,
// and replay of the bundle named no field at all.

// passWaitAt ends a wait for cards that is step seq before env, the entry
// that follows it in the log, is fed: after it the machine is at seq. The
// entry, if it signs the state at seq, must agree (it is not fed yet, so
// nothing else has checked what it lists).
func (m *machine) passWaitAt(env *crypto.Envelope, seq uint64) error {
	if m.phase != PhasePlaying || m.seq+1 != seq || !m.cardsFromLog() || !m.endsWait(env) {
		return nil
	}
	if err := m.verifyCards(env); err != nil {
		return err
	}
	if m.seq == seq && env.Seq == seq && env.Kind != crypto.KindEvidence && !env.StateHash.IsZero() && env.StateHash != m.hashes[seq] {
		return fmt.Errorf("%w: the %s after the wait for cards of step %d signs state %s, the cards it lists make %s",
			ErrStateHash, env.Kind, seq, env.StateHash.Short(), m.hashes[seq].Short())
	}
	return nil
}

// passCardsByHash goes past waits for cards at the end of a log, up to
// step seq, with the hashes some member signed for the state after each
// (hashes(k) for the state after k steps): the cards opened to everyone
// are taken only if the state they make has exactly one of those hashes
// (openedByHash), so a wrong hint cannot make a wrong state, only fail.
// It reports whether the machine got to seq.
func (m *machine) passCardsByHash(seq uint64, hashes func(k uint64) []crypto.Hash) bool {
	for m.seq < seq && m.cardsFromLog() {
		passed := false
		for _, h := range hashes(m.seq + 1) {
			opened := m.openedByHash(h)
			try := m.st.Clone().(engine.CardState)
			if observeCardsOn(try, opened, m.dropped, nil) != nil || try.ToAct().Kind == engine.ActorCards ||
				crypto.Hash(engine.HashWith(m.enc, try)) != h {
				continue
			}
			if m.observeCards(opened) != nil || m.cardsDone() != nil {
				return false
			}
			passed = true
			break
		}
		if !passed {
			return false
		}
	}
	return m.seq == seq
}

// hashesOf is a passCardsByHash hint from state envelopes: the hashes
// their bodies give for step k.
func hashesOf(bodies []*stateBody) func(k uint64) []crypto.Hash {
	return func(k uint64) []crypto.Hash {
		var out []crypto.Hash
		for _, b := range bodies {
			if k >= b.From && k-b.From < uint64(len(b.Hashes)) {
				out = append(out, b.Hashes[k-b.From])
			}
		}
		return out
	}
}
