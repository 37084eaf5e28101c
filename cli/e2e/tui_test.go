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

// start runs `boardmesh play ARGS` in a tmux window of w×h and returns
// the file its exit status goes to.
func startPlay(t *testing.T, w, h int, args string) (*tmux, string) {
	dir := t.TempDir()
	exitFile := filepath.Join(dir, "exit")
	x := &tmux{t: t, socket: fmt.Sprintf("boardmesh-e2e-%d-%s", os.Getpid(), strings.ReplaceAll(t.Name(), "/", "-"))}
	t.Cleanup(func() { exec.Command("tmux", "-L", x.socket, "kill-server").Run() })
	cmd := fmt.Sprintf("%s play %s; echo EXIT=$? > %s; sleep 60", binary, args, exitFile)
	x.run("new-session", "-d", "-s", "bm", "-x", fmt.Sprint(w), "-y", fmt.Sprint(h), "env", "BOARDMESH_HOME="+dir, "sh", "-c", cmd)
	return x, exitFile
}

// checkFits checks the screen keeps the title on top and the keys at the
// bottom line of the terminal.
func checkFits(t *testing.T, s, title string, h int) {
	t.Helper()
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if !strings.HasPrefix(lines[0], title) || len(lines) != h || !strings.Contains(lines[h-1], "q quit") {
		t.Fatalf("the screen does not keep the title on top and the keys at the bottom (%d lines):\n%s", len(lines), s)
	}
}

// TestTerminalPlayWithKeys starts `boardmesh play` in a real terminal
// (tmux), makes a move with a number key and one through the filter (/,
// the words, Enter), reads the screen to see them happen, and quits with q.
func TestTerminalPlayWithKeys(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("this test needs tmux")
	}
	x, exitFile := startPlay(t, 80, 24, "dragonslair --bots 2 --delay 200ms --seed tmux")

	firstAction := regexp.MustCompile(`> (\w)\) (.+?)\s*\n`)
	for _, keys := range [][]string{{"key"}, {"/", "turn over", "Enter"}} {
		s := x.waitScreen(regexp.MustCompile(`Your move`), 30*time.Second)
		checkFits(t, s, "The Sleeping Dragon's Lair", 24)
		if !strings.Contains(s, "state hashes") && !strings.Contains(s, "(you are seat") {
			t.Fatalf("the game screen lacks the sync line or our seat:\n%s", s)
		}
		m := firstAction.FindStringSubmatch(s)
		if m == nil {
			t.Fatalf("no action list on the screen:\n%s", s)
		}
		if keys[0] == "/" && !strings.HasPrefix(m[2], "Turn over") {
			keys = []string{"key"} // no card to turn over: take the highlighted move
		}
		want := regexp.MustCompile(`you \(seat \d\): ` + regexp.QuoteMeta(strings.TrimSuffix(m[2], "…")))
		for _, k := range keys {
			if k == "key" {
				k = m[1] // the key shown before the highlighted move
			}
			if k == "/" {
				// The menu re-arms when the card turned over arrives; a /
				// pressed while no move is to be chosen does nothing, so
				// wait for the filter to open (again if need be).
				opened := false
				for try := 0; try < 5 && !opened; try++ {
					x.run("send-keys", "-t", "bm", "/")
					for end := time.Now().Add(2 * time.Second); time.Now().Before(end) && !opened; time.Sleep(100 * time.Millisecond) {
						opened = strings.Contains(x.screen(), "filter:")
					}
				}
				if !opened {
					t.Fatalf("/ never opened the filter:\n%s", x.screen())
				}
				continue
			}
			if k == "turn over" {
				x.run("send-keys", "-t", "bm", "-l", k)
				x.waitScreen(regexp.MustCompile(`filter: turn over`), 5*time.Second)
				continue
			}
			x.run("send-keys", "-t", "bm", k)
		}
		x.waitScreen(want, 15*time.Second)
		// The move is told with its outcome once the card is turned over
		// (a chance step); the next menu comes after it.
		if strings.HasPrefix(m[2], "Turn over") {
			x.waitScreen(regexp.MustCompile(want.String()+`.* — `), 15*time.Second)
		}
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
	x.waitScreen(regexp.MustCompile(`Leave the game\?`), 5*time.Second)
	x.run("send-keys", "-t", "bm", "y")
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
	if s := x.screen(); !strings.Contains(s, "You left the game") || !strings.Contains(s, "boardmesh replay ") {
		t.Fatalf("no goodbye, or no replay line for the log kept, after q:\n%s", s)
	}
}

// TestTerminalInfiniteCityMenus plays Infinite City, whose menu offers
// every tile of the hand on every free square, at 100×30: a tile through
// the grouped menu (its group by number, then its square by number), then
// a tile through the filter (/ and the tile's name, Enter, a number).
func TestTerminalInfiniteCityMenus(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("this test needs tmux")
	}
	// --open-hands: see TestEachGameAt80x24.
	x, _ := startPlay(t, 100, 30, "infinitecity --open-hands --bots 1 --delay 200ms --seed tmux-city")
	group := regexp.MustCompile(`> (\w)\) (Play [^(…\n]+?) …  \((\d+) choices\)`)
	// The highlighted item ends at the line's end or, when short moves sit
	// side by side in columns, at the gap before the next column.
	first := regexp.MustCompile(`> (\w)\) (.+?)(?:\s{2,}|\s*\n)`)
	yourMove := regexp.MustCompile(`(?m)^Your move`)
	played := 0
	deadline := time.Now().Add(90 * time.Second)
	for played < 2 {
		if time.Now().After(deadline) {
			t.Fatalf("played %d tiles through the menus in 90 s; screen:\n%s", played, x.screen())
		}
		s := x.waitScreen(yourMove, 30*time.Second)
		checkFits(t, s, "Infinite City", 30)
		g := group.FindStringSubmatch(s)
		if g == nil {
			// A tile's power asks for a choice: take the first.
			m := first.FindStringSubmatch(s)
			if m == nil {
				t.Fatalf("no menu on the screen:\n%s", s)
			}
			x.run("send-keys", "-t", "bm", m[1])
			x.waitScreen(regexp.MustCompile(`you \(seat \d\): `+regexp.QuoteMeta(strings.TrimSuffix(m[2], "…"))), 15*time.Second)
			continue
		}
		tile := g[2]
		if played == 0 {
			x.run("send-keys", "-t", "bm", g[1])
			s = x.waitScreen(regexp.MustCompile(`Your move › `+regexp.QuoteMeta(tile)), 5*time.Second)
		} else {
			x.run("send-keys", "-t", "bm", "/")
			x.waitScreen(regexp.MustCompile(`filter: `), 5*time.Second)
			x.run("send-keys", "-t", "bm", "-l", strings.ToLower(strings.TrimPrefix(tile, "Play ")))
			x.waitScreen(regexp.MustCompile(`filter: `+regexp.QuoteMeta(strings.ToLower(strings.TrimPrefix(tile, "Play ")))+`.*\d+ of `), 5*time.Second)
			x.run("send-keys", "-t", "bm", "Enter")
			s = x.waitScreen(regexp.MustCompile(`filter: .*Enter keeps`), 5*time.Second)
		}
		m := regexp.MustCompile(`2\) (` + regexp.QuoteMeta(tile) + ` at \(-?\d+,-?\d+\))`).FindStringSubmatch(s)
		if m == nil {
			t.Fatalf("no squares for %s on the screen:\n%s", tile, s)
		}
		x.run("send-keys", "-t", "bm", "2")
		x.waitScreen(regexp.MustCompile(`you \(seat \d\): `+regexp.QuoteMeta(m[1])), 15*time.Second)
		played++
	}
	x.run("send-keys", "-t", "bm", "q")
}
