package mentalpoker

import (
	"bytes"
	"testing"

	"go.dedis.ch/kyber/v4"
	"go.dedis.ch/kyber/v4/xof/blake2xb"
)

// TestScalarIsKybers: this package's scalars stand in for kyber's
// edwards25519 scalars in kyber's own shuffle and proof code, so every
// draw, operation and encoding must be kyber's, byte for byte: the same
// stream picks the same scalar (kyber's prover draws its nonces so), and
// sums, differences, products, quotients, inverses, negations, small
// integers and reductions agree, on random values and on 0, 1 and L−1.
func TestScalarIsKybers(t *testing.T) {
	ours, theirs := blake2xb.New([]byte("scalars")), blake2xb.New([]byte("scalars"))
	pick := func() (kyber.Scalar, kyber.Scalar) {
		return newScalar().Pick(ours), kyberCurve.Scalar().Pick(theirs)
	}
	same := func(what string, a, b kyber.Scalar) {
		t.Helper()
		ab, _ := a.MarshalBinary()
		bb, _ := b.MarshalBinary()
		if !bytes.Equal(ab, bb) {
			t.Fatalf("%s: ours %x, kyber's %x", what, ab, bb)
		}
	}
	type pair struct{ o, k kyber.Scalar }
	var vals []pair
	for range 40 {
		o, k := pick()
		same("Pick", o, k)
		vals = append(vals, pair{o, k})
	}
	for _, v := range []int64{0, 1, -1, 2, 1 << 40, -(1 << 62)} {
		o, k := newScalar().SetInt64(v), kyberCurve.Scalar().SetInt64(v)
		same("SetInt64", o, k)
		vals = append(vals, pair{o, k})
	}
	for i, x := range vals {
		y := vals[(i*7+3)%len(vals)]
		same("Add", newScalar().Add(x.o, y.o), kyberCurve.Scalar().Add(x.k, y.k))
		same("Sub", newScalar().Sub(x.o, y.o), kyberCurve.Scalar().Sub(x.k, y.k))
		same("Mul", newScalar().Mul(x.o, y.o), kyberCurve.Scalar().Mul(x.k, y.k))
		same("Div", newScalar().Div(x.o, y.o), kyberCurve.Scalar().Div(x.k, y.k))
		same("Inv", newScalar().Inv(x.o), kyberCurve.Scalar().Inv(x.k))
		same("Neg", newScalar().Neg(x.o), kyberCurve.Scalar().Neg(x.k))
		if x.o.Equal(y.o) != x.k.Equal(y.k) {
			t.Fatal("Equal differs from kyber's")
		}
		if x.o.String() != x.k.String() {
			t.Fatalf("String: ours %s, kyber's %s", x.o, x.k)
		}
	}
	for _, n := range []int{0, 1, 31, 32, 33, 64, 65, 100} {
		b := make([]byte, n)
		ours.XORKeyStream(b, b)
		for i := range b {
			b[i] |= 0x80 // large values, so the reduction is exercised
		}
		same("SetBytes", newScalar().SetBytes(b), kyberCurve.Scalar().SetBytes(b))
	}
	// 32 bytes of L or more: kyber keeps and reduces them; so do we.
	over := bytes.Repeat([]byte{0xff}, 32)
	o, k := newScalar(), kyberCurve.Scalar()
	if err := o.UnmarshalBinary(over); err != nil {
		t.Fatal(err)
	}
	if err := k.UnmarshalBinary(over); err != nil {
		t.Fatal(err)
	}
	same("UnmarshalBinary of 2^256−1", o, k)
	if _, err := decodeScalar(over); err == nil {
		t.Error("decodeScalar took a scalar of L or more")
	}
}
