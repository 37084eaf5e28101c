package deal

import (
	"fmt"
	"slices"
	"strings"

	"github.com/boardmesh/boardmesh/crypto"
	mp "github.com/boardmesh/boardmesh/crypto/mentalpoker"
)

// Key escrow and drop recovery, for tables of 3 or more seats. Once every
// key has checked, each seat splits its secret key among the others
// (mentalpoker.MakeEscrow) and signs it in an escrow envelope (seq 0);
// every seat checks that the commitments add up to the key, and each
// holder that its own piece opens to its commitment, publishing an
// accusation (seq = the dealer's seat) if not. No opening starts before
// every escrow has checked. When the table agrees to drop a seat (Drop, at
// the same point of the log everywhere), every other seat publishes its
// piece of the dropped seat's key (a piece envelope, seq = the dropped
// seat); from them anyone rebuilds the key, computes the dropped seat's
// decryption shares itself from then on, and the cards the dropped seat
// held become public (as each game's rules say). A seat dropped later
// still rebuilds: the pieces held by a seat already rebuilt are opened
// with its rebuilt key. The price, as mentalpoker says: all the other
// seats together could read a seat's hand.

const ctxEscrow = "escrow"

func (m *Machine) escrowOn() bool { return len(m.seats) >= 3 }

// escrowsDone reports whether every seat's escrow has checked.
func (m *Machine) escrowsDone() bool {
	if !m.escrowOn() {
		return true
	}
	for _, e := range m.escrows {
		if e == nil {
			return false
		}
	}
	return true
}

// stepEscrow makes one change of the escrow and drop machinery.
func (m *Machine) stepEscrow() bool {
	if !m.escrowOn() || !m.keyOK {
		return false
	}
	if m.escrows[m.me] == nil && m.mayNew(crypto.KindEscrow, 0) {
		if own := m.adopted(crypto.KindEscrow, 0); own != nil {
			b, _ := decodeBlobBody(own.Kind, own.Body)
			e, pairs, err := m.parseEscrow(m.me, b)
			if err != nil {
				m.cheat(CheatBadEscrow, m.me, fmt.Sprintf("this peer's persisted escrow does not check: %v", err))
				return false
			}
			m.escrows[m.me], m.pairs[m.me] = e, pairs
			m.sign(own)
			return true
		}
		b, err := m.makeEscrow()
		if err == nil {
			m.escrows[m.me], m.pairs[m.me], err = m.parseEscrow(m.me, b)
		}
		if err != nil {
			m.cheat(CheatBadEscrow, m.me, fmt.Sprintf("this peer could not make its escrow: %v", err))
			return false
		}
		m.sign(&crypto.Envelope{Kind: crypto.KindEscrow, Body: encodeBlobBody(b)})
		return true
	}
	if !m.escrowsTold && m.escrowsDone() {
		m.escrowsTold = true
		m.rd.Events = append(m.rd.Events, Event{Kind: EventEscrows, Text: "every seat's escrow has checked"})
		return true
	}
	for o := 1; o <= m.drops; o++ {
		// In the order of the drops: what this seat's list for a drop
		// says of the seats dropped before it is read after what its
		// lists for theirs say (standing).
		d := m.droppedAt(o)
		if d < 0 || m.recovered[d] != nil || m.escrows[d] == nil {
			continue
		}
		if !m.pieceSent[d] && !m.dropped[m.me] && m.mayNew(crypto.KindPiece, uint64(d)) {
			m.pieceSent[d] = true
			body := &pieceBody{Piece: m.myPieces[d].Bytes(), Holds: m.holding(d), Remasks: m.holdingRemasks(d)}
			body.Relays, body.RelayRemasks = m.relaying(d)
			sent := m.sign(&crypto.Envelope{Seq: uint64(d), Kind: crypto.KindPiece, Body: body.encode()})
			if b, err := decodePiece(sent.Body); err == nil {
				// After a restart, what this seat signed before binds it.
				m.holds[d][m.me], m.remaskHolds[d][m.me], m.claimed[d][m.me] = b.Holds, b.Remasks, true
				m.relays[d][m.me], m.relayRemasks[d][m.me] = b.Relays, b.RelayRemasks
			}
			p := m.myPieces[d]
			m.pieces[d][m.me] = &p
			return true
		}
		if m.recover(d) {
			return true
		}
	}
	for d, dropped := range m.dropped {
		// Whether or not this peer rebuilt d's key without them: a peer
		// that lacks a plain piece needs every pair piece.
		if dropped && m.escrows[d] != nil && m.sendPairPieces(d) {
			return true
		}
	}
	for d, dropped := range m.dropped {
		if dropped && m.recovered[d] != nil && !m.decided[d] && m.listsIn(d) {
			m.decideChains(d)
			return true
		}
	}
	return false
}

// listsIn reports whether the signed lists of every holder that owed one
// for dropped seat d have come: every seat in play at d's drop (a seat
// dropped before d sent none, and counts as holding nothing of d's).
func (m *Machine) listsIn(d int) bool {
	for h := range m.seats {
		if h != d && (!m.dropped[h] || m.laterDrop(d, h)) && !m.claimed[d][h] {
			return false
		}
	}
	return true
}

// recover rebuilds dropped seat d's key once every holder's piece is in.
func (m *Machine) recover(d int) bool {
	e := m.escrows[d]
	var ps []mp.Piece
	for h := range m.seats {
		if h == d {
			continue
		}
		if m.pieces[d][h] == nil && m.dropped[h] && m.recovered[h] != nil {
			p, err := e.Open(h, m.recovered[h])
			if err != nil { // the escrow checked when it came; a bad piece would have been accused
				m.cheat(CheatBadEscrow, d, fmt.Sprintf("%s's escrow piece for %s does not open: %v", m.who(d), m.who(h), err))
				return false
			}
			m.pieces[d][h] = &p
		}
		if m.pieces[d][h] == nil {
			ps = nil
			break
		}
		ps = append(ps, *m.pieces[d][h])
	}
	var sk *mp.SecretKey
	if ps != nil {
		var err error
		if sk, err = e.Recover(ps); err != nil {
			m.cheat(CheatBadEscrow, d, fmt.Sprintf("the pieces of %s's key do not rebuild it: %v", m.who(d), err))
			return false
		}
	} else if sk = m.recoverPair(d); sk == nil {
		return false
	}
	m.recovered[d] = sk
	m.rd.Events = append(m.rd.Events, Event{Kind: EventRecovered, Seat: d + 1,
		Text: fmt.Sprintf("%s's card key is rebuilt from the others' pieces; its cards are shown to all", m.who(d))})
	return true
}

// revealDropped makes public every card held privately by dropped seat
// dr, whose key is rebuilt: the others' shares of it are public already,
// the dropped seat's is computed from the rebuilt key.
func (m *Machine) revealDropped(dr int) {
	n := len(m.seats)
	for _, d := range m.decks {
		if d == nil || !d.ready {
			continue
		}
		for pos := range d.cards {
			c := &d.cards[pos]
			if c.pub >= 0 || c.privTo != dr || d.gone != nil && d.gone[pos] {
				// (A card a reshuffle took is in another deck now, in an
				// order nobody knows: nothing of it is left to show.)
				continue
			}
			h := Handle{Deck: d.id, Pos: uint16(pos)}
			sh, err := m.localShare(c.privTo, c.ct)
			if err != nil {
				m.cheat(CheatBadReveal, -1, fmt.Sprintf("%s cannot be opened with the rebuilt key: %v", cardName(h), err))
				return
			}
			all := []mp.Share{sh}
			for s, x := range c.shares {
				if s != c.privTo && x != nil {
					all = append(all, *x)
				}
			}
			k, err := mp.OpenPublic(c.ct, all, n, len(m.space))
			if err != nil {
				m.cheat(CheatBadReveal, -1, fmt.Sprintf("%s does not open to a card of the game: %v", cardName(h), err))
				return
			}
			c.pub, c.mine, c.shares = k, k, nil // public: no share is used again (plan)
			m.rd.Events = append(m.rd.Events, Event{Kind: EventDropReveal, Seat: c.privTo + 1, Deck: d.id,
				Opening: Opening{Deck: d.id, Pos: uint16(pos), To: Public}, Card: m.space[k], Known: true,
				Text: fmt.Sprintf("%s, held by %s, which dropped, is card %d", cardName(h), m.who(c.privTo), m.space[k])})
		}
	}
}

// localShare is dropped seat d's share of ct, computed from its rebuilt
// key (its proof is never sent: every seat computes the same D).
func (m *Machine) localShare(d int, ct mp.Ciphertext) (mp.Share, error) {
	return mp.MakeShare(m.rand, m.ctx(0, 0, "rebuilt"), d, m.recovered[d], ct)
}

// Drop records that the table has agreed to drop seat (0-based). Call it
// at the same point of the agreed log on every peer: it is a step of the
// queue like a batch, after which the dropped seat's cards are public and
// every later batch and chain goes on without it. It needs 3 or more
// seats in play before the drop (with 2, the game pauses instead, as its
// rules say). Its links of chains declared before the drop that no other
// seat holds are skipped (decideChains), the others must still arrive
// (any peer can relay them); chains declared after leave it out, and its
// decryption shares are computed from its rebuilt key.
func (m *Machine) Drop(seat int) error {
	if m.stopped {
		return ErrStopped
	}
	if seat < 0 || seat >= len(m.seats) || m.dropped[seat] {
		return fmt.Errorf("%w: seat %d cannot be dropped", ErrBadInput, seat+1)
	}
	live := 0
	for _, d := range m.dropped {
		if !d {
			live++
		}
	}
	if !m.escrowOn() || live < 3 {
		return fmt.Errorf("%w: dropping a seat needs 3 seats in play, and %d are", ErrBadInput, live)
	}
	m.dropped[seat] = true
	m.drops++
	m.dropOrder[seat] = m.drops
	m.dropChains[seat] = len(m.chains)
	m.dropBatches[seat] = len(m.batches)
	m.ops = append(m.ops, op{chain: -1, batch: -1, drop: seat})
	m.rd.Events = append(m.rd.Events, Event{Kind: EventDropped, Seat: seat + 1,
		Text: fmt.Sprintf("%s is dropped; the others publish their pieces of its card key", m.who(seat))})
	m.release()
	m.progress()
	return nil
}

// routeEscrow handles a checked, declared escrow, piece or accuse.
func (m *Machine) routeEscrow(env *crypto.Envelope, seat int) error {
	var b []byte
	if env.Kind != crypto.KindPiece {
		b, _ = decodeBlobBody(env.Kind, env.Body)
	}
	switch env.Kind {
	case crypto.KindEscrow:
		e, pairs, err := m.parseEscrow(seat, b)
		if err != nil {
			return m.cheat(CheatBadEscrow, seat, fmt.Sprintf("%s's escrow of its card key is invalid: %v", m.who(seat), err), env)
		}
		m.escrows[seat], m.pairs[seat], m.escrowEnv[seat] = e, pairs, env
		p, err := e.Open(m.me, m.sk)
		if err != nil {
			acc, aerr := e.Accuse(m.rand, m.me, m.sk)
			if aerr == nil && m.mayNew(crypto.KindAccuse, uint64(seat)) {
				m.sign(&crypto.Envelope{Seq: uint64(seat), Kind: crypto.KindAccuse, Body: encodeBlobBody(acc)})
			}
			return m.cheat(CheatBadEscrow, seat, fmt.Sprintf("%s's escrow piece for %s does not match its commitment (%v); the proof is published", m.who(seat), m.who(m.me), err), env)
		}
		m.myPieces[seat] = p
		return m.openPairs(seat, env)
	case crypto.KindAccuse:
		d, x, _ := m.splitSeq(env.Seq)
		e, holder := m.escrows[d], seat
		if x >= 0 {
			e, holder = m.pairs[d][x], subSeat(seat, x)
		}
		if seat == x || e.VerifyAccusation(holder, b) != nil {
			return m.cheat(CheatFalseAccusation, seat, fmt.Sprintf("%s accuses %s of a bad escrow piece without proof", m.who(seat), m.who(d)), env)
		}
		return m.cheat(CheatBadEscrow, d, fmt.Sprintf("%s's escrow piece for %s is wrong, as %s proves", m.who(d), m.who(seat), m.who(seat)),
			m.escrowEnv[d], env)
	case crypto.KindPiece:
		d, x, _ := m.splitSeq(env.Seq)
		pb, _ := decodePiece(env.Body)
		if x >= 0 {
			var p mp.Piece
			err := fmt.Errorf("%s is the seat its pair escrow leaves out", m.who(seat))
			if seat != x {
				p, err = m.pairs[d][x].VerifyPiece(subSeat(seat, x), pb.Piece)
			}
			if err == nil && len(pb.Holds)+len(pb.Remasks)+len(pb.Relays)+len(pb.RelayRemasks) > 0 {
				err = fmt.Errorf("a piece of a pair escrow carries a list")
			}
			if err != nil {
				return m.cheat(CheatWrongPiece, seat, fmt.Sprintf("%s's published piece of %s's key (its pair escrow without %s) is wrong: %v", m.who(seat), m.who(d), m.who(x), err), env)
			}
			m.pairPieces[d][x][seat] = &p
			return nil
		}
		p, err := m.escrows[d].VerifyPiece(seat, pb.Piece)
		if err != nil {
			return m.cheat(CheatWrongPiece, seat, fmt.Sprintf("%s's published piece of %s's key is wrong: %v", m.who(seat), m.who(d), err), env)
		}
		for _, q := range pb.Holds {
			if !m.owedShuffle(d, q) {
				return m.cheat(CheatWrongPiece, seat, fmt.Sprintf("%s's piece of %s's key lists shuffle %d, of a chain in which %s owed no shuffle before its drop", m.who(seat), m.who(d), q, m.who(d)), env)
			}
		}
		for _, q := range pb.Remasks {
			if q >= uint64(m.dropBatches[d]) {
				return m.cheat(CheatWrongPiece, seat, fmt.Sprintf("%s's piece of %s's key lists batch %d, declared after its drop", m.who(seat), m.who(d), q), env)
			}
		}
		if err := m.checkRelays(d, seat, pb); err != nil {
			return m.cheat(CheatWrongPiece, seat, fmt.Sprintf("%s's piece of %s's key %v", m.who(seat), m.who(d), err), env)
		}
		m.pieces[d][seat] = &p
		m.holds[d][seat], m.remaskHolds[d][seat], m.claimed[d][seat] = pb.Holds, pb.Remasks, true
		m.relays[d][seat], m.relayRemasks[d][seat] = pb.Relays, pb.RelayRemasks
	}
	return nil
}

// declaredEscrow is declared for the escrow kinds.
func (m *Machine) declaredEscrow(env *crypto.Envelope) bool {
	switch env.Kind {
	case crypto.KindEscrow:
		return m.keyOK && m.escrowOn()
	case crypto.KindAccuse:
		d, x, ok := m.splitSeq(env.Seq)
		return ok && m.escrows[d] != nil && (x < 0 || m.pairs[d] != nil)
	case crypto.KindPiece:
		d, x, ok := m.splitSeq(env.Seq)
		return ok && m.dropped[d] && m.escrows[d] != nil && (x < 0 || m.pairs[d] != nil && m.laterDrop(d, x))
	}
	return false
}

// A seat that drops before it sends its link of a chain declared before
// the drop would hold that chain, and every batch after it, forever. So
// each holder's piece envelope lists the dropped seat's shuffle envelopes
// it holds of chains declared before the drop (pieceBody.Holds: their
// seqs, which name the chain and the attempt, forge.go), as it stands when
// it signs the piece, whether the chain is at that attempt here or not
// yet (one kept ahead counts); once every list is in (listsIn), an attempt
// of a chain whose dropped seat's link no holder holds goes on without it:
// the next live seat shuffles the previous live seat's output, as in a
// chain declared after the drop. An attempt some holder holds the link of
// waits for it (that holder relays it). Every peer reads the same signed
// lists, so every peer skips the same links, whenever the late link
// reaches it, and a redo made after the lists are in is decided by them
// at once. The deck stays unknown to each seat: every live seat after the
// skipped link still shuffles it.
//
// Until the lists decide, a holder whose list lacks the link of the
// chain's current attempt does nothing in that chain (frozen): it neither
// shuffles on the dropped seat's output nor checks a link after it, since
// the chain may go on without it. One that held the link goes on as
// before: its own list says so, and the chain keeps the link.

// A holder's list can be a lie: it may name a link it never had (or had
// and kept to itself). The chain then waits for that holder, whom
// Waiting names, and the table drops it; and a link kept only by the
// lists of holders that are dropped in their turn is decided again by
// the seats still in play. At every drop each holder's piece lists, with
// the dropped seat's envelopes, those it holds now of the seats dropped
// before (pieceBody.Relays): a link stands (standing) while a seat in
// play has signed that it holds it (that seat is to relay it), and is
// skipped once every list of every drop since the dropped seat's is in
// and none of a seat in play names it. Every peer reads the same signed
// lists, so every peer decides alike, whenever the late link or the
// lists reach it. What keeps an honest peer from taking a link that
// the others then skip: it uses a link only while it stands; one that
// reaches it while undecided, after its last list (late), it keeps
// unused and leaves out of its next list, and uses (and lists from then
// on) only once some seat in play's list names it. So a peer that took
// the liar's link before the liar's drop lists it at that drop, the
// link stands, and that peer relays it to the rest; if none did, it is
// skipped everywhere.

// holding is the seqs of seat d's shuffle envelopes of chains declared
// before its drop that this seat holds (checked or not, of any attempt,
// or kept ahead; not one that came late), ascending.
func (m *Machine) holding(d int) []uint64 {
	var out []uint64
	add := func(q uint64) {
		if ci := q & chainMask; ci < uint64(m.dropChains[d]) && len(m.chains[ci].links) > 0 && !slices.Contains(out, q) {
			out = append(out, q)
		}
	}
	for i := 0; i < m.dropChains[d]; i++ {
		c := m.chains[i]
		for _, q := range append([]uint64{c.seq}, c.past...) {
			k := slotKey{crypto.KindShuffle, d, q}
			if m.taken(k) && !m.late[k] {
				add(q)
			}
		}
	}
	for _, e := range m.ahead {
		if e.Kind == crypto.KindShuffle && e.Author == m.seats[d] {
			add(e.Seq)
		}
	}
	slices.Sort(out)
	return out
}

// owedShuffle reports whether q can be the seq of a shuffle dropped seat
// d owed before its drop: of a chain declared before it that has links,
// of an attempt a table of this size can have.
func (m *Machine) owedShuffle(d int, q uint64) bool {
	ci, f := q&chainMask, q>>32
	return ci < uint64(m.dropChains[d]) && len(m.chains[ci].links) > 0 && f <= uint64(len(m.seats))
}

// relaying is what this seat's piece of dropped seat e's key lists of the
// seats dropped before e (pieceBody.Relays, RelayRemasks).
func (m *Machine) relaying(e int) (shuffles, remasks []uint64) {
	for d := range m.seats {
		if d == e || d == m.me || !m.laterDrop(d, e) {
			continue
		}
		for _, q := range m.holding(d) {
			shuffles = append(shuffles, relayKey(d, q))
		}
		for _, q := range m.holdingRemasks(d) {
			remasks = append(remasks, relayKey(d, q))
		}
	}
	// (Ascending: seats in order, each seat's list ascending.)
	return shuffles[:min(len(shuffles), maxHolds)], remasks[:min(len(remasks), maxHolds)]
}

// checkRelays checks holder's lists, in its piece of dropped seat e's key,
// of what it holds of the seats dropped before e.
func (m *Machine) checkRelays(e, holder int, pb *pieceBody) error {
	for _, q := range pb.Relays {
		d, seq := splitRelay(q)
		if d >= len(m.seats) || d == holder || !m.laterDrop(d, e) || !m.owedShuffle(d, seq) {
			return fmt.Errorf("lists shuffle %d of seat %d, which is no shuffle a seat dropped before it owed", seq, d+1)
		}
	}
	for _, q := range pb.RelayRemasks {
		d, seq := splitRelay(q)
		if d >= len(m.seats) || d == holder || !m.laterDrop(d, e) || seq >= uint64(m.dropBatches[d]) {
			return fmt.Errorf("lists the re-masking of batch %d by seat %d, which is none a seat dropped before it owed", seq, d+1)
		}
	}
	return nil
}

// standing is what the signed lists say of dropped seat d's envelope of
// seq (a shuffle's seq, or with remask the batch of a re-masking), owed
// before its drop.
type standing uint8

const (
	undecided standing = iota // lists that could name it are not all in
	stands                    // a seat in play has signed that it holds it: it is to relay it
	skipped                   // every list is in, and none of a seat in play names it
)

func (m *Machine) standing(d int, seq uint64, remask bool) standing {
	st, _ := m.standingBy(d, seq, remask)
	return st
}

// standingBy is standing, with the seats whose lists name it, by seat:
// the dropped seat whose key's piece named it first, plus 1 (0: none);
// while it stands, only those still in play (this seat too if its list
// still to sign will name it), which are to relay it; once skipped,
// every seat that named it (all dropped since). The lists are read drop
// by drop in the order of the drops, from d's own: after each, if no seat
// still in play has named it, it is skipped once the lists of that drop
// and every one before are in (undecided until then), and what later
// lists say of it counts for nothing, so every peer comes to the same at
// the same drop, whatever it received first.
func (m *Machine) standingBy(d int, seq uint64, remask bool) (standing, []int) {
	kind, q := crypto.KindShuffle, relayKey(d, seq)
	if remask {
		kind = crypto.KindRemask
	}
	k := slotKey{kind, d, seq}
	mine := m.taken(k) && !m.late[k] && !m.dropped[m.me]
	named := make([]int, len(m.seats))
	all := true
	for o := m.dropOrder[d]; o <= m.drops; o++ {
		e := m.droppedAt(o)
		if e < 0 {
			continue
		}
		all = all && m.decided[e]
		for h := range m.seats {
			if h == e || named[h] > 0 || m.dropped[h] && m.dropOrder[h] < o {
				continue
			}
			var has bool
			switch list := m.relays[e][h]; {
			case m.claimed[e][h] && e == d && !remask:
				has = slices.Contains(m.holds[d][h], seq)
			case m.claimed[e][h] && e == d:
				has = slices.Contains(m.remaskHolds[d][h], seq)
			case m.claimed[e][h]:
				if remask {
					list = m.relayRemasks[e][h]
				}
				has = slices.Contains(list, q)
			case h == m.me && mine:
				// This seat's list for e, still to sign, will name it.
				has = true
			}
			if has {
				named[h] = e + 1
			}
		}
		live := make([]int, len(m.seats))
		found := false
		for h, by := range named {
			if by > 0 && !(m.dropped[h] && m.dropOrder[h] <= o) {
				live[h], found = by, true
			}
		}
		switch {
		case !found && all:
			return skipped, named
		case !found:
			return undecided, nil
		case o == m.drops:
			return stands, live
		}
	}
	return undecided, nil
}

// droppedAt is the seat whose drop was the o-th (1 for the first), -1 if
// none.
func (m *Machine) droppedAt(o int) int {
	for s, x := range m.dropOrder {
		if x == o && m.dropped[s] {
			return s
		}
	}
	return -1
}

// mayUse reports whether this seat may use dropped seat d's envelope of
// seq (as standing): only while it stands. One that came late is this
// seat's to list from then on, as any it holds.
func (m *Machine) mayUse(d int, seq uint64, remask bool) bool {
	if m.standing(d, seq, remask) != stands {
		return false
	}
	kind := crypto.KindShuffle
	if remask {
		kind = crypto.KindRemask
	}
	delete(m.late, slotKey{kind, d, seq})
	return true
}

// arrived marks dropped seat d's envelope of seq, just stepped in, late
// if it does not stand: this seat's last list left it out.
func (m *Machine) arrived(k slotKey, remask bool) {
	if m.dropped[k.seat] && k.seat != m.me && m.standing(k.seat, k.seq, remask) != stands {
		m.late[k] = true
	}
}

// frozen reports whether chain ci waits for the lists of a dropped seat's
// holders before this seat may go on in it.
func (m *Machine) frozen(ci int) bool {
	c := m.chains[ci]
	if len(c.links) == 0 || c.done {
		// (A chain done here has nothing left to do, and its links
		// are not read again: no need to weigh the lists for it.)
		return false
	}
	for d, dr := range m.dropped {
		if !dr || ci >= m.dropChains[d] || c.links[d].skipped {
			continue
		}
		if d == m.me {
			// (This seat is the one dropped: it holds its own link.)
			if !m.decided[d] && !c.links[d].has() {
				return true
			}
			continue
		}
		if !m.mayUse(d, c.seq, false) {
			return true
		}
	}
	return false
}

// decideChains skips, once dropped seat d's lists are in, its link in
// the current attempt of every chain declared before its drop that no
// list names; and decides again the links of the seats dropped before it
// that its lists could have kept.
func (m *Machine) decideChains(d int) {
	m.decided[d] = true
	for x := range m.seats {
		if x != d && !m.laterDrop(x, d) {
			continue
		}
		for i := 0; i < m.dropChains[x]; i++ {
			m.decideLink(i, x)
		}
	}
}

// decideLink skips dropped seat d's link in chain ci's current attempt if
// the lists say so (standing).
func (m *Machine) decideLink(ci, d int) {
	c := m.chains[ci]
	if ci >= m.dropChains[d] || len(c.links) == 0 || c.links[d].skipped {
		return
	}
	st, named := m.standingBy(d, c.seq, false)
	if st != skipped {
		return
	}
	if c.done {
		// A chain done here with the link no holder has: only the
		// dropped seat's own machine, which holds its link, gets here.
		return
	}
	k := slotKey{crypto.KindShuffle, d, c.seq}
	c.links[d] = link{skipped: true, verified: true}
	m.forget(k)
	delete(m.late, k)
	m.rd.Events = append(m.rd.Events, Event{Kind: EventLinkSkipped, Seat: d + 1, Deck: c.deck,
		Text: fmt.Sprintf("chain %d (deck %d) goes on without %s's shuffle, %s", ci, c.deck, m.who(d), m.noneHolds(named))})
}

// noneHolds says, for a skipped envelope of a dropped seat, who had said
// they held it (named, as standingBy's) and never relayed it.
func (m *Machine) noneHolds(named []int) string {
	var liars []string
	for h, by := range named {
		if by > 0 {
			liars = append(liars, fmt.Sprintf("%s (in its piece of %s's key)", m.who(h), m.who(by-1)))
		}
	}
	if liars == nil {
		return "which no other seat received before its drop"
	}
	return fmt.Sprintf("which no seat still in play holds: %s said it held it but never relayed it, and is dropped", strings.Join(liars, " and "))
}
