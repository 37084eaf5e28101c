package mentalpoker

import (
	"fmt"
	"io"

	"go.dedis.ch/kyber/v4"
	"go.dedis.ch/kyber/v4/proof"
)

// CiphertextLen is the size of one masked card: C1 then C2.
const CiphertextLen = 2 * PointLen

// MaxDeck bounds every deck this package accepts: a shuffle proof for it
// stays under gossipsub's 1 MiB message limit (384·n+96 bytes) and a
// decoder never allocates more than it for hostile input.
const MaxDeck = 1024

// Ciphertext is an ElGamal masking of a card point M under a joint key H:
// (C1, C2) = (r·G, M + r·H). The starting deck is the public (0, M):
// C1 is the identity, so the identity is a valid C1 or C2 here.
type Ciphertext struct{ c1, c2 kyber.Point }

func (c Ciphertext) valid() bool { return c.c1 != nil && c.c2 != nil }

func checkKeyAndCard(h PublicKey, c Ciphertext) error {
	if h.p == nil || !c.valid() {
		return fmt.Errorf("%w: missing key or ciphertext", ErrBadInput)
	}
	return nil
}

// Bytes is C1 || C2.
func (c Ciphertext) Bytes() []byte { return append(pointBytes(c.c1), pointBytes(c.c2)...) }

// Equal reports whether two ciphertexts are the same pair of points.
func (c Ciphertext) Equal(o Ciphertext) bool { return c.c1.Equal(o.c1) && c.c2.Equal(o.c2) }

// ParseCiphertext strictly decodes 64 bytes.
func ParseCiphertext(b []byte) (Ciphertext, error) {
	if len(b) != CiphertextLen {
		return Ciphertext{}, fmt.Errorf("%w: a ciphertext is %d bytes, not %d", ErrMalformed, CiphertextLen, len(b))
	}
	c1, err := decodePoint(b[:PointLen], true)
	if err != nil {
		return Ciphertext{}, err
	}
	c2, err := decodePoint(b[PointLen:], true)
	if err != nil {
		return Ciphertext{}, err
	}
	return Ciphertext{c1, c2}, nil
}

// Deck is an ordered list of ciphertexts.
type Deck []Ciphertext

// Bytes is the concatenation of the ciphertexts (the count is the
// caller's framing: it knows how many cards a deck holds).
func (d Deck) Bytes() []byte {
	out := make([]byte, 0, len(d)*CiphertextLen)
	for _, c := range d {
		out = append(out, c.Bytes()...)
	}
	return out
}

// ParseDeck strictly decodes a deck of exactly n cards.
func ParseDeck(b []byte, n int) (Deck, error) {
	if n < 1 || n > MaxDeck {
		return nil, fmt.Errorf("%w: a deck of %d cards (1 to %d)", ErrBadInput, n, MaxDeck)
	}
	if len(b) != n*CiphertextLen {
		return nil, fmt.Errorf("%w: a deck of %d cards is %d bytes, not %d", ErrMalformed, n, n*CiphertextLen, len(b))
	}
	d := make(Deck, n)
	for i := range d {
		c, err := ParseCiphertext(b[i*CiphertextLen : (i+1)*CiphertextLen])
		if err != nil {
			return nil, fmt.Errorf("card %d: %w", i, err)
		}
		d[i] = c
	}
	return d, nil
}

// cardPoint is card i's plaintext, (i+1)·G: a fixed, public point per
// card index that an opener maps back with a table of n entries, and never
// the identity (which C1 of the starting deck uses).
func cardPoint(i int) kyber.Point {
	return base.Point().Mul(base.Scalar().SetInt64(int64(i)+1), nil)
}

// CardBytes is the encoding of card i's plaintext point (for vectors and
// for callers that want to display or hash it).
func CardBytes(i int) []byte { return pointBytes(cardPoint(i)) }

// OpenDeck is the public starting deck of n cards, card i at position i,
// unmasked: (identity, (i+1)·G). The first shuffle masks it.
func OpenDeck(n int) (Deck, error) {
	if n < 1 || n > MaxDeck {
		return nil, fmt.Errorf("%w: a deck of %d cards (1 to %d)", ErrBadInput, n, MaxDeck)
	}
	d := make(Deck, n)
	for i := range d {
		d[i] = Ciphertext{base.Point().Null(), cardPoint(i)}
	}
	return d, nil
}

// Mask encrypts card i under h with fresh randomness: (r·G, M_i + r·H).
func Mask(rand io.Reader, h PublicKey, card int) (Ciphertext, error) {
	if card < 0 || card >= MaxDeck {
		return Ciphertext{}, fmt.Errorf("%w: card %d out of range", ErrBadInput, card)
	}
	return Remask(rand, h, Ciphertext{base.Point().Null(), cardPoint(card)})
}

// Remask adds a fresh masking to c: (C1 + r·G, C2 + r·H). The card stays
// the same; the new ciphertext cannot be linked to the old one by anyone
// who does not know r.
func Remask(rand io.Reader, h PublicKey, c Ciphertext) (Ciphertext, error) {
	if err := checkKeyAndCard(h, c); err != nil {
		return Ciphertext{}, err
	}
	s := &stream{r: rand}
	r := randomScalar(s)
	if err := s.check(); err != nil {
		return Ciphertext{}, err
	}
	return remaskWith(r, h, c), nil
}

func remaskWith(r kyber.Scalar, h PublicKey, c Ciphertext) Ciphertext {
	c1 := base.Point().Mul(r, nil)
	c2 := base.Point().Mul(r, h.p)
	return Ciphertext{c1.Add(c1, c.c1), c2.Add(c2, c.c2)}
}

// RemaskProofLen is the size of a re-masking proof (a Chaum–Pedersen proof).
const RemaskProofLen = 2*PointLen + ScalarLen

var dleqPred = proof.And(proof.Rep("A", "x", "G"), proof.Rep("B", "x", "H"))

func remaskTranscript(ctx Context, seat int, h PublicKey, in, out Ciphertext) (string, error) {
	t, err := newTranscript("remask", ctx, seat)
	if err != nil {
		return "", err
	}
	return t.points(base.Point().Base(), h.p, in.c1, in.c2, out.c1, out.c2).name(), nil
}

// RemaskProved re-masks c and proves it: out - in = (r·G, r·H) for an r
// the prover knows (a Chaum–Pedersen proof that log_G ΔC1 = log_H ΔC2).
// A seat uses it before a card changes hands or is peeked at, so that the
// decryption shares published for the old ciphertext say nothing about
// the new one (see doc.go, "Peeks and passed cards").
func RemaskProved(rand io.Reader, ctx Context, seat int, h PublicKey, c Ciphertext) (Ciphertext, []byte, error) {
	if err := checkKeyAndCard(h, c); err != nil {
		return Ciphertext{}, nil, err
	}
	s := &stream{r: rand}
	r := randomScalar(s)
	if err := s.check(); err != nil {
		return Ciphertext{}, nil, err
	}
	out := remaskWith(r, h, c)
	name, err := remaskTranscript(ctx, seat, h, c, out)
	if err != nil {
		return Ciphertext{}, nil, err
	}
	a := base.Point().Sub(out.c1, c.c1)
	b := base.Point().Sub(out.c2, c.c2)
	prover := dleqPred.Prover(proverSuite(s), map[string]kyber.Scalar{"x": r},
		map[string]kyber.Point{"A": a, "G": base.Point().Base(), "B": b, "H": h.p}, nil)
	prf, err := proof.HashProve(proverSuite(s), name, prover)
	if err == nil {
		err = s.check()
	}
	if err != nil {
		return Ciphertext{}, nil, err
	}
	return out, prf, nil
}

// VerifyRemask checks a RemaskProved proof.
func VerifyRemask(ctx Context, seat int, h PublicKey, in, out Ciphertext, prf []byte) error {
	if len(prf) != RemaskProofLen {
		return fmt.Errorf("%w: re-masking proof is %d bytes, not %d", ErrMalformed, len(prf), RemaskProofLen)
	}
	if h.p == nil || !in.valid() || !out.valid() {
		return fmt.Errorf("%w: missing key or ciphertext", ErrBadInput)
	}
	name, err := remaskTranscript(ctx, seat, h, in, out)
	if err != nil {
		return err
	}
	a := base.Point().Sub(out.c1, in.c1)
	b := base.Point().Sub(out.c2, in.c2)
	if err := dleqVerify(name, a, h.p, b, prf); err != nil {
		return proofErr(err, "seat %d's re-masking", seat+1)
	}
	return nil
}
