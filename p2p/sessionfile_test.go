package p2p

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestFindSessionHostileFiles: a FIFO or a huge file named session.json
// under the home neither hangs nor exhausts `resume`; the good session
// is still found.
func TestFindSessionHostileFiles(t *testing.T) {
	t.Parallel()
	home := t.TempDir()
	mk := func(name string) string {
		d := filepath.Join(home, "sessions", name)
		os.MkdirAll(d, 0o700)
		return filepath.Join(d, "session.json")
	}
	if err := syscall.Mkfifo(mk("aa"), 0o600); err != nil {
		t.Fatal(err)
	}
	huge := mk("bb")
	f, _ := os.Create(huge)
	f.WriteString(`{"lobby":"bb`)
	f.Truncate(64 << 20)
	f.Close()
	os.WriteFile(mk("cc"), []byte(`{"lobby":"cc0011","game":"dragonslair"}`), 0o600)
	done := make(chan struct{})
	var dir string
	var meta SessionMeta
	var err error
	go func() {
		dir, meta, err = FindSession(home, "")
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("FindSession hung on a FIFO")
	}
	if err != nil || meta.Lobby != "cc0011" || filepath.Base(dir) != "cc" {
		t.Fatalf("found %q %+v, %v", dir, meta, err)
	}
}
