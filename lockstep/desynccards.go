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

// Card envelopes answer a state (lockstep/deal's state.go): a shuffle,
// remask or share envelope carries the hash of the shared state its chain
// or batch was declared at, which the node names to its card layer after
// every step (cardsAt). A peer whose engine went wrong asks for other
// cards than the others right away (a reshuffle of another discard pile,
// a private draw of another card), before any action's pre-state hash is
// compared; the hash lets every peer see the desync for what it is:
//   - the layer sets aside, unchecked, an envelope for another state than
//     ours (no cheat is named: neither the buggy peer's shuffle of its
//     own pile nor an honest shuffle the buggy peer's layer cannot check
//     against its state); the node treats it as an action for another
//     state (otherCardState): refused as differing, our state sent, its
//     author disputed;
//   - a card envelope for our state at step t, signed by a member other
//     than a state's author, disputes that state if it differs from ours
//     at t (disputedByCards), as an honest action in our log does: it is
//     how the honest peers explain a buggy peer that signs nothing for
//     its wrong state but its state envelope (its layer set aside an
//     honest shuffle and shuffles nothing more).

// cardsAt names the state after the step just counted to the card layer.
func (m *machine) cardsAt() {
	if m.cards != nil {
		m.cards.At(m.hashes[m.seq])
	}
}

// otherCardState reacts to a card envelope the layer set aside because it
// answers another state than ours.
func (n *Node) otherCardState(env *crypto.Envelope) {
	err := fmt.Errorf("%w: it answers state %s, not one of ours", ErrStateHash, env.StateHash.Short())
	_ = n.reject(env, err)
	n.suspect(env, err)
}

// cardStamp says that author signed a card envelope for our state after
// step steps.
type cardStamp struct {
	author crypto.PeerID
	step   uint64
}

// Bounds of cardStamps: how many are kept (the latest), and how far back
// a card envelope's state is looked for among ours (a chain or batch is
// declared a few steps before its last envelopes come at most).
const (
	maxCardStamps = 256
	cardStampBack = 64
)

// noteCardStamp notes, for a card envelope that carries a state hash
// equal to ours at a recent step, that its author signed our state there.
func (n *Node) noteCardStamp(env *crypto.Envelope) {
	m := n.m
	if env.StateHash.IsZero() || m.phase != PhasePlaying || !env.Kind.Card() {
		return
	}
	for t := m.seq; t+cardStampBack >= m.seq && t < uint64(len(m.hashes)); t-- {
		if m.hashes[t] == env.StateHash {
			s := cardStamp{author: env.Author, step: t}
			for _, o := range n.cardStamps {
				if o == s {
					return
				}
			}
			if len(n.cardStamps) >= maxCardStamps {
				n.cardStamps = n.cardStamps[1:]
			}
			n.cardStamps = append(n.cardStamps, s)
			return
		}
		if t == 0 {
			return
		}
	}
}

// disputedByCards reports whether a member other than author signed a card
// envelope for our state at a step from s to the last of body, where body
// contradicts it.
func (n *Node) disputedByCards(author crypto.PeerID, body *stateBody, s uint64) bool {
	for _, c := range n.cardStamps {
		if c.author != author && c.step >= s && c.step >= body.From && c.step-body.From < uint64(len(body.Hashes)) &&
			body.Hashes[c.step-body.From] != n.m.hashes[c.step] {
			return true
		}
	}
	return false
}
