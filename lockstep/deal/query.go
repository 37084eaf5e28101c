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
	c.pub, c.mine, c.shares = k, k, nil // public: no share is used again (plan)
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
				if (!c.links[s].has() || m.late[slotKey{crypto.KindShuffle, s, c.seq}]) && !c.links[s].skipped && s != m.me {
					switch {
					case m.dropped[s] && !m.decided[s]:
						// Whether the chain waits for the dropped seat's
						// link is decided by the holders' pieces.
						w = append(w, m.pieceWaits(s)...)
					case m.dropped[s]:
						// Kept, since a holder's list names it: that
						// holder is to relay it. One that claims a link
						// it does not hold is the one the table waits
						// for, and is named, not the dropped seat.
						w = append(w, m.relayWaits(s, c.seq, false, fmt.Sprintf("%s's shuffle of deck %d", m.who(s), c.deck))...)
					default:
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
			// No card opens before every escrow has checked.
			for s, e := range m.escrows {
				switch {
				case e != nil || s == m.me:
				case m.dropped[s]:
					w = append(w, m.pieceWaits(s)...)
				default:
					w = append(w, Wait{s, "its escrow of its card key"})
				}
			}
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
			if !b.remaskOK[s] && m.dropped[s] && m.decided[s] && (b.remaskEnv[s] == nil || m.late[slotKey{crypto.KindRemask, s, uint64(o.batch)}]) && !b.remaskBad[s] {
				w = append(w, m.relayWaits(s, uint64(o.batch), true, fmt.Sprintf("%s's re-masking for batch %d", m.who(s), o.batch))...)
			} else if !b.remaskOK[s] && b.remaskBad[s] {
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

// pieceWaits lists whom the rebuilding of dropped seat d's key, or the
// lists of what its holders hold of it, waits for: the seats in play whose
// piece has not come, and (in plain words) a seat dropped too whose piece
// nothing can stand in for, and a dropped seat's escrow this peer never
// received.
func (m *Machine) pieceWaits(d int) []Wait {
	if m.escrows[d] == nil {
		return []Wait{{d, fmt.Sprintf("its escrow: %s dropped before this peer received its escrow, so its card key can be rebuilt only if a peer that holds the escrow relays it; without it no card can be opened and the game cannot go on", m.who(d))}}
	}
	w := m.livePieceWaits(d)
	if len(w) > 0 {
		return w
	}
	for h := range m.seats {
		if h == d || h == m.me || !m.dropped[h] {
			continue
		}
		switch {
		case m.recovered[d] == nil && m.pieces[d][h] == nil && m.recovered[h] == nil && len(m.livePieceWaits(h)) == 0:
			// (One whose own key waits for live seats' pieces is
			// rebuilt once they come: those are listed for it.)
			w = append(w, Wait{h, fmt.Sprintf("its piece of %s's card key: it dropped too before this peer received it, and %s's key cannot be rebuilt without it (more seats dropped at once than the escrows cover) unless a peer relays it", m.who(d), m.who(d))})
		case m.recovered[d] != nil && m.laterDrop(d, h) && !m.claimed[d][h]:
			w = append(w, Wait{h, fmt.Sprintf("its piece of %s's card key, whose list says what of %s's this seat holds: it dropped too before this peer received it, and what waits on %s's shuffles or re-maskings cannot go on unless a peer relays it", m.who(d), m.who(d), m.who(d))})
		}
	}
	return w
}

// livePieceWaits lists the seats in play whose piece of dropped seat d's
// key (plain, or of the pair escrow without a seat dropped after it
// whose plain piece has not come) this peer lacks.
func (m *Machine) livePieceWaits(d int) []Wait {
	var w []Wait
	for h := range m.seats {
		if h == d || h == m.me || m.dropped[h] {
			continue
		}
		if m.pieces[d][h] == nil {
			w = append(w, Wait{h, fmt.Sprintf("its piece of %s's card key", m.who(d))})
			continue
		}
		if m.recovered[d] != nil || m.pairs[d] == nil {
			continue
		}
		for x := range m.seats {
			if x != h && m.laterDrop(d, x) && m.pieces[d][x] == nil && m.pairPieces[d][x][h] == nil {
				w = append(w, Wait{h, fmt.Sprintf("its piece of %s's card key (the escrow without %s)", m.who(d), m.who(x))})
			}
		}
	}
	return w
}

// relayWaits lists whom dropped seat d's envelope of seq (a shuffle's
// seq; with remask a batch's re-masking) waits for, which this peer lacks
// or may not use yet (escrow.go's standing): the seats in play whose list
// says they hold it (each is to relay it); or, while the lists of a later
// drop that decide it are not all in, their holders; or d itself.
func (m *Machine) relayWaits(d int, seq uint64, remask bool, what string) []Wait {
	st, live := m.standingBy(d, seq, remask)
	var w []Wait
	switch st {
	case stands:
		for h, by := range live {
			if by > 0 && h != m.me {
				w = append(w, Wait{h, fmt.Sprintf("%s, which its piece of %s's key says it holds (it is to relay it)", what, m.who(by-1))})
			}
		}
	case undecided:
		for o := m.dropOrder[d]; o <= m.drops; o++ {
			if e := m.droppedAt(o); e >= 0 && !m.decided[e] {
				w = append(w, m.pieceWaits(e)...)
			}
		}
	}
	if w == nil {
		w = []Wait{{d, what}}
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
