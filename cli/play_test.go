package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestPlayInjectedDesync is the developer story end to end on loopback:
// play --inject-desync makes one bot's engine go wrong; the game stops
// with exit code 3, the report names the first divergent entry and a
// differing field, the bundle is written, and replay of the bundle names
// the same entry and field.
func TestPlayInjectedDesync(t *testing.T) {
	io, _, out, _ := TestIO()
	err := playRun(&PlayOptions{IO: io, Bots: 2, Auto: true, Seed: "desync", Home: t.TempDir(), InjectDesync: 8})
	if code := exitCode(err); code != ExitDesync {
		t.Fatalf("exit %d (%v), want %d\n%s", code, err, ExitDesync, out)
	}
	s := out.String()
	m := regexp.MustCompile(`first divergent entry is step (\d+)`).FindStringSubmatch(s)
	if m == nil {
		t.Fatalf("the report names no entry:\n%s", s)
	}
	step := m[1]
	field := regexp.MustCompile(`(?m)^  (\S+): mine .*, theirs `).FindStringSubmatch(s)
	if field == nil {
		t.Fatalf("the report names no differing field:\n%s", s)
	}
	bundle := replayPath(t, s)
	if fi, err := os.Stat(bundle); err != nil || fi.Size() == 0 {
		t.Fatalf("bundle %s: %v", bundle, err)
	}
	rout, rerr, code := run(t, "replay", bundle)
	if code != ExitDesync {
		t.Fatalf("replay %s: exit %d, want %d\n%s%s", bundle, code, ExitDesync, rout, rerr)
	}
	if !strings.Contains(rout, "first divergent entry is step "+step+" ") || !strings.Contains(rout, "  "+field[1]+": ") {
		t.Fatalf("replay does not name step %s and field %s:\n%s\nlive report:\n%s", step, field[1], rout, s)
	}
}

// Old play sessions are removed beyond the newest keepPlays.
func TestPlayLogsArePruned(t *testing.T) {
	home := t.TempDir()
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var dirs []string
	for i := range keepPlays + 3 {
		d, err := newPlayDir(home, start.Add(time.Duration(i)*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		dirs = append(dirs, d)
	}
	left, err := os.ReadDir(filepath.Join(home, "plays"))
	if err != nil {
		t.Fatal(err)
	}
	if len(left) != keepPlays {
		t.Fatalf("%d play directories left, want %d", len(left), keepPlays)
	}
	for i, d := range dirs {
		_, err := os.Stat(d)
		if kept := err == nil; kept != (i >= 3) {
			t.Fatalf("directory %d (%s): kept %v", i, filepath.Base(d), kept)
		}
	}
}
