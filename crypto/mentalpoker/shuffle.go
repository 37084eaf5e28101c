package mentalpoker

import (
	"encoding/binary"
	"fmt"
	"io"

	"go.dedis.ch/kyber/v4"
	"go.dedis.ch/kyber/v4/proof"
	"go.dedis.ch/kyber/v4/shuffle"
)

// ShuffleProofLen is the size of the Neff shuffle proof of an n-card deck:
// 9n+3 points and 3n scalars, in kyber v4.0.2's order.
func ShuffleProofLen(n int) int { return (12*n + 3) * 32 }

func shuffleTranscript(ctx Context, seat int, h PublicKey, in, out Deck) (string, error) {
	t, err := newTranscript("shuffle", ctx, seat)
	if err != nil {
		return "", err
	}
	t.points(base.Point().Base(), h.p).count(len(in))
	for _, c := range in {
		t.points(c.c1, c.c2)
	}
	t.count(len(out))
	for _, c := range out {
		t.points(c.c1, c.c2)
	}
	return t.name(), nil
}

func checkDeck(d Deck) error {
	if n := len(d); n < 2 || n > MaxDeck {
		return fmt.Errorf("%w: a shuffled deck has 2 to %d cards, not %d", ErrBadInput, MaxDeck, n)
	}
	for i, c := range d {
		if c.c1 == nil || c.c2 == nil {
			return fmt.Errorf("%w: card %d of the deck is empty", ErrBadInput, i)
		}
	}
	return nil
}

// permutation draws a uniform permutation of n by Fisher–Yates, with
// rejection sampling so no index is favoured.
func permutation(s *stream, n int) []int {
	pi := make([]int, n)
	for i := range pi {
		pi[i] = i
	}
	var b [8]byte
	for i := n - 1; i > 0; i-- {
		bound := uint64(i + 1)
		limit := ^uint64(0) - (^uint64(0) % bound) // accept v < limit
		var v uint64
		for {
			s.XORKeyStream(b[:], make([]byte, 8))
			v = binary.BigEndian.Uint64(b[:])
			if v < limit || s.err != nil {
				break
			}
		}
		j := int(v % bound)
		pi[i], pi[j] = pi[j], pi[i]
	}
	return pi
}

// Shuffle permutes and re-masks the deck under the joint key h and proves
// it with kyber's Neff shuffle proof: out[i] = in[π(i)] + (β_i·G, β_i·H)
// for a permutation π and masks β that only this seat knows. The proof's
// Fiat–Shamir transcript is seeded with ctx, the seat, G, H, the input and
// the output deck (kyber alone seeds it with a fixed name; pitfall 1).
func Shuffle(rand io.Reader, ctx Context, seat int, h PublicKey, in Deck) (Deck, []byte, error) {
	if err := checkDeck(in); err != nil {
		return nil, nil, err
	}
	p, err := PrepareShuffle(rand, h, len(in))
	if err != nil {
		return nil, nil, err
	}
	return p.Shuffle(ctx, seat, in)
}

// shuffleWith is Shuffle's work once p is prepared for in.
func shuffleWith(p *ShufflePrep, ctx Context, seat int, in Deck) (Deck, []byte, error) {
	n := len(in)
	X, Y := split(in)
	out := make(Deck, n)
	for i := range out {
		// kyber's prover takes β indexed by source card: out[i] uses β[π(i)].
		j := p.pi[i]
		out[i] = Ciphertext{base.Point().Add(p.masks[j].c1, in[j].c1), base.Point().Add(p.masks[j].c2, in[j].c2)}
	}
	name, err := shuffleTranscript(ctx, seat, p.h, in, out)
	if err != nil {
		return nil, nil, err
	}
	// kyber reads its first secrets again from the prepared bytes, then
	// the rest from the caller's reader.
	rs := &replayStream{s: p.s, left: p.secrets}
	suite := proverGroup{proverSuite(rs), p.memo}
	ps := new(shuffle.PairShuffle).Init(suite, n)
	// X and Y go in as deferred copies: kyber's Λ1 and Λ2 become two
	// multi-scalar multiplications (deferred.go). G is passed as nil:
	// kyber then multiplies by the base point with its precomputed table.
	dX, dY := deferred(X), deferred(Y)
	prover := func(pc proof.ProverContext) error {
		return ps.Prove(p.pi, nil, p.h.p, p.beta, dX, dY, rs, pc)
	}
	prf, err := proof.HashProve(suite, name, prover)
	if err == nil {
		err = p.s.check()
	}
	if err != nil {
		return nil, nil, err
	}
	return out, prf, nil
}

// VerifyShuffle checks that out is a permuted re-masking of in under h,
// made by seat in ctx.
func VerifyShuffle(ctx Context, seat int, h PublicKey, in, out Deck, prf []byte) error {
	n := len(in)
	if err := checkDeck(in); err != nil {
		return err
	}
	if len(out) != n {
		return fmt.Errorf("%w: seat %d's shuffle turned %d cards into %d", ErrInvalidProof, seat+1, n, len(out))
	}
	if err := checkDeck(out); err != nil {
		return err
	}
	if len(prf) != ShuffleProofLen(n) {
		return fmt.Errorf("%w: seat %d's shuffle proof is %d bytes, not %d", ErrMalformed, seat+1, len(prf), ShuffleProofLen(n))
	}
	if h.p == nil {
		return fmt.Errorf("%w: no joint key", ErrBadInput)
	}
	name, err := shuffleTranscript(ctx, seat, h, in, out)
	if err != nil {
		return err
	}
	X, Y := split(in)
	Xbar, Ybar := split(out)
	if err := pairVerify(name, h.p, X, Y, Xbar, Ybar, prf); err != nil {
		return proofErr(err, "seat %d's shuffle", seat+1)
	}
	return nil
}

func split(d Deck) (c1, c2 []kyber.Point) {
	c1 = make([]kyber.Point, len(d))
	c2 = make([]kyber.Point, len(d))
	for i, c := range d {
		c1[i], c2[i] = c.c1, c.c2
	}
	return c1, c2
}
