// Package rules embeds the rules documents of the games (one Markdown file
// per game, named after the game) so `boardmesh rules GAME` prints the same
// text that the repository shows.
package rules

import (
	"embed"
	"fmt"
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
