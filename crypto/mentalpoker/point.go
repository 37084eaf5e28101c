package mentalpoker

import (
	"crypto/cipher"
	"encoding/hex"
	"errors"
	"io"
	"reflect"

	r255 "github.com/gtank/ristretto255"
	"go.dedis.ch/fixbuf"
	"go.dedis.ch/kyber/v4"
	"go.dedis.ch/kyber/v4/group/edwards25519"
)

// point is a kyber.Point of ristretto255 (github.com/gtank/ristretto255,
// the group of prime order L built on edwards25519, RFC 9496): kyber's
// shuffle and proof code runs on it unchanged through group (Point, and
// the reflection constructor its encoding uses); its scalars, modulo the
// same L, are scalar.go's.
//
// Why ristretto255 rather than edwards25519 points: its encoding has one
// 32-byte string per group element and no string at all for a point with
// a small-order component, and decoding refuses every non-canonical
// string. So a received point needs no prime-order subgroup check (a
// scalar multiplication by L each, which was about 70% of a shuffle check
// over edwards25519), and no torsion tag can ride along (pitfall 2 of the
// issue).
//
// A multiplication is constant-time unless the point is marked public
// (AllowVarTime, as kyber's own points): the verifiers' points are, the
// provers' (which multiply by secret scalars) are not.
//
// A point keeps its encoding once computed or decoded (enc, while encOK):
// encoding takes an inverse square root, and every point is encoded at
// least once more after decoding (each proof transcript that names it).
// Every method that changes p clears encOK.
type point struct {
	p       r255.Element
	varTime bool
	enc     [PointLen]byte
	encOK   bool
	// deferMul and terms: sums of products deferred into one
	// constant-time multi-scalar multiplication (deferred.go). A point
	// with terms is p + Σ terms; our() and every method that reads it
	// evaluate them first.
	deferMul bool
	terms    []term
	// memo: the prepared products of a shuffle proof (prepare.go), on
	// the points kyber's prover builds.
	memo *mulMemo
}

// bytes is the point's encoding (cached; the caller must not modify it).
func (P *point) bytes() []byte {
	P.force()
	if !P.encOK {
		P.p.Encode(P.enc[:0])
		P.encOK = true
	}
	return P.enc[:]
}

var errNotOurPoint = errors.New("mentalpoker: a point of another group implementation")

func newPoint() *point {
	q := &point{}
	q.p.Set(rIdentity)
	return q
}

// our is the point type of this package, with its deferred terms (if
// any) evaluated, so its p is its value; any other kyber.Point is a bug.
func our(p kyber.Point) *point {
	q := ourLazy(p)
	q.force()
	return q
}

// ourLazy is our without evaluating deferred terms (for Add).
func ourLazy(p kyber.Point) *point {
	q, ok := p.(*point)
	if !ok {
		panic(errNotOurPoint)
	}
	return q
}

// AllowVarTime marks the point public: it may be multiplied in variable
// time.
func (P *point) AllowVarTime(v bool) { P.varTime = v }

func (P *point) String() string { return hex.EncodeToString(P.bytes()) }

func (P *point) MarshalSize() int { return PointLen }

func (P *point) MarshalBinary() ([]byte, error) { return append([]byte(nil), P.bytes()...), nil }

// UnmarshalBinary decodes a ristretto255 encoding. ristretto255's decoding
// is strict (RFC 9496, section 4.3.1): exactly 32 bytes, the canonical
// encoding of a field element s that is not negative, and one of an
// element; anything else is refused. An accepted b is therefore the
// element's one encoding, and is kept as such.
func (P *point) UnmarshalBinary(b []byte) error {
	P.encOK, P.terms = false, nil
	if err := P.p.Decode(b); err != nil {
		return errors.New("not a ristretto255 encoding")
	}
	copy(P.enc[:], b)
	P.encOK = true
	return nil
}

func (P *point) MarshalTo(w io.Writer) (int, error) { return w.Write(P.bytes()) }

// UnmarshalFrom reads a point, or picks one from r if it is an XOF (the
// kyber.Marshaling contract, as kyber's marshalling.PointUnmarshalFrom).
func (P *point) UnmarshalFrom(r io.Reader) (int, error) {
	if s, ok := r.(cipher.Stream); ok {
		P.Pick(s)
		return -1, nil
	}
	buf := make([]byte, PointLen)
	n, err := io.ReadFull(r, buf)
	if err != nil {
		return n, err
	}
	return n, P.UnmarshalBinary(buf)
}

func (P *point) Equal(q kyber.Point) bool {
	P.force()
	return P.p.Equal(&our(q).p) == 1
}

func (P *point) Null() kyber.Point {
	P.encOK, P.terms = false, nil
	P.p.Set(rIdentity)
	return P
}

// Base sets P to G, with its encoding (a transcript names G in every
// proof; encoding it afresh would cost an inverse square root each time).
func (P *point) Base() kyber.Point {
	P.terms = nil
	P.p.Set(rBase)
	P.enc, P.encOK = baseEnc, true
	return P
}

var (
	rBase   = r255.NewGeneratorElement()
	baseEnc = [PointLen]byte(rBase.Encode(nil))
)

// Pick sets P to a uniformly random element: ristretto255's one-way map
// (RFC 9496, section 4.3.4) of 64 bytes of rand.
func (P *point) Pick(rand cipher.Stream) kyber.Point {
	var b [64]byte
	rand.XORKeyStream(b[:], b[:])
	P.encOK, P.terms = false, nil
	P.p.FromUniformBytes(b[:])
	return P
}

// EmbedLen is 0: ristretto255 has no standard way to embed data in an
// element, and this package encodes cards as multiples of G instead.
func (P *point) EmbedLen() int { return 0 }

// Embed picks a random point; with data, which cannot be embedded
// (EmbedLen is 0), it panics: no caller of this package embeds data.
func (P *point) Embed(data []byte, rand cipher.Stream) kyber.Point {
	if len(data) > 0 {
		panic("mentalpoker: ristretto255 points embed no data")
	}
	return P.Pick(rand)
}

var errNoData = errors.New("mentalpoker: ristretto255 points embed no data")

func (P *point) Data() ([]byte, error) { return nil, errNoData }

func (P *point) Set(q kyber.Point) kyber.Point {
	o := our(q)
	P.p = o.p
	P.enc, P.encOK = o.enc, o.encOK
	P.terms = nil
	return P
}

// Clone copies the point, not its variable-time mark (as kyber's Clone).
func (P *point) Clone() kyber.Point {
	P.force()
	q := &point{p: P.p, enc: P.enc, encOK: P.encOK}
	return q
}

// Add adds a and b; their deferred terms, if any, stay deferred in P.
func (P *point) Add(a, b kyber.Point) kyber.Point {
	A, B := ourLazy(a), ourLazy(b)
	P.terms = sumTerms(P, A, B)
	P.encOK = false
	P.p.Add(&A.p, &B.p)
	return P
}

func (P *point) Sub(a, b kyber.Point) kyber.Point {
	A, B := our(a), our(b)
	P.encOK, P.terms = false, nil
	P.p.Subtract(&A.p, &B.p)
	return P
}

func (P *point) Neg(a kyber.Point) kyber.Point {
	A := our(a)
	P.encOK, P.terms = false, nil
	P.p.Negate(&A.p)
	return P
}

// Mul sets P to s·a, or s·G for a nil a or a equal to G (with the
// precomputed base table, constant-time: kyber's proof framework hands G
// over as a point, e.g. to the Chaum–Pedersen prover of a share, whose
// commitment to G then costs a quarter of a generic multiplication).
// Otherwise a public P multiplies in variable time.
//
// A product by a point marked deferMul (deferred.go) is not computed
// here: P becomes the term s·a, evaluated with the other terms of the sum
// it is added into.
func (P *point) Mul(s kyber.Scalar, a kyber.Point) kyber.Point {
	x := toScalar(s)
	var A *point
	if a != nil {
		A = our(a)
	}
	P.encOK, P.terms = false, nil
	if P.memo.take(P, x, A) {
		return P
	}
	switch {
	case a == nil || A.p.Equal(rBase) == 1:
		P.p.ScalarBaseMult(x)
	case P.varTime:
		P.p.VarTimeDoubleScalarBaseMult(x, &A.p, rZero)
	case A.deferMul:
		e := A.p
		P.p.Set(rIdentity)
		P.terms = []term{{s: x, p: &e}}
	default:
		P.p.ScalarMult(x, &A.p)
	}
	return P
}

var rZero = r255.NewScalar()

// toScalar is the value of a scalar of this package (scalar.go) as
// ristretto255's, a copy: kyber reuses its scratch scalars, and a deferred
// product keeps its scalar until the sum is read.
func toScalar(s kyber.Scalar) *r255.Scalar { return new(r255.Scalar).Set(&ourScalar(s).s) }

// kyberCurve is kyber's edwards25519, for its hashes and XOF (and the value
// of L its scalars report).
var kyberCurve = edwards25519.NewBlakeSHA256Ed25519()

// group is the suite this package computes in: kyber's edwards25519 suite
// (hashes, XOF, the random stream) with this package's points and scalars.
// Its Read builds points of this package where a message holds none yet
// (kyber's own Read would build kyber's).
type group struct{ *edwards25519.SuiteEd25519 }

func (group) Point() kyber.Point { return newPoint() }

// Scalar is this package's scalar (scalar.go), not kyber's edwards25519
// one: the same field, faster arithmetic.
func (group) Scalar() kyber.Scalar { return newScalar() }

func (g group) Read(r io.Reader, objs ...any) error { return fixbuf.Read(r, g, objs...) }

func (g group) Write(w io.Writer, objs ...any) error { return fixbuf.Write(w, objs...) }

var scalarType = reflect.TypeFor[kyber.Scalar]()

// New is the constructor of kyber's reflective encoding.
func (g group) New(t reflect.Type) any {
	switch t {
	case scalarType:
		return g.Scalar()
	case pointType:
		return g.Point()
	}
	return nil
}
