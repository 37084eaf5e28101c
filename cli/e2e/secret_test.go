package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Secret tables (hidden cards by mental poker) as separate boardmesh
// processes on loopback: `play --auto` and `host`/`join` default to them,
// every player and spectator says so, the logs agree and `replay` verifies
// them; a joiner that asked for the other mode is refused and says why.

// hasEvent says whether p has printed a JSON line of event.
func (p *proc) hasEvent(event string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, l := range p.lines {
		if l != nil && l["event"] == event {
			return true
		}
	}
	return false
}

// replayVerifies runs `replay --json` on a log and checks that it
// verifies; it returns the replay's session id and entry count.
func replayVerifies(t *testing.T, log string) (string, float64) {
	t.Helper()
	out, errOut, code := run(t, 60*time.Second, "replay", log, "--json")
	var rep map[string]any
	if err := json.Unmarshal([]byte(out), &rep); err != nil || code != 0 || rep["verified"] != true {
		t.Fatalf("replay %s: exit %d, %v; stderr %s", log, code, err, errOut)
	}
	session, _ := rep["session"].(string)
	n, _ := rep["entries"].(float64)
	return session, n
}

// TestPlaySecretAuto: `play dominion --auto` and `play dragonslair --auto`
// play a whole game on a secret table (the default), the summary says so,
// the peers' logs agree, and each peer's log verifies with `replay`.
func TestPlaySecretAuto(t *testing.T) {
	t.Parallel()
	for _, game := range []string{"dominion", "dragonslair"} {
		t.Run(game, func(t *testing.T) {
			home := t.TempDir()
			out, errOut, code := run(t, 3*time.Minute, "play", game, "--auto", "--json", "--home", home, "--seed", "secret-"+game)
			var sum map[string]any
			if err := json.Unmarshal([]byte(out), &sum); err != nil || code != 0 {
				t.Fatalf("play %s: exit %d, %v; stdout %s; stderr %s", game, code, err, out, errOut)
			}
			if sum["mode"] != "secret table" || sum["logs_agree"] != true || sum["reason"] == "" {
				t.Fatalf("play %s: %v", game, sum)
			}
			log, _ := sum["log"].(string)
			logs, _ := filepath.Glob(filepath.Join(filepath.Dir(log), "peer*.log"))
			if len(logs) < 2 {
				t.Fatalf("play %s left %d peer logs in %s", game, len(logs), filepath.Dir(log))
			}
			var session string
			for _, l := range logs {
				s, n := replayVerifies(t, l)
				if session == "" {
					session = s
				}
				if s != session || n != sum["log_entries"] {
					t.Fatalf("%s: session %s with %v entries; the summary says %v entries (session %s)", l, s, n, sum["log_entries"], session)
				}
			}
		})
	}
}

// TestHostJoinSecretWithSpectator: a host and two joins as separate
// processes play Dominion and then Dragon's Lair on a secret table (the
// default of host and join), watched by a spectator. Every player's and
// the spectator's summary says "secret table"; the spectator says so live,
// while the game is still being played; all four end with the same log;
// each player's log verifies with `replay`.
func TestHostJoinSecretWithSpectator(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ game, bots string }{
		{"dominion", "bigmoney smithy witch"},
		{"dragonslair", "cautious bold careful"},
	} {
		t.Run(c.game, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			tmp := t.TempDir()
			bots := strings.Fields(c.bots)
			homes := []string{filepath.Join(tmp, "ada"), filepath.Join(tmp, "bob"), filepath.Join(tmp, "cy")}
			common := []string{"--loopback", "--json", "--bot-delay", "40ms"}
			host := start(t, ctx, "host", append([]string{"host", c.game, "--home", homes[0], "--name", "ada", "--bot", bots[0], "--start-when", "3"}, common...)...)
			addr := host.waitEvent(t, "lobby", 20*time.Second)["addrs"].([]any)[0].(string)
			bob := start(t, ctx, "bob", append([]string{"join", addr, "--home", homes[1], "--name", "bob", "--bot", bots[1]}, common...)...)
			cy := start(t, ctx, "cy", append([]string{"join", addr, "--home", homes[2], "--name", "cy", "--bot", bots[2]}, common...)...)
			dumpOnFailure(t, host, bob, cy)
			started := cy.waitEvent(t, "started", 30*time.Second)
			if text, _ := started["text"].(string); !strings.Contains(text, "secret table") {
				t.Fatalf("cy's start line does not say the table is secret: %v", started)
			}
			spec := start(t, ctx, "spectator", "spectate", addr, "--home", filepath.Join(tmp, "spec"), "--loopback", "--json")
			dumpOnFailure(t, spec)
			live := spec.waitEvent(t, "started", 60*time.Second)
			if live["mode"] != "secret table" || !strings.Contains(live["text"].(string), "never a hidden card") {
				t.Fatalf("the spectator's start line: %v", live)
			}
			if host.hasEvent("summary") {
				t.Log("the game ended before the spectator's first look: its start line is not shown to be live")
			}
			sums := map[string]map[string]any{}
			for _, p := range []*proc{host, bob, cy, spec} {
				sums[p.name] = p.waitEvent(t, "summary", 150*time.Second)
				if err := p.wait(t, 30*time.Second); err != nil {
					t.Fatalf("%s exited with %v; stderr %s", p.name, err, p.stderr.String())
				}
			}
			want := sums["host"]
			if want["reason"] == "" {
				t.Fatalf("the host's game did not end with a result: %v", want)
			}
			for name, s := range sums {
				if s["mode"] != "secret table" {
					t.Errorf("%s's summary says the table is %q", name, s["mode"])
				}
				if s["log_hash"] != want["log_hash"] || s["log_entries"] != want["log_entries"] || s["session"] != want["session"] {
					t.Fatalf("%s ended with log %v (%v entries), the host with %v (%v entries)", name, s["log_hash"], s["log_entries"], want["log_hash"], want["log_entries"])
				}
			}
			ref, _ := logEntries(t, homes[0])
			for _, h := range homes {
				got, path := logEntries(t, h)
				if len(got) != len(ref) {
					t.Fatalf("%s: %d entries on disk, the host has %d", path, len(got), len(ref))
				}
				for i := range ref {
					if !bytes.Equal(got[i], ref[i]) {
						t.Fatalf("%s: entry %d differs from the host's", path, i)
					}
				}
				if s, n := replayVerifies(t, path); s != want["session"] || n != want["log_entries"] {
					t.Fatalf("replay %s: session %s, %v entries; the table played %v with %v", path, s, n, want["session"], want["log_entries"])
				}
			}
		})
	}
}

// TestJoinWithTheOtherModeIsRefused: a joiner sits only at the table it
// asked for. Joining an open-hands table without --open-hands, or a
// secret table with it, is refused at once (from the lobby's answer,
// before joining) with an error that names both modes and the flag; the
// joiner exits non-zero and the host never counts it.
func TestJoinWithTheOtherModeIsRefused(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name           string
		hostArgs, join []string
		want           []string
	}{
		{"open host, secret joiner", []string{"--open-hands"}, nil, []string{"open hands", "join with --open-hands"}},
		{"secret host, open joiner", nil, []string{"--open-hands"}, []string{"secret table", "you asked for open hands", "without --open-hands"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
			defer cancel()
			tmp := t.TempDir()
			common := []string{"--loopback", "--json"}
			host := start(t, ctx, "host", append(append([]string{"host", "dominion", "--home", filepath.Join(tmp, "a"), "--name", "ada", "--bot", "bigmoney", "--start-when", "2"}, c.hostArgs...), common...)...)
			addr := host.waitEvent(t, "lobby", 20*time.Second)["addrs"].([]any)[0].(string)
			bob := start(t, ctx, "bob", append(append([]string{"join", addr, "--home", filepath.Join(tmp, "b"), "--name", "bob", "--bot", "smithy"}, c.join...), common...)...)
			dumpOnFailure(t, host, bob)
			err := bob.wait(t, 60*time.Second)
			if err == nil {
				t.Fatalf("bob joined a table of the other mode and exited 0; stdout %q", bob.raw)
			}
			bob.mu.Lock()
			msg := bob.stderr.String() + strings.Join(bob.raw, "\n")
			bob.mu.Unlock()
			for _, w := range c.want {
				if !strings.Contains(msg, w) {
					t.Errorf("bob's refusal does not say %q: %s", w, msg)
				}
			}
			if bob.hasEvent("started") {
				t.Errorf("bob started a game at a table of the other mode")
			}
			if host.hasEvent("started") {
				t.Errorf("the host started a game with a joiner that refused its mode")
			}
			// The joiner read the mode in the lobby's answer and left before
			// joining: the host is not left waiting for its accept.
			time.Sleep(time.Second)
			if host.saw("bob joined") {
				t.Errorf("bob joined the lobby before refusing its mode; the host waits for him: %q", host.raw)
			}
		})
	}
}
