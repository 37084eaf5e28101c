package deal

import (
	"fmt"

	"github.com/boardmesh/boardmesh/crypto"
	mp "github.com/boardmesh/boardmesh/crypto/mentalpoker"
)

func (m *Machine) batchOf(env *crypto.Envelope) *batch {
	if env.Kind != crypto.KindRemask && env.Kind != crypto.KindShare || env.Seq >= uint64(len(m.batches)) {
		return nil
	}
	return m.batches[env.Seq]
}

func (m *Machine) card(h Handle) (*card, error) {
	if err := m.handleErr(h); err != nil {
		return nil, err
	}
	d := m.decks[h.Deck]
	if d == nil || !d.ready || int(h.Pos) >= len(d.cards) {
		return nil, fmt.Errorf("%w: no %s (or its deck is not shuffled yet)", ErrNotReady, cardName(h))
	}
	return &d.cards[h.Pos], nil
}

// DeckReady reports whether deck id is shuffled by every seat, with every
// shuffle checked.
func (m *Machine) DeckReady(id uint8) bool { return m.decks[id] != nil && m.decks[id].ready }

// Card is what this seat knows of the card at h: its id, if it was opened
// to this seat or to everyone. Private knowledge: never hash or send it.
func (m *Machine) Card(h Handle) (uint16, bool) {
	c, err := m.card(h)
	if err != nil || c.mine < 0 {
		return 0, false
	}
	return m.space[c.mine], true
}

// PublicCard is the card at h if it is public.
func (m *Machine) PublicCard(h Handle) (uint16, bool) {
	c, err := m.card(h)
	if err != nil || c.pub < 0 {
		return 0, false
	}
	return m.space[c.pub], true
}

// Ciphertext is the current ciphertext at h (for the shared, hashed state).
func (m *Machine) Ciphertext(h Handle) ([]byte, error) {
	c, err := m.card(h)
	if err != nil {
		return nil, err
	}
	return c.ct.Bytes(), nil
}

func revealSlot(h Handle) uint32 { return uint32(h.Deck)<<16 | uint32(h.Pos) }

// RevealShare is this seat's decryption share of the card it holds at h,
// to attach to its action envelope at seq when the action reveals the
// card publicly (CheckReveal checks it on every peer). The card must have
// been opened privately to this seat.
func (m *Machine) RevealShare(h Handle, seq uint64) ([]byte, error) {
	c, err := m.card(h)
	if err != nil {
		return nil, err
	}
	if c.privTo != m.me {
		return nil, fmt.Errorf("%w: %s is not in this seat's hand", ErrBadInput, cardName(h))
	}
	sh, err := mp.MakeShare(m.rand, m.ctx(seq, revealSlot(h), ctxAction), m.me, m.sk, c.ct)
	if err != nil {
		return nil, err
	}
	return sh.Bytes(), nil
}

// CheckReveal checks that seat, revealing the card it holds at h in its
// action at seq, attached share (from RevealShare) and that the card is
// claimed. On success the card is public. A failure is a cheat, raised as
// an EventCheat and returned (the action must be refused); a card that is
// public already needs no share (share may be nil) but must match.
func (m *Machine) CheckReveal(seat int, h Handle, seq uint64, claimed uint16, share []byte) error {
	if seat < 0 || seat >= len(m.seats) {
		return fmt.Errorf("%w: seat %d", ErrBadInput, seat+1)
	}
	c, err := m.card(h)
	if err != nil {
		return err
	}
	if c.pub >= 0 {
		if m.space[c.pub] != claimed {
			return m.reject(CheatBadReveal, seat, fmt.Sprintf("%s claims %s is card %d, but it is card %d, known to all", m.who(seat), cardName(h), claimed, m.space[c.pub]), nil)
		}
		return nil
	}
	if c.privTo != seat {
		return m.reject(CheatBadReveal, seat, fmt.Sprintf("%s reveals %s, which is not in its hand", m.who(seat), cardName(h)), nil)
	}
	sh, err := mp.VerifyShare(m.ctx(seq, revealSlot(h), ctxAction), seat, m.keys[seat], c.ct, share)
	if err != nil {
		return m.reject(CheatWrongShare, seat, fmt.Sprintf("%s's decryption share revealing %s is wrong: %v", m.who(seat), cardName(h), err), err)
	}
	all := []mp.Share{sh}
	for s, x := range c.shares {
		if s != seat && x != nil {
			all = append(all, *x)
		}
	}
	k, err := mp.OpenPublic(c.ct, all, len(m.seats), len(m.space))
	if err != nil {
		return m.reject(CheatBadReveal, seat, fmt.Sprintf("%s's reveal of %s opens to no card of the game: %v", m.who(seat), cardName(h), err), err)
	}
	if m.space[k] != claimed {
		return m.reject(CheatBadReveal, seat, fmt.Sprintf("%s claims %s is card %d, but its ciphertext holds card %d", m.who(seat), cardName(h), claimed, m.space[k]), nil)
	}
	c.shares[seat] = &sh
	c.pub, c.mine = k, k
	return nil
}

// Waiting lists the seats this machine waits for, and for what, in seat
// order within each step: the runner shows it when the deal stalls.
func (m *Machine) Waiting() []Wait {
	if m.stopped {
		return nil
	}
	var w []Wait
	for s, ok := range m.haveK {
		if !ok {
			w = append(w, Wait{s, "its card key"})
		}
	}
	if w != nil {
		return w
	}
	before := true
	for i := m.head; i < len(m.ops); i++ {
		o := m.ops[i]
		prevDone := before
		before = before && m.opDone(o)
		if o.chain >= 0 {
			c := m.chains[o.chain]
			if !c.started || c.done {
				continue
			}
			for s := range c.links {
				if c.links[s].forged {
					w = append(w, Wait{s, fmt.Sprintf("its drop (its shuffle of deck %d is proven forged)", c.deck)})
					break
				}
				if c.links[s].env == nil && !c.links[s].skipped && s != m.me {
					if m.dropped[s] && !m.decided[s] {
						// Whether the chain waits for the dropped seat's
						// link is decided by the holders' pieces.
						w = append(w, m.pieceWaits(s)...)
					} else {
						w = append(w, Wait{s, fmt.Sprintf("its shuffle of deck %d", c.deck)})
					}
					break
				}
			}
			continue
		}
		if o.drop >= 0 {
			if o.done || !prevDone {
				continue
			}
			w = append(w, m.pieceWaits(o.drop)...)
			break
		}
		b := m.batches[o.batch]
		if b.done || !prevDone {
			continue
		}
		if !b.started && !m.escrowsDone() {
			// No batch starts before every seat's escrow is in (a seat
			// dropped later must be recoverable): a lost escrow holds
			// the game, and its author must be named, or the table
			// stands still waiting for nothing anyone is told of.
			w = append(w, m.escrowWaits()...)
			break
		}
		for s := range m.seats {
			if s == m.me {
				continue
			}
			if m.dropped[s] && (!b.remaskOK[s] || !b.shareOK[s]) {
				// A batch under way when s dropped waits for the pieces
				// of its key, from which the others stand in for it.
				if pw := m.pieceWaits(s); len(pw) > 0 {
					w = append(w, pw...)
					continue
				}
			}
			if !b.remaskOK[s] && b.remaskBad[s] {
				w = append(w, Wait{s, fmt.Sprintf("its drop (its re-masking for batch %d is proven wrong)", o.batch)})
			} else if !b.remaskOK[s] && b.remaskEnv[s] == nil && b.started {
				w = append(w, Wait{s, fmt.Sprintf("its re-masking for batch %d", o.batch)})
			} else if !b.shareOK[s] && b.shareEnv[s] == nil && b.started && m.convicted[s] {
				w = append(w, Wait{s, fmt.Sprintf("its drop (its decryption shares for batch %d are proven wrong)", o.batch)})
			} else if !b.shareOK[s] && b.shareEnv[s] == nil && b.started {
				w = append(w, Wait{s, fmt.Sprintf("its decryption shares for batch %d", o.batch)})
			}
		}
		break
	}
	return dedupWaits(w)
}

// dedupWaits drops repeats (a dropped seat's wait is met at each op that
// needs its key), keeping the first of each.
func dedupWaits(w []Wait) []Wait {
	var out []Wait
	for _, x := range w {
		dup := false
		for _, y := range out {
			dup = dup || x == y
		}
		if !dup {
			out = append(out, x)
		}
	}
	return out
}

// escrowWaits lists the other seats whose escrow of their card key has
// not come (a dropped one too: nothing rebuilds its key without it).
func (m *Machine) escrowWaits() []Wait {
	var w []Wait
	for s, e := range m.escrows {
		if e == nil && s != m.me {
			w = append(w, Wait{s, "its escrow of its card key"})
		}
	}
	return w
}

// pieceWaits lists the live seats whose piece of dropped seat d's key has
// not come; or d itself, if its escrow never came: no piece can be made
// without it.
func (m *Machine) pieceWaits(d int) []Wait {
	if m.escrowOn() && m.escrows[d] == nil {
		return []Wait{{d, "its escrow of its card key"}}
	}
	var w []Wait
	for h := range m.seats {
		if h != d && m.pieces[d][h] == nil && !m.dropped[h] && h != m.me {
			w = append(w, Wait{h, fmt.Sprintf("its piece of %s's card key", m.who(d))})
		}
	}
	return w
}

// DropDone reports whether the drop of seat (Drop) has taken effect: its
// key is rebuilt and the cards it held are shown (EventDropReveal), at the
// drop's place among the chains and batches.
func (m *Machine) DropDone(seat int) bool {
	for _, o := range m.ops {
		if o.drop == seat {
			return o.done
		}
	}
	return false
}
