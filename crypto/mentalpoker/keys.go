package mentalpoker

import (
	"fmt"
	"io"

	"go.dedis.ch/kyber/v4"
	"go.dedis.ch/kyber/v4/proof"
)

// KeyProofLen is the size of a key's Schnorr proof: commitment, response.
const KeyProofLen = PointLen + ScalarLen

// SecretKey is one seat's share of the joint decryption key. It never
// leaves its owner, except piecewise through escrow.
type SecretKey struct {
	x kyber.Scalar
	// pub is x·G, computed and encoded once (newSecretKey): a share and
	// a key proof name it in their transcripts, so each would otherwise
	// pay a scalar multiplication and an encoding for it.
	pub PublicKey
}

func newSecretKey(x kyber.Scalar) *SecretKey {
	pub := base.Point().Mul(x, nil)
	pointBytes(pub) // caches its encoding
	return &SecretKey{x: x, pub: PublicKey{pub}}
}

// PublicKey is x·G for a seat's secret x; never the identity.
type PublicKey struct{ p kyber.Point }

// GenerateKey draws a fresh secret key from rand.
func GenerateKey(rand io.Reader) (*SecretKey, error) {
	s := &stream{r: rand}
	x := randomScalar(s)
	if err := s.check(); err != nil {
		return nil, err
	}
	if x.Equal(base.Scalar().Zero()) { // probability 2^-252; keeps PublicKey ≠ identity
		return nil, fmt.Errorf("%w: randomness gave the zero key", ErrBadInput)
	}
	return newSecretKey(x), nil
}

// Bytes is the canonical 32-byte scalar encoding (keep it secret).
func (sk *SecretKey) Bytes() []byte { return scalarBytes(sk.x) }

// ParseSecretKey decodes a secret key written by Bytes.
func ParseSecretKey(b []byte) (*SecretKey, error) {
	x, err := decodeScalar(b)
	if err != nil {
		return nil, err
	}
	if x.Equal(base.Scalar().Zero()) {
		return nil, fmt.Errorf("%w: the zero key", ErrMalformed)
	}
	return newSecretKey(x), nil
}

// Public returns x·G (a copy: the caller may not change sk's).
func (sk *SecretKey) Public() PublicKey {
	if sk.pub.p == nil {
		return PublicKey{base.Point().Mul(sk.x, nil)}
	}
	return PublicKey{sk.pub.p.Clone()}
}

// Bytes is the canonical 32-byte point encoding.
func (pk PublicKey) Bytes() []byte { return pointBytes(pk.p) }

// Equal reports whether two keys are the same point.
func (pk PublicKey) Equal(o PublicKey) bool { return pk.p != nil && o.p != nil && pk.p.Equal(o.p) }

// ParsePublicKey strictly decodes a public key: a valid (canonical)
// ristretto255 encoding, not the identity.
func ParsePublicKey(b []byte) (PublicKey, error) {
	p, err := decodePoint(b, false)
	if err != nil {
		return PublicKey{}, fmt.Errorf("public key: %w", err)
	}
	return PublicKey{p}, nil
}

// JointKey is the sum of every seat's public key: the ElGamal key the deck
// is masked under, which only all seats together can remove. Each key must
// have passed VerifyKey (its Schnorr proof stops a seat from choosing its
// key as a function of the others' and so owning the joint key alone).
func JointKey(keys []PublicKey) (PublicKey, error) {
	if len(keys) == 0 {
		return PublicKey{}, fmt.Errorf("%w: no keys", ErrBadInput)
	}
	h := base.Point().Null()
	for i, k := range keys {
		if k.p == nil {
			return PublicKey{}, fmt.Errorf("%w: no key for seat %d", ErrBadInput, i+1)
		}
		h.Add(h, k.p)
	}
	if isIdentity(h) {
		return PublicKey{}, fmt.Errorf("%w: the keys sum to the identity", ErrBadInput)
	}
	return PublicKey{h}, nil
}

var schnorrPred = proof.Rep("X", "x", "G")

func keyTranscript(ctx Context, seat int, pk PublicKey) (string, error) {
	t, err := newTranscript("key", ctx, seat)
	if err != nil {
		return "", err
	}
	return t.points(base.Point().Base(), pk.p).name(), nil
}

// ProveKey makes the Schnorr proof that the owner of seat (0-based) knows
// the secret of its public key, bound to ctx and the seat.
func ProveKey(rand io.Reader, ctx Context, seat int, sk *SecretKey) ([]byte, error) {
	pk := sk.Public()
	name, err := keyTranscript(ctx, seat, pk)
	if err != nil {
		return nil, err
	}
	s := &stream{r: rand}
	prover := schnorrPred.Prover(proverSuite(s), map[string]kyber.Scalar{"x": sk.x},
		map[string]kyber.Point{"X": pk.p, "G": base.Point().Base()}, nil)
	prf, err := proof.HashProve(proverSuite(s), name, prover)
	if err == nil {
		err = s.check()
	}
	if err != nil {
		return nil, err
	}
	return prf, nil
}

// VerifyKey checks a key proof made by ProveKey for this seat and ctx.
func VerifyKey(ctx Context, seat int, pk PublicKey, prf []byte) error {
	if pk.p == nil {
		return fmt.Errorf("%w: no key", ErrBadInput)
	}
	if len(prf) != KeyProofLen {
		return fmt.Errorf("%w: key proof of seat %d is %d bytes, not %d", ErrMalformed, seat+1, len(prf), KeyProofLen)
	}
	name, err := keyTranscript(ctx, seat, pk)
	if err != nil {
		return err
	}
	verifier := schnorrPred.Verifier(verifierSuite, map[string]kyber.Point{"X": pk.p, "G": base.Point().Base()})
	if err := proof.HashVerify(verifierSuite, name, verifier, prf); err != nil {
		return proofErr(err, "seat %d's key proof", seat+1)
	}
	return nil
}
