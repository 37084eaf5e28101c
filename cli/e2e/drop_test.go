package e2e

import (
	"context"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestPlayerWhoLeavesIsDropped: with --drop-after, the players who remain
// agree to drop one who vanished (SIGKILL, no resume), and finish the game
// with identical logs.
func TestPlayerWhoLeavesIsDropped(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	tmp := t.TempDir()
	common := []string{"--loopback", "--json", "--bot-delay", "30ms", "--drop-after", "2s"}
	host := start(t, ctx, "host", append([]string{"host", "dragonslair", "--home", filepath.Join(tmp, "a"), "--name", "ada", "--bot", "cautious", "--start-when", "3"}, common...)...)
	addr := host.waitEvent(t, "lobby", 20*time.Second)["addrs"].([]any)[0].(string)
	bob := start(t, ctx, "bob", append([]string{"join", addr, "--home", filepath.Join(tmp, "b"), "--name", "bob", "--bot", "random"}, common...)...)
	cy := start(t, ctx, "cy", append([]string{"join", addr, "--home", filepath.Join(tmp, "c"), "--name", "cy", "--bot", "bold"}, common...)...)
	cy.waitEvent(t, "started", 30*time.Second)
	time.Sleep(500 * time.Millisecond)
	if err := cy.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-cy.done
	drop := host.waitEvent(t, "dropped", 30*time.Second)
	a := host.waitEvent(t, "summary", 60*time.Second)
	b := bob.waitEvent(t, "summary", 60*time.Second)
	if a["log_hash"] != b["log_hash"] || a["reason"] == "" {
		t.Fatalf("after dropping cy (%v) the two logs differ: %v vs %v", drop["text"], a, b)
	}
	if err := host.wait(t, 20*time.Second); err != nil {
		t.Fatalf("host: %v", err)
	}
}
