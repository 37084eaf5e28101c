package mentalpoker

import (
	"bytes"
	"crypto/cipher"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"reflect"

	fe "filippo.io/edwards25519"
	"filippo.io/edwards25519/field"
	"go.dedis.ch/fixbuf"
	"go.dedis.ch/kyber/v4"
	"go.dedis.ch/kyber/v4/group/edwards25519"
)

// PointLen and ScalarLen are the sizes of the two wire elements: a point
// is the 32-byte compressed Edwards encoding (RFC 8032, section 5.1.2), a
// scalar the 32-byte little-endian integer below the group order L.
const (
	PointLen  = 32
	ScalarLen = 32
)

// Errors a caller may test for. Every error this package returns wraps one
// of them, with the detail (which card, which seat) in the message.
var (
	// ErrMalformed: bytes that are not a canonical encoding of the
	// expected value (wrong length, non-canonical point or scalar, a point
	// outside the prime-order subgroup, the identity where none may be).
	ErrMalformed = errors.New("mentalpoker: malformed encoding")
	// ErrInvalidProof: a well-formed proof that does not prove its
	// statement in its context.
	ErrInvalidProof = errors.New("mentalpoker: invalid proof")
	// ErrBadInput: the caller passed something that cannot be used
	// (a seat out of range, a deck too small or too large, a missing share).
	ErrBadInput = errors.New("mentalpoker: bad input")
)

// base is the group: edwards25519 as kyber's suite (the only group in
// which kyber's Neff shuffle proof and our ciphertexts can live together),
// with the points of point.go (filippo.io/edwards25519's arithmetic).
var base = group{edwards25519.NewBlakeSHA256Ed25519()}

// orderMinusOne is L-1, the scalar -1: P is in the prime-order subgroup
// exactly when (L-1)·P = -P, since the cofactor 8 is prime to L.
var orderMinusOne = base.Scalar().Neg(base.Scalar().One())

// vartime marks p as public, so that kyber may multiply it with the faster
// variable-time ladder. Only ever called on points built from public data.
func vartime(p kyber.Point) kyber.Point {
	if v, ok := p.(interface{ AllowVarTime(bool) }); ok {
		v.AllowVarTime(true)
	}
	return p
}

// identityBytes is the encoding of the identity, (0, 1).
var identityBytes = pointBytes(base.Point().Null())

// inPrimeOrderSubgroup reports whether p has no small-order component.
func inPrimeOrderSubgroup(p kyber.Point) bool { return torsionFree(&our(p).p) }

// fOrderMinusOne is L-1 as filippo.io/edwards25519 holds scalars.
var fOrderMinusOne = func() *fe.Scalar {
	s, err := new(fe.Scalar).SetCanonicalBytes(scalarBytes(orderMinusOne))
	if err != nil {
		panic("mentalpoker: L-1 is not a canonical scalar: " + err.Error())
	}
	return s
}()

var fZero = fe.NewScalar()

// torsionFree reports whether p has no small-order component: (L-1)·P + P
// is the identity, since the cofactor 8 is prime to L. In variable time,
// as every point checked here is public (each of a shuffle proof's 9n+3
// points and the 2n of the deck is checked: about half of the proof's
// verification).
func torsionFree(p *fe.Point) bool {
	q := new(fe.Point).VarTimeDoubleScalarBaseMult(fOrderMinusOne, p, fZero)
	return q.Add(q, p).Equal(fe.NewIdentityPoint()) == 1
}

// isIdentity compares encodings: one field inversion, where kyber's Equal
// takes two.
func isIdentity(p kyber.Point) bool { return bytes.Equal(pointBytes(p), identityBytes) }

// decodePoint is the one strict point decoder: exactly 32 bytes, the
// canonical encoding of a curve point (re-encoding gives the same bytes, so
// neither a y ≥ p nor a "negative zero" x passes), in the prime-order
// subgroup (so no torsion tag can ride along: pitfall 2 of the issue).
func decodePoint(b []byte, allowIdentity bool) (kyber.Point, error) {
	if len(b) != PointLen {
		return nil, fmt.Errorf("%w: a point is %d bytes, not %d", ErrMalformed, PointLen, len(b))
	}
	p := newPoint()
	if err := decodeCanonical(p, b); err != nil {
		return nil, err
	}
	if !torsionFree(&p.p) {
		return nil, fmt.Errorf("%w: point outside the prime-order subgroup", ErrMalformed)
	}
	if !allowIdentity && bytes.Equal(b, identityBytes) {
		return nil, fmt.Errorf("%w: the identity point is not allowed here", ErrMalformed)
	}
	return p, nil
}

// decodeCanonical sets p to the curve point b encodes, if b (32 bytes) is
// its canonical encoding; it does not check the subgroup (decodePoint does).
func decodeCanonical(p *point, b []byte) error {
	if err := p.UnmarshalBinary(b); err != nil {
		return fmt.Errorf("%w: not a curve point", ErrMalformed)
	}
	// b is canonical when it is what the point encodes to. Then b is the
	// point's one encoding, so the identity is identityBytes.
	if !bytes.Equal(p.bytes(), b) {
		return fmt.Errorf("%w: non-canonical point encoding", ErrMalformed)
	}
	return nil
}

// canonicalEncoding reports whether b, which p.SetBytes accepted as the
// point p, is p's one encoding, as RFC 8032 (section 5.1.3) decodes
// strictly: y below the field prime 2^255 − 19, and no sign bit on x = 0.
// filippo.io/edwards25519 accepts both (its SetBytes follows the lenient
// decoders of the ecosystem); these two tests are the only ways an
// accepted encoding can differ from the re-encoding (TestCanonicalEncoding
// checks them against it). point.UnmarshalBinary uses it to keep b as the
// encoding, so that the strict decoders' comparison with the re-encoding
// costs no field inversion when b is canonical; when it is not, the
// encoding is computed and the comparison refuses b.
func canonicalEncoding(b []byte, p *fe.Point) bool {
	// y ≥ 2^255 − 19: bytes 1…30 all 0xff, byte 31 without its sign bit
	// 0x7f, byte 0 at least 0xed (little-endian).
	if b[31]&0x7f == 0x7f && b[0] >= 0xed {
		high := true
		for _, c := range b[1:31] {
			high = high && c == 0xff
		}
		if high {
			return false
		}
	}
	if b[31]&0x80 != 0 {
		// SetBytes leaves Z = 1, so x = 0 exactly when X is.
		x, _, _, _ := p.ExtendedCoordinates()
		if x.Equal(new(field.Element)) == 1 {
			return false
		}
	}
	return true
}

// decodeScalar is the one strict scalar decoder: 32 bytes, below L.
func decodeScalar(b []byte) (kyber.Scalar, error) {
	if len(b) != ScalarLen {
		return nil, fmt.Errorf("%w: a scalar is %d bytes, not %d", ErrMalformed, ScalarLen, len(b))
	}
	s := base.Scalar()
	if err := s.UnmarshalBinary(b); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	if enc, _ := s.MarshalBinary(); !bytes.Equal(enc, b) {
		return nil, fmt.Errorf("%w: non-canonical scalar (not below the group order)", ErrMalformed)
	}
	return s, nil
}

func pointBytes(p kyber.Point) []byte {
	b, _ := p.MarshalBinary() // edwards25519 never fails to encode
	return b
}

func scalarBytes(s kyber.Scalar) []byte {
	b, _ := s.MarshalBinary()
	return b
}

// stream turns the caller's io.Reader into the cipher.Stream kyber draws
// its randomness from (scalar picks and the provers' private nonces), so
// that a seeded reader makes every output reproducible. A read error is
// kept and reported by the caller after the computation (kyber's
// interfaces have no way to return it); the output is then discarded.
type stream struct {
	r   io.Reader
	err error
}

func (s *stream) XORKeyStream(dst, src []byte) {
	buf := make([]byte, len(src))
	if s.err == nil {
		_, s.err = io.ReadFull(s.r, buf)
	}
	for i := range src {
		dst[i] = src[i] ^ buf[i]
	}
}

func (s *stream) check() error {
	if s.err != nil {
		return fmt.Errorf("mentalpoker: reading randomness: %w", s.err)
	}
	return nil
}

func randomScalar(s *stream) kyber.Scalar { return base.Scalar().Pick(s) }

// proverSuite is the suite handed to kyber's proof framework when we prove:
// its RandomStream is the caller's reader, so proofs are reproducible.
func proverSuite(s *stream) group {
	return group{edwards25519.NewBlakeSHA256Ed25519WithRand(s)}
}

// strictSuite is the suite handed to kyber's proof framework when we
// verify. It decodes proof elements strictly: kyber's own decoder accepts
// points with a torsion component and scalars at or above L, which would
// make proofs malleable. Its points are marked variable-time (everything a
// verifier touches is public): a 120-card shuffle check took 186 ms of
// CPU instead of 261 ms; with the subgroup checks in filippo's arithmetic
// (torsionFree) it takes 147 ms instead of 196 ms (a loaded machine).
type strictSuite struct{ group }

var verifierSuite = strictSuite{base}

func (s strictSuite) Point() kyber.Point { return vartime(s.group.Point()) }

// New builds the points a proof message holds as Point does: public.
func (s strictSuite) New(t reflect.Type) any {
	if t == pointType {
		return s.Point()
	}
	return s.group.New(t)
}

// Read decodes objs from r. The challenge stream (an XOF, which is a
// cipher.Stream) passes straight through; proof bytes are decoded, then
// re-encoded and compared byte for byte (canonical points and scalars),
// and every point found is checked to lie in the prime-order subgroup.
func (s strictSuite) Read(r io.Reader, objs ...any) error {
	if _, ok := r.(cipher.Stream); ok {
		return fixbuf.Read(r, s, objs...)
	}
	var seen bytes.Buffer
	if err := fixbuf.Read(io.TeeReader(r, &seen), s, objs...); err != nil {
		return fmt.Errorf("%w: truncated or undecodable proof", ErrMalformed)
	}
	var again bytes.Buffer
	if err := s.group.Write(&again, objs...); err != nil || !bytes.Equal(again.Bytes(), seen.Bytes()) {
		return fmt.Errorf("%w: non-canonical element in a proof", ErrMalformed)
	}
	for _, o := range objs {
		if !allPointsOK(reflect.ValueOf(o)) {
			return fmt.Errorf("%w: proof point outside the prime-order subgroup, or the identity", ErrMalformed)
		}
	}
	return nil
}

var pointType = reflect.TypeFor[kyber.Point]()

// allPointsOK walks a decoded proof message (kyber's messages are structs
// of points, scalars and slices of them) and checks every point: in the
// prime-order subgroup and not the identity. An honest prover's proof
// points are random multiples of G or of statement points, so the identity
// occurs with probability about n/2^252; refusing it closes degenerate
// cases such as a shuffle proof with Γ = γ·G for γ = 0.
func allPointsOK(v reflect.Value) bool {
	if !v.IsValid() {
		return true
	}
	if v.Type().Implements(pointType) && v.Kind() != reflect.Interface {
		if v.Kind() == reflect.Pointer && v.IsNil() {
			return true
		}
		if !v.CanInterface() { // an unexported field: fail closed
			return false
		}
		p, ok := v.Interface().(*point)
		if !ok {
			return false // not this package's point: fail closed
		}
		return torsionFree(&p.p) && p.p.Equal(fe.NewIdentityPoint()) == 0
	}
	switch v.Kind() {
	case reflect.Interface, reflect.Pointer:
		if v.IsNil() {
			return true
		}
		return allPointsOK(v.Elem())
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if !allPointsOK(v.Field(i)) {
				return false
			}
		}
	case reflect.Slice, reflect.Array:
		for i := 0; i < v.Len(); i++ {
			if !allPointsOK(v.Index(i)) {
				return false
			}
		}
	}
	return true
}

// Context says where a proof is used. Every proof's Fiat–Shamir challenge
// hashes it, so a proof made for one place verifies nowhere else: not in
// another session, not at another seq or slot, not under another kind.
type Context struct {
	// Session is the session id (the hash of the roster).
	Session [32]byte
	// Seq is the envelope's sequence number (or any per-session counter
	// the caller keeps unique for the proof's slot).
	Seq uint64
	// Slot tells apart several proofs under one Seq, e.g. the card handle.
	Slot uint32
	// Kind names the step ("setup", "draw", "reveal", …); at most 255 bytes.
	Kind string
}

// transcript builds the bytes that seed a proof's Fiat–Shamir hash:
// a domain tag per proof type, the context, the prover's seat and every
// element of the statement, each length-prefixed or fixed-size so that no
// two different statements share one transcript. Its SHA-256 is handed to
// kyber's HashProve/HashVerify as the "protocol name", which kyber writes
// into the challenge XOF before any commitment (pitfalls 1 and 3).
type transcript struct{ b []byte }

func newTranscript(domain string, ctx Context, seat int) (*transcript, error) {
	if len(ctx.Kind) > 255 {
		return nil, fmt.Errorf("%w: context kind longer than 255 bytes", ErrBadInput)
	}
	t := &transcript{}
	t.b = append(t.b, "boardmesh/mentalpoker/v1\x00"...)
	t.b = append(t.b, byte(len(domain)))
	t.b = append(t.b, domain...)
	t.b = append(t.b, ctx.Session[:]...)
	t.b = binary.BigEndian.AppendUint64(t.b, ctx.Seq)
	t.b = binary.BigEndian.AppendUint32(t.b, ctx.Slot)
	t.b = append(t.b, byte(len(ctx.Kind)))
	t.b = append(t.b, ctx.Kind...)
	t.b = binary.BigEndian.AppendUint32(t.b, uint32(seat))
	return t, nil
}

func (t *transcript) points(ps ...kyber.Point) *transcript {
	for _, p := range ps {
		t.b = append(t.b, pointBytes(p)...)
	}
	return t
}

func (t *transcript) count(n int) *transcript {
	t.b = binary.BigEndian.AppendUint32(t.b, uint32(n))
	return t
}

// name is what kyber calls the protocol name: the transcript's hash.
func (t *transcript) name() string {
	h := sha256.Sum256(t.b)
	return string(h[:])
}

// proofErr words a failed kyber verification: a proof that did not decode
// strictly is malformed, one that decoded but does not check is invalid.
func proofErr(err error, format string, args ...any) error {
	what := fmt.Sprintf(format, args...)
	if errors.Is(err, ErrMalformed) {
		return fmt.Errorf("%s: %w", what, err)
	}
	return fmt.Errorf("%w: %s: %v", ErrInvalidProof, what, err)
}
