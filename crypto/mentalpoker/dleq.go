package mentalpoker

import (
	"crypto/cipher"
	"errors"
	"fmt"
	"io"

	r255 "github.com/gtank/ristretto255"
	"go.dedis.ch/kyber/v4"
	"go.dedis.ch/kyber/v4/proof"
)

// dleqVerify checks a Chaum–Pedersen proof made by kyber's proof framework
// for dleqPred, log_G A = log_H B with G the base point, in the transcript
// name: the proof is V1 ‖ V2 ‖ r, the challenge c is kyber's (its hash
// verifier's XOF over name, then V1 ‖ V2), and the proof holds when
// V1 = c·A + r·G and V2 = c·B + r·H — kyber's repPred.verify, with each
// side computed in one variable-time double-scalar multiplication instead
// of two multiplications and an addition.
//
// Every point is a ristretto255 element (a group of prime order), decoded
// strictly (one encoding per proof) and refused if it is the identity, as
// every proof point (strictSuite).
func dleqVerify(name string, a, h, b kyber.Point, prf []byte) error {
	p, err := dleqRead(name, prf)
	if err != nil {
		return err
	}
	lhs1 := r255.NewIdentityElement().VarTimeDoubleScalarBaseMult(p.c, &our(a).p, p.r)
	if lhs1.Equal(&p.v1.p) != 1 {
		return errDLEQ
	}
	lhs2 := r255.NewIdentityElement().VarTimeMultiScalarMult([]*r255.Scalar{p.c, p.r}, []*r255.Element{&our(b).p, &our(h).p})
	if lhs2.Equal(&p.v2.p) != 1 {
		return errDLEQ
	}
	return nil
}

// dleqProof is a decoded Chaum–Pedersen proof with its challenge c.
type dleqProof struct {
	v1, v2 *point
	c, r   *r255.Scalar
}

// dleqRead decodes prf and computes its challenge, as kyber's HashVerify
// does (its XOF over name, then V1 ‖ V2), without checking the equations.
func dleqRead(name string, prf []byte) (dleqProof, error) {
	var v1, v2 kyber.Point
	var c, r kyber.Scalar
	read := func(ctx proof.VerifierContext) error {
		v1, v2 = newPoint(), newPoint()
		c, r = base.Scalar(), base.Scalar()
		for _, step := range []func() error{
			func() error { return ctx.Get(v1) },
			func() error { return ctx.Get(v2) },
			func() error { return ctx.PubRand(c) },
			func() error { return ctx.Get(r) },
		} {
			if err := step(); err != nil {
				return err
			}
		}
		return nil
	}
	if err := proof.HashVerify(pinnedSuite{verifierSuite}, name, read, prf); err != nil {
		return dleqProof{}, err
	}
	return dleqProof{v1: our(v1), v2: our(v2), c: toScalar(c), r: toScalar(r)}, nil
}

// dleqStatement is one decoded proof of log_G A = log_H B.
type dleqStatement struct {
	a, h, b kyber.Point
	p       dleqProof
}

// dleqBatch reports whether every statement's two equations,
// V1 = c·A + r·G and V2 = c·B + r·H, hold, checked as one random linear
// combination in one variable-time multi-scalar multiplication: the
// small-exponent batch test that pairVerify uses for a shuffle (see there
// for the references), with 128-bit weights drawn from seed, which the
// caller takes from a hash of every statement's transcript name and proof
// bytes, so the weights are fixed only once every proof is. Sound because
// every point is a strictly decoded ristretto255 element (a group of prime
// order): if one equation fails, the sum is the identity with probability
// at most 2^-128. It does not say which statement failed; the caller
// checks each then (dleqVerify), so a cheat is named as before.
//
// Consecutive statements with the same A (one seat's shares, all under
// its key) share its term.
func dleqBatch(sts []dleqStatement, seed [32]byte) bool {
	w := &batchWeights{seed: seed}
	var m msm
	cG := r255.NewScalar()
	var cA *r255.Scalar
	for i, st := range sts {
		z1, z2 := w.next(), w.next()
		// z1·(c·A + r·G − V1) + z2·(c·B + r·H − V2)
		if i == 0 || st.a != sts[i-1].a {
			cA = r255.NewScalar()
			m.term(cA, st.a)
		}
		cA.Add(cA, r255.NewScalar().Multiply(z1, st.p.c))
		cG.Add(cG, r255.NewScalar().Multiply(z1, st.p.r))
		m.term(r255.NewScalar().Negate(z1), st.p.v1)
		m.term(r255.NewScalar().Multiply(z2, st.p.c), st.b)
		m.term(r255.NewScalar().Multiply(z2, st.p.r), st.h)
		m.term(r255.NewScalar().Negate(z2), st.p.v2)
	}
	m.scalars = append(m.scalars, cG)
	m.points = append(m.points, r255.NewGeneratorElement())
	sum := r255.NewIdentityElement().VarTimeMultiScalarMult(m.scalars, m.points)
	return sum.Equal(r255.NewIdentityElement()) == 1
}

var errDLEQ = errors.New("invalid proof: commit mismatch")

// pinnedSuite decodes the elements of a Chaum–Pedersen proof (dleqVerify)
// as strictSuite does (ristretto255 encodings, scalars below L, exact
// lengths, no identity), directly, without kyber's reflective decoder.
type pinnedSuite struct{ strictSuite }

func (s pinnedSuite) Read(r io.Reader, objs ...any) error {
	if _, ok := r.(cipher.Stream); ok {
		return s.strictSuite.Read(r, objs...)
	}
	for _, o := range objs {
		switch v := o.(type) {
		case *point:
			if err := readProofPoint(r, v); err != nil {
				return err
			}
		case kyber.Scalar:
			sc, err := readProofScalar(r)
			if err != nil {
				return err
			}
			v.Set(sc)
		default:
			return fmt.Errorf("%w: unexpected proof element %T", ErrBadInput, o)
		}
	}
	return nil
}
