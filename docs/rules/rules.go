// Package rules embeds the rules documents of the games (one Markdown file
// per game, named after the game) so `boardmesh rules GAME` prints the same
// text that the repository shows.
package rules

import (
	"embed"
	"fmt"
	"strings"
)

//go:embed *.md
var files embed.FS

// Text returns the rules document of the named game.
func Text(game string) (string, error) {
	b, err := files.ReadFile(game + ".md")
	if err != nil {
		return "", fmt.Errorf("no rules document for %q", game)
	}
	return string(b), nil
}

// Summary returns the "In short" section of the named game's rules
// document: the rules in a few lines, for the game screen's help.
func Summary(game string) string {
	text, err := Text(game)
	if err != nil {
		return ""
	}
	const head = "## In short\n"
	i := strings.Index(text, head)
	if i < 0 {
		return ""
	}
	rest := text[i+len(head):]
	if j := strings.Index(rest, "\n## "); j >= 0 {
		rest = rest[:j]
	}
	return strings.Join(strings.Fields(rest), " ")
}
