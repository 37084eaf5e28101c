// Package games is the registry of the games boardmesh can play. It is the
// one place that knows every game package; commands list and pick games
// through it.
package games

import (
	"fmt"
	"strings"

	"github.com/boardmesh/boardmesh/engine"
	"github.com/boardmesh/boardmesh/engine/dominion"
	"github.com/boardmesh/boardmesh/engine/dragonslair"
	"github.com/boardmesh/boardmesh/engine/infinitecity"
	"github.com/boardmesh/boardmesh/engine/serpentcity"
)

// All returns every game, in the order commands list them. The first is
// the default of `boardmesh play`.
func All() []*engine.Game {
	return []*engine.Game{
		dragonslair.Game, // first: the default game
		serpentcity.Game,
		dominion.Game,
		infinitecity.Game,
		// Each game package adds its *engine.Game here, one line each.
	}
}

// Default returns the game `boardmesh play` starts with no arguments.
func Default() *engine.Game { return All()[0] }

// Lookup finds a game by name, or returns an error listing the names.
func Lookup(name string) (*engine.Game, error) {
	all := All()
	names := make([]string, len(all))
	for i, g := range all {
		if g.Name == name {
			return g, nil
		}
		names[i] = g.Name
	}
	return nil, fmt.Errorf("unknown game %q; the games are: %s", name, strings.Join(names, ", "))
}
