package cli

import (
	"fmt"

	"github.com/boardmesh/boardmesh/docs/rules"
	"github.com/boardmesh/boardmesh/engine/games"
	"github.com/spf13/cobra"
)

// RulesOptions are the inputs of `boardmesh rules`.
type RulesOptions struct {
	IO   *IOStreams
	Game string
}

func newCmdRules(f *Factory, runF func(*RulesOptions) error) *cobra.Command {
	opts := &RulesOptions{IO: f.IO}
	return &cobra.Command{
		Use:   "rules GAME",
		Short: "Print a game's rules in English, with every choice boardmesh made",
		Long: `Print a game's rules in English. The text is the project's rules document
(docs/rules/GAME.md): the rules as published, plus every choice boardmesh made
where the original text is unclear or silent, and the options with defaults.`,
		Example: "  boardmesh rules dragonslair\n  boardmesh rules dominion | less",
		Args:    usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Game = args[0]
			if runF != nil {
				return runF(opts)
			}
			return rulesRun(opts)
		},
	}
}

func rulesRun(opts *RulesOptions) error {
	g, err := games.Lookup(opts.Game)
	if err != nil {
		return &UsageError{Err: err}
	}
	text, err := rules.Text(g.Name)
	if err != nil {
		return err
	}
	_, err = fmt.Fprint(opts.IO.Out, text)
	return err
}
