package mentalpoker

import (
	"testing"

	"go.dedis.ch/kyber/v4"
)

// TestDeferredProductsAreTheProducts: sums of products by deferred points,
// built as kyber's prover builds Λ1 (a running sum and a scratch point
// reused for every product), then read in every way (encoding, Equal, a
// further Add, Sub, Clone, Set, Mul), are the sums computed directly,
// including over the identity (the open deck's C1) and G.
func TestDeferredProductsAreTheProducts(t *testing.T) {
	s := &stream{r: seeded(3)}
	xs := []kyber.Point{base.Point().Pick(s), base.Point().Null(), base.Point().Base(), base.Point().Pick(s)}
	ks := make([]kyber.Scalar, len(xs))
	for i := range ks {
		ks[i] = randomScalar(s)
	}
	extra := base.Point().Pick(s)
	want := base.Point().Null()
	for i, x := range xs {
		want.Add(want, base.Point().Mul(ks[i], x))
	}
	want.Add(want, extra)
	sum := func() kyber.Point {
		dx := deferred(xs)
		got, xy := base.Point().Null(), base.Point()
		for i, x := range dx {
			got.Add(got, xy.Mul(ks[i], x))
		}
		return got.Add(got, extra)
	}
	enc := func(p kyber.Point) string { return p.String() }
	if got := sum(); enc(got) != enc(want) {
		t.Errorf("encoding: %s, want %s", enc(got), enc(want))
	}
	if got := sum(); !got.Equal(want) || !want.Equal(sum()) {
		t.Error("Equal of a deferred sum")
	}
	if got := sum(); enc(got.Add(got, got)) != enc(base.Point().Add(want, want)) {
		t.Error("a deferred sum added to itself")
	}
	if got := base.Point().Sub(sum(), want); !got.Equal(base.Point().Null()) || enc(got) != enc(base.Point().Null()) {
		t.Error("a deferred sum minus the direct one is not the identity")
	}
	if enc(sum().Clone()) != enc(want) || enc(base.Point().Set(sum())) != enc(want) {
		t.Error("Clone or Set of a deferred sum")
	}
	k := randomScalar(s)
	if enc(base.Point().Mul(k, sum())) != enc(base.Point().Mul(k, want)) {
		t.Error("a multiple of a deferred sum")
	}
	if enc(base.Point().Neg(sum())) != enc(base.Point().Neg(want)) {
		t.Error("the negation of a deferred sum")
	}
}
