package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/boardmesh/boardmesh/engine/games"
	"github.com/spf13/cobra"
)

// TestUnknownCommandIsAUsageError: exit 2, with the command named and a
// suggestion when one is near.
func TestUnknownCommandIsAUsageError(t *testing.T) {
	_, errOut, code := run(t, "plya")
	if code != ExitUsage || !strings.Contains(errOut, `unknown command "plya"`) || !strings.Contains(errOut, `did you mean "play"`) {
		t.Fatalf("exit %d, %q", code, errOut)
	}
	_, errOut, code = run(t, "frobnicate")
	if code != ExitUsage || !strings.Contains(errOut, "boardmesh --help") {
		t.Fatalf("exit %d, %q", code, errOut)
	}
}

// TestVersion prints the rules version of every game.
func TestVersion(t *testing.T) {
	out, _, code := run(t, "version", "--json")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	var v versionInfo
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatal(err)
	}
	for _, g := range games.All() {
		if v.Rules[g.Name] != g.Version || !strings.HasPrefix(g.Version, g.Name+"/") {
			t.Errorf("%s: version prints %q, the game says %q", g.Name, v.Rules[g.Name], g.Version)
		}
	}
	if v.Go == "" || v.Version == "" {
		t.Errorf("version %+v", v)
	}
	out, _, _ = run(t, "version")
	if !strings.Contains(out, "infinitecity  rules infinitecity/4") {
		t.Errorf("version text:\n%s", out)
	}
}

var jsonKey = regexp.MustCompile(`"([A-Za-z0-9_]+)":`)

// TestGamesJSONIsSnakeCase: no Go field names, option kinds in words.
func TestGamesJSONIsSnakeCase(t *testing.T) {
	out, _, code := run(t, "games", "--json")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, k := range jsonKey.FindAllStringSubmatch(out, -1) {
		if k[1] != strings.ToLower(k[1]) {
			t.Errorf("key %q is not snake_case", k[1])
		}
	}
	var list []gameInfo
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatal(err)
	}
	for _, g := range list {
		for _, o := range g.Options {
			if o.Kind != "int" && o.Kind != "bool" && o.Kind != "choice" && o.Kind != "text" {
				t.Errorf("%s: option %s has kind %q", g.Name, o.Name, o.Kind)
			}
		}
		if len(g.Bots) == 0 || g.Bots[0].Help == "" {
			t.Errorf("%s: bots %+v", g.Name, g.Bots)
		}
	}
}

// TestSpectateOffersNoSeatFlags: a spectator has no seat to play, drop or
// break, and its help says so by not offering those flags.
func TestSpectateOffersNoSeatFlags(t *testing.T) {
	out, _, code := run(t, "spectate", "--help")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, f := range []string{"--bot", "--drop-after", "--inject-desync", "--bot-delay", "--name"} {
		if strings.Contains(out, f+" ") {
			t.Errorf("spectate --help offers %s", f)
		}
	}
	if _, _, code := run(t, "spectate", "--bot", "random", "x"); code != ExitUsage {
		t.Errorf("spectate --bot: exit %d, want %d", code, ExitUsage)
	}
}

// TestEveryCommandHasExamples: the help of every command shows how to use
// it.
func TestEveryCommandHasExamples(t *testing.T) {
	io, _, _, _ := TestIO()
	root := NewCmdRoot(&Factory{IO: io})
	for _, c := range root.Commands() {
		if c.Name() == "help" || c.Name() == "completion" {
			continue
		}
		if c.Example == "" {
			t.Errorf("%s --help has no examples", c.Name())
		}
		for _, sub := range c.Commands() {
			if sub.Example == "" {
				t.Errorf("%s %s --help has no examples", c.Name(), sub.Name())
			}
		}
	}
}

// TestHelpTextFitsEightyColumns: every command's own help text (its Long
// and Example, which boardmesh writes; cobra lays out the flags) reads on
// an 80-column terminal without lines wrapped mid-phrase. Only a word too
// long for any line (a Dominion kingdom) may stand alone past the edge.
func TestHelpTextFitsEightyColumns(t *testing.T) {
	io, _, _, _ := TestIO()
	root := NewCmdRoot(&Factory{IO: io})
	var check func(c *cobra.Command)
	check = func(c *cobra.Command) {
		if c.Name() == "help" || c.Name() == "completion" {
			return
		}
		for _, text := range []string{c.Long, c.Example} {
			for _, line := range strings.Split(text, "\n") {
				if n := utf8.RuneCountInString(line); n > 80 && strings.ContainsRune(strings.TrimSpace(line), ' ') {
					t.Errorf("%s --help has a line of %d columns: %s", c.CommandPath(), n, line)
				}
			}
		}
		for _, sub := range c.Commands() {
			check(sub)
		}
	}
	check(root)
}

// TestCompletion: games, bot kinds and session ids complete; not files.
func TestCompletion(t *testing.T) {
	out, _, _ := run(t, "__complete", "play", "dom")
	if !strings.Contains(out, "dominion\t") || strings.Contains(out, "dragonslair") || !strings.Contains(out, ":4") {
		t.Errorf("play GAME completes:\n%s", out)
	}
	out, _, _ = run(t, "__complete", "sim", "dragonslair", "--bots", "cautious,b")
	if !strings.Contains(out, "cautious,bold\t") || strings.Contains(out, "bigmoney") {
		t.Errorf("--bots completes:\n%s", out)
	}
	home := t.TempDir()
	out, _, _ = run(t, "__complete", "resume", "--home", home, "")
	if strings.Contains(out, "\t") || !strings.Contains(out, ":4") {
		t.Errorf("resume in an empty home completes:\n%s", out)
	}
	dir := filepath.Join(home, "sessions", "3fa9c2d41b7e00112233")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	meta := `{"lobby":"3fa9c2d41b7e00112233","game":"dominion","role":"host"}`
	if err := os.WriteFile(filepath.Join(dir, "session.json"), []byte(meta), 0o600); err != nil {
		t.Fatal(err)
	}
	out, _, _ = run(t, "__complete", "resume", "--home", home, "3f")
	if !strings.Contains(out, "3fa9c2d41b7e\tdominion (host)") {
		t.Errorf("resume completes:\n%s", out)
	}
}

// TestResumeCommandWorksAsPrinted: the Rejoin hint keeps the --home in
// use (quoted for the shell when it must be) and --loopback.
func TestResumeCommandWorksAsPrinted(t *testing.T) {
	if got := resumeCommand(&NetFlags{}, "3fa9c2d41b7e"); got != "boardmesh resume 3fa9c2d41b7e" {
		t.Errorf("plain: %q", got)
	}
	if got := resumeCommand(&NetFlags{Home: "/tmp/ana", Loopback: true}, "3fa9c2d41b7e"); got != "boardmesh resume --home /tmp/ana --loopback 3fa9c2d41b7e" {
		t.Errorf("with a home: %q", got)
	}
	if got := resumeCommand(&NetFlags{Home: "/tmp/my home's"}, "x"); got != `boardmesh resume --home '/tmp/my home'\''s' x` {
		t.Errorf("quoted: %q", got)
	}
	// And the command parses as printed.
	if _, errOut, code := run(t, "resume", "--home", t.TempDir(), "--loopback", "3fa9c2d41b7e"); code == ExitUsage {
		t.Errorf("the printed resume command is a usage error: %s", errOut)
	}
}
