package deal

import (
	"fmt"

	"github.com/boardmesh/boardmesh/crypto"
	mp "github.com/boardmesh/boardmesh/crypto/mentalpoker"
)

// Pair escrows: two seats that drop at once. A seat's key is split
// additively among all the others (escrow.go), so when two seats a and b
// drop before either published its piece of the other's key, neither key
// can be rebuilt from the plain escrows: a's piece held by b is sealed to
// b's key, and b's piece held by a to a's. So at tables of 5 to 16 seats
// each dealer's escrow envelope also carries, for every other seat x, a
// second escrow of the same key split among the seats other than the
// dealer and x (mentalpoker's escrow over that sub-table, under the
// context (session, 0, x, "escrow-pair")). When x drops after the dealer
// (later in the log, or after it in the same vote), every seat in play
// publishes its piece of the dealer's pair escrow without x too (a piece
// envelope, seq pairSeq(dealer, x)); with those the dealer's key is
// rebuilt without x's piece, and x's key then from the plain escrow, its
// piece held by the dealer opened with the dealer's rebuilt key. The key
// is the same whichever way it is rebuilt, so peers that got x's plain
// piece and peers that did not come to the same. Three seats that drop
// at once are beyond it: the third's piece is missing from every pair
// escrow, and the deal says it waits for it (Waiting).
//
// The price: the plain escrow needs every other seat to rebuild a key, a
// pair escrow all but one of them, so any n−2 other seats that collude
// could read a seat's hand (at 5 seats, three against one).
//
// The pair pieces rebuild the key only: the lists of what each holder
// holds of the dropped seat (escrow.go's decideChains) come with the plain
// pieces, and a chain or batch that needs them waits for x's plain piece
// (any peer that has it relays it); a chain or batch that does not need
// them goes on.

const ctxEscrowPair = "escrow-pair"

// pairOn reports whether this table's escrows carry pair escrows.
func (m *Machine) pairOn() bool { return len(m.seats) >= pairMin && len(m.seats) <= 16 }

// pairMin is the smallest table with pair escrows. A pair escrow lets all
// but one of the other seats rebuild a key, so at 4 seats two players who
// collude could read the third's hand; and at 4 seats two who quit at
// once cannot be voted out anyway (two of four is no majority). So pair
// escrows start at 5 seats, where the three left drop both.
const pairMin = 5

// pairSeq is the seq of a piece (or accuse) envelope of dealer d's pair
// escrow without seat x; a plain escrow's is d.
func pairSeq(d, x int) uint64 { return uint64(x+1)<<8 | uint64(d) }

// splitSeq is the dealer and the left-out seat (-1: the plain escrow) of
// a piece or accuse envelope's seq, ok false if it names none at this
// table.
func (m *Machine) splitSeq(seq uint64) (d, x int, ok bool) {
	n := uint64(len(m.seats))
	d, hi := int(seq&0xff), seq>>8
	switch {
	case seq>>16 != 0 || uint64(d) >= n:
		return 0, 0, false
	case hi == 0:
		return d, -1, true
	case !m.pairOn() || hi-1 >= n || int(hi-1) == d:
		return 0, 0, false
	}
	return d, int(hi - 1), true
}

// subSeat is seat s's index in the sub-table without seat x.
func subSeat(s, x int) int {
	if s > x {
		return s - 1
	}
	return s
}

func (m *Machine) subKeys(x int) []mp.PublicKey {
	var out []mp.PublicKey
	for s, k := range m.keys {
		if s != x {
			out = append(out, k)
		}
	}
	return out
}

func (m *Machine) pairCtx(x int) mp.Context { return m.ctx(0, uint32(x), ctxEscrowPair) }

// escrowLen is the length of an escrow envelope's blob at this table.
func (m *Machine) escrowLen() int {
	n := len(m.seats)
	l := mp.EscrowLen(n)
	if m.pairOn() {
		l += (n - 1) * mp.EscrowLen(n-1)
	}
	return l
}

// makeEscrow is this seat's escrow blob: the plain escrow, then the pair
// escrow without each other seat, in seat order.
func (m *Machine) makeEscrow() ([]byte, error) {
	b, err := mp.MakeEscrow(m.rand, m.ctx(0, 0, ctxEscrow), m.me, m.sk, m.keys)
	if err != nil || !m.pairOn() {
		return b, err
	}
	for x := range m.seats {
		if x == m.me {
			continue
		}
		p, err := mp.MakeEscrow(m.rand, m.pairCtx(x), subSeat(m.me, x), m.sk, m.subKeys(x))
		if err != nil {
			return nil, err
		}
		b = append(b, p...)
	}
	return b, nil
}

// parseEscrow checks dealer's escrow blob: its plain escrow and its pair
// escrows, by left-out seat (nil without pairs).
func (m *Machine) parseEscrow(dealer int, b []byte) (*mp.Escrow, []*mp.Escrow, error) {
	if len(b) != m.escrowLen() {
		return nil, nil, fmt.Errorf("%w: %d bytes, want %d at a table of %d", ErrBadBody, len(b), m.escrowLen(), len(m.seats))
	}
	n := len(m.seats)
	l := mp.EscrowLen(n)
	e, err := mp.ParseEscrow(m.ctx(0, 0, ctxEscrow), dealer, m.keys, b[:l])
	if err != nil || !m.pairOn() {
		return e, nil, err
	}
	pairs := make([]*mp.Escrow, n)
	at := l
	for x := range m.seats {
		if x == dealer {
			continue
		}
		sub := b[at : at+mp.EscrowLen(n-1)]
		at += len(sub)
		if pairs[x], err = mp.ParseEscrow(m.pairCtx(x), subSeat(dealer, x), m.subKeys(x), sub); err != nil {
			return nil, nil, fmt.Errorf("its pair escrow without seat %d: %w", x+1, err)
		}
	}
	return e, pairs, nil
}

// openPairs opens this seat's pieces of dealer's pair escrows, and names
// (with a published accusation) the first that does not open.
func (m *Machine) openPairs(dealer int, env *crypto.Envelope) error {
	for x, e := range m.pairs[dealer] {
		if e == nil || x == m.me {
			continue
		}
		p, err := e.Open(subSeat(m.me, x), m.sk)
		if err != nil {
			acc, aerr := e.Accuse(m.rand, subSeat(m.me, x), m.sk)
			if aerr == nil && m.mayNew(crypto.KindAccuse, pairSeq(dealer, x)) {
				m.sign(&crypto.Envelope{Seq: pairSeq(dealer, x), Kind: crypto.KindAccuse, Body: encodeBlobBody(acc)})
			}
			return m.cheat(CheatBadEscrow, dealer, fmt.Sprintf("%s's escrow piece for %s (in its pair escrow without %s) does not match its commitment (%v); the proof is published", m.who(dealer), m.who(m.me), m.who(x), err), env)
		}
		m.myPairs[dealer][x] = p
	}
	return nil
}

// laterDrop reports whether seat x was dropped after seat d (later in the
// log, or after it in the same vote): x owed a plain piece of d's key.
func (m *Machine) laterDrop(d, x int) bool {
	return m.dropped[d] && m.dropped[x] && m.dropOrder[x] > m.dropOrder[d]
}

// sendPairPieces publishes this seat's pieces of dropped seat d's pair
// escrows without each seat dropped after d; it reports whether it signed.
func (m *Machine) sendPairPieces(d int) bool {
	if m.pairs[d] == nil || m.dropped[m.me] {
		return false
	}
	for x := range m.seats {
		if x == d || x == m.me || !m.laterDrop(d, x) || m.pairSent[d][x] || !m.mayNew(crypto.KindPiece, pairSeq(d, x)) {
			continue
		}
		m.pairSent[d][x] = true
		p := m.myPairs[d][x]
		m.sign(&crypto.Envelope{Seq: pairSeq(d, x), Kind: crypto.KindPiece, Body: (&pieceBody{Piece: p.Bytes()}).encode()})
		m.pairPieces[d][x][m.me] = &p
		return true
	}
	return false
}

// recoverPair rebuilds dropped seat d's key from a pair escrow: without a
// seat x dropped after it, with every other holder's pair piece (a holder
// dropped and rebuilt before opens its own with its rebuilt key).
func (m *Machine) recoverPair(d int) *mp.SecretKey {
	if m.pairs[d] == nil {
		return nil
	}
next:
	for x, e := range m.pairs[d] {
		if e == nil || !m.laterDrop(d, x) || m.pieces[d][x] != nil {
			continue
		}
		var ps []mp.Piece
		for h := range m.seats {
			if h == d || h == x {
				continue
			}
			p := m.pairPieces[d][x][h]
			if p == nil && m.dropped[h] && m.recovered[h] != nil {
				q, err := e.Open(subSeat(h, x), m.recovered[h])
				if err != nil {
					continue next
				}
				p = &q
			}
			if p == nil {
				continue next
			}
			ps = append(ps, *p)
		}
		if sk, err := e.Recover(ps); err == nil {
			return sk
		}
	}
	return nil
}
