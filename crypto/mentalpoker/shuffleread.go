package mentalpoker

import (
	"crypto/cipher"
	"fmt"
	"io"

	"go.dedis.ch/kyber/v4"
)

// shuffleSuite is the suite pairVerify hands to kyber's HashVerify: the
// shuffle proof's own messages (the mirrors of shuffleverify.go) are read
// directly, element by element in kyber's field order, with the strict
// decoders of pinnedSuite (ristretto255 encodings, scalars below L, no
// identity); anything else goes to strictSuite. The bytes read and the
// outcome are strictSuite's, without its reflective walk, its re-encoding
// of the whole message for the canonical comparison (a decoded point is
// its one encoding, and decodeScalar compares each scalar itself) and its
// reflective identity scan: those were about a fifth of a shuffle check.
type shuffleSuite struct{ strictSuite }

var shuffleVerifierSuite = shuffleSuite{verifierSuite}

func (s shuffleSuite) Read(r io.Reader, objs ...any) error {
	if _, ok := r.(cipher.Stream); ok || len(objs) != 1 {
		return s.strictSuite.Read(r, objs...)
	}
	switch m := objs[0].(type) {
	case *pairMsg1: // Γ, A, C, U, W, Λ1, Λ2
		one := make([]kyber.Point, 3)
		for _, ps := range [][]kyber.Point{one[:1], m.A, m.C, m.U, m.W, one[1:]} {
			if err := readPoints(r, ps); err != nil {
				return err
			}
		}
		m.Gamma, m.Lambda1, m.Lambda2 = one[0], one[1], one[2]
		return nil
	case *pairMsg3:
		return readPoints(r, m.D)
	case *pairMsg5:
		if err := readScalars(r, m.Zsigma); err != nil {
			return err
		}
		one := []kyber.Scalar{nil}
		if err := readScalars(r, one); err != nil {
			return err
		}
		m.Ztau = one[0]
		return nil
	case *simpleMsg0:
		if err := readPoints(r, m.X); err != nil {
			return err
		}
		return readPoints(r, m.Y)
	case *simpleMsg2:
		return readPoints(r, m.Theta)
	case *simpleMsg4:
		return readScalars(r, m.Zalpha)
	}
	return s.strictSuite.Read(r, objs...)
}

// readPoints fills ps (its length fixed by the deck) with strictly decoded
// public points.
func readPoints(r io.Reader, ps []kyber.Point) error {
	for i := range ps {
		p := newPoint()
		p.varTime = true
		if err := readProofPoint(r, p); err != nil {
			return err
		}
		ps[i] = p
	}
	return nil
}

func readScalars(r io.Reader, ss []kyber.Scalar) error {
	for i := range ss {
		sc, err := readProofScalar(r)
		if err != nil {
			return err
		}
		ss[i] = sc
	}
	return nil
}

// readProofPoint reads one proof point into p: 32 bytes, a valid (so
// canonical) ristretto255 encoding, not the identity.
func readProofPoint(r io.Reader, p *point) error {
	var b [PointLen]byte
	if _, err := io.ReadFull(r, b[:]); err != nil {
		return fmt.Errorf("%w: truncated proof", ErrMalformed)
	}
	if err := decodeCanonical(p, b[:]); err != nil {
		return err
	}
	if b == [PointLen]byte(identityBytes) {
		return fmt.Errorf("%w: the identity point in a proof", ErrMalformed)
	}
	return nil
}

// readProofScalar reads one proof scalar: 32 bytes, below L.
func readProofScalar(r io.Reader) (kyber.Scalar, error) {
	var b [ScalarLen]byte
	if _, err := io.ReadFull(r, b[:]); err != nil {
		return nil, fmt.Errorf("%w: truncated proof", ErrMalformed)
	}
	sc, err := decodeScalar(b[:])
	if err != nil {
		return nil, fmt.Errorf("%w: non-canonical element in a proof", ErrMalformed)
	}
	return sc, nil
}
