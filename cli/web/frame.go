package web

import (
	"strings"

	"github.com/boardmesh/boardmesh/cli/tui"
	"github.com/boardmesh/boardmesh/engine"
)

// Frame is what the page draws: one JSON message per change. Seats are
// counted from 0 here (they index the board's arrays); the page prints
// them from 1, as every other screen does.
type Frame struct {
	Game  string `json:"game"` // engine.Game.Name: which drawing the page uses
	Title string `json:"title"`
	Seat  int    `json:"seat"` // the page's seat, -1 for a spectator
	Step  uint64 `json:"step"`
	// Status says whose turn it is or what the table waits for (stalls
	// included), YourTurn whether the page must choose.
	Status   string `json:"status"`
	YourTurn bool   `json:"your_turn"`
	// Actions are the choices open to the page now, each a click.
	Actions []Action    `json:"actions"`
	History []string    `json:"history"`
	Peers   []Peer      `json:"peers"`
	Sync    string      `json:"sync"`
	Desync  bool        `json:"desync"`
	Over    bool        `json:"over"`
	Result  string      `json:"result,omitempty"`
	Scores  *Scores     `json:"scores,omitempty"`
	Board   engine.View `json:"board"` // the engine's View(seat), as the game marshals it
}

// Action is one legal choice: its id (what the page sends back), the
// words for it, and where on the board a click picks it (nil: a button).
type Action struct {
	ID     string  `json:"id"`
	Label  string  `json:"label"`
	Target *Target `json:"target,omitempty"`
}

// Peer is one peer of the table.
type Peer struct {
	Name string `json:"name"`
	Seat int    `json:"seat"` // -1 for a spectator
	Conn string `json:"conn"`
	Self bool   `json:"self"`
	Bot  bool   `json:"bot"`
}

// Scores is the final score table.
type Scores struct {
	Reason  string `json:"reason"`
	Scores  []int  `json:"scores"`
	Winners []int  `json:"winners"`
}

// FrameOf turns a snapshot of the table into a frame; ids name the
// actions (see Page).
func FrameOf(game string, s tui.Snapshot, ids []string) Frame {
	f := Frame{Game: game, Title: s.Title, Seat: s.Seat, Step: s.Step, Status: s.Status, YourTurn: len(s.Legal) > 0,
		History: s.Log, Sync: s.Sync, Desync: s.Desync, Over: s.Over, Result: s.Result, Actions: []Action{}}
	if f.History == nil {
		f.History = []string{}
	}
	for _, p := range s.Peers {
		f.Peers = append(f.Peers, Peer{Name: p.Name, Seat: p.Seat, Conn: p.Conn, Self: p.Self, Bot: p.Bot})
	}
	if s.State != nil {
		f.Board = s.State.View(s.Seat)
		if s.Over {
			r := s.State.Result()
			f.Scores = &Scores{Reason: r.Reason, Scores: r.Scores, Winners: r.Winners}
		}
	}
	for i, a := range s.Legal {
		label := a.String()
		if s.State != nil {
			label = s.State.Describe(a)
		}
		f.Actions = append(f.Actions, Action{ID: ids[i], Label: label, Target: targetOf(game, a, label)})
	}
	if s.CanStart {
		f.Actions = append(f.Actions, Action{ID: startID, Label: "Start the game"})
	}
	return f
}

// startID is the action id of the host's "Start the game" in the lobby.
const startID = "start"

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
