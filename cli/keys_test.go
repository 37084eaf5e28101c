package cli

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

func TestKeysCreatesThenShowsSameIdentity(t *testing.T) {
	home := filepath.Join(t.TempDir(), "h")
	run := func(args ...string) (string, error) {
		io, _, out, _ := TestIO()
		cmd := newCmdKeys(&Factory{IO: io}, nil)
		cmd.SetArgs(args)
		err := cmd.Execute()
		return out.String(), err
	}
	if _, err := run("--home", home, "--no-create"); err == nil || !strings.Contains(err.Error(), "no identity") {
		t.Fatalf("--no-create on an empty home: %v", err)
	}
	first, err := run("--home", home, "--json")
	if err != nil {
		t.Fatal(err)
	}
	var a, b keysInfo
	if err := json.Unmarshal([]byte(first), &a); err != nil {
		t.Fatal(err)
	}
	if !a.Created || !strings.HasPrefix(a.PeerID, "12D3KooW") || a.Type != "Ed25519" {
		t.Fatalf("first run: %+v", a)
	}
	t.Setenv(HomeEnv, home)
	second, err := run("--json")
	if err != nil {
		t.Fatal(err)
	}
	json.Unmarshal([]byte(second), &b)
	if b.Created || b.PeerID != a.PeerID {
		t.Fatalf("second run via $%s: %+v, want peer %s not created", HomeEnv, b, a.PeerID)
	}
	text, err := run()
	if err != nil || !strings.Contains(text, a.PeerID) {
		t.Fatalf("text output %q, err %v", text, err)
	}
}
