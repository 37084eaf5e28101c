package crypto

import (
	"crypto/ed25519"
	"errors"
	"fmt"
	"io"

	"github.com/mr-tron/base58"
)

// ErrBadAuthor is returned for an author that is not an ed25519 peer ID.
var ErrBadAuthor = errors.New("crypto: author is not an ed25519 peer ID")

// idPrefix is how every ed25519 peer ID begins: the identity multihash
// (code 0x00, length 0x24 = 36) of the protobuf PublicKey message
// {Type: Ed25519 (field 1 = 1), Data (field 2, 32 bytes)}. The 32 bytes after
// it are the raw public key, so a verifier needs no protobuf or multihash
// library: it checks these six bytes and takes the rest.
var idPrefix = [6]byte{0x00, 0x24, 0x08, 0x01, 0x12, 0x20}

// IDLen is the length in bytes of an ed25519 peer ID.
const IDLen = len(idPrefix) + ed25519.PublicKeySize

// PeerID is a peer's identity on the wire: the 38 bytes of an ed25519
// libp2p peer ID (idPrefix, then the raw public key). It holds exactly the
// bytes of a libp2p peer.ID, so the p2p layer converts between the two
// with a plain type conversion, while lockstep and crypto need no libp2p
// package. The zero value is "no peer".
type PeerID string

// String is the base58btc text of the ID, the same text libp2p shows for
// the peer (12D3KooW…). An empty ID prints as the empty string.
func (p PeerID) String() string { return base58.Encode([]byte(p)) }

// ParsePeerID reads the base58 text of an ed25519 peer ID.
func ParsePeerID(s string) (PeerID, error) {
	b, err := base58.Decode(s)
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrBadAuthor, err)
	}
	id := PeerID(b)
	if _, err := PublicKey(id); err != nil {
		return "", err
	}
	return id, nil
}

// Identity is a peer's ed25519 signing key together with its peer ID.
type Identity struct {
	key ed25519.PrivateKey
	id  PeerID
}

// GenerateIdentity makes a new ed25519 identity from the first 32 bytes
// of r, taken as the key's seed (crypto/rand.Reader in production, a
// seeded reader in tests). The key for a given seed is the one libp2p's
// GenerateEd25519Key makes from the same reader.
func GenerateIdentity(r io.Reader) (*Identity, error) {
	seed := make([]byte, ed25519.SeedSize)
	if _, err := io.ReadFull(r, seed); err != nil {
		return nil, fmt.Errorf("crypto: generate key: %w", err)
	}
	return NewIdentity(ed25519.NewKeyFromSeed(seed))
}

// NewIdentity wraps an existing ed25519 private key (64 bytes: seed, then
// public key, as crypto/ed25519 holds it). The p2p layer converts its
// libp2p host key to this form and back.
func NewIdentity(key ed25519.PrivateKey) (*Identity, error) {
	if len(key) != ed25519.PrivateKeySize {
		return nil, fmt.Errorf("crypto: ed25519 private key of %d bytes, want %d", len(key), ed25519.PrivateKeySize)
	}
	// The public half must be the one the seed gives, or the peer ID would
	// name a key that does not sign.
	full := ed25519.NewKeyFromSeed(key.Seed())
	if string(full) != string(key) {
		return nil, errors.New("crypto: ed25519 private key whose public half does not match its seed")
	}
	id, err := IDFromPublicKey(full.Public().(ed25519.PublicKey))
	if err != nil {
		return nil, err
	}
	return &Identity{key: full, id: id}, nil
}

// ID is the peer ID; it embeds the public key.
func (i *Identity) ID() PeerID { return i.id }

// PrivateKey is the ed25519 private key (a copy), for the p2p layer to
// turn into its host key. Nothing else should need it.
func (i *Identity) PrivateKey() ed25519.PrivateKey {
	return append(ed25519.PrivateKey(nil), i.key...)
}

// PublicKey returns the raw 32-byte ed25519 public key inside an ed25519
// peer ID, without allocating.
func PublicKey(id PeerID) (ed25519.PublicKey, error) {
	if len(id) != IDLen || id[:len(idPrefix)] != PeerID(idPrefix[:]) {
		return nil, ErrBadAuthor
	}
	return ed25519.PublicKey(id[len(idPrefix):]), nil
}

// IDFromPublicKey is the peer ID of a raw ed25519 public key.
func IDFromPublicKey(pub ed25519.PublicKey) (PeerID, error) {
	if len(pub) != ed25519.PublicKeySize {
		return "", ErrBadAuthor
	}
	return PeerID(append(idPrefix[:len(idPrefix):len(idPrefix)], pub...)), nil
}
