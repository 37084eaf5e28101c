package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/boardmesh/boardmesh/engine"
	"github.com/boardmesh/boardmesh/p2p/fileio"
	"github.com/spf13/pflag"
)

// gameOptionFlags are the flags by which every command that sets up a game
// takes its options: short values inline, long ones (a JSON table, a tile
// set) from files, since an inline value may not contain commas.
type gameOptionFlags struct {
	Items []string // --options name=value[,name=value]
	Files []string // --option-file name=FILE
	Rules string   // --rules FILE, the same as --option-file rules=FILE
}

// maxOptionFile bounds an option file: its contents are the option's
// value, which the lobby's signed messages carry (engine.MaxOptionValue,
// the same limit every peer applies to a roster).
const maxOptionFile = engine.MaxOptionValue

func (o *gameOptionFlags) register(fs *pflag.FlagSet) {
	fs.StringArrayVar(&o.Items, "options", nil, "game options as name=value[,name=value] (see 'boardmesh games')")
	fs.StringArrayVar(&o.Files, "option-file", nil, "a game option whose value is a file's contents, as name=FILE (at most "+fileio.Size(maxOptionFile)+")")
	fs.StringVar(&o.Rules, "rules", "", "a game's rules tables as a JSON file (games with a 'rules' option, such as serpentcity)")
}

// given returns the options as the user gave them, reading option files
// bounded (a device or a FIFO included) and giving up when ctx ends.
func (o *gameOptionFlags) given(ctx context.Context) (engine.Options, error) {
	opts, err := engine.ParseOptions(o.Items)
	if err != nil {
		return nil, &UsageError{Err: err}
	}
	files := o.Files
	if o.Rules != "" {
		files = append(files, "rules="+o.Rules)
	}
	for _, f := range files {
		name, path, ok := strings.Cut(f, "=")
		if !ok || name == "" || path == "" {
			return nil, usageErrorf("--option-file %q: want name=FILE", f)
		}
		b, err := fileio.ReadFile(ctx, path, maxOptionFile)
		if errors.Is(err, fileio.ErrInterrupted) {
			return nil, err
		}
		if err != nil {
			return nil, usageErrorf("option %s: %v", name, err)
		}
		opts = append(opts, engine.Option{Name: name, Value: string(b)})
	}
	return opts, nil
}

// setup reads and checks the options for game g with the game's own
// Setup, for every player count the table may have: the one check `sim`,
// `play` and `host` share, so a bad option fails at once, before a lobby
// opens or a game starts, with the same message everywhere (and the one
// every peer would give refusing the roster). With no count, every count
// g allows is checked. It returns the options complete and sorted.
func (o *gameOptionFlags) setup(ctx context.Context, g *engine.Game, players ...int) (engine.Options, error) {
	given, err := o.given(ctx)
	if err != nil {
		return nil, err
	}
	resolved, err := engine.ResolveOptions(g.Options, given)
	if err != nil {
		return nil, &UsageError{Err: fmt.Errorf("%s: %w", g.Name, err)}
	}
	if len(players) == 0 {
		for n := g.MinPlayers; n <= g.MaxPlayers; n++ {
			players = append(players, n)
		}
	}
	for _, n := range players {
		if _, err := g.Setup(n, resolved); err != nil {
			return nil, &UsageError{Err: err}
		}
	}
	return resolved, nil
}
