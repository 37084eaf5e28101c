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

	r255 "github.com/gtank/ristretto255"
	"go.dedis.ch/fixbuf"
	"go.dedis.ch/kyber/v4"
	"go.dedis.ch/kyber/v4/group/edwards25519"
)

// PointLen and ScalarLen are the sizes of the two wire elements: a point
// is the 32-byte ristretto255 encoding (RFC 9496, section 4.3.2), a scalar
// the 32-byte little-endian integer below the group order L.
const (
	PointLen  = 32
	ScalarLen = 32
)

// Errors a caller may test for. Every error this package returns wraps one
// of them, with the detail (which card, which seat) in the message.
var (
	// ErrMalformed: bytes that are not a canonical encoding of the
	// expected value (wrong length, a string that is no ristretto255
	// encoding, a scalar not below L, the identity where none may be).
	ErrMalformed = errors.New("mentalpoker: malformed encoding")
	// ErrInvalidProof: a well-formed proof that does not prove its
	// statement in its context.
	ErrInvalidProof = errors.New("mentalpoker: invalid proof")
	// ErrBadInput: the caller passed something that cannot be used
	// (a seat out of range, a deck too small or too large, a missing share).
	ErrBadInput = errors.New("mentalpoker: bad input")
)

// base is the group: kyber's edwards25519 suite (its hashes and XOF,
// which kyber's Neff shuffle proof and proof framework need) with the
// ristretto255 points of point.go and the scalars modulo the same prime
// order L of scalar.go.
var base = group{edwards25519.NewBlakeSHA256Ed25519()}

// vartime marks p as public, so that kyber may multiply it with the faster
// variable-time ladder. Only ever called on points built from public data.
func vartime(p kyber.Point) kyber.Point {
	if v, ok := p.(interface{ AllowVarTime(bool) }); ok {
		v.AllowVarTime(true)
	}
	return p
}

// identityBytes is the encoding of the identity (32 zero bytes).
var identityBytes = pointBytes(base.Point().Null())

// isIdentity is ristretto255's equality with the identity (four field
// multiplications, no encoding).
func isIdentity(p kyber.Point) bool { return our(p).p.Equal(rIdentity) == 1 }

var rIdentity = r255.NewIdentityElement()

// decodePoint is the one strict point decoder: exactly 32 bytes, a valid
// ristretto255 encoding, which is the element's one encoding (RFC 9496,
// section 4.3.1: a non-canonical field element, a negative s, or a string
// that encodes no element is refused). Every element of ristretto255 lies
// in its group of prime order L, so no torsion tag can ride along
// (pitfall 2 of the issue) and no subgroup check is needed.
func decodePoint(b []byte, allowIdentity bool) (kyber.Point, error) {
	if len(b) != PointLen {
		return nil, fmt.Errorf("%w: a point is %d bytes, not %d", ErrMalformed, PointLen, len(b))
	}
	p := newPoint()
	if err := decodeCanonical(p, b); err != nil {
		return nil, err
	}
	if !allowIdentity && bytes.Equal(b, identityBytes) {
		return nil, fmt.Errorf("%w: the identity point is not allowed here", ErrMalformed)
	}
	return p, nil
}

// decodeCanonical sets p to the element b (32 bytes) encodes, if b is a
// valid (so canonical) ristretto255 encoding.
func decodeCanonical(p *point, b []byte) error {
	if err := p.UnmarshalBinary(b); err != nil {
		return fmt.Errorf("%w: not a canonical ristretto255 encoding", ErrMalformed)
	}
	return nil
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
func proverSuite(s cipher.Stream) group {
	return group{edwards25519.NewBlakeSHA256Ed25519WithRand(s)}
}

// strictSuite is the suite handed to kyber's proof framework when we
// verify. It decodes proof elements strictly: ristretto255 encodings
// (point.UnmarshalBinary) and scalars below L (kyber's own scalar decoder
// reduces larger ones, which would make proofs malleable), and refuses
// the identity. Its points are marked variable-time (everything a verifier
// touches is public).
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
// re-encoded and compared byte for byte (canonical scalars; a decoded
// point keeps its encoding, so the comparison costs it nothing), and no
// point found may be the identity.
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
			return fmt.Errorf("%w: the identity point in a proof", ErrMalformed)
		}
	}
	return nil
}

var pointType = reflect.TypeFor[kyber.Point]()

// allPointsOK walks a decoded proof message (kyber's messages are structs
// of points, scalars and slices of them) and checks every point: not the
// identity (each is an element of the prime-order group by its decoding).
// An honest prover's proof points are random multiples of G or of
// statement points, so the identity
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
		return !isIdentity(p)
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
	t.b = append(t.b, "boardmesh/mentalpoker/v2\x00"...)
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
