package cli

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/boardmesh/boardmesh/engine"
	"github.com/boardmesh/boardmesh/engine/games"
	"github.com/spf13/cobra"
)

// GamesOptions are the inputs of `boardmesh games`.
type GamesOptions struct {
	IO   *IOStreams
	JSON bool
}

func newCmdGames(f *Factory, runF func(*GamesOptions) error) *cobra.Command {
	opts := &GamesOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "games",
		Short: "List the games, their player counts, options and bots",
		Long: `List the games boardmesh plays: each one's name (what the other commands
take), title, rules version, player counts, bots and options with their
defaults and allowed values. --json prints the same as JSON with snake_case
keys, for scripts.`,
		Example: `  boardmesh games
  boardmesh games --json | jq -r '.[].name'
  boardmesh games --json | jq '.[] | select(.name == "dominion") | .options'`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return gamesRun(opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print as JSON")
	return cmd
}

type gameInfo struct {
	Name           string       `json:"name"`
	Title          string       `json:"title"`
	Version        string       `json:"version"`
	MinPlayers     int          `json:"min_players"`
	MaxPlayers     int          `json:"max_players"`
	DefaultPlayers int          `json:"default_players"`
	Options        []optionInfo `json:"options"`
	Bots           []botInfo    `json:"bots"`
}

// optionInfo is an engine.OptionSpec as games --json prints it.
type optionInfo struct {
	Name    string   `json:"name"`
	Kind    string   `json:"kind"` // "int", "bool", "choice" or "text"
	Default string   `json:"default"`
	Min     *int     `json:"min,omitempty"`
	Max     *int     `json:"max,omitempty"`
	Choices []string `json:"choices,omitempty"`
	Allowed string   `json:"allowed"`
	Help    string   `json:"help"`
}

type botInfo struct {
	Name string `json:"name"`
	Help string `json:"help"`
}

func optionOf(o engine.OptionSpec) optionInfo {
	x := optionInfo{Name: o.Name, Default: o.Default, Choices: o.Choices, Allowed: o.Allowed(), Help: o.Help}
	switch o.Kind {
	case engine.OptionInt:
		x.Kind = "int"
		lo, hi := o.Min, o.Max
		x.Min, x.Max = &lo, &hi
	case engine.OptionBool:
		x.Kind = "bool"
	case engine.OptionChoice:
		x.Kind = "choice"
	default:
		x.Kind = "text"
	}
	return x
}

func gamesRun(opts *GamesOptions) error {
	var infos []gameInfo
	for _, g := range games.All() {
		info := gameInfo{Name: g.Name, Title: g.Title, Version: g.Version, MinPlayers: g.MinPlayers, MaxPlayers: g.MaxPlayers,
			DefaultPlayers: g.DefaultPlayers, Options: []optionInfo{}}
		for _, o := range g.Options {
			info.Options = append(info.Options, optionOf(o))
		}
		for _, b := range g.Bots {
			info.Bots = append(info.Bots, botInfo{Name: b.Name, Help: b.Help})
		}
		infos = append(infos, info)
	}
	if opts.JSON {
		enc := json.NewEncoder(opts.IO.Out)
		enc.SetIndent("", "  ")
		return enc.Encode(infos)
	}
	for i, g := range games.All() {
		if i > 0 {
			fmt.Fprintln(opts.IO.Out)
		}
		fmt.Fprintf(opts.IO.Out, "%s — %s (%d–%d players, rules %s)\n", g.Name, g.Title, g.MinPlayers, g.MaxPlayers, g.Version)
		var bots []string
		for _, b := range infos[i].Bots {
			bots = append(bots, b.Name)
		}
		fmt.Fprintf(opts.IO.Out, "  bots: %s\n", strings.Join(bots, ", "))
		for _, o := range g.Options {
			fmt.Fprintf(opts.IO.Out, "  --options %s=%s   %s (%s)\n", o.Name, o.Default, o.Help, o.Allowed())
		}
	}
	return nil
}
