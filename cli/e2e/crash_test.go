package e2e

import (
	"context"
	bin "encoding/binary"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/boardmesh/boardmesh/lockstep"
)

// crashRuns is how many kill -9 runs TestCrashRuns makes. CI keeps it
// small; docs/reliability.md records a run of 50:
//
//	go test -count=1 -timeout 60m ./cli/e2e -run TestCrashRuns -crashruns=50 -v
var (
	crashRuns = flag.Int("crashruns", 4, "number of kill -9 runs in TestCrashRuns")
	crashSeed = flag.Uint64("crashseed", 0, "seed of TestCrashRuns' choices (0: from the clock; each run logs its own)")
)

// TestCrashRuns plays N games of three boardmesh processes on loopback.
// In each, one peer chosen at random (the host too) is killed with
// SIGKILL at a random point of the game; in every other run the crash
// also loses the log's unsynced tail, as a power cut can: the file is cut
// back to a random record boundary after the peer's last own signed
// envelope (which the protocol requires to be on disk before it was sent,
// so nothing before it may be lost), plus a few torn bytes. The peer is
// restarted with `resume`. What a user checks: every game ends, every
// peer's summary has the same log, nobody is accused of cheating or of a
// desync, and every process exits 0.
func TestCrashRuns(t *testing.T) {
	t.Parallel()
	seed := *crashSeed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("crash runs: %d, seed %d (rerun with -crashseed=%d)", *crashRuns, seed, seed)
	rng := rand.New(rand.NewPCG(seed, 0x62_6f_61_72_64))
	var cut, plain, before int
	for run := range *crashRuns {
		lose := run%2 == 1
		victim := rng.IntN(3)
		at := 5 + rng.IntN(140)
		junk := rng.IntN(24)
		ok := t.Run(fmt.Sprintf("run%02d", run), func(t *testing.T) {
			killed := crashRun(t, victim, at, lose, junk, rng.Uint64())
			switch {
			case !killed:
				before++
			case lose:
				cut++
			default:
				plain++
			}
		})
		if !ok {
			t.Logf("run %d failed: victim %d, kill at %d entries, lose tail %v", run, victim, at, lose)
		}
	}
	t.Logf("crash runs done: %d killed (plain), %d killed with a lost tail, %d ended before the kill point", plain, cut, before)
}

// crashRun plays one game; it reports whether the victim was killed (a
// short game can end before the kill point).
func crashRun(t *testing.T, victim, at int, lose bool, junk int, cutSeed uint64) bool {
	ctx, cancel := context.WithTimeout(context.Background(), 150*time.Second)
	defer cancel()
	tmp := t.TempDir()
	names := []string{"ada", "bob", "cy"}
	bots := []string{"cautious", "random", "bold"}
	homes := make([]string, 3)
	for i, n := range names {
		homes[i] = filepath.Join(tmp, n)
	}
	common := []string{"--loopback", "--json", "--bot-delay", "15ms"}
	procs := make([]*proc, 3)
	procs[0] = start(t, ctx, "ada", append([]string{"host", "dragonslair", "--home", homes[0], "--name", "ada", "--bot", bots[0], "--start-when", "3"}, common...)...)
	lobby := procs[0].waitEvent(t, "lobby", 20*time.Second)
	addrs, _ := lobby["addrs"].([]any)
	if len(addrs) == 0 {
		t.Fatalf("host printed no address: %v", lobby)
	}
	for i := 1; i < 3; i++ {
		procs[i] = start(t, ctx, names[i], append([]string{"join", addrs[0].(string), "--home", homes[i], "--name", names[i], "--bot", bots[i]}, common...)...)
	}
	procs[victim].waitEvent(t, "started", 30*time.Second)
	killed := false
	deadline := time.Now().Add(60 * time.Second)
	for !killed && !procs[victim].stopped() {
		if entries, _ := logEntries(t, homes[victim]); len(entries) >= at {
			if err := procs[victim].cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			<-procs[victim].done
			killed = true
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s's log did not reach %d entries", names[victim], at)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if killed {
		if lose {
			loseTail(t, homes[victim], junk, cutSeed)
		}
		procs[victim] = start(t, ctx, names[victim]+" resumed", append([]string{"resume", "--home", homes[victim]}, common...)...)
	}
	var want map[string]any
	for i, p := range procs {
		s := p.waitEvent(t, "summary", 120*time.Second)
		if err := p.wait(t, 20*time.Second); err != nil {
			t.Fatalf("%s exited with %v; stderr %s", p.name, err, p.stderr.String())
		}
		accused(t, p)
		if i == 0 {
			want = s
			continue
		}
		if s["log_hash"] != want["log_hash"] || s["log_entries"] != want["log_entries"] {
			t.Fatalf("%s ended with log %v (%v entries), ada with %v (%v entries)", p.name, s["log_hash"], s["log_entries"], want["log_hash"], want["log_entries"])
		}
	}
	if want["reason"] == "" || want["reason"] == nil {
		t.Fatalf("the game did not end: %v", want)
	}
	return killed
}

// accused fails if a process reported a cheat or a desync: in this test
// every peer is honest.
func accused(t *testing.T, p *proc) {
	t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	for k, l := range p.lines {
		ev, _ := l["event"].(string)
		if ev == "equivocation" || ev == "desync" || ev == "cheat" || ev == "rejected" || l["desync"] != nil {
			t.Fatalf("%s accused someone although every peer is honest: %s", p.name, p.raw[k])
		}
	}
	for _, w := range []string{"signed two different", "cheat", "panic:", "forged"} {
		if strings.Contains(p.stderr.String(), w) {
			t.Fatalf("%s said %q although every peer is honest; stderr %s", p.name, w, p.stderr.String())
		}
	}
}

// loseTail models a power cut after a SIGKILL: the log loses a random
// number of whole records after the last record the peer signed itself
// (type 2, which must have been fsynced before it was sent), then gets
// junk torn bytes, as a half-written record.
func loseTail(t *testing.T, home string, junk int, seed uint64) {
	t.Helper()
	_, path := logEntries(t, home)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ends, lastSent := recordEnds(b)
	var cuts []int
	for _, e := range ends {
		if e >= lastSent {
			cuts = append(cuts, e)
		}
	}
	if len(cuts) == 0 {
		cuts = []int{len(lockstep.LogMagic)}
	}
	rng := rand.New(rand.NewPCG(seed, 1))
	at := cuts[rng.IntN(len(cuts))]
	tail := make([]byte, junk)
	for i := range tail {
		tail[i] = byte(rng.UintN(256))
	}
	out := append(append([]byte(nil), b[:at]...), tail...)
	if err := os.WriteFile(path, out, 0o600); err != nil {
		t.Fatal(err)
	}
	records := len(lockstep.LogMagic)
	if len(ends) > 0 {
		records = ends[len(ends)-1]
	}
	t.Logf("lost the tail: cut %d bytes of records back to %d (last own record ends at %d; and the log's room, %d bytes), added %d torn bytes", records-at, at, lastSent, len(b)-records, junk)
}

// recordEnds walks a log file (docs/protocol.md §6) and returns where each
// whole record ends, and where the last own-envelope record (type 2)
// ends.
func recordEnds(b []byte) (ends []int, lastSent int) {
	off := len(lockstep.LogMagic)
	lastSent = off
	for off+4 <= len(b) {
		n := int(bin.BigEndian.Uint32(b[off:]))
		end := off + 4 + n + 4
		if n < 1 || end > len(b) {
			break
		}
		if b[off+4] == byte(lockstep.RecordSent) {
			lastSent = end
		}
		ends = append(ends, end)
		off = end
	}
	return ends, lastSent
}
