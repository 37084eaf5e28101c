package deal

import (
	"fmt"

	"github.com/boardmesh/boardmesh/crypto"
	mp "github.com/boardmesh/boardmesh/crypto/mentalpoker"
)

// Open declares the next batch of openings and returns its number (the
// seq of its remask and share envelopes). Every peer must call Open with
// the same openings at the same point of the agreed log (the engine's
// card source does, from the shared state). A batch starts when every
// earlier batch and chain is done; each opening ends in an EventOpened,
// the batch in an EventBatchDone.
//
// What an opening costs, by the state of its card:
//   - already public, or private to To already: nothing (no envelope);
//   - private to To, opened privately to another seat before: To first
//     re-masks it with a proof (a remask envelope), then every other seat
//     posts its share of the new ciphertext (two broadcast rounds), since
//     the shares of the old one and To's would open it for all;
//   - private to To otherwise: every other seat posts its share (one round);
//   - public: every seat whose share is not public yet posts it (one round).
func (m *Machine) Open(ops []Opening) (uint64, error) {
	if m.stopped {
		return 0, ErrStopped
	}
	if len(ops) == 0 || len(ops) > MaxBatch {
		return 0, fmt.Errorf("%w: a batch of %d openings (1 to %d)", ErrBadInput, len(ops), MaxBatch)
	}
	for i, o := range ops {
		if err := m.handleErr(Handle{Deck: o.Deck, Pos: o.Pos}); err != nil {
			return 0, fmt.Errorf("opening %d: %w", i+1, err)
		}
		if o.To < Public || o.To >= len(m.seats) {
			return 0, fmt.Errorf("%w: opening %d: seat %d", ErrBadInput, i+1, o.To+1)
		}
		if o.To >= 0 && m.dropped[o.To] {
			return 0, fmt.Errorf("%w: opening %d: seat %d has dropped", ErrBadInput, i+1, o.To+1)
		}
		for _, p := range ops[:i] {
			if p.Deck == o.Deck && p.Pos == o.Pos {
				return 0, fmt.Errorf("%w: card %d of deck %d is opened twice in one batch", ErrBadInput, int(o.Pos)+1, o.Deck)
			}
		}
	}
	n := len(m.seats)
	b := &batch{ops: append([]Opening(nil), ops...), remaskEnv: make([]*crypto.Envelope, n), shareEnv: make([]*crypto.Envelope, n),
		remaskOK: make([]bool, n), shareOK: make([]bool, n), remaskBad: make([]bool, n), state: m.at}
	m.batches = append(m.batches, b)
	m.ops = append(m.ops, op{chain: -1, batch: len(m.batches) - 1, drop: -1})
	m.release()
	m.progress()
	return uint64(len(m.batches) - 1), nil
}

// Reshuffle declares a new shuffle chain over the current ciphertexts of
// the cards at from (taken when every earlier batch and chain is done),
// whose output becomes deck id: a deck not used before. Its cards are
// then referred to as (id, 0…len(from)-1); the handles in from name
// nothing any more (Open and Reshuffle refuse them). A single card needs no shuffle: it moves as it is.
func (m *Machine) Reshuffle(id uint8, from []Handle) error {
	if m.stopped {
		return ErrStopped
	}
	if m.decks[id] != nil {
		return fmt.Errorf("%w: deck %d exists already", ErrBadInput, id)
	}
	if len(from) == 0 || len(from) > mp.MaxDeck {
		return fmt.Errorf("%w: a reshuffle of %d cards", ErrBadInput, len(from))
	}
	for i, h := range from {
		if err := m.handleErr(h); err != nil {
			return err
		}
		for _, g := range from[:i] {
			if g == h {
				return fmt.Errorf("%w: %s is in the reshuffle twice", ErrBadInput, cardName(h))
			}
		}
	}
	from = append([]Handle(nil), from...)
	for _, h := range from {
		d := m.decks[h.Deck]
		if d.gone == nil {
			n := len(d.cards)
			if d.cards == nil {
				n = m.chains[d.chain].n
			}
			d.gone = make([]bool, n)
		}
		d.gone[h.Pos] = true
	}
	m.decks[id] = &deck{id: id, chain: -1}
	if len(from) == 1 {
		m.decks[id].chain = m.addChain(id, nil, from)
		c := m.chains[m.decks[id].chain]
		c.links = nil // nothing to shuffle: done when it starts
	} else {
		m.decks[id].chain = m.addChain(id, nil, from)
	}
	m.release()
	m.progress()
	return nil
}

// plan decides, when batch b starts, who owes what for each opening.
func (m *Machine) plan(b *batch) {
	n := len(m.seats)
	b.entries = make([]entry, len(b.ops))
	owes := make([]bool, n)
	remasks := make([]bool, n)
	for i, o := range b.ops {
		c := &m.decks[o.Deck].cards[o.Pos]
		e := entry{op: o, ct: c.ct, remaskBy: -1, need: make([]bool, n), shares: make([]*mp.Share, n)}
		switch {
		case c.pub >= 0, o.To >= 0 && c.privTo == o.To:
		case o.To >= 0:
			if c.privTo >= 0 {
				e.remaskBy = o.To
				remasks[o.To] = true
			}
			for s := range e.need {
				e.need[s] = s != o.To && (e.remaskBy >= 0 || c.shares[s] == nil)
			}
		default:
			for s := range e.need {
				e.need[s] = c.shares[s] == nil
			}
		}
		for s, nd := range e.need {
			owes[s] = owes[s] || nd
		}
		b.entries[i] = e
	}
	for s := 0; s < n; s++ {
		b.remaskOK[s] = !remasks[s]
		b.shareOK[s] = !owes[s]
	}
	b.started = true
}

// stepBatch makes one change to the current batch, if it can.
func (m *Machine) stepBatch(seq uint64, b *batch) bool {
	if !b.started {
		if !m.escrowsDone() {
			return false
		}
		for _, o := range b.ops {
			if !m.decks[o.Deck].ready {
				return false
			}
		}
		m.plan(b)
		return true
	}
	if !b.remaskOK[m.me] && !b.sentRemask {
		if !m.mayNew(crypto.KindRemask, seq) {
			return false
		}
		m.sendRemasks(seq, b)
		return true
	}
	for s, ok := range b.remaskOK {
		if !ok && m.decideRemask(seq, b, s) {
			return true
		}
		if !ok && b.remaskEnv[s] != nil && !m.remaskFrozen(seq, s) {
			m.checkRemasks(seq, b, s)
			return true
		}
		if !ok && b.remaskBad[s] && m.dropped[s] {
			// Its re-masking is proven wrong and it is dropped: the
			// openings it owed one for go on with the ciphertext as it
			// was (opened to a dropped seat, whose cards are shown).
			b.remaskOK[s] = true
			return true
		}
	}
	for _, ok := range b.remaskOK {
		if !ok {
			return false
		}
	}
	for d, sk := range m.recovered {
		if sk != nil && !b.shareOK[d] && b.shareEnv[d] == nil {
			m.rebuiltShares(b, d)
			return true
		}
	}
	if !b.shareOK[m.me] && !b.sentShares {
		if !m.mayNew(crypto.KindShare, seq) {
			return false
		}
		m.sendShares(seq, b)
		return true
	}
	for s, ok := range b.shareOK {
		if !ok && b.shareEnv[s] != nil {
			m.checkShares(seq, b, s)
			return true
		}
	}
	for s, ok := range b.shareOK {
		if !ok {
			return false
		}
		if env := b.remaskEnv[s]; env != nil && b.remaskOK[s] && !m.owesRemask(b, s) {
			return m.unexpected(s, env)
		}
		if env := b.shareEnv[s]; env != nil && !m.owesShare(b, s) {
			return m.unexpected(s, env)
		}
	}
	m.finishBatch(seq, b)
	return true
}

func (m *Machine) owesRemask(b *batch, s int) bool {
	for _, e := range b.entries {
		if e.remaskBy == s {
			return true
		}
	}
	return false
}

func (m *Machine) owesShare(b *batch, s int) bool {
	for _, e := range b.entries {
		if e.need[s] {
			return true
		}
	}
	return false
}

func (m *Machine) unexpected(s int, env *crypto.Envelope) bool {
	m.cheat(CheatUnexpected, s, fmt.Sprintf("%s sent a %s envelope for batch %d, where it owes none", m.who(s), env.Kind, env.Seq), env)
	return false
}

func (m *Machine) sendRemasks(seq uint64, b *batch) {
	if own := m.adopted(crypto.KindRemask, seq); own != nil {
		b.sentRemask, b.remaskEnv[m.me] = true, m.sign(own)
		m.checkRemasks(seq, b, m.me)
		return
	}
	var es []remaskEntry
	for i := range b.entries {
		e := &b.entries[i]
		if e.remaskBy != m.me {
			continue
		}
		out, prf, err := mp.RemaskProved(m.rand, m.ctx(seq, uint32(i), ctxRemask), m.me, m.joint, e.ct)
		if err != nil {
			m.cheat(CheatBadRemask, m.me, fmt.Sprintf("this peer could not re-mask: %v", err))
			return
		}
		e.ct, e.remasked = out, true
		es = append(es, remaskEntry{Slot: i, CT: out.Bytes(), Proof: prf})
	}
	m.sign(&crypto.Envelope{Seq: seq, Kind: crypto.KindRemask, StateHash: b.state, Body: encodeRemasks(es)})
	b.sentRemask, b.remaskOK[m.me] = true, true
}

func (m *Machine) checkRemasks(seq uint64, b *batch, s int) {
	env := b.remaskEnv[s]
	es, _ := decodeRemasks(env.Body)
	k := 0
	for i := range b.entries {
		e := &b.entries[i]
		if e.remaskBy != s {
			continue
		}
		if k >= len(es) || es[k].Slot != i {
			m.remaskCheat(b, CheatMissingShare, s, fmt.Sprintf("%s's re-maskings for batch %d leave out the one of %s it opens", m.who(s), seq, cardName(Handle{Deck: e.op.Deck, Pos: e.op.Pos})), env)
			return
		}
		out, err := mp.ParseCiphertext(es[k].CT)
		if err == nil {
			err = mp.VerifyRemask(m.ctx(seq, uint32(i), ctxRemask), s, m.joint, e.ct, out, es[k].Proof)
		}
		if err != nil {
			m.remaskCheat(b, CheatBadRemask, s, fmt.Sprintf("%s's re-masking of %s in batch %d does not prove it is the same card (a substituted card?): %v",
				m.who(s), Handle{Deck: e.op.Deck, Pos: e.op.Pos}, seq, err), env)
			return
		}
		k++
	}
	if k != len(es) {
		m.remaskCheat(b, CheatMissingShare, s, fmt.Sprintf("%s's re-maskings for batch %d hold one for slot %d, which it does not open", m.who(s), seq, es[k].Slot+1), env)
		return
	}
	// Only a whole envelope that checks changes the ciphertexts: one
	// proven wrong leaves them as they were (remaskCheat).
	k = 0
	for i := range b.entries {
		if e := &b.entries[i]; e.remaskBy == s {
			e.ct, _ = mp.ParseCiphertext(es[k].CT)
			e.remasked = true
			k++
		}
	}
	b.remaskOK[s] = true
}

// remaskCheat handles seat s's re-masking envelope env for batch b proven
// wrong: another seat's convicts it (convict.go); the batch waits for its
// drop, then opens what it owed re-maskings for with the ciphertexts as
// they were. Every peer that holds env comes to the same (the proof is of
// the signed envelope); one that does not waits for it (any peer relays
// it). This seat's own stops the machine.
func (m *Machine) remaskCheat(b *batch, kind CheatKind, s int, text string, env *crypto.Envelope) {
	if s == m.me {
		m.cheat(kind, s, text, env)
		return
	}
	b.remaskEnv[s], b.remaskBad[s] = nil, true
	_ = m.convict(kind, s, text, env)
}

func (m *Machine) sendShares(seq uint64, b *batch) {
	if own := m.adopted(crypto.KindShare, seq); own != nil {
		b.sentShares, b.shareEnv[m.me] = true, m.sign(own)
		m.checkShares(seq, b, m.me)
		return
	}
	var es []shareEntry
	for i := range b.entries {
		e := &b.entries[i]
		if !e.need[m.me] {
			continue
		}
		sh, err := mp.MakeShare(m.rand, m.ctx(seq, uint32(i), ctxShare), m.me, m.sk, e.ct)
		if err != nil {
			m.cheat(CheatWrongShare, m.me, fmt.Sprintf("this peer could not make its share: %v", err))
			return
		}
		e.shares[m.me] = &sh
		es = append(es, shareEntry{Slot: i, Share: sh.Bytes()})
	}
	m.sign(&crypto.Envelope{Seq: seq, Kind: crypto.KindShare, StateHash: b.state, Body: encodeShares(es)})
	b.sentShares, b.shareOK[m.me] = true, true
}

// checkShares checks seat s's share envelope for batch b: one share, in
// slot order, for every entry it owes one for, and nothing else. The
// shares' proofs are checked together (mentalpoker.VerifyShares, one
// batch), and the first fault in slot order is named, as if each share
// were checked in turn: a wrong share before a left-out one is the wrong
// share.
func (m *Machine) checkShares(seq uint64, b *batch, s int) {
	env := b.shareEnv[s]
	es, _ := decodeShares(env.Body)
	k := 0
	var slots []int // the entries of the shares to check, in order
	var checks []mp.ShareCheck
	missing := -1 // the first entry whose share is left out
	for i := range b.entries {
		e := &b.entries[i]
		if !e.need[s] {
			continue
		}
		if k >= len(es) || es[k].Slot != i {
			missing = i
			break
		}
		slots = append(slots, i)
		checks = append(checks, mp.ShareCheck{Ctx: m.ctx(seq, uint32(i), ctxShare), CT: e.ct, Share: es[k].Share})
		k++
	}
	var shares []mp.Share
	if len(checks) > 0 {
		var bad int
		var err error
		shares, bad, err = mp.VerifyShares(s, m.keys[s], checks)
		if err != nil {
			e := &b.entries[slots[bad]]
			h := Handle{Deck: e.op.Deck, Pos: e.op.Pos}
			m.shareCheat(b, CheatWrongShare, s, fmt.Sprintf("%s's decryption share of %s in batch %d is wrong: %v", m.who(s), cardName(h), seq, err), env)
			return
		}
	}
	if missing >= 0 {
		e := &b.entries[missing]
		h := Handle{Deck: e.op.Deck, Pos: e.op.Pos}
		m.shareCheat(b, CheatMissingShare, s, fmt.Sprintf("%s's shares for batch %d leave out its share of %s (slot %d)", m.who(s), seq, cardName(h), missing+1), env)
		return
	}
	if k != len(es) {
		m.shareCheat(b, CheatMissingShare, s, fmt.Sprintf("%s's shares for batch %d hold one for slot %d, which it does not owe", m.who(s), seq, es[k].Slot+1), env)
		return
	}
	for j, i := range slots {
		b.entries[i].shares[s] = &shares[j]
	}
	b.shareOK[s] = true
}

func (m *Machine) finishBatch(seq uint64, b *batch) {
	n := len(m.seats)
	for i := range b.entries {
		e := &b.entries[i]
		c := &m.decks[e.op.Deck].cards[e.op.Pos]
		if e.remasked {
			c.ct, c.shares, c.privTo = e.ct, make([]*mp.Share, n), -1
		}
		for s, sh := range e.shares {
			if sh != nil && c.shares != nil { // nil: public, none is used again
				c.shares[s] = sh
			}
		}
		ev := Event{Kind: EventOpened, Batch: seq, Slot: i, Opening: e.op}
		h := Handle{Deck: e.op.Deck, Pos: e.op.Pos}
		switch {
		case c.pub >= 0:
		case e.op.To >= 0:
			c.privTo = e.op.To
			if e.op.To == m.me && c.mine < 0 {
				var others []mp.Share
				for s, sh := range c.shares {
					if s != m.me && sh != nil {
						others = append(others, *sh)
					}
				}
				k, err := mp.OpenPrivate(m.sk, m.me, c.ct, others, n, len(m.space))
				if err != nil {
					m.cheat(CheatBadReveal, -1, fmt.Sprintf("%s does not open to a card of the game: %v", cardName(h), err))
					return
				}
				c.mine = k
			}
		default:
			all := make([]mp.Share, 0, n)
			for _, sh := range c.shares {
				if sh != nil { // every one is: OpenPublic names a missing one
					all = append(all, *sh)
				}
			}
			k, err := mp.OpenPublic(c.ct, all, n, len(m.space))
			if err != nil {
				m.cheat(CheatBadReveal, -1, fmt.Sprintf("%s does not open to a card of the game: %v", cardName(h), err))
				return
			}
			c.pub, c.mine = k, k
			c.shares = nil // public: nothing of it is owed again (plan)
		}
		if c.pub >= 0 && e.op.To == Public || c.mine >= 0 && e.op.To == m.me {
			ev.Known, ev.Card = true, m.space[c.mine]
		}
		if ev.Known {
			ev.Text = fmt.Sprintf("%s is card %d", cardName(h), ev.Card)
		} else {
			ev.Text = fmt.Sprintf("%s is opened to %s", cardName(h), m.who(e.op.To))
		}
		m.rd.Events = append(m.rd.Events, ev)
	}
	b.done = true
	// The cards hold what the openings showed; of an entry, only who
	// owed what is asked again (a late envelope, route), not its points.
	for i := range b.entries {
		b.entries[i].ct, b.entries[i].shares = mp.Ciphertext{}, nil
	}
	m.spillLater(crypto.KindRemask, seq, func(s int) bool { return b.remaskEnv[s] != nil })
	m.spillLater(crypto.KindShare, seq, func(s int) bool { return b.shareEnv[s] != nil })
	m.rd.Events = append(m.rd.Events, Event{Kind: EventBatchDone, Batch: seq, Text: fmt.Sprintf("batch %d is open", seq)})
}

// rebuiltShares fills in dropped seat d's shares of batch b from its
// rebuilt key, in place of the share envelope it will not send.
func (m *Machine) rebuiltShares(b *batch, d int) {
	for i := range b.entries {
		e := &b.entries[i]
		if !e.need[d] {
			continue
		}
		sh, err := m.localShare(d, e.ct)
		if err != nil {
			m.cheat(CheatWrongShare, d, fmt.Sprintf("%s's share cannot be computed from its rebuilt key: %v", m.who(d), err))
			return
		}
		e.shares[d] = &sh
	}
	b.shareOK[d] = true
}

// shareCheat handles seat s's share envelope env for batch b proven wrong:
// another seat's convicts it and is set aside (convict.go); this seat's
// own (persisted before a restart, or back from a peer) stops the machine,
// since it cannot stand in for itself.
func (m *Machine) shareCheat(b *batch, kind CheatKind, s int, text string, env *crypto.Envelope) {
	if s == m.me {
		m.cheat(kind, s, text, env)
		return
	}
	b.setAside(s)
	_ = m.convict(kind, s, text, env)
}

// A dropped seat that owed a re-masking in a batch declared before its
// drop, and never sent it, would hold the batch forever; one that reached
// some peers but not others must change the same ciphertexts everywhere.
// So the holders' piece envelopes list the batches in which they hold the
// dropped seat's re-masking envelope (pieceBody.Remasks), as for its
// shuffles (escrow.go): once every list is in, a batch no holder lists
// goes on without it, with the ciphertexts as they were (opened to the
// dropped seat, whose cards are shown to all at its drop); a batch some
// holder lists waits for it (that holder relays it). Until then a holder
// whose own list lacks it does not check one that arrives late.

// holdingRemasks is the batches declared before seat d's drop in which
// this seat holds d's re-masking envelope (not one that came late,
// escrow.go's standing), ascending.
func (m *Machine) holdingRemasks(d int) []uint64 {
	var out []uint64
	for i := 0; i < m.dropBatches[d]; i++ {
		if k := (slotKey{crypto.KindRemask, d, uint64(i)}); m.taken(k) && !m.late[k] {
			out = append(out, uint64(i))
		}
	}
	return out
}

// remaskFrozen reports whether this seat must not check dropped seat s's
// re-masking of batch seq yet: no list of a seat in play names it (nor
// this seat's list still to sign), and the lists are not all in.
func (m *Machine) remaskFrozen(seq uint64, s int) bool {
	return m.dropped[s] && s != m.me && seq < uint64(m.dropBatches[s]) && !m.mayUse(s, seq, true)
}

// decideRemask lets batch seq go on without dropped seat s's re-masking
// once the lists are in and no holder holds it; it reports whether it did.
func (m *Machine) decideRemask(seq uint64, b *batch, s int) bool {
	if !m.dropped[s] || seq >= uint64(m.dropBatches[s]) || b.remaskBad[s] {
		return false
	}
	st, named := m.standingBy(s, seq, true)
	if st != skipped {
		return false
	}
	b.remaskOK[s] = true
	// Never to be listed again (holdingRemasks), nor used.
	m.late[slotKey{crypto.KindRemask, s, seq}] = true
	m.rd.Events = append(m.rd.Events, Event{Kind: EventLinkSkipped, Seat: s + 1, Batch: seq,
		Text: fmt.Sprintf("batch %d goes on without %s's re-masking, %s (the cards it was to re-mask open to it as they were, and are shown with its hand)", seq, m.who(s), m.noneHolds(named))})
	return true
}
