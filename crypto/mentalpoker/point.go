package mentalpoker

import (
	"crypto/cipher"
	"encoding/hex"
	"errors"
	"io"
	"reflect"

	fe "filippo.io/edwards25519"
	"go.dedis.ch/fixbuf"
	"go.dedis.ch/kyber/v4"
	"go.dedis.ch/kyber/v4/group/edwards25519"
)

// point is a kyber.Point of edwards25519 whose arithmetic is
// filippo.io/edwards25519's (the field and group code of Go's
// crypto/ed25519, with assembly on amd64) instead of kyber's ref10 port:
// the same group, the same RFC 8032 encoding, the same results, in about
// a third of the time. kyber's shuffle and proof code runs on it
// unchanged through group (Point, and the reflection constructor its
// encoding uses); scalars stay kyber's.
//
// A multiplication is constant-time unless the point is marked public
// (AllowVarTime, as kyber's own points): the verifiers' points are, the
// provers' (which multiply by secret scalars) are not.
//
// A point keeps its encoding once computed (enc, while encOK): encoding
// takes a field inversion, and every point is encoded at least twice (the
// strict decoder's canonical check, then each proof transcript that
// names it). Every method that changes p clears encOK.
type point struct {
	p       fe.Point
	varTime bool
	enc     [PointLen]byte
	encOK   bool
}

// bytes is the point's encoding (cached; the caller must not modify it).
func (P *point) bytes() []byte {
	if !P.encOK {
		copy(P.enc[:], P.p.Bytes())
		P.encOK = true
	}
	return P.enc[:]
}

var errNotOurPoint = errors.New("mentalpoker: a point of another group implementation")

func newPoint() *point {
	q := &point{}
	q.p.Set(fe.NewIdentityPoint())
	return q
}

// our is the point type of this package; any other kyber.Point is a bug.
func our(p kyber.Point) *point {
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

// UnmarshalBinary decodes a point as kyber's does (any encoding of a curve
// point); decodePoint adds the strict checks.
//
// When b is the point's canonical encoding it is kept as the encoding
// (canonicalEncoding: no field inversion); otherwise the encoding is
// computed when asked for, and differs from b.
func (P *point) UnmarshalBinary(b []byte) error {
	P.encOK = false
	if _, err := P.p.SetBytes(b); err != nil {
		return errors.New("invalid Ed25519 curve point")
	}
	if len(b) == PointLen && canonicalEncoding(b, &P.p) {
		copy(P.enc[:], b)
		P.encOK = true
	}
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

func (P *point) Equal(q kyber.Point) bool { return P.p.Equal(&our(q).p) == 1 }

func (P *point) Null() kyber.Point {
	P.encOK = false
	P.p.Set(fe.NewIdentityPoint())
	return P
}

func (P *point) Base() kyber.Point {
	P.encOK = false
	P.p.Set(fe.NewGeneratorPoint())
	return P
}

// kyberPoint is P as one of kyber's own points, for the few operations
// left to kyber (picking and embedding, whose outputs the golden vectors
// pin).
func (P *point) kyberPoint() kyber.Point {
	k := kyberCurve.Point()
	if err := k.UnmarshalBinary(P.bytes()); err != nil {
		panic(err) // every point of ours encodes a curve point
	}
	return k
}

func (P *point) fromKyber(k kyber.Point) kyber.Point {
	b, _ := k.MarshalBinary()
	if err := P.UnmarshalBinary(b); err != nil {
		panic(err)
	}
	return P
}

func (P *point) Pick(rand cipher.Stream) kyber.Point {
	return P.fromKyber(kyberCurve.Point().Pick(rand))
}

func (P *point) EmbedLen() int { return kyberCurve.Point().EmbedLen() }

func (P *point) Embed(data []byte, rand cipher.Stream) kyber.Point {
	return P.fromKyber(kyberCurve.Point().Embed(data, rand))
}

func (P *point) Data() ([]byte, error) { return P.kyberPoint().Data() }

func (P *point) Set(q kyber.Point) kyber.Point {
	o := our(q)
	P.p.Set(&o.p)
	P.enc, P.encOK = o.enc, o.encOK
	return P
}

// Clone copies the point, not its variable-time mark (as kyber's Clone).
func (P *point) Clone() kyber.Point {
	q := &point{enc: P.enc, encOK: P.encOK}
	q.p.Set(&P.p)
	return q
}

func (P *point) Add(a, b kyber.Point) kyber.Point {
	P.encOK = false
	P.p.Add(&our(a).p, &our(b).p)
	return P
}

func (P *point) Sub(a, b kyber.Point) kyber.Point {
	P.encOK = false
	P.p.Subtract(&our(a).p, &our(b).p)
	return P
}

func (P *point) Neg(a kyber.Point) kyber.Point {
	P.encOK = false
	P.p.Negate(&our(a).p)
	return P
}

// Mul sets P to s·a, or s·G for a nil a (with filippo's precomputed base
// table, constant-time). A public P multiplies in variable time.
func (P *point) Mul(s kyber.Scalar, a kyber.Point) kyber.Point {
	x := toScalar(s)
	P.encOK = false
	switch {
	case a == nil:
		P.p.ScalarBaseMult(x)
	case P.varTime:
		P.p.VarTimeDoubleScalarBaseMult(x, &our(a).p, fZero)
	default:
		P.p.ScalarMult(x, &our(a).p)
	}
	return P
}

// toScalar is kyber's scalar s as filippo's: its 32 little-endian bytes
// reduced modulo L (kyber's edwards25519 scalars are below L already; the
// reduction makes the conversion total).
func toScalar(s kyber.Scalar) *fe.Scalar {
	var wide [64]byte
	b, _ := s.MarshalBinary()
	copy(wide[:], b)
	x, err := new(fe.Scalar).SetUniformBytes(wide[:])
	if err != nil {
		panic(err) // 64 bytes are always accepted
	}
	return x
}

// kyberCurve is kyber's edwards25519, for its scalars (and the few point
// operations point leaves to it).
var kyberCurve = edwards25519.NewBlakeSHA256Ed25519()

// group is the suite this package computes in: kyber's edwards25519 suite
// (scalars, hashes, XOF, the random stream) with this package's points.
// Its Read builds points of this package where a message holds none yet
// (kyber's own Read would build kyber's).
type group struct{ *edwards25519.SuiteEd25519 }

func (group) Point() kyber.Point { return newPoint() }

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
