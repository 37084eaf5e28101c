package cli

import (
	"fmt"
	"os"
	"strings"

	"github.com/boardmesh/boardmesh/engine"
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

// maxOptionFile bounds an option file; tables are a few kilobytes.
const maxOptionFile = 1 << 20

func (o *gameOptionFlags) register(fs *pflag.FlagSet) {
	fs.StringArrayVar(&o.Items, "options", nil, "game options as name=value[,name=value] (see 'boardmesh games')")
	fs.StringArrayVar(&o.Files, "option-file", nil, "a game option whose value is a file's contents, as name=FILE")
	fs.StringVar(&o.Rules, "rules", "", "a game's rules tables as a JSON file (games with a 'rules' option, such as serpentcity)")
}

// given returns the options as the user gave them; engine.ResolveOptions
// (through Game.Setup) checks names and values against the game.
func (o *gameOptionFlags) given() (engine.Options, error) {
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
		info, err := os.Stat(path)
		if err != nil {
			return nil, usageErrorf("option %s: cannot read %s: %v", name, path, err)
		}
		if info.Size() > maxOptionFile {
			return nil, usageErrorf("option %s: %s is %d bytes, more than the %d an option may hold", name, path, info.Size(), maxOptionFile)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, usageErrorf("option %s: cannot read %s: %v", name, path, err)
		}
		opts = append(opts, engine.Option{Name: name, Value: string(b)})
	}
	return opts, nil
}

// resolve checks the options against g and returns them complete and sorted.
func (o *gameOptionFlags) resolve(g *engine.Game) (engine.Options, error) {
	given, err := o.given()
	if err != nil {
		return nil, err
	}
	resolved, err := engine.ResolveOptions(g.Options, given)
	if err != nil {
		return nil, &UsageError{Err: fmt.Errorf("%s: %w", g.Name, err)}
	}
	return resolved, nil
}
