package web

import (
	"strings"

	"github.com/boardmesh/boardmesh/cli/present"
)

// Frame is what the page draws: the presentation model of the table (its
// JSON, snake_case, seats from 1) and what only the page needs besides.
type Frame struct {
	present.Table
	// Hints say where on the board the page's drawing of the game puts an
	// action, by action id (see Hint); the page falls back to the engine's
	// Target for cards and piles.
	Hints map[string]*Hint `json:"hints,omitempty"`
	// CanStart is set on the host's page in the lobby: it offers "Start".
	CanStart bool `json:"can_start,omitempty"`
	// CanDrop lists the seats (from 1) this page may vote to drop now.
	CanDrop []int `json:"can_drop,omitempty"`
}

// frameOf is the frame of table t.
func frameOf(t present.Table, canStart bool) Frame {
	f := Frame{Table: t, CanStart: canStart}
	if f.Actions == nil {
		f.Actions = []present.Action{}
	}
	for _, a := range t.Actions {
		h := hintOf(t.Game, a.Action, a.Label)
		if len(a.Then) > 0 {
			h = comboHint(t.Game, a)
		}
		if h != nil {
			if f.Hints == nil {
				f.Hints = map[string]*Hint{}
			}
			f.Hints[a.ID] = h
		}
	}
	for _, s := range t.Stalls {
		if s.CanDrop && s.Seat > 0 {
			f.CanDrop = append(f.CanDrop, s.Seat)
		}
	}
	return f
}

// labelBetween returns the text of label after prefix and before the
// first of ends, or "".
func labelBetween(label, prefix string, ends ...string) string {
	rest, ok := strings.CutPrefix(label, prefix)
	if !ok {
		return ""
	}
	for _, e := range ends {
		if i := strings.Index(rest, e); i >= 0 {
			return rest[:i]
		}
	}
	return rest
}
