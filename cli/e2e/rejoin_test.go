package e2e

import (
	"context"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestRejoinUnderAnotherName: an honest user joins a lobby as "bob",
// quits (Ctrl-C) before the game starts, and joins again as "robert" from
// the same home, so with the same key (this used to crash every peer on a
// nil state before the seat draw). A user checks: nobody crashes or is
// called a cheater, the game starts once three are in and ends with the
// same log everywhere.
func TestRejoinUnderAnotherName(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	tmp := t.TempDir()
	common := []string{"--loopback", "--json", "--bot-delay", "10ms"}
	host := start(t, ctx, "ada", append([]string{"host", "dragonslair", "--home", filepath.Join(tmp, "ada"), "--name", "ada", "--bot", "cautious", "--start-when", "3"}, common...)...)
	lobby := host.waitEvent(t, "lobby", 20*time.Second)
	addr := lobby["addrs"].([]any)[0].(string)
	bobHome := filepath.Join(tmp, "bob")
	bob := start(t, ctx, "bob", append([]string{"join", addr, "--home", bobHome, "--name", "bob", "--bot", "random"}, common...)...)
	bob.waitEvent(t, "joined", 20*time.Second)
	// Let bob's join reach the host before he quits.
	deadline := time.Now().Add(20 * time.Second)
	for !host.saw("bob joined") {
		if time.Now().After(deadline) {
			t.Fatalf("the host never saw bob join; stdout %q", host.raw)
		}
		time.Sleep(20 * time.Millisecond)
	}
	bob.cmd.Process.Signal(syscall.SIGINT)
	bob.wait(t, 20*time.Second)
	robert := start(t, ctx, "robert", append([]string{"join", addr, "--home", bobHome, "--name", "robert", "--bot", "random"}, common...)...)
	robert.waitEvent(t, "joined", 20*time.Second)
	cy := start(t, ctx, "cy", append([]string{"join", addr, "--home", filepath.Join(tmp, "cy"), "--name", "cy", "--bot", "bold"}, common...)...)
	dumpOnFailure(t, host, bob, robert, cy)
	var want map[string]any
	for i, p := range []*proc{host, robert, cy} {
		s := p.waitEvent(t, "summary", 90*time.Second)
		if err := p.wait(t, 20*time.Second); err != nil {
			t.Fatalf("%s exited with %v; stderr %s", p.name, err, p.stderr.String())
		}
		accused(t, p)
		if i == 0 {
			want = s
		} else if s["log_hash"] != want["log_hash"] {
			t.Fatalf("%s ended with log %v, ada with %v", p.name, s["log_hash"], want["log_hash"])
		}
	}
}
