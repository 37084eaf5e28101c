package serpentcity

import (
	"fmt"

	"github.com/boardmesh/boardmesh/engine"
)

// Version is the rules version; it changes whenever the rules or the
// default tables change, so peers with different builds refuse to play.
const Version = "serpentcity/3"

// Game is Serpent City's definition for the registry.
var Game = &engine.Game{
	Name:           "serpentcity",
	Title:          "Serpent City",
	Version:        Version,
	MinPlayers:     2,
	MaxPlayers:     6,
	DefaultPlayers: 4,
	Options: []engine.OptionSpec{
		{Name: "rules", Kind: engine.OptionText, Default: "",
			Help: "the design tables as JSON (see `boardmesh rules serpentcity`); empty means the documented defaults"},
		{Name: "win_ip", Kind: engine.OptionInt, Default: "15", Min: 5, Max: 40,
			Help: "Influence Points that win at once"},
		{Name: "rounds", Kind: engine.OptionInt, Default: "60", Min: 1, Max: 200,
			Help: "rounds after which the player with the most Influence Points wins"},
		{Name: "stroke_of_luck", Kind: engine.OptionBool, Default: "false",
			Help: "variant: the player alone in last place draws a card on a 1+1 or 6+6 roll"},
		{Name: "seat_balancing", Kind: engine.OptionBool, Default: "false",
			Help: "variant: the third player starts with 1 extra Coin, the fourth with 1 Coin and 1 Weapon"},
		{Name: "pass_twice", Kind: engine.OptionBool, Default: "false",
			Help: "allow passing on two consecutive turns (the text forbids it by default)"},
	},
	New:    newGame,
	Decode: Decode,
	Bots: []engine.BotSpec{
		{Name: "strategy", Help: "occupies, builds and saves for the Capital; attacks and forces conflicts when its expected Strength wins, retreats from lost fights, trades with players and the bank", New: func() engine.Bot { return &StrategyBot{} }},
		{Name: "builder", Help: "the first strategy bot: occupies, builds and saves for the Capital, fights rarely, never offers trades", New: func() engine.Bot { return &BuilderBot{} }},
		engine.RandomBotSpec,
	},
	NewStats: func() engine.Stats { return NewStats() },
}

func newGame(players int, opts engine.Options) (engine.State, error) {
	cfg := defaultCfg
	if raw, _ := opts.Get("rules"); raw != "" {
		c, err := configFor([]byte(raw))
		if err != nil {
			return nil, err
		}
		cfg = c
	}
	if players < 2 || players > 6 {
		return nil, fmt.Errorf("Serpent City is for 2 to 6 players, not %d", players)
	}
	return newState(cfg, players, opts), nil
}

// RulesOption returns the option that sets up a game with the tables r:
// the CLI's --rules FILE reads the file with ParseRules and adds this to
// the game's options. (The value is JSON, which holds commas, so it must
// be added as an Option value, not through a comma-separated option list.)
func RulesOption(r Rules) engine.Option {
	return engine.Option{Name: "rules", Value: string(r.JSON())}
}

// The game defines what happens to a seat whose player has left.
var _ engine.Dropper = (*State)(nil)
