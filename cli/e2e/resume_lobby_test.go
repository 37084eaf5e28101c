package e2e

import (
	"context"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestResumeOfALobbyThatNeverStarted: a host opens a lobby, nobody
// joins, and the host stops it. `resume` of that session once waited
// forever in silence; it must say at once that there is no game to
// resume and how to start one, and exit non-zero.
func TestResumeOfALobbyThatNeverStarted(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	home := filepath.Join(t.TempDir(), "ada")
	host := start(t, ctx, "ada", "host", "dragonslair", "--home", home, "--name", "ada", "--loopback", "--json")
	host.waitEvent(t, "lobby", 20*time.Second)
	host.cmd.Process.Signal(syscall.SIGINT)
	host.wait(t, 20*time.Second)
	out, errOut, code := run(t, 20*time.Second, "resume", "--home", home, "--loopback", "--auto")
	if code == 0 || !strings.Contains(errOut, "there is no game to resume") || !strings.Contains(errOut, "boardmesh host") {
		t.Fatalf("resume of a lobby: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}
