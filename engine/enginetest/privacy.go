package enginetest

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/boardmesh/boardmesh/engine"
)

// PrivacyConfig says what NoLeaks covers.
type PrivacyConfig struct {
	// Games is the number of games per player count; Players the counts.
	Games   int
	Players []int
	// Options, if set, returns the options of game i.
	Options func(i int) engine.Options
	// Names are the names to look for (card, tile, hero names).
	Names []string
	// Hidden returns the names seat may not know in s (another player's
	// hand, a card only another seat has peeked at), one per card: a card
	// that leaves these places in a step (it is played) may be named in
	// that step's line. NoLeaks fails when
	// the games never had one to keep: then it would prove nothing.
	Hidden func(s engine.State, seat int) []string
}

// NoLeaks plays seeded bot games of g and checks, at every step and for
// every seat and a spectator, that the line the game's Narrator tells
// that seat and the screen its view renders name no card it cannot see.
// A name Hidden says is secret from the seat after the step may appear in
// the line only if the seat's own view shows it (before or after the
// step: the same name may also lie face up elsewhere), and on the screen
// only if a spectator's screen shows it too (public cards, the legend).
func NoLeaks(t *testing.T, g *engine.Game, cfg PrivacyConfig) {
	t.Helper()
	secrets := 0
	for _, n := range cfg.Players {
		for i := 0; i < cfg.Games; i++ {
			var opts engine.Options
			if cfg.Options != nil {
				opts = cfg.Options(i)
			}
			st, err := g.Setup(n, opts)
			if err != nil {
				t.Fatal(err)
			}
			bots := make([]engine.Bot, n)
			for k := range bots {
				bots[k] = g.Bots[(k+i)%len(g.Bots)].New()
			}
			seed := []byte(fmt.Sprintf("noleaks-%s-%d-%d", g.Name, n, i))
			var failure error
			_, err = engine.PlayOut(st, bots, engine.SeededChance{Seed: seed}, engine.NewRand(seed), 100000, true, func(prev, next engine.State, step engine.Step) {
				if failure != nil {
					return
				}
				nar, _ := prev.(engine.Narrator)
				for seat := -1; seat < n; seat++ {
					// What is still secret after the step: a card played in
					// it has become public, one drawn has become secret.
					hidden := cfg.Hidden(next, seat)
					if len(hidden) == 0 {
						continue
					}
					seen := viewText(prev, seat) + "\n" + viewText(next, seat)
					// A card that left the hidden places in the step (the
					// card played) may be named.
					left := map[string]int{}
					for _, h := range cfg.Hidden(prev, seat) {
						left[h]++
					}
					for _, h := range hidden {
						left[h]--
					}
					var secret []string
					for _, h := range hidden {
						if !containsName(seen, h) && left[h] <= 0 {
							secret = append(secret, h)
						}
					}
					if len(secret) == 0 {
						continue
					}
					secrets++
					if nar != nil {
						x := nar.Narrate(next, step.Who, step.Action, seat)
						line := x.What + " — " + x.Outcome
						for _, h := range secret {
							if containsName(line, h) {
								failure = fmt.Errorf("%s, %d players, game %d: %s is told %q, naming %s, which it cannot see", g.Name, n, i, seatWord(seat), line, h)
								return
							}
						}
					}
					// The screen: a secret name may appear only where the
					// public screen (a spectator's) shows it too.
					screen, public := next.View(seat).Render(100, false), next.View(-1).Render(100, false)
					for _, h := range secret {
						if containsName(screen, h) && !containsName(public, h) {
							failure = fmt.Errorf("%s, %d players, game %d: %s's screen shows %q, naming %s, which it cannot see", g.Name, n, i, seatWord(seat), firstLine(screen, h), h)
							return
						}
					}
				}
			})
			if failure != nil {
				t.Fatal(failure)
			}
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	if secrets == 0 {
		t.Fatal("the games never had a secret to keep: the test proves nothing")
	}
}

func viewText(s engine.State, seat int) string {
	b, _ := json.Marshal(s.View(seat))
	return string(b)
}

// containsName reports whether name occurs in text as a whole word.
func containsName(text, name string) bool {
	for from := 0; ; {
		i := strings.Index(text[from:], name)
		if i < 0 {
			return false
		}
		i += from
		end := i + len(name)
		if (i == 0 || !isWord(text[i-1])) && (end == len(text) || !isWord(text[end])) {
			return true
		}
		from = i + 1
	}
}

func isWord(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

func firstLine(text, name string) string {
	for _, l := range strings.Split(text, "\n") {
		if containsName(l, name) {
			return l
		}
	}
	return text
}

func seatWord(seat int) string {
	if seat < 0 {
		return "a spectator"
	}
	return fmt.Sprintf("seat %d", seat+1)
}
