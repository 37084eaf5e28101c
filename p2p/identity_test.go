package p2p

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	p2pcrypto "github.com/libp2p/go-libp2p/core/crypto"
)

func TestIdentityCreatedOnceThenReused(t *testing.T) {
	t.Parallel()
	home := filepath.Join(t.TempDir(), "home")
	if _, err := LoadIdentity(home); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("LoadIdentity on an empty home: %v", err)
	}
	a, err := LoadOrCreateIdentity(home)
	if err != nil {
		t.Fatal(err)
	}
	if !a.Created {
		t.Fatal("first call did not say it created a key")
	}
	st, err := os.Stat(a.Path)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("key file mode %v, err %v; want 0600", st.Mode(), err)
	}
	b, err := LoadOrCreateIdentity(home)
	if err != nil {
		t.Fatal(err)
	}
	if b.Created || b.ID != a.ID {
		t.Fatalf("second call: created=%v id %s, want the same id %s", b.Created, b.ID, a.ID)
	}
	os.WriteFile(a.Path, []byte("garbage"), 0o600)
	if _, err := LoadOrCreateIdentity(home); err == nil {
		t.Fatal("a corrupt key file was accepted")
	}
}

// TestIdentityFileHostile: an identity file that is huge, a FIFO, or a
// key of another type is refused with a message, without hanging or
// reading it all.
func TestIdentityFileHostile(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	path := filepath.Join(home, IdentityFile)
	os.WriteFile(path, make([]byte, 10<<20), 0o600)
	if _, err := LoadIdentity(home); err == nil || !strings.Contains(err.Error(), "larger than 4 KiB") {
		t.Fatalf("10 MiB identity: %v", err)
	}
	os.Remove(path)
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadIdentity(home); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Fatalf("FIFO identity: %v", err)
	}
	if _, err := LoadOrCreateIdentity(home); err == nil {
		t.Fatal("LoadOrCreateIdentity replaced or accepted a FIFO")
	}
	os.Remove(path)
	priv, _, _ := p2pcrypto.GenerateSecp256k1Key(strings.NewReader(strings.Repeat("k", 64)))
	b, _ := p2pcrypto.MarshalPrivateKey(priv)
	os.WriteFile(path, b, 0o600)
	if _, err := LoadIdentity(home); err == nil || !strings.Contains(err.Error(), "want ed25519") {
		t.Fatalf("secp256k1 identity: %v", err)
	}
}

// FuzzDecodeIdentity: no bytes make the identity decoder panic, and what
// it accepts is an ed25519 key whose file encoding decodes to the same id.
func FuzzDecodeIdentity(f *testing.F) {
	key, _, _ := p2pcrypto.GenerateEd25519Key(strings.NewReader(strings.Repeat("s", 64)))
	good, _ := p2pcrypto.MarshalPrivateKey(key)
	f.Add(good)
	f.Add(good[:len(good)-1])
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		id, err := DecodeIdentity(b, "identity.key")
		if err != nil {
			return
		}
		if id.Key.Type() != p2pcrypto.Ed25519 {
			t.Fatalf("accepted a %s key", id.Key.Type())
		}
		re, err := p2pcrypto.MarshalPrivateKey(id.Key)
		if err != nil {
			t.Fatal(err)
		}
		again, err := DecodeIdentity(re, "identity.key")
		if err != nil || again.ID != id.ID {
			t.Fatalf("re-encoded identity: %v", err)
		}
		if _, err := SigningIdentity(id.Key); err != nil {
			t.Fatalf("accepted key cannot sign: %v", err)
		}
	})
}
