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
		Args:  usageArgs(cobra.NoArgs),
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
	Name       string              `json:"name"`
	Title      string              `json:"title"`
	Version    string              `json:"version"`
	MinPlayers int                 `json:"min_players"`
	MaxPlayers int                 `json:"max_players"`
	Options    []engine.OptionSpec `json:"options"`
	Bots       []string            `json:"bots"`
}

func gamesRun(opts *GamesOptions) error {
	var infos []gameInfo
	for _, g := range games.All() {
		info := gameInfo{Name: g.Name, Title: g.Title, Version: g.Version, MinPlayers: g.MinPlayers, MaxPlayers: g.MaxPlayers, Options: g.Options}
		for _, b := range g.Bots {
			info.Bots = append(info.Bots, b.Name)
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
		fmt.Fprintf(opts.IO.Out, "  bots: %s\n", strings.Join(infos[i].Bots, ", "))
		for _, o := range g.Options {
			fmt.Fprintf(opts.IO.Out, "  --options %s=%s   %s (%s)\n", o.Name, o.Default, o.Help, o.Allowed())
		}
	}
	return nil
}
