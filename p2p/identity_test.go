package p2p

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
)

func TestIdentityCreatedOnceThenReused(t *testing.T) {
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
