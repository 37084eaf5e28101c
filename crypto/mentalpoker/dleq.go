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
		return err
	}
	cs, rs := toScalar(c), toScalar(r)
	lhs1 := r255.NewElement().VarTimeDoubleScalarBaseMult(cs, &our(a).p, rs)
	if lhs1.Equal(&our(v1).p) != 1 {
		return errDLEQ
	}
	lhs2 := r255.NewElement().VarTimeMultiScalarMult([]*r255.Scalar{cs, rs}, []*r255.Element{&our(b).p, &our(h).p})
	if lhs2.Equal(&our(v2).p) != 1 {
		return errDLEQ
	}
	return nil
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
			var b [PointLen]byte
			if _, err := io.ReadFull(r, b[:]); err != nil {
				return fmt.Errorf("%w: truncated proof", ErrMalformed)
			}
			if err := decodeCanonical(v, b[:]); err != nil {
				return err
			}
			if isIdentity(v) {
				return fmt.Errorf("%w: the identity point in a proof", ErrMalformed)
			}
		case kyber.Scalar:
			var b [ScalarLen]byte
			if _, err := io.ReadFull(r, b[:]); err != nil {
				return fmt.Errorf("%w: truncated proof", ErrMalformed)
			}
			sc, err := decodeScalar(b[:])
			if err != nil {
				return fmt.Errorf("%w: non-canonical element in a proof", ErrMalformed)
			}
			v.Set(sc)
		default:
			return fmt.Errorf("%w: unexpected proof element %T", ErrBadInput, o)
		}
	}
	return nil
}
