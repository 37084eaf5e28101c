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

// TestResumeAfterFlippedBitMidLog kills one of three boardmesh processes
// mid-game, flips a bit in the middle of its log file (good records
// after it), and resumes it. resume must report corruption (not a torn
// tail) naming the record and byte, keep the damaged file aside
// unchanged, go on from the good prefix, fetch the rest from the others,
// and never sign a second envelope for a slot: every peer finishes the
// game with the same log, and no one is accused.
func TestResumeAfterFlippedBitMidLog(t *testing.T) {
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

	deadline := time.Now().Add(60 * time.Second)
	for {
		entries, _ := logEntries(t, homes[2])
		if len(entries) >= 120 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("cy's log did not reach 120 entries; it has %d", len(entries))
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
	_, logPath := logEntries(t, homes[2])
	raw, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	lf, _ := lockstep.ParseLog(raw)
	k := len(lf.Records) / 3
	raw[lf.Offsets[k]+30] ^= 0x08
	if err := os.WriteFile(logPath, raw, 0o600); err != nil {
		t.Fatal(err)
	}

	cy2 := start(t, ctx, "cy resumed", append([]string{"resume", "--home", homes[2]}, common...)...)
	resumed := cy2.waitEvent(t, "resumed", 20*time.Second)
	rep, _ := resumed["repair"].(string)
	for _, want := range []string{"corrupted", "record", "byte", logPath + ".corrupt-1"} {
		if !strings.Contains(rep, want) {
			t.Fatalf("resume's report %q does not say %q", rep, want)
		}
	}
	if strings.Contains(rep, "torn tail") && !strings.Contains(rep, "also had a torn tail") {
		t.Fatalf("corruption reported as a torn tail: %q", rep)
	}
	if c, _ := resumed["corrupt"].(map[string]any); c == nil || int(c["offset"].(float64)) != lf.Offsets[k] || c["set_aside"] != logPath+".corrupt-1" {
		t.Fatalf("resume's JSON does not name the damage at byte %d: %v", lf.Offsets[k], resumed)
	}
	if aside, err := os.ReadFile(logPath + ".corrupt-1"); err != nil || !bytes.Equal(aside, raw) {
		t.Fatalf("the damaged log was not kept as it was: %v", err)
	}
	sums := map[string]map[string]any{}
	for _, p := range []*proc{host, bob, cy2} {
		sums[p.name] = p.waitEvent(t, "summary", 100*time.Second)
		if err := p.wait(t, 20*time.Second); err != nil {
			t.Fatalf("%s exited with %v; stderr %s", p.name, err, p.stderr.String())
		}
		p.mu.Lock()
		for _, l := range p.lines {
			if l["event"] == "equivocation" {
				t.Errorf("%s saw an equivocation: %v", p.name, l)
			}
		}
		p.mu.Unlock()
	}
	want := sums["host"]
	for name, s := range sums {
		if s["log_hash"] != want["log_hash"] || s["log_entries"] != want["log_entries"] || s["reason"] == "" {
			t.Fatalf("%s ended with log %v (%v entries), host with %v (%v entries)", name, s["log_hash"], s["log_entries"], want["log_hash"], want["log_entries"])
		}
	}
	ref, _ := logEntries(t, homes[0])
	got, _ := logEntries(t, homes[2])
	if len(got) != len(ref) {
		t.Fatalf("cy's repaired log has %d entries on disk, the host %d", len(got), len(ref))
	}
	for i := range ref {
		if !bytes.Equal(got[i], ref[i]) {
			t.Fatalf("cy's repaired log differs from the host's at entry %d", i)
		}
	}
}
