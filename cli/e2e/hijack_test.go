package e2e

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/boardmesh/boardmesh/crypto"
	"github.com/boardmesh/boardmesh/p2p/hostile"
)

// TestLobbyHijack: an outsider fills a `boardmesh host --start-when 3`
// lobby with fake joiners before the real players come, and sends two
// different joins under one of its keys. The host must seat only joiners
// that answered its challenge: the real players play the game to the end
// with identical logs, no fake is in the roster, and nobody crashes.
func TestLobbyHijack(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	tmp := t.TempDir()
	common := []string{"--loopback", "--json", "--bot-delay", "10ms"}
	host := start(t, ctx, "ada", append([]string{"host", "dragonslair", "--home", filepath.Join(tmp, "ada"), "--name", "ada", "--bot", "cautious", "--start-when", "3"}, common...)...)
	lobby := host.waitEvent(t, "lobby", 20*time.Second)
	addr := lobby["addrs"].([]any)[0].(string)
	var lobbyID crypto.Hash
	if b, err := hex.DecodeString(lobby["lobby"].(string)); err != nil || len(b) != len(lobbyID) {
		t.Fatalf("lobby id %v: %v", lobby["lobby"], err)
	} else {
		copy(lobbyID[:], b)
	}
	bad := hostileAt(t, ctx, lobbyID, addr)
	var fakes []string
	var fakeIDs []crypto.PeerID
	for i := range 3 {
		id, err := crypto.GenerateIdentity(rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		fakeIDs = append(fakeIDs, id.ID())
		name := fmt.Sprintf("fake%d", i+1)
		fakes = append(fakes, name)
		var c1, c2 crypto.Hash
		rand.Read(c1[:])
		rand.Read(c2[:])
		if err := bad.Publish(ctx, hostile.Join(id, lobbyID, name, c1)); err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			// Two different joins for one slot.
			if err := bad.Publish(ctx, hostile.Join(id, lobbyID, name, c2)); err != nil {
				t.Fatal(err)
			}
		}
	}
	time.Sleep(500 * time.Millisecond) // let the fakes land first
	bob := start(t, ctx, "bob", append([]string{"join", addr, "--home", filepath.Join(tmp, "bob"), "--name", "bob", "--bot", "random"}, common...)...)
	cy := start(t, ctx, "cy", append([]string{"join", addr, "--home", filepath.Join(tmp, "cy"), "--name", "cy", "--bot", "bold"}, common...)...)
	dumpOnFailure(t, host, bob, cy)
	roster := host.waitEvent(t, "roster", 60*time.Second)
	for _, f := range fakes {
		if text, _ := roster["text"].(string); strings.Contains(text, f) {
			t.Fatalf("the host seated a fake joiner: %s", text)
		}
	}
	// The fakes did reach the host: it says they did not answer.
	if !host.saw("challenge") {
		t.Fatalf("the host never said a joiner failed its challenge; the attack did not reach it")
	}
	var want map[string]any
	for i, p := range []*proc{host, bob, cy} {
		s := p.waitEvent(t, "summary", 90*time.Second)
		if err := p.wait(t, 20*time.Second); err != nil {
			t.Fatalf("%s exited with %v; stderr %s", p.name, err, p.stderr.String())
		}
		if i == 0 {
			want = s
		} else if s["log_hash"] != want["log_hash"] {
			t.Fatalf("%s ended with log %v, ada with %v", p.name, s["log_hash"], want["log_hash"])
		}
	}
	// Nothing of the fakes is on any disk: not in a log entry, not in a
	// roster the host signed and then had to give up.
	for _, home := range []string{"ada", "bob", "cy"} {
		files, _ := filepath.Glob(filepath.Join(tmp, home, "sessions", "*", "log"))
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			for k, id := range fakeIDs {
				if bytes.Contains(b, []byte(id)) {
					t.Fatalf("%s holds fake%d's peer id", f, k+1)
				}
			}
		}
	}
}
