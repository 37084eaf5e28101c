package e2e

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/boardmesh/boardmesh/lockstep"
)

// logEntries reads a peer's session log read-only (the writer may be
// alive), tolerating a torn tail.
func logEntries(t *testing.T, home string) ([][]byte, string) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(home, "sessions", "*", "log"))
	if len(files) != 1 {
		return nil, ""
	}
	b, err := os.ReadFile(files[0])
	if err != nil {
		return nil, files[0]
	}
	lf, _ := lockstep.ParseLog(b)
	if lf == nil {
		return nil, files[0]
	}
	var out [][]byte
	for _, e := range lf.Entries {
		out = append(out, e.Marshal())
	}
	return out, files[0]
}

// TestThreeProcessesOneKilledAndResumed runs a host and two joins as
// separate boardmesh processes over loopback, kills one with SIGKILL in
// the middle of the game, restarts it with `resume`, and checks that all
// three finish the game with identical logs, which a spectator verified
// entry by entry.
func TestThreeProcessesOneKilledAndResumed(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Second)
	defer cancel()
	tmp := t.TempDir()
	homes := []string{filepath.Join(tmp, "ada"), filepath.Join(tmp, "bob"), filepath.Join(tmp, "cy")}
	common := []string{"--loopback", "--json", "--bot-delay", "40ms"}
	host := start(t, ctx, "host", append([]string{"host", "dragonslair", "--home", homes[0], "--name", "ada", "--bot", "cautious", "--start-when", "3"}, common...)...)
	lobby := host.waitEvent(t, "lobby", 20*time.Second)
	addrs, _ := lobby["addrs"].([]any)
	if len(addrs) == 0 {
		t.Fatalf("host printed no address: %v", lobby)
	}
	addr := addrs[0].(string)
	bob := start(t, ctx, "bob", append([]string{"join", addr, "--home", homes[1], "--name", "bob", "--bot", "random"}, common...)...)
	cy := start(t, ctx, "cy", append([]string{"join", addr, "--home", homes[2], "--name", "cy", "--bot", "bold"}, common...)...)
	cy.waitEvent(t, "started", 30*time.Second)
	// A spectator follows the whole game, verifying every entry.
	spec := start(t, ctx, "spectator", "spectate", addr, "--home", filepath.Join(tmp, "spec"), "--loopback", "--json")

	// Kill cy in the middle of the game: once its log holds 150 entries.
	deadline := time.Now().Add(60 * time.Second)
	for {
		entries, _ := logEntries(t, homes[2])
		if len(entries) >= 150 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("cy's log did not reach 150 entries; it has %d", len(entries))
		}
		select {
		case <-cy.done:
			t.Fatalf("cy ended before it was killed: %v; %s", cy.err, cy.stderr.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	if err := cy.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	<-cy.done
	before, logPath := logEntries(t, homes[2])
	// Make the crash tear the last write, as a power cut could: half a
	// record after the last whole one, in the room the log keeps open
	// after its records (docs/protocol.md §6). resume must cut it and say
	// so.
	raw, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	lf, _ := lockstep.ParseLog(raw)
	if lf.Room == 0 {
		t.Fatalf("cy's log, killed mid-game, keeps no room after its records (%d bytes)", len(raw))
	}
	f, err := os.OpenFile(logPath, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteAt([]byte{0, 0, 1, 0, 1, 1, 2, 3, 4}, int64(lf.Good))
	f.Close()
	if host.stopped() || bob.stopped() {
		t.Fatal("the other peers ended while cy was dead; the game cannot end without cy")
	}

	cy2 := start(t, ctx, "cy resumed", append([]string{"resume", "--home", homes[2]}, common...)...)
	resumed := cy2.waitEvent(t, "resumed", 20*time.Second)
	if int(resumed["records"].(float64)) < len(before) {
		t.Fatalf("resume read %v records; the log had %d entries at the kill", resumed["records"], len(before))
	}
	if rep, _ := resumed["repair"].(string); !strings.Contains(rep, "torn tail") || !strings.Contains(rep, "cut 9 bytes") {
		t.Fatalf("resume did not report the torn tail: %v", resumed)
	}
	// A secret table (the default): cy takes up its hidden-card key and
	// the others' card envelopes it had.
	if n, _ := resumed["card_envelopes"].(float64); resumed["secret"] != true || n == 0 {
		t.Fatalf("resume of a secret table's seat: %v", resumed)
	}
	sums := map[string]map[string]any{}
	for _, p := range []*proc{host, bob, cy2, spec} {
		sums[p.name] = p.waitEvent(t, "summary", 100*time.Second)
		if err := p.wait(t, 20*time.Second); err != nil {
			t.Fatalf("%s exited with %v; stderr %s", p.name, err, p.stderr.String())
		}
	}
	want := sums["host"]
	if want["reason"] == "" || want["log_entries"].(float64) <= float64(len(before)) {
		t.Fatalf("host summary: %v", want)
	}
	for name, s := range sums {
		if s["log_hash"] != want["log_hash"] || s["log_entries"] != want["log_entries"] || s["session"] != want["session"] {
			t.Fatalf("%s ended with log %v (%v entries), host with %v (%v entries)", name, s["log_hash"], s["log_entries"], want["log_hash"], want["log_entries"])
		}
	}
	// The logs on disk are identical too, and the resumed one still holds
	// what it had before the kill, in the same order.
	ref, _ := logEntries(t, homes[0])
	for _, h := range homes[1:] {
		got, path := logEntries(t, h)
		if len(got) != len(ref) {
			t.Fatalf("%s: %d entries on disk, host has %d", path, len(got), len(ref))
		}
		for i := range ref {
			if !bytes.Equal(got[i], ref[i]) {
				t.Fatalf("%s: entry %d differs from the host's", path, i)
			}
		}
	}
	for i := range before {
		if !bytes.Equal(before[i], ref[i]) {
			t.Fatalf("entry %d logged before the kill differs from the final log", i)
		}
	}
}

func (p *proc) stopped() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// TestWholeTableKilledAndResumed kills every peer of a running game with
// SIGKILL, then resumes all of them: they must meet again (each listens
// on the port it had, and keeps dialling the others' last known
// addresses) and finish the game with identical logs.
func TestWholeTableKilledAndResumed(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Second)
	defer cancel()
	tmp := t.TempDir()
	homes := []string{filepath.Join(tmp, "ada"), filepath.Join(tmp, "bob")}
	common := []string{"--loopback", "--json", "--bot-delay", "40ms"}
	host := start(t, ctx, "host", append([]string{"host", "dragonslair", "--home", homes[0], "--name", "ada", "--bot", "cautious", "--start-when", "2"}, common...)...)
	lobby := host.waitEvent(t, "lobby", 20*time.Second)
	addrs, _ := lobby["addrs"].([]any)
	if len(addrs) == 0 {
		t.Fatalf("host printed no address: %v", lobby)
	}
	bob := start(t, ctx, "bob", append([]string{"join", addrs[0].(string), "--home", homes[1], "--name", "bob", "--bot", "random"}, common...)...)
	bob.waitEvent(t, "started", 30*time.Second)
	deadline := time.Now().Add(60 * time.Second)
	for {
		a, _ := logEntries(t, homes[0])
		b, _ := logEntries(t, homes[1])
		if len(a) >= 60 && len(b) >= 60 {
			break
		}
		if time.Now().After(deadline) || host.stopped() || bob.stopped() {
			t.Fatalf("the logs did not reach 60 entries (%d, %d) before the kill", len(a), len(b))
		}
		time.Sleep(20 * time.Millisecond)
	}
	for _, p := range []*proc{host, bob} {
		if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		<-p.done
	}
	before, _ := logEntries(t, homes[0])
	// Resume in the other order: bob first, while nobody else is up.
	bob2 := start(t, ctx, "bob resumed", append([]string{"resume", "--home", homes[1]}, common...)...)
	bob2.waitEvent(t, "resumed", 20*time.Second)
	time.Sleep(500 * time.Millisecond)
	host2 := start(t, ctx, "host resumed", append([]string{"resume", "--home", homes[0]}, common...)...)
	host2.waitEvent(t, "resumed", 20*time.Second)
	sums := map[string]map[string]any{}
	for _, p := range []*proc{host2, bob2} {
		sums[p.name] = p.waitEvent(t, "summary", 100*time.Second)
		if err := p.wait(t, 20*time.Second); err != nil {
			t.Fatalf("%s exited with %v; stderr %s", p.name, err, p.stderr.String())
		}
	}
	a, b := sums["host resumed"], sums["bob resumed"]
	if a["reason"] == "" || a["log_hash"] != b["log_hash"] || a["log_entries"] != b["log_entries"] {
		t.Fatalf("after the restart: host %v (%v entries), bob %v (%v entries)", a["log_hash"], a["log_entries"], b["log_hash"], b["log_entries"])
	}
	if a["log_entries"].(float64) <= float64(len(before)) {
		t.Fatalf("the game did not go on after the restart: %v entries, %d before", a["log_entries"], len(before))
	}
}
