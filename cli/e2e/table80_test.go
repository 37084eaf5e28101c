package e2e

import (
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestEachGameAt80x24 plays each game in a real terminal of 80×24 (tmux):
// it reads the game's essentials on the first screen of our turn, makes
// the highlighted move by the key the screen shows and reads it in the
// history, opens the whole history and scrolls it to its top, opens the
// help (keys, the rules in short), and leaves with q, answering the
// question first with n (it stays) and then with y.
func TestEachGameAt80x24(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Skip("this test needs tmux")
	}
	cases := []struct {
		game, title string
		// essentials are texts the first screen shows; patterns regexps
		// (the Dragon's Lair full board and its compact one differ).
		essentials, patterns []string
	}{
		{"dominion", "Dominion", []string{"Hand: ", "In play: ", "Province $8[", "Cellar $2[", "S1", "S2", "VP", "phase: "}, nil},
		{"dragonslair", "The Sleeping Dragon's Lair", []string{"Bag", "seat 1 ", "seat 2 ", " gold"},
			[]string{`(?i)dragon +\d+/\d+`, `Dwarf Digger|Wandering Bard|Fearless Knight|Alchemist|Trophy Hunter|Night Thief|Elf Tracker|Sleepy Wizard`}},
		{"serpentcity", "Serpent City", []string{"Road ", "START ", "Capital ", "A Seat 1", "B Seat 2", " IP · ", " MP left"}, nil},
		{"infinitecity", "Infinite City", []string{"Your hand: ", "[]", "S1", "S2", "pt ", "mk ", "* protected"}, nil},
	}
	for _, c := range cases {
		t.Run(c.game, func(t *testing.T) {
			// --open-hands: the history names a laid tile by its menu label
			// only on an open table (on a secret one the describing engine
			// does not know the tile in hand: "Play a tile at …").
			x, exitFile := startPlay(t, 80, 24, c.game+" --open-hands --bots 1 --delay 100ms --seed e2e80")
			s := x.waitScreen(regexp.MustCompile(`(?m)^Your move`), 60*time.Second)
			checkFits(t, s, c.title, 24)
			for _, want := range c.essentials {
				if !strings.Contains(s, want) {
					t.Fatalf("the screen lacks %q:\n%s", want, s)
				}
			}
			for _, want := range c.patterns {
				if !regexp.MustCompile(want).MatchString(s) {
					t.Fatalf("the screen lacks %s:\n%s", want, s)
				}
			}
			if strings.Contains(s, "board lines") {
				t.Fatalf("the essentials need scrolling at 80x24:\n%s", s)
			}
			// The highlighted move, by the key shown before it. A long
			// menu is laid out in two columns: the label ends where a
			// wide gap starts the next column ("> 1) Play Library at
			// (0,-2)        9) Play …").
			m := regexp.MustCompile(`> (\w)\) (.+?)(?: {3,}|\s*\n)`).FindStringSubmatch(s)
			if m == nil {
				t.Fatalf("no highlighted move:\n%s", s)
			}
			x.run("send-keys", "-t", "bm", m[1])
			label := strings.TrimSuffix(strings.TrimSuffix(m[2], "…"), " …  ")
			if strings.Contains(m[2], "choices)") {
				// A group: its first square.
				x.waitScreen(regexp.MustCompile(`Your move › `), 5*time.Second)
				x.run("send-keys", "-t", "bm", "1")
				label = strings.SplitN(m[2], " …", 2)[0]
			}
			x.waitScreen(regexp.MustCompile(`you \(seat \d\): `+regexp.QuoteMeta(label)), 20*time.Second)

			// The whole history, scrolled to its top.
			x.run("send-keys", "-t", "bm", "L")
			s = x.waitScreen(regexp.MustCompile(`History  \(lines \d+–\d+ of \d+\)`), 5*time.Second)
			if !strings.Contains(s, "you (seat") {
				t.Fatalf("the history lacks our move:\n%s", s)
			}
			x.run("send-keys", "-t", "bm", "g")
			x.waitScreen(regexp.MustCompile(`History  \(lines 1–`), 5*time.Second)
			x.run("send-keys", "-t", "bm", "Escape")
			x.waitScreen(regexp.MustCompile(`\? help · q quit`), 5*time.Second)

			// The help: keys and the rules in short.
			x.run("send-keys", "-t", "bm", "?")
			s = x.waitScreen(regexp.MustCompile(`Help: `+regexp.QuoteMeta(c.title)), 5*time.Second)
			if !strings.Contains(s, "Keys:") || !strings.Contains(s, "The rules in short") {
				t.Fatalf("the help lacks the keys or the rules:\n%s", s)
			}
			x.run("send-keys", "-t", "bm", "Escape")
			x.waitScreen(regexp.MustCompile(`\? help · q quit`), 5*time.Second)

			// q asks, and says which key leaves on 80 columns; n stays;
			// q, y leaves.
			x.run("send-keys", "-t", "bm", "q")
			x.waitScreen(regexp.MustCompile(`Leave the game\? y leaves, any other key stays`), 5*time.Second)
			x.run("send-keys", "-t", "bm", "n")
			time.Sleep(300 * time.Millisecond)
			if _, err := os.Stat(exitFile); err == nil {
				t.Fatal("n at the question left the game")
			}
			x.run("send-keys", "-t", "bm", "q")
			x.waitScreen(regexp.MustCompile(`Leave the game\?`), 5*time.Second)
			x.run("send-keys", "-t", "bm", "y")
			deadline := time.Now().Add(15 * time.Second)
			for {
				if b, err := os.ReadFile(exitFile); err == nil {
					if got := strings.TrimSpace(string(b)); got != "EXIT=0" {
						t.Fatalf("play ended with %s after q, y", got)
					}
					break
				}
				if time.Now().After(deadline) {
					t.Fatalf("play did not exit after q, y:\n%s", x.screen())
				}
				time.Sleep(100 * time.Millisecond)
			}
		})
	}
}
