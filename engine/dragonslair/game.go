package dragonslair

import (
	"fmt"

	"github.com/boardmesh/boardmesh/engine"
)

// Option names.
const (
	optEdition   = "edition"
	optHeroes    = "heroes"
	optFirstGame = "first-game"
	optShortGame = "short-game"
	optChildren  = "children"
	optRedField  = "red-field"
	optEggBonus  = "egg-bonus"
)

// shortBy is how many fields lower the red field is in the short game.
const shortBy = 6

// Game is The Sleeping Dragon's Lair.
var Game = &engine.Game{
	Name:           "dragonslair",
	Title:          "The Sleeping Dragon's Lair",
	Version:        "dragonslair/4",
	MinPlayers:     2,
	MaxPlayers:     maxPlayers,
	DefaultPlayers: 4,
	Options:        options,
	New:            newGame,
	Decode:         decode,
	Bots:           bots,
	NewStats:       func() engine.Stats { return newStats() },
}

// options are the named options; the variants of the rules are options,
// and so are the numbers a table might reasonably change.
var options = []engine.OptionSpec{
	{Name: optEdition, Kind: engine.OptionChoice, Default: "full", Choices: []string{"full", "free"},
		Help: "full: 72 cards with Dragon Eggs, Crystal Spheres, Secret Passages and the 8 heroes; free: the 63-card deck without them"},
	{Name: optHeroes, Kind: engine.OptionChoice, Default: "dealt", Choices: heroModeNames,
		Help: "how players get heroes in the full version: dealt at random, chosen in seat order, or none"},
	{Name: optFirstGame, Kind: engine.OptionBool, Default: "false",
		Help: "first-game variant: play without the heroes"},
	{Name: optShortGame, Kind: engine.OptionBool, Default: "false",
		Help: fmt.Sprintf("short-game variant: the red field is %d fields lower", shortBy)},
	{Name: optChildren, Kind: engine.OptionBool, Default: "false",
		Help: "with-children variant: no heroes and no Thieving Ravens in the deck"},
	{Name: optRedField, Kind: engine.OptionInt, Default: "0", Min: 0, Max: 40,
		Help: "the dragon's red field; 0 takes it from the table by player count (16, 18 for 3-5, 19, 20, 21), lowered by the short game"},
	{Name: optEggBonus, Kind: engine.OptionInt, Default: "5", Min: 0, Max: 20,
		Help: "gold for the most Dragon Eggs at the end, shared and rounded down on a tie"},
}

// newGame sets up a game. It resolves the options itself too, so a caller
// that skips Game.Setup still gets every default.
func newGame(players int, opts engine.Options) (engine.State, error) {
	if players < 2 || players > maxPlayers {
		return nil, fmt.Errorf("The Sleeping Dragon's Lair is for 2 to %d players, not %d", maxPlayers, players)
	}
	resolved, err := engine.ResolveOptions(options, opts)
	if err != nil {
		return nil, err
	}
	return newState(players, resolved)
}
