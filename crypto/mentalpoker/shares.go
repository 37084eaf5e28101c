package mentalpoker

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"io"
	"sync"

	"go.dedis.ch/kyber/v4"
	"go.dedis.ch/kyber/v4/proof"
)

// ShareLen is the size of a decryption share: the point D = x·C1, then
// its Chaum–Pedersen proof (two commitments, one response).
const ShareLen = PointLen + 2*PointLen + ScalarLen

// Share is one seat's verified decryption share of one ciphertext. A Share
// exists only from MakeShare or VerifyShare, so holding one means its
// proof was checked for the ciphertext it names.
type Share struct {
	seat int
	ct   Ciphertext
	d    kyber.Point
	raw  []byte
}

// Seat is the (0-based) seat whose share this is.
func (s Share) Seat() int { return s.seat }

// Bytes is the share's wire encoding, D || proof.
func (s Share) Bytes() []byte { return append([]byte(nil), s.raw...) }

func shareTranscript(ctx Context, seat int, pk PublicKey, ct Ciphertext, d kyber.Point) (string, error) {
	t, err := newTranscript("share", ctx, seat)
	if err != nil {
		return "", err
	}
	return t.points(base.Point().Base(), pk.p, ct.c1, ct.c2, d).name(), nil
}

// MakeShare computes seat's decryption share of ct, D = x·C1, and proves
// log_G X = log_C1 D. The challenge hashes both bases, both points, C2,
// the seat and ctx (kyber's dleq package hashes only the commitments and
// the points: pitfall 3), so a share cannot be replayed anywhere else.
func MakeShare(rand io.Reader, ctx Context, seat int, sk *SecretKey, ct Ciphertext) (Share, error) {
	if !ct.valid() || isIdentity(ct.c1) {
		return Share{}, fmt.Errorf("%w: the card is not masked; nothing to decrypt", ErrBadInput)
	}
	pk := sk.Public()
	d := base.Point().Mul(sk.x, ct.c1)
	name, err := shareTranscript(ctx, seat, pk, ct, d)
	if err != nil {
		return Share{}, err
	}
	s := &stream{r: rand}
	prover := dleqPred.Prover(proverSuite(s), map[string]kyber.Scalar{"x": sk.x},
		map[string]kyber.Point{"A": pk.p, "G": base.Point().Base(), "B": d, "H": ct.c1}, nil)
	prf, err := proof.HashProve(proverSuite(s), name, prover)
	if err == nil {
		err = s.check()
	}
	if err != nil {
		return Share{}, err
	}
	return Share{seat: seat, ct: ct, d: d, raw: append(pointBytes(d), prf...)}, nil
}

// VerifyShare decodes and checks seat's share of ct against the seat's
// public key pk, in ctx.
func VerifyShare(ctx Context, seat int, pk PublicKey, ct Ciphertext, b []byte) (Share, error) {
	if len(b) != ShareLen {
		return Share{}, fmt.Errorf("%w: seat %d's decryption share is %d bytes, not %d", ErrMalformed, seat+1, len(b), ShareLen)
	}
	if pk.p == nil || !ct.valid() {
		return Share{}, fmt.Errorf("%w: missing key or ciphertext", ErrBadInput)
	}
	if isIdentity(ct.c1) {
		return Share{}, fmt.Errorf("%w: the card is not masked; nothing to decrypt", ErrBadInput)
	}
	d, err := decodePoint(b[:PointLen], false)
	if err != nil {
		return Share{}, fmt.Errorf("seat %d's decryption share: %w", seat+1, err)
	}
	name, err := shareTranscript(ctx, seat, pk, ct, d)
	if err != nil {
		return Share{}, err
	}
	if err := dleqVerify(name, pk.p, ct.c1, d, b[PointLen:]); err != nil {
		return Share{}, proofErr(err, "seat %d's decryption share", seat+1)
	}
	return Share{seat: seat, ct: ct, d: d, raw: append([]byte(nil), b...)}, nil
}

// ShareCheck is one decryption share to check: its context, the
// ciphertext it decrypts and its bytes (D || proof).
type ShareCheck struct {
	Ctx   Context
	CT    Ciphertext
	Share []byte
}

// VerifyShares checks seat's shares under its key pk, each as VerifyShare
// would, and returns them. If one does not check, it returns the index of
// the first such and VerifyShare's error for it.
//
// The proofs' equations, two per share, are checked in one batch
// (dleqBatch), with weights from SHA-256 of every share's transcript name
// and bytes; only if the batch fails (or a share does not decode) is each
// share checked on its own, in order, so the first bad one is found and
// worded exactly as VerifyShare words it.
func VerifyShares(seat int, pk PublicKey, checks []ShareCheck) ([]Share, int, error) {
	shares := make([]Share, len(checks))
	if batchShares(seat, pk, checks, shares) {
		return shares, -1, nil
	}
	for i, c := range checks {
		sh, err := VerifyShare(c.Ctx, seat, pk, c.CT, c.Share)
		if err != nil {
			return nil, i, err
		}
		shares[i] = sh
	}
	return shares, -1, nil
}

// batchShares decodes every share and checks them all in one batch,
// filling shares; false if any share fails to decode or the batch fails.
func batchShares(seat int, pk PublicKey, checks []ShareCheck, shares []Share) bool {
	if pk.p == nil || len(checks) == 0 {
		return false
	}
	h := sha256.New()
	h.Write([]byte("boardmesh/mentalpoker/v2 share batch weights\x00"))
	var n [4]byte
	binary.BigEndian.PutUint32(n[:], uint32(len(checks)))
	h.Write(n[:])
	sts := make([]dleqStatement, len(checks))
	for i, c := range checks {
		if len(c.Share) != ShareLen || !c.CT.valid() || isIdentity(c.CT.c1) {
			return false
		}
		d, err := decodePoint(c.Share[:PointLen], false)
		if err != nil {
			return false
		}
		name, err := shareTranscript(c.Ctx, seat, pk, c.CT, d)
		if err != nil {
			return false
		}
		p, err := dleqRead(name, c.Share[PointLen:])
		if err != nil {
			return false
		}
		h.Write([]byte(name))
		h.Write(c.Share)
		sts[i] = dleqStatement{a: pk.p, h: c.CT.c1, b: d, p: p}
		shares[i] = Share{seat: seat, ct: c.CT, d: d, raw: append([]byte(nil), c.Share...)}
	}
	var seed [32]byte
	h.Sum(seed[:0])
	return dleqBatch(sts, seed)
}

// collect checks that shares holds exactly one share of ct from every seat
// of an nSeats table except skip (-1 for none), and sums their D.
func collect(ct Ciphertext, shares []Share, nSeats, skip int) (kyber.Point, error) {
	if !ct.valid() {
		return nil, fmt.Errorf("%w: no ciphertext", ErrBadInput)
	}
	if nSeats < 2 || nSeats > 255 {
		return nil, fmt.Errorf("%w: a table of %d seats", ErrBadInput, nSeats)
	}
	have := make([]bool, nSeats)
	sum := base.Point().Null()
	for _, s := range shares {
		if s.d == nil || !s.ct.valid() {
			return nil, fmt.Errorf("%w: an empty share", ErrBadInput)
		}
		if s.seat < 0 || s.seat >= nSeats || s.seat == skip {
			return nil, fmt.Errorf("%w: an unexpected share from seat %d", ErrBadInput, s.seat+1)
		}
		if have[s.seat] {
			return nil, fmt.Errorf("%w: two shares from seat %d", ErrBadInput, s.seat+1)
		}
		if !s.ct.Equal(ct) {
			return nil, fmt.Errorf("%w: seat %d's share is for another card", ErrBadInput, s.seat+1)
		}
		have[s.seat] = true
		sum.Add(sum, s.d)
	}
	for seat, ok := range have {
		if !ok && seat != skip {
			return nil, fmt.Errorf("%w: no decryption share from seat %d", ErrBadInput, seat+1)
		}
	}
	return sum, nil
}

// cardTable maps the encoding of every card point M_k, k < MaxDeck, to k.
// It is built once, on the first opening (about 1024 point additions).
var cardTable = sync.OnceValue(func() map[[PointLen]byte]int {
	t := make(map[[PointLen]byte]int, MaxDeck)
	g := base.Point().Base()
	p := base.Point().Null()
	for k := 0; k < MaxDeck; k++ {
		p.Add(p, g)
		t[[PointLen]byte(pointBytes(p))] = k
	}
	return t
})

// cardOf maps a plaintext point back to its card index among nCards.
func cardOf(m kyber.Point, nCards int) (int, error) {
	if nCards < 1 || nCards > MaxDeck {
		return 0, fmt.Errorf("%w: a deck of %d cards", ErrBadInput, nCards)
	}
	if k, ok := cardTable()[[PointLen]byte(pointBytes(m))]; ok && k < nCards {
		return k, nil
	}
	return 0, fmt.Errorf("%w: the ciphertext does not hold a card of this %d-card deck (a substituted card?)", ErrInvalidProof, nCards)
}

// OpenPrivate is the drawer's private step of a draw or a peek: with the
// verified shares of every other seat of the nSeats table, seat removes
// its own share locally (it never publishes it) and learns the card index.
func OpenPrivate(sk *SecretKey, seat int, ct Ciphertext, others []Share, nSeats, nCards int) (int, error) {
	if seat < 0 || seat >= nSeats {
		return 0, fmt.Errorf("%w: seat %d of %d", ErrBadInput, seat+1, nSeats)
	}
	sum, err := collect(ct, others, nSeats, seat)
	if err != nil {
		return 0, err
	}
	sum.Add(sum, base.Point().Mul(sk.x, ct.c1))
	return cardOf(base.Point().Sub(ct.c2, sum), nCards)
}

// OpenPublic opens ct from the verified shares of all nSeats seats: a
// public reveal, where the holder adds its share to those the others
// posted when the card was drawn.
func OpenPublic(ct Ciphertext, shares []Share, nSeats, nCards int) (int, error) {
	sum, err := collect(ct, shares, nSeats, -1)
	if err != nil {
		return 0, err
	}
	return cardOf(base.Point().Sub(ct.c2, sum), nCards)
}

// VerifyReveal checks a reveal's claim: that ct, opened with the verified
// shares of every seat, is the claimed card. The error says which card the
// ciphertext really holds when the claim is false.
func VerifyReveal(ct Ciphertext, shares []Share, nSeats, nCards, claimed int) error {
	card, err := OpenPublic(ct, shares, nSeats, nCards)
	if err != nil {
		return err
	}
	if card != claimed {
		return fmt.Errorf("%w: the reveal claims card %d but its ciphertext holds card %d", ErrInvalidProof, claimed, card)
	}
	return nil
}
