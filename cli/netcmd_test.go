package cli

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The commands' flags reach their options structs (runF stands in for the
// run function, so nothing touches the network).
func TestNetCommandsParseFlags(t *testing.T) {
	io, _, _, _ := TestIO()
	f := &Factory{IO: io}

	var play *PlayOptions
	cmd := newCmdPlay(f, func(o *PlayOptions) error { play = o; return nil })
	cmd.SetArgs([]string{"dragonslair", "--bots", "2", "--watch", "--json", "--options", "a=1"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if play.Game != "dragonslair" || play.Bots != 2 || !play.Watch || !play.JSON || len(play.Options.Items) != 1 {
		t.Fatalf("play options: %+v", play)
	}
	cmd = newCmdPlay(f, func(o *PlayOptions) error { play = o; return nil })
	cmd.SetArgs(nil)
	if err := cmd.Execute(); err != nil || play.Game != "" || play.Bots != -1 || play.InjectDesync != -1 {
		t.Fatalf("play with no arguments: %+v, %v", play, err)
	}
	cmd = newCmdPlay(f, func(o *PlayOptions) error { play = o; return nil })
	cmd.SetArgs([]string{"--inject-desync", "12", "--home", "h"})
	if err := cmd.Execute(); err != nil || play.InjectDesync != 12 || play.Home != "h" {
		t.Fatalf("play --inject-desync 12: %+v, %v", play, err)
	}

	var host *HostOptions
	cmd = newCmdHost(f, func(o *HostOptions) error { host = o; return nil })
	cmd.SetArgs([]string{"dragonslair", "--name", "Ada", "--start-when", "3", "--port", "4001", "--loopback", "--bot", "cautious"})
	if err := cmd.Execute(); err != nil {
		t.Fatal(err)
	}
	if host.Game != "dragonslair" || host.Net.Name != "Ada" || host.StartWhen != 3 || host.Net.Port != 4001 || !host.Net.Loopback || host.Net.Bot != "cautious" {
		t.Fatalf("host options: %+v", host)
	}
	cmd = newCmdHost(f, func(o *HostOptions) error { return nil })
	cmd.SetArgs(nil)
	var u *UsageError
	if err := cmd.Execute(); !errors.As(err, &u) {
		t.Fatalf("host without a game: %v, want a usage error", err)
	}

	var join *JoinOptions
	cmd = newCmdJoin(f, func(o *JoinOptions) error { join = o; return nil })
	cmd.SetArgs([]string{"amber-falcon-river", "--wait", "2s", "--json"})
	if err := cmd.Execute(); err != nil || join.Target != "amber-falcon-river" || join.Wait != 2*time.Second || !join.Net.JSON {
		t.Fatalf("join options: %+v, %v", join, err)
	}

	var resume *ResumeOptions
	cmd = newCmdResume(f, func(o *ResumeOptions) error { resume = o; return nil })
	cmd.SetArgs([]string{"3fa9", "--bot", "random"})
	if err := cmd.Execute(); err != nil || resume.Session != "3fa9" || resume.Net.Bot != "random" || resume.Net.InjectDesync != -1 {
		t.Fatalf("resume options: %+v, %v", resume, err)
	}

	var bench *BenchNetOptions
	cmd = newCmdBenchNet(f, func(o *BenchNetOptions) error { bench = o; return nil })
	cmd.SetArgs([]string{"--peers", "2, 4,8"})
	if err := cmd.Execute(); err != nil || len(bench.Peers) != 3 || bench.Peers[2] != 8 {
		t.Fatalf("bench net options: %+v, %v", bench, err)
	}
	cmd = newCmdBenchNet(f, func(o *BenchNetOptions) error { return nil })
	cmd.SetArgs([]string{"--peers", "1,x"})
	if err := cmd.Execute(); !errors.As(err, &u) {
		t.Fatalf("bench net --peers 1,x: %v, want a usage error", err)
	}
}

// play --auto without a terminal plays a whole game between real peers and
// says every peer committed the same log; the log it names is kept under
// the home and replays and verifies.
func TestPlayAutoSummary(t *testing.T) {
	io, _, out, _ := TestIO()
	home := t.TempDir()
	err := playRun(&PlayOptions{IO: io, Bots: 1, Auto: true, Seed: "t", Home: home, InjectDesync: -1})
	if err != nil {
		t.Fatal(err)
	}
	s := out.String()
	if !strings.Contains(s, "All 2 peers committed identical logs") || !strings.Contains(s, "winner") {
		t.Fatalf("summary:\n%s", s)
	}
	path := replayPath(t, s)
	if !strings.HasPrefix(path, filepath.Join(home, "plays")) {
		t.Fatalf("log %s is not under the home %s", path, home)
	}
	rout, rerr, code := run(t, "replay", path)
	if code != 0 || !strings.Contains(rout, "verified:") || !strings.Contains(rout, "game over") {
		t.Fatalf("replay %s: exit %d\n%s%s", path, code, rout, rerr)
	}
}

// replayPath finds the path in the "boardmesh replay PATH" line of out.
func replayPath(t *testing.T, out string) string {
	t.Helper()
	for _, line := range strings.Split(out, "\n") {
		if p, ok := strings.CutPrefix(strings.TrimSpace(line), "boardmesh replay "); ok {
			// "--seat N PATH   # with your own cards" at a secret table.
			p, _, _ = strings.Cut(p, "#")
			f := strings.Fields(p)
			return f[len(f)-1]
		}
	}
	t.Fatalf("no 'boardmesh replay PATH' line in:\n%s", out)
	return ""
}
