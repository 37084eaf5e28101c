package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/boardmesh/boardmesh/engine/games"
	"github.com/boardmesh/boardmesh/p2p"
)

// run executes boardmesh with args against buffers and returns stdout,
// stderr and the exit code Execute would use.
func run(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	io, _, out, errOut := TestIO()
	root := NewCmdRoot(&Factory{IO: io})
	root.SetArgs(args)
	err := root.Execute()
	if err != nil {
		errOut.WriteString("boardmesh: " + err.Error() + "\n")
	}
	return out.String(), errOut.String(), exitCode(err)
}

func TestSimSameSeedSameOutput(t *testing.T) {
	args := []string{"sim", "dragonslair", "--players", "3", "--games", "200", "--seed", "same"}
	a, _, code := run(t, args...)
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	b, _, _ := run(t, args...)
	if a != b {
		t.Fatal("the same seed gave different reports")
	}
	c, _, _ := run(t, "sim", "dragonslair", "--players", "3", "--games", "200", "--seed", "other")
	if a == c {
		t.Fatal("a different seed gave the same report")
	}
	for _, want := range []string{"200 games, 3 players", "win rate", "seat 3", "mean game length", "bust chance after one noise"} {
		if !strings.Contains(a, want) {
			t.Errorf("report lacks %q:\n%s", want, a)
		}
	}
}

func TestSimJSON(t *testing.T) {
	out, _, code := run(t, "sim", "dragonslair", "--games", "50", "--bots", "cautious,random", "--json")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	var rep SimReport
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("--json output does not parse: %v\n%s", err, out)
	}
	if rep.Games != 50 || len(rep.Bots) != 2 || len(rep.Seats) != rep.Players {
		t.Fatalf("report = %+v", rep)
	}
	played := 0
	for _, b := range rep.Bots {
		played += b.Played
	}
	if played != 50*rep.Players {
		t.Fatalf("bots played %d seat-games, want %d", played, 50*rep.Players)
	}
	wins := 0
	for _, s := range rep.Seats {
		wins += s.Wins
		if s.CILow > s.WinRate || s.CIHigh < s.WinRate {
			t.Errorf("%s: interval %.3f–%.3f does not contain %.3f", s.Name, s.CILow, s.CIHigh, s.WinRate)
		}
	}
	if wins < 50 {
		t.Fatalf("only %d wins in 50 games", wins)
	}
}

func TestEveryGameSimulatesAndHasRules(t *testing.T) {
	for _, g := range games.All() {
		out, errOut, code := run(t, "sim", g.Name, "--games", "3")
		if code != 0 {
			t.Errorf("sim %s: exit %d: %s", g.Name, code, errOut)
		}
		if !strings.Contains(out, g.Title) {
			t.Errorf("sim %s: report does not name the game", g.Name)
		}
		text, errOut, code := run(t, "rules", g.Name)
		if code != 0 || len(text) < 2000 {
			t.Errorf("rules %s: exit %d, %d bytes: %s", g.Name, code, len(text), errOut)
		}
	}
}

func TestBadInputGetsOneClearLine(t *testing.T) {
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"sim", "chess"}, ExitUsage, "the games are: dragonslair"},
		{[]string{"rules", "chess"}, ExitUsage, "unknown game \"chess\""},
		{[]string{"sim", "dragonslair", "--players", "9"}, ExitUsage, "for 2 to 8 players, not 9"},
		{[]string{"sim", "dragonslair", "--players", "1"}, ExitUsage, "for 2 to 8 players, not 1"},
		{[]string{"sim", "dragonslair", "--options", "colour=red"}, ExitUsage, "unknown option \"colour\""},
		{[]string{"sim", "dragonslair", "--options", "edition=deluxe"}, ExitUsage, "want one of full, free"},
		{[]string{"sim", "dragonslair", "--bots", "genius"}, ExitUsage, "its bots are: "},
		{[]string{"sim", "dragonslair", "--games", "0"}, ExitUsage, "--games must be at least 1"},
		{[]string{"sim", "dragonslair", "--players", "many"}, ExitUsage, "invalid argument"},
		{[]string{"sim"}, ExitUsage, "accepts 1 arg"},
		{[]string{"frobnicate"}, ExitUsage, "unknown command"},
	}
	for _, c := range cases {
		out, errOut, code := run(t, c.args...)
		if code != c.code || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and %q", c.args, code, errOut, c.code, c.want)
		}
		if strings.Count(strings.TrimSpace(errOut), "\n") > 0 {
			t.Errorf("%v: error is more than one line: %q", c.args, errOut)
		}
		if out != "" && c.code != 0 {
			t.Errorf("%v: printed to stdout on error: %q", c.args, out)
		}
	}
}

func TestGamesJSONListsEveryGame(t *testing.T) {
	out, _, code := run(t, "games", "--json")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	var list []gameInfo
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatal(err)
	}
	if len(list) != len(games.All()) || list[0].Name != "dragonslair" {
		t.Fatalf("games --json = %+v", list)
	}
}

func TestHelpReads(t *testing.T) {
	out, _, code := run(t, "--help")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"boardmesh play", "rules", "sim"} {
		if !strings.Contains(out, want) {
			t.Errorf("help lacks %q", want)
		}
	}
}

func TestSimRulesFile(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "tables.json")
	if err := os.WriteFile(good, []byte(`{"capital_ip": 4, "set_ip": 3}`), 0o644); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := run(t, "sim", "serpentcity", "--games", "2", "--rules", good)
	if code != 0 {
		t.Fatalf("--rules with a valid table: exit %d: %s", code, errOut)
	}
	if !strings.Contains(out, "rules=<") {
		t.Errorf("report does not show the rules table was used:\n%s", out)
	}
	plain, _, _ := run(t, "sim", "serpentcity", "--games", "2")
	if plain == out {
		t.Error("a changed rules table left the report identical")
	}
	bad := filepath.Join(dir, "bad.json")
	if err := os.WriteFile(bad, []byte(`{"capitol_ip": 4}`), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errOut, code = run(t, "sim", "serpentcity", "--games", "2", "--rules", bad)
	if code != ExitUsage || !strings.Contains(errOut, "capitol_ip") {
		t.Errorf("misspelt table: exit %d, %q", code, errOut)
	}
	_, errOut, code = run(t, "sim", "serpentcity", "--rules", filepath.Join(dir, "missing.json"))
	if code != ExitUsage || !strings.Contains(errOut, "missing.json") {
		t.Errorf("missing file: exit %d, %q", code, errOut)
	}
}

func TestBenchEngineJSON(t *testing.T) {
	out, errOut, code := run(t, "bench", "engine", "--game", "dragonslair", "--duration", "50ms", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var res []BenchEngineResult
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(res) != 1 || res[0].Games < 1 || res[0].StepsPer < 10 || res[0].StateBytes < 10 || res[0].HashNanos <= 0 {
		t.Fatalf("bench engine = %+v", res)
	}
	_, errOut, code = run(t, "bench", "engine", "--game", "dominion", "--players", "7")
	if code != ExitUsage || !strings.Contains(errOut, "2 to 6 players") {
		t.Fatalf("bad player count: exit %d, %q", code, errOut)
	}
}

// TestBenchNetGameJSON runs bench net at its smallest and checks that the
// whole-game figures are filled in and consistent with each other (the
// figures themselves are not judged).
func TestBenchNetGameJSON(t *testing.T) {
	out, errOut, code := run(t, "bench", "net", "--peers", "2", "--broadcasts", "5", "--think", "0", "--model-games", "2", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var res []p2p.NetBench
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(res) != 1 {
		t.Fatalf("bench net = %+v", res)
	}
	g := res[0].Game
	// The lobby alone is four rounds (joins, roster, accepts, seat draw),
	// and a round holds one entry at least. (Fewer rounds than steps is
	// right: a peer's second move in a row, or a turn's first move with
	// its author's checkpoint, leaves in the round before it:
	// lockstep.CriticalRounds.)
	if g.Steps < 10 || g.Rounds <= 4 || g.Rounds > g.Entries || g.Wall <= 0 || g.StartToMove <= 0 || g.StartToMove > g.Wall || g.JoinToMove <= 0 || g.FsyncP50 <= 0 ||
		g.Floor != time.Duration(g.Rounds)*res[0].GossipP50 {
		t.Fatalf("bench net game = %+v (gossip p50 %v)", g, res[0].GossipP50)
	}
	// What the floor leaves room for: a round's own work (a sign, an
	// fsync and a verify on top of the hop) and the cores the peers share.
	if work := 1 + float64(g.SignP50+g.FsyncP50+g.VerifyP50)/float64(res[0].GossipP50); g.SignP50 <= 0 || g.VerifyP50 <= 0 || g.LeastByWork != work ||
		g.Cores < 1 || (g.CPU > 0 && g.LeastByCores != float64(g.CPU)/float64(g.Cores)/float64(g.Floor)) {
		t.Fatalf("bench net game = %+v: least by work want %v, least by cores want CPU / cores / floor", g, work)
	}
	// Where the commit time goes: every stage of the receiving peer's path,
	// in order, each reached after the action was published; with one
	// receiver, the first to reach a stage is the last.
	want := []string{"validating", "validated", "received", "stepped", "logged", "shown"}
	st := res[0].Stages
	if len(st) != len(want) {
		t.Fatalf("stages = %+v, want %v", st, want)
	}
	for i, s := range st {
		if s.Stage != want[i] || s.FirstP50 <= 0 || s.FirstP50 != s.LastP50 {
			t.Fatalf("stage %d = %+v, want %s reached after publishing, first = last", i, s, want[i])
		}
	}
	// The two games modelled with a core per peer: they end, their floor is their
	// rounds × the same gossip p50, an action commits no sooner than a
	// broadcast takes, and nothing is asked for again.
	m := res[0].Model
	if m.Games != 2 || m.Steps < 20 || m.Rounds <= 8 || m.Floor != time.Duration(m.Rounds)*res[0].GossipP50 || m.Wall < m.Floor ||
		m.WallPerFloor != float64(m.Wall)/float64(m.Floor) || m.CommitP50 < res[0].GossipP50 || m.Asks != 0 ||
		res[0].ModelCommitRatio != float64(m.CommitP50)/float64(res[0].GossipP50) || res[0].DeliveryCPU <= 0 {
		t.Fatalf("modelled game = %+v (gossip p50 %v, ratio %v)", m, res[0].GossipP50, res[0].ModelCommitRatio)
	}
}

// TestBenchVerifyJSON plays a real 2-peer game and checks what bench
// verify reports of its log (the figures themselves are not judged).
func TestBenchVerifyJSON(t *testing.T) {
	out, errOut, code := run(t, "bench", "verify", "--game", "dominion", "--players", "2", "--duration", "1ms", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var res BenchVerifyResult
	if err := json.Unmarshal([]byte(out), &res); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if res.Game != "dominion" || res.Players != 2 || res.Entries < 20 || res.Passes < 1 || res.Ceiling <= 0 || res.Verify <= 0 || res.Stdlib <= 0 {
		t.Fatalf("bench verify = %+v", res)
	}
	_, errOut, code = run(t, "bench", "verify", "--players", "9")
	if code != ExitUsage || !strings.Contains(errOut, "players") {
		t.Fatalf("bad player count: exit %d, %q", code, errOut)
	}
}
