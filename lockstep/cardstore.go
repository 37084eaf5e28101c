package lockstep

import (
	"crypto/sha256"
	"errors"
	"fmt"

	"github.com/boardmesh/boardmesh/crypto"
)

// The card envelopes this node holds for catch-up answers (cardHeld) are
// the whole deal of a game: 2 MB at the end of a Dominion table, with the
// card layer's copies the largest part of what a peer keeps (issue 14).
// They are on disk, as the log file's card and sent records
// (docs/protocol.md §10.9), so with a Config.CardStore the node lets go of
// each once the store holds it, and reads it back, checked against its
// hash, when an answer serves it. Nothing else changes: the same
// envelopes are served in the same order.

// ErrCardStore: a card envelope the node let go to its CardStore is not
// there any more, or not the same (a damaged or edited log file).
var ErrCardStore = errors.New("lockstep: a card envelope is not in the card store as it was taken")

func envelopeSum(env *crypto.Envelope) crypto.Hash { return sha256.Sum256(env.Marshal()) }

// spillCards lets go of the held card envelopes the store holds. The
// runner calls Advance once a Ready is persisted, so what the last Ready
// held is written by then; one the store does not hold (yet) stays in
// memory and is tried again. cardFresh is where the ones still in memory
// start.
func (n *Node) spillCards() {
	store := n.cfg.CardStore
	if store == nil {
		return
	}
	fresh := len(n.cardHeld)
	for i := n.cardFresh; i < len(n.cardHeld); i++ {
		h := &n.cardHeld[i]
		if h.env == nil {
			continue
		}
		if !store.Holds(h.env.Kind, h.env.Author, h.env.Seq) {
			fresh = min(fresh, i)
			continue
		}
		h.kind, h.author, h.seq, h.sum = h.env.Kind, h.env.Author, h.env.Seq, envelopeSum(h.env)
		h.env = nil
	}
	n.cardFresh = fresh
}

// heldEnv is h's envelope, from the store if it went there.
func (n *Node) heldEnv(h *heldCard) (*crypto.Envelope, error) {
	if h.env != nil {
		return h.env, nil
	}
	env, err := n.cfg.CardStore.Card(h.kind, h.author, h.seq)
	if err != nil {
		return nil, fmt.Errorf("%w: the %s envelope of %s for seq %d cannot be read back: %v", ErrCardStore, h.kind, n.m.nameOf(h.author), h.seq, err)
	}
	if env == nil || env.Kind != h.kind || env.Author != h.author || env.Seq != h.seq || envelopeSum(env) != h.sum {
		return nil, fmt.Errorf("%w: the store's %s envelope of %s for seq %d is not the one this peer took (a damaged or edited log file)", ErrCardStore, h.kind, n.m.nameOf(h.author), h.seq)
	}
	return env, nil
}
