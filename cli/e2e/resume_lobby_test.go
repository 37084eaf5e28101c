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
	// Stopping it offers no resume that would only be refused.
	if said := host.stderr.String(); strings.Contains(said, "Rejoin with") || !strings.Contains(said, "nothing to rejoin") {
		t.Fatalf("a host stopped in its lobby says: %q", said)
	}
	out, errOut, code := run(t, 20*time.Second, "resume", "--home", home, "--loopback", "--auto")
	if code == 0 || !strings.Contains(errOut, "there is no game to resume") || !strings.Contains(errOut, "boardmesh host") {
		t.Fatalf("resume of a lobby: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}

// TestResumeOfAFinishedGame: a host and a joiner play a game to its end
// and exit. `resume` of the host's session once waited in silence for the
// others and then said "the game did not finish", exit 1. It must say at
// once that the game had ended and how, print the game's result and its
// replay line as at the end of the game, and exit 0.
func TestResumeOfAFinishedGame(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	tmp := t.TempDir()
	ada, bob := filepath.Join(tmp, "ada"), filepath.Join(tmp, "bob")
	common := []string{"--loopback", "--json", "--no-dht"}
	host := start(t, ctx, "ada", append([]string{"host", "dragonslair", "--home", ada, "--name", "ada", "--bot", "cautious", "--start-when", "2"}, common...)...)
	lobby := host.waitEvent(t, "lobby", 20*time.Second)
	addrs, _ := lobby["addrs"].([]any)
	if len(addrs) == 0 {
		t.Fatalf("host printed no address: %v", lobby)
	}
	joiner := start(t, ctx, "bob", append([]string{"join", addrs[0].(string), "--home", bob, "--name", "bob", "--bot", "random"}, common...)...)
	end := host.waitEvent(t, "summary", 90*time.Second)
	if err := host.wait(t, 20*time.Second); err != nil {
		t.Fatalf("the host's game: %v", err)
	}
	if err := joiner.wait(t, 20*time.Second); err != nil {
		t.Fatalf("the joiner's game: %v", err)
	}

	out, errOut, code := run(t, 60*time.Second, "resume", "--home", ada, "--loopback", "--no-dht", "--auto")
	reason, _ := end["reason"].(string)
	if code != 0 || reason == "" {
		t.Fatalf("resume of a finished game: exit %d (the game's end: %q)\nstdout %s\nstderr %s", code, reason, out, errOut)
	}
	if !strings.Contains(errOut, "This game had ended already ("+reason+")") || strings.Contains(errOut+out, "did not finish") {
		t.Fatalf("resume of a finished game does not say it had ended (%s):\n%s", reason, errOut)
	}
	if !strings.Contains(out, reason) || !strings.Contains(out, "winner") || !strings.Contains(out, "boardmesh replay ") {
		t.Fatalf("resume of a finished game prints no result:\n%s", out)
	}
}
