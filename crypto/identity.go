package crypto

import (
	"crypto/ed25519"
	"errors"
	"fmt"
	"io"

	lcrypto "github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/peer"
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

// Identity is a peer's signing key together with its peer ID.
type Identity struct {
	priv lcrypto.PrivKey
	key  ed25519.PrivateKey
	id   peer.ID
}

// GenerateIdentity makes a new ed25519 identity from the random bytes of r
// (crypto/rand.Reader in production, a seeded reader in tests).
func GenerateIdentity(r io.Reader) (*Identity, error) {
	priv, _, err := lcrypto.GenerateEd25519Key(r)
	if err != nil {
		return nil, fmt.Errorf("crypto: generate key: %w", err)
	}
	return NewIdentity(priv)
}

// NewIdentity wraps an existing libp2p private key, which must be ed25519
// (the host key of the p2p layer, loaded from disk).
func NewIdentity(priv lcrypto.PrivKey) (*Identity, error) {
	if priv == nil || priv.Type() != lcrypto.Ed25519 {
		return nil, errors.New("crypto: identity key must be ed25519")
	}
	raw, err := priv.Raw()
	if err != nil || len(raw) != ed25519.PrivateKeySize {
		return nil, fmt.Errorf("crypto: bad ed25519 key: %v", err)
	}
	id, err := peer.IDFromPrivateKey(priv)
	if err != nil {
		return nil, fmt.Errorf("crypto: peer id: %w", err)
	}
	if len(id) != IDLen || [6]byte([]byte(id)[:6]) != idPrefix {
		return nil, ErrBadAuthor
	}
	return &Identity{priv: priv, key: ed25519.PrivateKey(raw), id: id}, nil
}

// ID is the peer ID; it embeds the public key.
func (i *Identity) ID() peer.ID { return i.id }

// PrivKey is the libp2p private key, for the p2p host.
func (i *Identity) PrivKey() lcrypto.PrivKey { return i.priv }

// PublicKey returns the raw 32-byte ed25519 public key inside an ed25519
// peer ID, without allocating.
func PublicKey(id peer.ID) (ed25519.PublicKey, error) {
	if len(id) != IDLen || id[:len(idPrefix)] != peer.ID(idPrefix[:]) {
		return nil, ErrBadAuthor
	}
	return ed25519.PublicKey(id[len(idPrefix):]), nil
}

// IDFromPublicKey is the peer ID of a raw ed25519 public key.
func IDFromPublicKey(pub ed25519.PublicKey) (peer.ID, error) {
	if len(pub) != ed25519.PublicKeySize {
		return "", ErrBadAuthor
	}
	return peer.ID(append(idPrefix[:len(idPrefix):len(idPrefix)], pub...)), nil
}
