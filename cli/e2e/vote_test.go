package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// screens drives several windows of one tmux server of the test's own.
type screens struct {
	t      *testing.T
	socket string
}

func (x *screens) tmux(args ...string) string {
	x.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-L", x.socket}, args...)...).CombinedOutput()
	if err != nil {
		x.t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func (x *screens) screen(name string) string { return x.tmux("capture-pane", "-p", "-t", name) }

func (x *screens) keys(name string, keys ...string) {
	x.tmux(append([]string{"send-keys", "-t", name}, keys...)...)
}

func (x *screens) wait(name string, re *regexp.Regexp, timeout time.Duration) string {
	x.t.Helper()
	deadline := time.Now().Add(timeout)
	var s string
	for time.Now().Before(deadline) {
		if s = x.screen(name); re.MatchString(s) {
			return s
		}
		time.Sleep(100 * time.Millisecond)
	}
	x.t.Fatalf("%s's screen never matched %s; last screen:\n%s", name, re, s)
	return ""
}

// TestLeaverIsVotedOutAtTheScreens: a host and a joiner play at their
// game screens (tmux, 80×24) with a bot player who joined from a third
// home; the bot's process is killed mid-game. Both screens show who the
// table waits for with a timer; after --drop-after the host proposes the
// drop with d, the joiner sees the proposal and confirms it with d, the
// seat is dropped, and the two play on to the end of the game.
func TestLeaverIsVotedOutAtTheScreens(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("this test needs tmux")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	tmp := t.TempDir()
	x := &screens{t: t, socket: fmt.Sprintf("boardmesh-e2e-vote-%d", os.Getpid())}
	t.Cleanup(func() { exec.Command("tmux", "-L", x.socket, "kill-server").Run() })
	game := []string{"--loopback", "--drop-after", "3s"}
	window := func(name string, args ...string) {
		cmd := binary + " " + strings.Join(args, " ") + "; echo EXIT=$?; sleep 120"
		x.tmux("new-session", "-d", "-s", name, "-x", "80", "-y", "24", "sh", "-c", cmd)
	}
	window("ana", append([]string{"host", "dragonslair", "--options", "red-field=5", "--home", filepath.Join(tmp, "ana"), "--name", "ana"}, game...)...)
	s := x.wait("ana", regexp.MustCompile(`(?s)Address:.*The others type`), 30*time.Second)
	// The address may be broken over lines of the width: join them.
	m := regexp.MustCompile(`(?s)Address: *\n?(.*?)\nThe others type`).FindStringSubmatch(s)
	if m == nil {
		t.Fatalf("no address on the lobby screen:\n%s", s)
	}
	addr := strings.Join(strings.Fields(m[1]), "")
	if !strings.HasPrefix(addr, "/ip4/127.0.0.1/") || !strings.Contains(addr, "/p2p/") || !strings.Contains(s, "Joined (1): ana") {
		t.Fatalf("the lobby screen does not say how to join (address %q):\n%s", addr, s)
	}
	window("bo", append([]string{"join", addr, "--home", filepath.Join(tmp, "bo"), "--name", "bo"}, game...)...)
	cy := start(t, ctx, "cy", "join", addr, "--home", filepath.Join(tmp, "cy"), "--name", "cy", "--bot", "bold", "--bot-delay", "50ms", "--json", "--loopback")
	s = x.wait("ana", regexp.MustCompile(`Joined \(3\): `), 30*time.Second)
	if !strings.Contains(s, "bo") || !strings.Contains(s, "cy") || !strings.Contains(s, "cy joined") && !strings.Contains(s, "bo joined") {
		t.Fatalf("the lobby does not say who joined:\n%s", s)
	}
	x.keys("ana", "s")
	cy.waitEvent(t, "started", 30*time.Second)

	// Play a little, then cy's machine dies.
	play := func(name string) {
		if s := x.screen(name); strings.Contains(s, "Your move") && !strings.Contains(s, "Leave the game?") && !strings.Contains(s, "Vote to drop") {
			x.keys(name, "Enter")
		}
	}
	deadline := time.Now().Add(60 * time.Second)
	for moves := 0; moves < 6 && time.Now().Before(deadline); {
		for _, n := range []string{"ana", "bo"} {
			if strings.Contains(x.screen(n), "Your move") {
				play(n)
				moves++
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	if err := cy.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-cy.done

	// Both screens show the wait with its timer, then offer the vote. The
	// one whose move it is plays it first, so the table ends up waiting
	// for cy.
	// (A wait inside the card protocol reads "waiting for cy (its
	// decryption shares for batch 9) 0:05 · d votes to drop th…": 80
	// columns cut the line's end.)
	waiting := regexp.MustCompile(`waiting for cy \([^)]+\) \d+:\d\d`)
	offer := regexp.MustCompile(`waiting for cy .* d votes to drop`)
	deadline = time.Now().Add(60 * time.Second)
	for !offer.MatchString(x.screen("ana")) {
		if time.Now().After(deadline) {
			t.Fatalf("ana is never offered the drop:\n%s", x.screen("ana"))
		}
		play("ana")
		play("bo")
		time.Sleep(300 * time.Millisecond)
	}
	x.wait("bo", waiting, 30*time.Second)
	x.keys("ana", "d")
	x.wait("ana", regexp.MustCompile(`Vote to drop seat \d\?`), 5*time.Second)
	x.keys("ana", "y")
	s = x.wait("bo", regexp.MustCompile(`voted to drop seat \d \(1 of 2 votes\) · d confirms`), 30*time.Second)
	x.keys("bo", "d")
	x.wait("bo", regexp.MustCompile(`Vote to drop seat \d\?`), 5*time.Second)
	x.keys("bo", "y")
	// The drop is told by the vote's event ("dropped by agreement: cy
	// (seat 3)") and by the verified log's step ("cy (seat 3): dropped by
	// agreement"); the screen's short history may show either last.
	x.wait("ana", regexp.MustCompile(`dropped by agreement: cy|cy \(seat \d\): dropped by agreement`), 30*time.Second)

	// The two play on to the end.
	over := regexp.MustCompile(`Game over`)
	deadline = time.Now().Add(150 * time.Second)
	for !over.MatchString(x.screen("ana")) || !over.MatchString(x.screen("bo")) {
		if time.Now().After(deadline) || ctx.Err() != nil {
			t.Fatalf("the game did not end after the drop:\n%s\n%s", x.screen("ana"), x.screen("bo"))
		}
		play("ana")
		play("bo")
		time.Sleep(150 * time.Millisecond)
	}
	for _, n := range []string{"ana", "bo"} {
		s := x.screen(n)
		if !strings.Contains(s, "cy") || !regexp.MustCompile(`winner`).MatchString(s) {
			t.Fatalf("%s's game-over screen lacks the score table:\n%s", n, s)
		}
	}
}
