package web

import (
	"github.com/boardmesh/boardmesh/cli/present"
	"github.com/boardmesh/boardmesh/engine"
	"github.com/boardmesh/boardmesh/engine/dominion"
	"github.com/boardmesh/boardmesh/engine/infinitecity"
)

// Hint says what on the board a click picks an action by, in the terms of
// the page's drawings (assets/game-*.js): more precise than engine.Target
// where a drawing needs it (which tile of the hand an Infinite City square
// takes, which way a Serpent City pawn goes). Kinds:
//   - "spot": an empty square of Infinite City (X, Y), with the tile to lay (Card);
//   - "tile": a tile on the Infinite City table (X, Y);
//   - "hand": a card in the hand (Card), to play, pick or put back;
//   - "pile": a supply pile (Card), to buy or gain;
//   - "road": a Serpent City road space (Space, 0-based; -1 is START) to move a pawn from, one space on;
//   - "walk": a Serpent City walk of several spaces from Space to the space after X (X is the
//     space its last step leaves);
//   - "territory": a Serpent City territory (Space, its index) to enter, leave, promote from or build on;
//   - "deck": the Dragon's Lair deck, to turn over its next card.
//
// Everything else is a button.
type Hint struct {
	Kind  string `json:"kind"`
	X     int    `json:"x"`
	Y     int    `json:"y"`
	Card  string `json:"card,omitempty"`
	Space int    `json:"space"`
}

// The action encodings below are each game's wire format (they travel in
// signed logs, so they do not change within a rules version).
const (
	// Dominion's ops (engine/dominion/asks.go).
	domPlay, domTreasure, domBuy, domPick = 1, 2, 4, 6
	// Serpent City's ops (engine/serpentcity/actions.go).
	scMove, scEnter, scLeave, scPromote, scBuild = 1, 2, 3, 4, 6
	// The Sleeping Dragon's Lair: turn over the next card.
	dlDraw = 1
)

// hintOf finds where a click picks a; label is its description.
func hintOf(game string, a engine.Action, label string) *Hint {
	switch game {
	case "infinitecity":
		switch {
		case a.Op == infinitecity.OpPlay && len(a.Args) == 3:
			name := labelBetween(label, "Play ", " from the Library at (", " at (")
			return &Hint{Kind: "spot", X: int(a.Args[1]), Y: int(a.Args[2]), Card: name}
		case a.Op == infinitecity.OpTile && len(a.Args) == 2:
			return &Hint{Kind: "tile", X: int(a.Args[0]), Y: int(a.Args[1])}
		case a.Op == infinitecity.OpReturn && len(a.Args) == 1:
			if name := labelBetween(label, "Put ", " back"); name != "" {
				return &Hint{Kind: "hand", Card: name}
			}
		}
	case "dominion":
		if len(a.Args) != 1 {
			return nil
		}
		name := dominion.CardName(int(a.Args[0]))
		switch a.Op {
		case domPlay, domTreasure:
			return &Hint{Kind: "hand", Card: name}
		case domBuy:
			return &Hint{Kind: "pile", Card: name}
		case domPick:
			// A pick names a card of the hand (discard, trash, reveal) or
			// of the supply (gain); the page tries the hand first.
			return &Hint{Kind: "pick", Card: name}
		}
	case "serpentcity":
		if len(a.Args) != 1 {
			return nil
		}
		switch a.Op {
		case scMove:
			return &Hint{Kind: "road", Space: int(a.Args[0])}
		case scEnter, scLeave, scPromote, scBuild:
			return &Hint{Kind: "territory", Space: int(a.Args[0])}
		}
	case "dragonslair":
		if a.Op == dlDraw && len(a.Args) == 0 {
			return &Hint{Kind: "deck"}
		}
	}
	return nil
}

// comboHint is where a combo goes on the board: a Serpent City walk is a
// road move from its first space to the end of its last step. Other
// combos are buttons.
func comboHint(game string, a present.Action) *Hint {
	if game != "serpentcity" {
		return nil
	}
	steps := append([]engine.Action{a.Action}, a.Then...)
	for _, st := range steps {
		if st.Op != scMove || len(st.Args) != 1 {
			return nil
		}
	}
	return &Hint{Kind: "walk", Space: int(steps[0].Args[0]), X: int(steps[len(steps)-1].Args[0])}
}
