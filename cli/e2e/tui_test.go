package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// tmux drives one tmux server of the test's own (its own socket), so it
// never touches a user's sessions.
type tmux struct {
	t      *testing.T
	socket string
}

func (x *tmux) run(args ...string) string {
	x.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-L", x.socket}, args...)...).CombinedOutput()
	if err != nil {
		x.t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func (x *tmux) screen() string { return x.run("capture-pane", "-p", "-t", "bm") }

// waitScreen waits until the screen matches re and returns the screen.
func (x *tmux) waitScreen(re *regexp.Regexp, timeout time.Duration) string {
	x.t.Helper()
	deadline := time.Now().Add(timeout)
	var s string
	for time.Now().Before(deadline) {
		s = x.screen()
		if re.MatchString(s) {
			return s
		}
		time.Sleep(100 * time.Millisecond)
	}
	x.t.Fatalf("screen never matched %s; last screen:\n%s", re, s)
	return ""
}

// TestTerminalPlayWithKeys starts `boardmesh play` in a real terminal
// (tmux), makes moves with a number key and with enter, reads the screen
// to see them happen, and quits with q.
func TestTerminalPlayWithKeys(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("this test needs tmux")
	}
	dir := t.TempDir()
	exitFile := filepath.Join(dir, "exit")
	x := &tmux{t: t, socket: fmt.Sprintf("boardmesh-e2e-%d", os.Getpid())}
	t.Cleanup(func() { exec.Command("tmux", "-L", x.socket, "kill-server").Run() })
	cmd := fmt.Sprintf("%s play dragonslair --bots 2 --delay 50ms --seed tmux; echo EXIT=$? > %s; sleep 60", binary, exitFile)
	x.run("new-session", "-d", "-s", "bm", "-x", "100", "-y", "60", "env", "BOARDMESH_HOME="+dir, "sh", "-c", cmd)

	firstAction := regexp.MustCompile(`> 1\) (.+?)\s*\n`)
	for _, k := range []string{"1", "Enter"} {
		s := x.waitScreen(regexp.MustCompile(`Your move`), 30*time.Second)
		if !strings.Contains(s, "The Sleeping Dragon's Lair") || !strings.Contains(s, "Peers:") || !strings.Contains(s, "seat 1 you") && !strings.Contains(s, "seat 2 you") && !strings.Contains(s, "seat 3 you") {
			t.Fatalf("the game screen lacks the title or the peers:\n%s", s)
		}
		m := firstAction.FindStringSubmatch(s)
		if m == nil {
			t.Fatalf("no action list on the screen:\n%s", s)
		}
		want := regexp.MustCompile(`you \(seat \d\): ` + regexp.QuoteMeta(strings.TrimSuffix(m[1], "…")))
		x.run("send-keys", "-t", "bm", k)
		x.waitScreen(want, 15*time.Second)
	}
	// The peers agree: the sync line appears once a turn has passed. Our
	// turn may still be on, so end it: G jumps to the last action (escape
	// with what we have), enter plays it.
	agree := regexp.MustCompile(`state hashes of all 3 peers agree`)
	deadline := time.Now().Add(60 * time.Second)
	for s := x.screen(); !agree.MatchString(s); s = x.screen() {
		if time.Now().After(deadline) {
			t.Fatalf("no sync line; last screen:\n%s", s)
		}
		if strings.Contains(s, "Your move") {
			x.run("send-keys", "-t", "bm", "G")
			x.run("send-keys", "-t", "bm", "Enter")
		}
		time.Sleep(300 * time.Millisecond)
	}
	x.run("send-keys", "-t", "bm", "q")
	deadline = time.Now().Add(15 * time.Second)
	for {
		b, err := os.ReadFile(exitFile)
		if err == nil {
			if got := strings.TrimSpace(string(b)); got != "EXIT=0" {
				t.Fatalf("boardmesh play ended with %s after q", got)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("boardmesh play did not exit after q; screen:\n%s", x.screen())
		}
		time.Sleep(100 * time.Millisecond)
	}
	if s := x.screen(); !strings.Contains(s, "You left the game") {
		t.Fatalf("no goodbye after q:\n%s", s)
	}
}
