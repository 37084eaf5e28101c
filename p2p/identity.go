package p2p

import (
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/boardmesh/boardmesh/crypto"
	"github.com/boardmesh/boardmesh/p2p/fileio"
	p2pcrypto "github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/peer"
)

// IdentityFile is the name of the key file under a boardmesh home.
const IdentityFile = "identity.key"

// Identity is this machine's long-lived peer key.
type Identity struct {
	Key  p2pcrypto.PrivKey
	ID   peer.ID
	Path string
	// Created is set when LoadOrCreateIdentity made a new key.
	Created bool
}

// maxIdentityFile bounds an identity file: an ed25519 key file is 68
// bytes, so anything near this is not one.
const maxIdentityFile = 4 << 10

// LoadIdentity reads the key under home; fs.ErrNotExist if there is none.
// The file must be a regular file of at most 4 KiB holding an ed25519
// key; anything else is refused without reading further.
func LoadIdentity(home string) (*Identity, error) {
	return readIdentityFile(filepath.Join(home, IdentityFile))
}

// readIdentityFile reads the identity file at path, bounded, as
// LoadIdentity describes.
func readIdentityFile(path string) (*Identity, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file, so not a boardmesh identity", path)
	}
	b, err := fileio.ReadFile(context.Background(), path, maxIdentityFile)
	if err != nil {
		return nil, err
	}
	return DecodeIdentity(b, path)
}

// DecodeIdentity decodes the bytes of an identity file (a libp2p
// protobuf-encoded private key); path only names it in errors. Only
// ed25519 keys are identities: the envelopes are signed with them.
func DecodeIdentity(b []byte, path string) (*Identity, error) {
	if len(b) > maxIdentityFile {
		return nil, &fileio.TooLargeError{Path: path, Max: maxIdentityFile}
	}
	key, err := p2pcrypto.UnmarshalPrivateKey(b)
	if err != nil {
		return nil, fmt.Errorf("%s is not a boardmesh identity: %w", path, err)
	}
	if key.Type() != p2pcrypto.Ed25519 {
		return nil, fmt.Errorf("%s is not a boardmesh identity: a %s key, want ed25519", path, key.Type())
	}
	// libp2p takes the 64 key bytes as they are; a file whose public half
	// is not the seed's would give a peer id that its signatures do not
	// match. Refuse it here, not at the first signature.
	if _, err := SigningIdentity(key); err != nil {
		return nil, fmt.Errorf("%s is not a boardmesh identity: %w", path, err)
	}
	id, err := peer.IDFromPrivateKey(key)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &Identity{Key: key, ID: id, Path: path}, nil
}

// LoadOrCreateIdentity reads the key under home, or makes an ed25519 key
// and stores it there (mode 0600, in a directory of mode 0700).
func LoadOrCreateIdentity(home string) (*Identity, error) {
	id, err := LoadIdentity(home)
	if err == nil || !errors.Is(err, fs.ErrNotExist) {
		return id, err
	}
	key, _, err := p2pcrypto.GenerateEd25519Key(nil)
	if err != nil {
		return nil, fmt.Errorf("make identity: %w", err)
	}
	b, err := p2pcrypto.MarshalPrivateKey(key)
	if err != nil {
		return nil, fmt.Errorf("make identity: %w", err)
	}
	if err := os.MkdirAll(home, 0o700); err != nil {
		return nil, fmt.Errorf("make identity: %w", err)
	}
	path := filepath.Join(home, IdentityFile)
	// O_EXCL: two commands starting at once must not overwrite each
	// other's new key; the loser reads the winner's.
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return LoadIdentity(home)
	}
	if err != nil {
		return nil, fmt.Errorf("store identity: %w", err)
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		os.Remove(path)
		return nil, fmt.Errorf("store identity: %w", err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return nil, fmt.Errorf("store identity: %w", err)
	}
	if err := f.Close(); err != nil {
		return nil, fmt.Errorf("store identity: %w", err)
	}
	pid, _ := peer.IDFromPrivateKey(key)
	return &Identity{Key: key, ID: pid, Path: path, Created: true}, nil
}

// SigningIdentity turns a libp2p ed25519 host key into the identity that
// signs envelopes. Package crypto holds a plain crypto/ed25519 key and
// knows nothing of libp2p; this is where the two meet. The peer ID is the
// same bytes either way (peer.ID(id.ID()) is the host's peer ID).
func SigningIdentity(key p2pcrypto.PrivKey) (*crypto.Identity, error) {
	if key == nil || key.Type() != p2pcrypto.Ed25519 {
		return nil, errors.New("identity key must be ed25519")
	}
	raw, err := key.Raw()
	if err != nil {
		return nil, fmt.Errorf("identity key: %w", err)
	}
	return crypto.NewIdentity(ed25519.PrivateKey(raw))
}

// HostKey is the libp2p form of a signing identity's key, for the host.
func HostKey(id *crypto.Identity) (p2pcrypto.PrivKey, error) {
	k, err := p2pcrypto.UnmarshalEd25519PrivateKey(id.PrivateKey())
	if err != nil {
		return nil, fmt.Errorf("host key: %w", err)
	}
	return k, nil
}

// A table of 'boardmesh play' keeps no home identity: each of its peers
// has a key of its own for that one table. A secret table's seat can tell
// its own cards afterwards only as that peer (replay --seat rebuilds the
// seat's node from its log, its card key and its identity), so the table
// keeps each peer's key beside its log, privately, as it keeps the card
// key (CardKeyPath).

// LogIdentityPath is the identity file of the peer whose log is at logPath.
func LogIdentityPath(logPath string) string { return logPath + ".identity" }

// WriteLogIdentity stores id at path (mode 0600, durably), in the format
// of a home's identity file.
func WriteLogIdentity(path string, id *crypto.Identity) error {
	key, err := HostKey(id)
	if err != nil {
		return err
	}
	b, err := p2pcrypto.MarshalPrivateKey(key)
	if err != nil {
		return fmt.Errorf("store the peer's identity: %w", err)
	}
	if err := replaceSynced(path, b); err != nil {
		return fmt.Errorf("store the peer's identity: %w", err)
	}
	return nil
}

// LogIdentity finds the identity of the peer that wrote the log at
// logPath: the identity file beside it (a 'play' table's), else the
// identity of the home it lies in (a host's or joiner's session log,
// HOME/sessions/LOBBY/log). fs.ErrNotExist if there is neither.
func LogIdentity(logPath string) (*crypto.Identity, error) {
	id, err := readIdentityFile(LogIdentityPath(logPath))
	if errors.Is(err, fs.ErrNotExist) {
		sessions := filepath.Dir(filepath.Dir(logPath))
		if filepath.Base(sessions) != "sessions" {
			return nil, fs.ErrNotExist
		}
		id, err = LoadIdentity(filepath.Dir(sessions))
	}
	if err != nil {
		return nil, err
	}
	return SigningIdentity(id.Key)
}
