package mentalpoker

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"

	r255 "github.com/gtank/ristretto255"
	"go.dedis.ch/kyber/v4"
	"go.dedis.ch/kyber/v4/proof"
)

// The Neff shuffle proof is kyber v4.0.2's (shuffle.PairShuffle, with its
// inner shuffle.SimpleShuffle); so is its encoding and its Fiat–Shamir
// flow. Its verification is ours (pairVerify): it reads the proof's
// messages in kyber's order through kyber's proof.HashVerify (so the
// challenges are kyber's, and every point is decoded by strictSuite), and
// then checks kyber's equations, plus one link kyber leaves out, as one
// random linear combination evaluated with a single variable-time
// multi-scalar multiplication (ristretto255's VarTimeMultiScalarMult)
// instead of about 9n separate ones.
//
// The batch check is the small-exponent test of Bellare, Garay and Rabin
// ("Fast batch verification for modular exponentiation and digital
// signatures", Eurocrypt 1998), as Ed25519 batch verification uses it
// (Bernstein, Duif, Lange, Schwabe, Yang, "High-speed high-security
// signatures", 2011, section 5): equations E_j = O over a group of prime
// order L hold if Σ z_j·E_j = O for independent 128-bit weights z_j, except
// with probability at most 2^-128 when one of them fails. It needs a group
// of prime order (a small-order component could cancel for some weights),
// which ristretto255 is: every point here is one of its elements, decoded
// strictly (the decks by ParseDeck, the key, and every proof point by
// strictSuite.Read). The weights are drawn from SHA-256 over the proof's
// transcript name (which binds the context, the seat, G, H and both decks)
// and the proof bytes, so they are fixed only once the proof is, and the
// check stays a pure function of its inputs.

// Mirrors of kyber v4.0.2's shuffle messages (pair.go: ega1…ega5, simple.go:
// ssa0…ssa4): the same fields in the same order, which is all kyber's
// reflective encoding reads.
type (
	pairMsg1 struct {
		Gamma            kyber.Point
		A, C, U, W       []kyber.Point
		Lambda1, Lambda2 kyber.Point
	}
	pairMsg2 struct{ Zrho []kyber.Scalar }
	pairMsg3 struct{ D []kyber.Point }
	pairMsg4 struct{ Zlambda kyber.Scalar }
	pairMsg5 struct {
		Zsigma []kyber.Scalar
		Ztau   kyber.Scalar
	}
	simpleMsg0 struct{ X, Y []kyber.Point }
	simpleMsg1 struct{ Zt kyber.Scalar }
	simpleMsg2 struct{ Theta []kyber.Point }
	simpleMsg3 struct{ Zc kyber.Scalar }
	simpleMsg4 struct{ Zalpha []kyber.Scalar }
)

// pairProof is a decoded shuffle proof with its challenges.
type pairProof struct {
	p1 pairMsg1
	v2 pairMsg2
	p3 pairMsg3
	v4 pairMsg4
	p5 pairMsg5
	s0 simpleMsg0
	s1 simpleMsg1
	s2 simpleMsg2
	s3 simpleMsg3
	s4 simpleMsg4
}

func newPairProof(k int) *pairProof {
	pp := &pairProof{}
	pp.p1.A = make([]kyber.Point, k)
	pp.p1.C = make([]kyber.Point, k)
	pp.p1.U = make([]kyber.Point, k)
	pp.p1.W = make([]kyber.Point, k)
	pp.v2.Zrho = make([]kyber.Scalar, k)
	pp.p3.D = make([]kyber.Point, k)
	pp.p5.Zsigma = make([]kyber.Scalar, k)
	pp.s0.X = make([]kyber.Point, k)
	pp.s0.Y = make([]kyber.Point, k)
	pp.s2.Theta = make([]kyber.Point, 2*k)
	pp.s4.Zalpha = make([]kyber.Scalar, 2*k-1)
	return pp
}

// read takes the messages from ctx in the order of kyber's
// PairShuffle.Verify and SimpleShuffle.Verify: prover messages with Get,
// challenges with PubRand (kyber's hash verifier reseeds its XOF with
// everything read before each challenge).
func (pp *pairProof) read(ctx proof.VerifierContext) error {
	steps := []func() error{
		func() error { return ctx.Get(&pp.p1) },
		func() error { return ctx.PubRand(&pp.v2) },
		func() error { return ctx.Get(&pp.p3) },
		func() error { return ctx.PubRand(&pp.v4) },
		func() error { return ctx.Get(&pp.p5) },
		func() error { return ctx.Get(&pp.s0) },
		func() error { return ctx.PubRand(&pp.s1) },
		func() error { return ctx.Get(&pp.s2) },
		func() error { return ctx.PubRand(&pp.s3) },
		func() error { return ctx.Get(&pp.s4) },
	}
	for _, f := range steps {
		if err := f(); err != nil {
			return err
		}
	}
	return nil
}

var errShuffleEquations = errors.New("the shuffle proof's equations do not hold")

// msm accumulates Σ coefficient·point, one coefficient per distinct point.
type msm struct {
	scalars []*r255.Scalar
	points  []*r255.Element
}

func (m *msm) term(s *r255.Scalar, p kyber.Point) {
	m.scalars = append(m.scalars, s)
	m.points = append(m.points, &our(p).p)
}

// batchWeights yields the 128-bit weights z_j: SHA-256(seed || j), its
// first 16 bytes as a little-endian integer.
type batchWeights struct {
	seed [32]byte
	j    uint32
}

func newBatchWeights(name string, prf []byte) *batchWeights {
	h := sha256.New()
	h.Write([]byte("boardmesh/mentalpoker/v2 shuffle batch weights\x00"))
	h.Write([]byte(name))
	h.Write(prf)
	w := &batchWeights{}
	h.Sum(w.seed[:0])
	return w
}

func (w *batchWeights) next() *r255.Scalar {
	var in [36]byte
	copy(in[:], w.seed[:])
	binary.BigEndian.PutUint32(in[32:], w.j)
	w.j++
	sum := sha256.Sum256(in[:])
	var b [32]byte
	copy(b[:16], sum[:16])
	s := r255.NewScalar()
	if err := s.Decode(b[:]); err != nil {
		panic(err) // below 2^128 < L
	}
	return s
}

// pairVerify checks prf, a kyber v4.0.2 Neff shuffle proof (G the base
// point), that (Xbar, Ybar) is a permuted re-masking of (X, Y) under h.
// name is the proof's transcript hash (kyber's "protocol name").
//
// The equations, with k cards, t = Zt, c = Zc, α = Zalpha, λ = Zlambda,
// B_i = Zrho_i·G − U_i, X̂_i = SX_i − t·G, Ŷ_i = SY_i − t·Γ (SX, SY the inner
// simple shuffle's sequences), and each "P = Q" meaning P − Q = O:
//
//	(33)    Zsigma_i·Γ = W_i + D_i                               for each i
//	(31,34) Λ1 + Ztau·G = Σ Zsigma_i·Xbar_i − Σ Zrho_i·X_i
//	(32,35) Λ2 + Ztau·H = Σ Zsigma_i·Ybar_i − Σ Zrho_i·Y_i
//	simple  Θ_0 = c·X̂_0 − α_0·Ŷ_0
//	        Θ_i = α_{i−1}·X̂_i − α_i·Ŷ_i                         for 0 < i < k
//	        Θ_i = α_{i−1}·Γ − α_i·G                              for k ≤ i < 2k−1
//	        Θ_{2k−1} = α_{2k−2}·Γ − c·G
//	link    SX_i = A_i + λ·B_i,  SY_i = C_i + λ·D_i              for each i
//
// The first six are kyber's (PairShuffle.Verify, SimpleShuffle.Verify).
// The link is Neff's (the simple k-shuffle runs on the sequences A·B^λ and
// C·D^λ: "Verifiable mixing (shuffling) of ElGamal pairs", 2004, the EGA
// protocol), which an honest kyber prover satisfies (SX_i = (a_i+λb_i)·G,
// SY_i = γ·(a_π(i)+λb_π(i))·G) but kyber's verifier does not check: without
// it the simple shuffle's sequences are whatever the prover sent.
func pairVerify(name string, h kyber.Point, X, Y, Xbar, Ybar []kyber.Point, prf []byte) error {
	k := len(X)
	pp := newPairProof(k)
	if err := proof.HashVerify(shuffleVerifierSuite, name, pp.read, prf); err != nil {
		return err
	}
	w := newBatchWeights(name, prf)
	sc := func(s kyber.Scalar) *r255.Scalar { return toScalar(s) }
	mul := func(a, b *r255.Scalar) *r255.Scalar { return r255.NewScalar().Multiply(a, b) }
	neg := func(a *r255.Scalar) *r255.Scalar { return r255.NewScalar().Negate(a) }
	acc := func(into, a *r255.Scalar) { into.Add(into, a) }

	zsigma := make([]*r255.Scalar, k)
	zrho := make([]*r255.Scalar, k)
	for i := range k {
		zsigma[i], zrho[i] = sc(pp.p5.Zsigma[i]), sc(pp.v2.Zrho[i])
	}
	ztau := sc(pp.p5.Ztau)
	lambda := sc(pp.v4.Zlambda)
	t, c := sc(pp.s1.Zt), sc(pp.s3.Zc)
	alpha := make([]*r255.Scalar, 2*k-1)
	for i := range alpha {
		alpha[i] = sc(pp.s4.Zalpha[i])
	}

	// Coefficients of the points that several equations share.
	cG, cH, cGamma := r255.NewScalar(), r255.NewScalar(), r255.NewScalar()
	var m msm

	// (33), weight z: z·Zsigma_i·Γ − z·W_i − z·D_i.
	cD := make([]*r255.Scalar, k)
	for i := range k {
		z := w.next()
		acc(cGamma, mul(z, zsigma[i]))
		m.term(neg(z), pp.p1.W[i])
		cD[i] = neg(z)
	}
	// (34), weight z1, and (35), weight z2.
	z1, z2 := w.next(), w.next()
	m.term(z1, pp.p1.Lambda1)
	m.term(z2, pp.p1.Lambda2)
	acc(cG, mul(z1, ztau))
	acc(cH, mul(z2, ztau))
	for i := range k {
		m.term(neg(mul(z1, zsigma[i])), Xbar[i])
		m.term(mul(z1, zrho[i]), X[i])
		m.term(neg(mul(z2, zsigma[i])), Ybar[i])
		m.term(mul(z2, zrho[i]), Y[i])
	}
	// The simple shuffle: z·(aS·A − bS·B − Θ_i), with X̂_i and Ŷ_i
	// expanded: aS·SX_i − aS·t·G − bS·SY_i + bS·t·Γ.
	cSX := make([]*r255.Scalar, k)
	cSY := make([]*r255.Scalar, k)
	for i := range 2 * k {
		z := w.next()
		aS, bS := c, alpha[0]
		if i > 0 {
			aS = alpha[i-1]
		}
		if i > 0 && i < 2*k-1 {
			bS = alpha[i]
		}
		if i == 2*k-1 {
			bS = c
		}
		za, zb := mul(z, aS), mul(z, bS)
		if i < k {
			cSX[i], cSY[i] = za, neg(zb)
			acc(cG, neg(mul(za, t)))
			acc(cGamma, mul(zb, t))
		} else {
			acc(cGamma, za)
			acc(cG, neg(zb))
		}
		m.term(neg(z), pp.s2.Theta[i])
	}
	// The link, weights z3 and z4: z3·(SX_i − A_i − λ·Zrho_i·G + λ·U_i)
	// and z4·(SY_i − C_i − λ·D_i).
	for i := range k {
		z3, z4 := w.next(), w.next()
		acc(cSX[i], z3)
		m.term(neg(z3), pp.p1.A[i])
		z3l := mul(z3, lambda)
		acc(cG, neg(mul(z3l, zrho[i])))
		m.term(z3l, pp.p1.U[i])
		acc(cSY[i], z4)
		m.term(neg(z4), pp.p1.C[i])
		acc(cD[i], neg(mul(z4, lambda)))
	}
	for i := range k {
		m.term(cSX[i], pp.s0.X[i])
		m.term(cSY[i], pp.s0.Y[i])
		m.term(cD[i], pp.p3.D[i])
	}
	m.term(cGamma, pp.p1.Gamma)
	m.term(cH, h)
	m.scalars = append(m.scalars, cG)
	m.points = append(m.points, r255.NewGeneratorElement())

	sum := r255.NewIdentityElement().VarTimeMultiScalarMult(m.scalars, m.points)
	if sum.Equal(r255.NewIdentityElement()) != 1 {
		return errShuffleEquations
	}
	return nil
}
