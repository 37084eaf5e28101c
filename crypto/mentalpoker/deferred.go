package mentalpoker

import (
	"go.dedis.ch/kyber/v4"

	r255 "github.com/gtank/ristretto255"
)

// Deferred products: kyber's Neff prover computes its commitments Λ1 and
// Λ2 as Σ s_i·X_i and Σ s_i·Y_i over the input deck (shuffle/pair.go), one
// constant-time scalar multiplication per card each, by secret scalars.
// Shuffle hands it copies of the deck's points marked deferMul: a product
// by one of them is kept as a term, the sum collects the terms, and the
// first read of the sum (its encoding, when the prover writes Λ1) evaluates
// them in one constant-time multi-scalar multiplication (ristretto255's
// MultiScalarMult, whose time depends only on the number of terms), which
// shares the doublings among all the cards: a quarter of the cost of the
// separate multiplications. The value is the same group element, so the
// proof's bytes are the same (the golden vectors check it).
//
// Terms never outlive Shuffle: only its copies of the deck are marked,
// our() and every method of point but Add evaluate a point's terms before
// reading it, and the prover encodes Λ1 and Λ2 before it returns.

// term is one deferred product s·p.
type term struct {
	s *r255.Scalar
	p *r255.Element
}

// force evaluates P's deferred terms into P.p.
func (P *point) force() {
	if len(P.terms) == 0 {
		return
	}
	ss := make([]*r255.Scalar, len(P.terms))
	ps := make([]*r255.Element, len(P.terms))
	for i, t := range P.terms {
		ss[i], ps[i] = t.s, t.p
	}
	// From the identity: MultiScalarMult adds into the element it is
	// called on (NewIdentityElement is the identity; a zero Element is not a point).
	sum := r255.NewIdentityElement().MultiScalarMult(ss, ps)
	P.p.Add(&P.p, sum)
	P.terms, P.encOK = nil, false
}

// sumTerms is the deferred terms of P = A + B: A's then B's, appended to
// P's own when P is A (a running sum), else in a new slice (no two points
// share one).
func sumTerms(P, A, B *point) []term {
	if len(A.terms) == 0 && len(B.terms) == 0 {
		return nil
	}
	if P == A && P != B {
		return append(P.terms, B.terms...)
	}
	t := make([]term, 0, len(A.terms)+len(B.terms))
	return append(append(t, A.terms...), B.terms...)
}

// deferred copies ps, marked so that products by them are deferred.
func deferred(ps []kyber.Point) []kyber.Point {
	out := make([]kyber.Point, len(ps))
	for i, p := range ps {
		q := our(p).Clone().(*point)
		q.deferMul = true
		out[i] = q
	}
	return out
}
