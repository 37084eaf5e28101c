package deal

import (
	"fmt"

	"github.com/boardmesh/boardmesh/crypto"
)

// Every shuffle, remask and share envelope carries, as its StateHash, the
// hash of the shared game state its chain or batch answers: the state the
// caller named with At when it declared the chain or batch (zero for the
// decks of the setup, declared before any step, and for the card-key,
// escrow, accuse and piece envelopes, which answer no state). A peer
// whose engine went wrong (a desync) declares its chains and batches from
// another state: a reshuffle of another discard pile, a private draw of
// another card. Without the hash, the first sign of it would be a proof
// that fails, and an honest seat would be called a forger by the buggy
// peer (or the buggy peer by the honest ones) before any state hash was
// compared. With it, an envelope for another state is set aside before
// its proof is looked at, named in an EventOtherState and never a cheat:
// the caller compares the states (lockstep's desync rules) and finds out
// whose engine went wrong. The chain or batch waits meanwhile; the
// author's slot is taken, so a second, different envelope of it for the
// same slot is still an equivocation.

// At tells the machine the hash of the shared game state that the chains
// and batches declared from now on answer. The caller names it at the
// same points of the agreed log on every peer (lockstep: after each step,
// the hash the peers sign for the state after it), before it declares
// what that state asks for.
func (m *Machine) At(h crypto.Hash) { m.at = h }

// answersState reports whether envelopes of kind carry the hash of the
// state their chain or batch answers.
func answersState(kind crypto.Kind) bool {
	return kind == crypto.KindShuffle || kind == crypto.KindRemask || kind == crypto.KindShare
}

// stateOf is the state hash env must carry, if its chain or batch is
// declared here.
func (m *Machine) stateOf(env *crypto.Envelope) (crypto.Hash, bool) {
	switch env.Kind {
	case crypto.KindShuffle:
		if ci, ok := m.chainOf(env.Seq); ok {
			return m.chains[ci].state, true
		}
	case crypto.KindRemask, crypto.KindShare:
		if env.Seq < uint64(len(m.batches)) {
			return m.batches[env.Seq].state, true
		}
	}
	return crypto.Hash{}, false
}

// otherState sets aside env, which answers another state than want: its
// slot stays taken, nothing else of it is used.
func (m *Machine) otherState(env *crypto.Envelope, seat int, want crypto.Hash) error {
	what := "chain"
	if env.Kind != crypto.KindShuffle {
		what = "batch"
	}
	text := fmt.Sprintf("%s's %s envelope for %s %d answers game state %s, this peer's is %s: one of the two engines went wrong (a desync, not a cheat)",
		m.who(seat), env.Kind, what, env.Seq&chainMask, env.StateHash.Short(), want.Short())
	m.rd.Events = append(m.rd.Events, Event{Kind: EventOtherState, Seat: seat + 1, Text: text, Evidence: []*crypto.Envelope{env}})
	return fmt.Errorf("%w: %s", ErrOtherState, text)
}
