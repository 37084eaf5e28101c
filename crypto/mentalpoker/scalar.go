package mentalpoker

import (
	"crypto/cipher"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"io"
	"math/big"

	r255 "github.com/gtank/ristretto255"
	"go.dedis.ch/kyber/v4"
	"go.dedis.ch/kyber/v4/compatible/compatiblemod"
)

// scalar is a kyber.Scalar of ristretto255's scalar field (integers modulo
// L, github.com/gtank/ristretto255 on filippo.io/edwards25519's fiat-crypto
// arithmetic), standing in for kyber's edwards25519 scalars (the same
// field, in ref10's arithmetic) everywhere the group builds one: kyber's
// shuffle prover divides by a scalar once per card, and kyber's inversion
// (an exponentiation by L−2 in ref10's multiplication) was a third of a
// prepared shuffle proof's CPU.
//
// Every value, encoding and draw is kyber's: 32 little-endian bytes below
// L; Pick draws as kyber's (util/random.Int: 32 bytes of the stream, the
// top three bits cleared, read big-endian, redrawn until below L), so a
// seeded reader gives the same proofs (the golden vectors check it).
// Arithmetic is constant-time (Invert included).
type scalar struct{ s r255.Scalar }

var errNotOurScalar = errors.New("mentalpoker: a scalar of another group implementation")

func newScalar() *scalar { return &scalar{} }

// ourScalar is the scalar type of this package; any other is a bug.
func ourScalar(a kyber.Scalar) *scalar {
	s, ok := a.(*scalar)
	if !ok {
		panic(errNotOurScalar)
	}
	return s
}

func (s *scalar) Equal(a kyber.Scalar) bool { return s.s.Equal(&ourScalar(a).s) == 1 }

func (s *scalar) Set(a kyber.Scalar) kyber.Scalar {
	s.s.Set(&ourScalar(a).s)
	return s
}

func (s *scalar) Clone() kyber.Scalar {
	c := *s
	return &c
}

// SetInt64 sets s to v modulo L.
func (s *scalar) SetInt64(v int64) kyber.Scalar {
	u := uint64(v)
	if v < 0 {
		u = -u
	}
	var b [ScalarLen]byte
	binary.LittleEndian.PutUint64(b[:], u)
	_ = s.s.Decode(b[:]) // below 2^64 < L: canonical
	if v < 0 {
		s.s.Negate(&s.s)
	}
	return s
}

func (s *scalar) Zero() kyber.Scalar {
	s.s = r255.Scalar{}
	return s
}

func (s *scalar) One() kyber.Scalar { return s.SetInt64(1) }

func (s *scalar) Add(a, b kyber.Scalar) kyber.Scalar {
	s.s.Add(&ourScalar(a).s, &ourScalar(b).s)
	return s
}

func (s *scalar) Sub(a, b kyber.Scalar) kyber.Scalar {
	s.s.Subtract(&ourScalar(a).s, &ourScalar(b).s)
	return s
}

func (s *scalar) Neg(a kyber.Scalar) kyber.Scalar {
	s.s.Negate(&ourScalar(a).s)
	return s
}

func (s *scalar) Mul(a, b kyber.Scalar) kyber.Scalar {
	s.s.Multiply(&ourScalar(a).s, &ourScalar(b).s)
	return s
}

// Div sets s to a/b (a·0 for b = 0, as kyber's a·b^(L−2)).
func (s *scalar) Div(a, b kyber.Scalar) kyber.Scalar {
	var inv r255.Scalar
	inv.Invert(&ourScalar(b).s)
	s.s.Multiply(&ourScalar(a).s, &inv)
	return s
}

func (s *scalar) Inv(a kyber.Scalar) kyber.Scalar {
	s.s.Invert(&ourScalar(a).s)
	return s
}

// Pick draws s uniformly below L from rand, reading the stream exactly as
// kyber's edwards25519 scalar does (util/random.Int with L's 253 bits).
func (s *scalar) Pick(rand cipher.Stream) kyber.Scalar {
	var be, le [ScalarLen]byte
	for {
		clear(be[:])
		rand.XORKeyStream(be[:], be[:])
		be[0] &= 0x1f // 253 bits
		for i := range be {
			le[i] = be[ScalarLen-1-i]
		}
		if s.s.Decode(le[:]) == nil { // below L
			return s
		}
	}
}

// SetBytes sets s to b read as a little-endian integer, reduced modulo L.
func (s *scalar) SetBytes(b []byte) kyber.Scalar {
	if len(b) <= 64 {
		var wide [64]byte
		copy(wide[:], b)
		s.s.FromUniformBytes(wide[:])
		return s
	}
	be := make([]byte, len(b))
	for i := range b {
		be[i] = b[len(b)-1-i]
	}
	x := new(big.Int).SetBytes(be)
	x.Mod(x, orderL)
	var wide [64]byte
	x.FillBytes(wide[:32])
	for i := range 16 {
		wide[i], wide[31-i] = wide[31-i], wide[i]
	}
	s.s.FromUniformBytes(wide[:])
	return s
}

var orderL, _ = new(big.Int).SetString("7237005577332262213973186563042994240857116359379907606001950938285454250989", 10)

func (s *scalar) ByteOrder() kyber.ByteOrder { return kyber.LittleEndian }

// GroupOrder is kyber's own value for L.
func (s *scalar) GroupOrder() *compatiblemod.Mod { return kyberOrder }

var kyberOrder = kyberCurve.Scalar().GroupOrder()

func (s *scalar) String() string { return hex.EncodeToString(s.s.Encode(nil)) }

func (s *scalar) MarshalSize() int { return ScalarLen }

func (s *scalar) MarshalBinary() ([]byte, error) { return s.s.Encode(nil), nil }

// MarshalID is kyber's edwards25519 scalar tag.
func (s *scalar) MarshalID() [8]byte { return [8]byte{'e', 'd', '.', 's', 'c', 'a', 'l', 'a'} }

// UnmarshalBinary reads 32 little-endian bytes. As kyber's, it accepts a
// value of L or more, reduced (its encoding is then not the bytes read,
// which is how decodeScalar refuses it).
func (s *scalar) UnmarshalBinary(buf []byte) error {
	if len(buf) != ScalarLen {
		return errors.New("wrong size buffer")
	}
	if s.s.Decode(buf) == nil {
		return nil
	}
	var wide [64]byte
	copy(wide[:], buf)
	s.s.FromUniformBytes(wide[:])
	return nil
}

func (s *scalar) MarshalTo(w io.Writer) (int, error) { return w.Write(s.s.Encode(nil)) }

// UnmarshalFrom reads a scalar, or picks one if r is a cipher.Stream (the
// kyber.Marshaling contract, as kyber's marshalling.ScalarUnmarshalFrom).
func (s *scalar) UnmarshalFrom(r io.Reader) (int, error) {
	if strm, ok := r.(cipher.Stream); ok {
		s.Pick(strm)
		return -1, nil
	}
	buf := make([]byte, ScalarLen)
	n, err := io.ReadFull(r, buf)
	if err != nil {
		return n, err
	}
	return n, s.UnmarshalBinary(buf)
}
