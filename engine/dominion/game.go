package dominion

import (
	"errors"
	"fmt"

	"github.com/boardmesh/boardmesh/engine"
)

// Game is Dominion's entry in the games registry.
var Game = &engine.Game{
	Name:           "dominion",
	Title:          "Dominion (base game, second edition)",
	Version:        "dominion/5",
	MinPlayers:     2,
	MaxPlayers:     6,
	DefaultPlayers: 2,
	Options: []engine.OptionSpec{
		{
			Name: optKingdom, Kind: engine.OptionText, Default: "first-game",
			Help: "the ten Kingdom cards, separated by '+' (kingdom=Cellar+Market+...), or first-game",
		},
		{
			Name: optRandom, Kind: engine.OptionBool, Default: "false",
			Help: "draw ten Kingdom cards at random with the beacon (instead of kingdom)",
		},
	},
	New: func(players int, opts engine.Options) (engine.State, error) {
		s, err := newState(players, opts)
		if err != nil {
			return nil, err
		}
		return s, nil
	},
	Decode: func(b []byte) (engine.State, error) {
		s, err := decode(b)
		if err != nil {
			return nil, err
		}
		return s, nil
	},
	Bots:     bots,
	NewStats: func() engine.Stats { return newStats() },
}

// Drop removes a seat whose player has left: their turns are skipped from
// now on, any choice asked of them is made automatically (decline what
// may be declined, else the first card in card order), and their cards
// still count at the end. If every seat has left, the game ends.
func (s *State) Drop(seat int) error {
	if seat < 0 || seat >= s.n {
		return fmt.Errorf("no seat %d in a game of %d", seat, s.n)
	}
	if s.phase == phaseOver {
		return engine.ErrGameOver
	}
	if s.isDropped(seat) {
		return errors.New("that seat has already left")
	}
	s.dropped |= 1 << seat
	if int(s.dropped) == 1<<s.n-1 {
		s.finish("every player left the game")
		return nil
	}
	s.run()
	return nil
}

var _ engine.Dropper = (*State)(nil)
