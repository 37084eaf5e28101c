package rules

import (
	"strings"
	"testing"
)

// TestEveryGameHasASummary: the game screen's help shows each game's
// "In short" section.
func TestEveryGameHasASummary(t *testing.T) {
	for _, g := range []string{"dominion", "dragonslair", "infinitecity", "serpentcity"} {
		s := Summary(g)
		if len(s) < 200 || strings.Contains(s, "##") || strings.Contains(s, "\n") {
			t.Errorf("%s: summary %q", g, s)
		}
	}
	if Summary("chess") != "" {
		t.Error("a summary for a game that does not exist")
	}
}
