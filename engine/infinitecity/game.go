package infinitecity

import (
	"fmt"

	"github.com/boardmesh/boardmesh/engine"
)

// Game is Infinite City's definition for the registry.
var Game = &engine.Game{
	Name:           "infinitecity",
	Title:          "Infinite City",
	Version:        "infinitecity/4",
	MinPlayers:     2,
	MaxPlayers:     6,
	DefaultPlayers: 4,
	Options: []engine.OptionSpec{
		{Name: "markers", Kind: engine.OptionInt, Default: "15", Min: 1, Max: 30,
			Help: "control markers per player; using the last one starts the end of the game"},
		{Name: "hand", Kind: engine.OptionInt, Default: "5", Min: 1, Max: 10,
			Help: "tiles a player refills their hand to at the end of their turn"},
		{Name: "tiles", Kind: engine.OptionText, Default: "standard",
			Help: "the tile set: \"standard\" (the 120 tiles of the rules document) or a set written " +
				"COUNT NAME [ABC]: INSTRUCTION [+BONUS] [rings] with entries separated by semicolons"},
	},
	New:      newGame,
	Decode:   decode,
	Bots:     []engine.BotSpec{GreedyBotSpec, engine.RandomBotSpec},
	NewStats: func() engine.Stats { return newStats() },
}

func newGame(players int, opts engine.Options) (engine.State, error) {
	set := standard
	if text, _ := opts.Get("tiles"); text != "" && text != "standard" {
		ts, err := ParseTiles(text)
		if err != nil {
			return nil, fmt.Errorf("option tiles: %w", err)
		}
		set = ts
	}
	markers, hand := opts.Int("markers"), opts.Int("hand")
	if markers == 0 {
		markers = 15
	}
	if hand == 0 {
		hand = 5
	}
	s, err := newState(set, players, markers, hand)
	if err != nil {
		return nil, err
	}
	return s, nil
}
