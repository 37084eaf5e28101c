package deal

import (
	"crypto/sha256"
	"errors"
	"fmt"

	"github.com/boardmesh/boardmesh/crypto"
)

// Card envelopes on disk (issue 14). A machine must keep every card
// envelope it took or signed for the whole game: a second, different
// envelope for the same slot is an equivocation only if the first can be
// shown beside it. At a Dominion table they were a third of what a peer
// kept live (2 MB of 7). They are on disk anyway, in the runner's log file
// (docs/protocol.md §10.9), so, as etcd raft's core reads what its
// application persisted through a Storage, the machine may be given a
// Store: then, once a chain or a batch is done, it keeps of each of its
// envelopes only its slot and hash, and reads the envelope back when an
// equivocation needs it shown. Without a Store (tests, the simulator)
// everything stays in memory, as before. What decides what is the same:
// whether an envelope was spilled changes only where it is held, never
// what the machine does with it, except when the store fails, which is
// an error, never a cheat.

// Store is the runner's reader of the card envelopes it persisted: its
// own (Ready.Persist) and every other seat's the caller took (lockstep's
// Ready.Cards). It is read rarely (an equivocation's proof); what it
// returns is checked against the envelope's hash before it is used.
type Store interface {
	// Holds reports whether the store has author's envelope of kind for
	// seq on disk (written, so Card can read it back).
	Holds(kind crypto.Kind, author crypto.PeerID, seq uint64) bool
	// Card reads that envelope back, or says why it cannot.
	Card(kind crypto.Kind, author crypto.PeerID, seq uint64) (*crypto.Envelope, error)
}

// ErrStore: an envelope this machine let go to the Store is not there any
// more, or not the same (a damaged or edited file).
var ErrStore = errors.New("deal: a card envelope is not in the store as it was taken")

// EnvelopeHash is what names one envelope, all of it, signature included.
func EnvelopeHash(env *crypto.Envelope) crypto.Hash { return sha256.Sum256(env.Marshal()) }

// taken reports whether the slot holds an envelope, in memory or stored.
func (m *Machine) taken(k slotKey) bool {
	if m.seen[k] != nil {
		return true
	}
	_, ok := m.stored[k]
	return ok
}

// forget frees the slot (a link that is skipped, a shuffle that belongs
// to no link).
func (m *Machine) forget(k slotKey) {
	delete(m.seen, k)
	delete(m.stored, k)
}

// same reports whether env is the envelope the slot holds.
func (m *Machine) same(k slotKey, env *crypto.Envelope) bool {
	if old := m.seen[k]; old != nil {
		return crypto.Equal(old, env)
	}
	h, ok := m.stored[k]
	return ok && EnvelopeHash(env) == h
}

// slotEnv is the envelope the slot holds, read back from the Store if it
// went there.
func (m *Machine) slotEnv(k slotKey) (*crypto.Envelope, error) {
	if env := m.seen[k]; env != nil {
		return env, nil
	}
	h, ok := m.stored[k]
	if !ok {
		return nil, fmt.Errorf("%w: no %s envelope of %s for seq %d was taken", ErrStore, k.kind, m.who(k.seat), k.seq)
	}
	env, err := m.store.Card(k.kind, m.seats[k.seat], k.seq)
	if err != nil {
		return nil, fmt.Errorf("%w: %s's %s envelope for seq %d cannot be read back: %v", ErrStore, m.who(k.seat), k.kind, k.seq, err)
	}
	if env == nil || env.Kind != k.kind || env.Author != m.seats[k.seat] || env.Seq != k.seq || EnvelopeHash(env) != h {
		return nil, fmt.Errorf("%w: the store's %s envelope of %s for seq %d is not the one this peer took (a damaged or edited log file)", ErrStore, k.kind, m.who(k.seat), k.seq)
	}
	return env, nil
}

// spillLater queues the slots of a done chain or batch: their envelopes
// are of no more use but to prove an equivocation.
func (m *Machine) spillLater(kind crypto.Kind, seq uint64, has func(seat int) bool) {
	if m.store == nil {
		return
	}
	for s := range m.seats {
		if has(s) {
			m.spillQ = append(m.spillQ, slotKey{kind, s, seq})
		}
	}
}

// spill lets go of the queued envelopes the Store holds (a runner writes
// what it takes after the step that took it, so some wait for a later
// call); the slot keeps the hash, the chain or batch nothing.
func (m *Machine) spill() {
	if len(m.spillQ) == 0 {
		return
	}
	rest := m.spillQ[:0]
	for _, k := range m.spillQ {
		env := m.seen[k]
		if env == nil {
			continue // freed meanwhile, or spilled already
		}
		if !m.store.Holds(k.kind, m.seats[k.seat], k.seq) {
			rest = append(rest, k)
			continue
		}
		if m.stored == nil {
			m.stored = map[slotKey]crypto.Hash{}
		}
		m.stored[k] = EnvelopeHash(env)
		delete(m.seen, k)
		switch k.kind {
		case crypto.KindShuffle:
			if ci, ok := m.chainOf(k.seq); ok {
				if l := &m.chains[ci].links[k.seat]; l.env == env {
					l.env, l.stored = nil, true
				}
			}
		case crypto.KindRemask, crypto.KindShare:
			if k.seq < uint64(len(m.batches)) {
				b := m.batches[k.seq]
				if b.remaskEnv[k.seat] == env {
					b.remaskEnv[k.seat] = nil
				}
				if b.shareEnv[k.seat] == env {
					b.shareEnv[k.seat] = nil
				}
			}
		}
	}
	m.spillQ = rest
}
