package cli

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/boardmesh/boardmesh/engine"
	"github.com/boardmesh/boardmesh/lockstep"
	"github.com/boardmesh/boardmesh/p2p"
)

// TestNegativeNumbersRefused: a negative count, delay or time-out is a
// usage error (exit 2) with the flag named, on every command, before
// anything starts.
func TestNegativeNumbersRefused(t *testing.T) {
	t.Setenv(HomeEnv, t.TempDir())
	cases := []struct {
		flag string
		args []string
	}{
		{"--bots", []string{"play", "--bots", "-1"}},
		{"--delay", []string{"play", "--delay", "-1s"}},
		{"--drop-after", []string{"host", "dragonslair", "--drop-after", "-5s", "--loopback"}},
		{"--bot-delay", []string{"host", "dragonslair", "--bot-delay", "-1ms", "--loopback"}},
		{"--drop-after", []string{"join", "--drop-after", "-1m", "--loopback", "x"}},
		{"--wait", []string{"join", "--wait", "-1s", "x"}},
		{"--bot-delay", []string{"resume", "--bot-delay", "-2s"}},
		{"--players", []string{"sim", "dragonslair", "--players", "-3"}},
		{"--wait", []string{"spectate", "--wait", "-1s", "x"}},
		{"--port", []string{"host", "dragonslair", "--port", "-1"}},
	}
	for _, c := range cases {
		args, flag := c.args, c.flag
		out, errOut, code := run(t, args...)
		if code != ExitUsage || !strings.Contains(errOut, flag+" -") || !strings.Contains(errOut, "must be 0 or more") {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 naming %s", args, code, errOut, flag)
		}
		if out != "" {
			t.Errorf("%v: printed %q", args, out)
		}
	}
	if n, _ := os.ReadDir(os.Getenv(HomeEnv)); len(n) != 0 {
		t.Errorf("a refused command left %d files in the home", len(n))
	}
}

// TestResumeNeedsAnExistingHome: `resume --home TYPO` says there is no
// home there, suggests the real one, and creates nothing.
func TestResumeNeedsAnExistingHome(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "boardmesh")
	if _, err := p2p.LoadOrCreateIdentity(real); err != nil {
		t.Fatal(err)
	}
	t.Setenv(HomeEnv, real)
	typo := filepath.Join(dir, "boardmseh")
	_, errOut, code := run(t, "resume", "--home", typo, "--loopback")
	if code == 0 || !strings.Contains(errOut, "no boardmesh home at "+typo) || !strings.Contains(errOut, "did you mean "+real+"?") {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	if _, err := os.Stat(typo); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("resume created %s: %v", typo, err)
	}
	// Far from any home, it says how one is made.
	far := filepath.Join(t.TempDir(), "nothing-like-it")
	t.Setenv(HomeEnv, far)
	_, errOut, code = run(t, "resume")
	if code == 0 || !strings.Contains(errOut, "no boardmesh home at "+far) || !strings.Contains(errOut, "make one") {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	if _, err := os.Stat(far); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("resume created %s", far)
	}
	// A home where only 'play' tables were played (they make no
	// identity): it says a play table is not resumed and how the latest
	// is replayed.
	plays := filepath.Join(t.TempDir(), "boardmesh")
	var newest string
	for _, name := range []string{"20261201-101500.000-a1b2c3", "20261203-063118.774-e62a01"} {
		d := filepath.Join(plays, "plays", name)
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
		newest = filepath.Join(d, "peer0.log")
		if err := os.WriteFile(newest, nil, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	_, errOut, code = run(t, "resume", "--home", plays)
	if code == 0 || !strings.Contains(errOut, "not resumed") || !strings.Contains(errOut, "boardmesh replay "+newest) ||
		strings.Contains(errOut, "'boardmesh play', 'host'") {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
}

// TestFirstRunSaysItMadeAHome: a command that may make a home (keys here;
// play, host and join alike) says so when it does.
func TestFirstRunSaysItMadeAHome(t *testing.T) {
	home := filepath.Join(t.TempDir(), "new")
	id, err := loadIdentity(home, true, &strings.Builder{})
	if err != nil || !id.Created {
		t.Fatalf("%v %+v", err, id)
	}
	var w strings.Builder
	if _, err := loadIdentity(filepath.Join(t.TempDir(), "other"), true, &w); err != nil || !strings.Contains(w.String(), "Made a new boardmesh home at") {
		t.Fatalf("%v, said %q", err, w.String())
	}
	w.Reset()
	if _, err := loadIdentity(home, true, &w); err != nil || w.String() != "" {
		t.Fatalf("an existing home was announced as new: %q %v", w.String(), err)
	}
}

// TestBadOptionsRefusedBeforeAnyoneStarts: options the game's setup
// rejects fail in host (before the lobby opens) and play with exit 2 and
// exactly sim's message, and nothing is left in the home.
func TestBadOptionsRefusedBeforeAnyoneStarts(t *testing.T) {
	dir := t.TempDir()
	badRules := filepath.Join(dir, "bad.json")
	os.WriteFile(badRules, []byte(`{"capital_ip": `), 0o644)
	cases := []struct {
		game string
		args []string
	}{
		{"dominion", []string{"--options", "kingdom=Cellar"}},
		{"serpentcity", []string{"--rules", badRules}},
		{"infinitecity", []string{"--options", "tiles=nonsense"}},
	}
	for _, c := range cases {
		home := filepath.Join(dir, c.game)
		t.Setenv(HomeEnv, home)
		_, simErr, code := run(t, append([]string{"sim", c.game}, c.args...)...)
		if code != ExitUsage {
			t.Fatalf("sim %s %v: exit %d %q", c.game, c.args, code, simErr)
		}
		for _, cmd := range [][]string{
			append([]string{"host", c.game, "--loopback", "--auto"}, c.args...),
			append([]string{"play", c.game, "--auto"}, c.args...),
		} {
			out, errOut, code := run(t, cmd...)
			if code != ExitUsage || errOut != simErr {
				t.Errorf("%v: exit %d, stderr %q; want exit 2 and sim's %q", cmd, code, errOut, simErr)
			}
			if strings.Contains(out, "Hosting") || strings.Contains(out, "lobby") {
				t.Errorf("%v: a lobby opened: %q", cmd, out)
			}
		}
		if _, err := os.Stat(home); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s: a refused command made the home", c.game)
		}
	}
}

// TestOptionLimitsAgree: an option value as large as the CLI accepts
// passes the roster's wire limit, and one byte more is refused by the CLI
// with the limit named. A rules file from a device is refused after the
// limit instead of being read until memory runs out.
func TestOptionLimitsAgree(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.txt")
	os.WriteFile(big, []byte(strings.Repeat("x", maxOptionFile+1)), 0o644)
	_, errOut, code := run(t, "sim", "infinitecity", "--option-file", "tiles="+big)
	if code != ExitUsage || !strings.Contains(errOut, "is larger than 32 KiB") {
		t.Fatalf("oversized option file: exit %d %q", code, errOut)
	}
	_, errOut, code = run(t, "sim", "serpentcity", "--rules", "/dev/urandom")
	if code != ExitUsage || !strings.Contains(errOut, "/dev/urandom is larger than 32 KiB") {
		t.Fatalf("--rules /dev/urandom: exit %d %q", code, errOut)
	}
	// The wire side of the same limit is checked in lockstep
	// (TestOptionValueWireLimit): both are engine.MaxOptionValue.
	if maxOptionFile != engine.MaxOptionValue {
		t.Fatal("the CLI's option limit is not the engine's")
	}
}

// TestReplayOfFIFOStopsOnCtrlC: `replay` of a FIFO that no one writes
// stops when its context is cancelled (Ctrl-C), with the interruption
// exit code.
func TestReplayOfFIFOStopsOnCtrlC(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "pipe")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	defer func() { // let the abandoned open finish
		if f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			f.Close()
		}
	}()
	io, _, _, _ := TestIO()
	ctx, cancel := context.WithCancel(context.Background())
	res := make(chan error, 1)
	go func() {
		res <- replayRun(&ReplayOptions{IO: io, Ctx: ctx, ReadFile: readLogFile, File: fifo, At: -1})
	}()
	time.Sleep(100 * time.Millisecond)
	cancel()
	select {
	case err := <-res:
		if exitCode(err) != ExitCancelled || !strings.Contains(err.Error(), "interrupted") {
			t.Fatalf("err %v, exit %d", err, exitCode(err))
		}
	case <-time.After(5 * time.Second):
		t.Fatal("replay of a FIFO did not stop on cancel")
	}
	// And a device is refused by its first bytes, at once.
	err := replayRun(&ReplayOptions{IO: io, Ctx: context.Background(), ReadFile: readLogFile, File: "/dev/urandom", At: -1})
	if err == nil || !strings.Contains(err.Error(), "not a boardmesh log file") {
		t.Fatalf("replay /dev/urandom: %v", err)
	}
}

// TestJoinerLeavesOnRefusedRoster: a roster the game refuses makes the
// joiner's run stop with the reason in plain words, instead of waiting.
func TestJoinerLeavesOnRefusedRoster(t *testing.T) {
	io, _, _, _ := TestIO()
	left := false
	rep := &netReporter{io: io, leave: func() { left = true }}
	err := errors.Join(lockstep.ErrRefused, errors.New("the host's game cannot be set up: dominion: kingdom needs ten cards"))
	rep.update(p2p.Update{Events: []lockstep.Event{{Kind: lockstep.EventRefused, Seat: -1, Err: err, Text: "lockstep: refused: the host's game cannot be set up: kingdom needs ten cards"}}})
	if !left || !strings.Contains(rep.refused, "kingdom needs ten cards") {
		t.Fatalf("left %v, refused %q", left, rep.refused)
	}
	// Joining too late (not in the roster) is not a refusal to leave over:
	// such a peer follows the game.
	left = false
	rep = &netReporter{io: io, leave: func() { left = true }}
	rep.update(p2p.Update{Events: []lockstep.Event{{Kind: lockstep.EventRefused, Seat: -1, Err: lockstep.ErrNotMember, Text: "not in the roster"}}})
	if left {
		t.Fatal("a late joiner was made to leave")
	}
}
