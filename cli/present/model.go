package present

import "github.com/boardmesh/boardmesh/engine"

// Table is the table as one seat (or a spectator) may see it now.
type Table struct {
	Game  string `json:"game"`  // the game's short name ("dominion")
	Title string `json:"title"` // its printed name
	// Rules is the rules version of the game.
	Rules string `json:"rules_version"`
	// Phase is "lobby", "starting", "playing", "over" or "stopped".
	Phase string `json:"phase"`
	// Status says in words whose turn it is or what the table waits for.
	Status string `json:"status"`
	// You is the viewer's seat, 0 for a spectator or before the seats are
	// drawn.
	You int `json:"you"`
	// Turn is the current turn, from 1; ToAct the seat to act, 0 when the
	// beacon is drawing (Chance) or nobody acts.
	Turn   int    `json:"turn"`
	ToAct  int    `json:"to_act"`
	Chance bool   `json:"chance"`
	Seats  []Seat `json:"seats"`
	// View is the engine's view of the viewer's seat (each game's own JSON);
	// Board is its text rendering at 80 columns, without colours.
	View  engine.View `json:"view,omitempty"`
	Board string      `json:"board,omitempty"`
	// History is everything that happened, oldest first, as the viewer may
	// know it.
	History []Entry `json:"history"`
	// Actions are the viewer's legal moves, non-empty exactly when the
	// viewer must choose; Default is the ID of the one to highlight first
	// (never a risky one when another exists).
	Actions []Action `json:"actions"`
	Default string   `json:"default_action,omitempty"`
	// Terms are the effect texts of the cards, tiles, heroes and spaces
	// shown now.
	Terms  []engine.Term `json:"terms,omitempty"`
	Scores []Score       `json:"scores,omitempty"`
	// Result is set when the game is over.
	Result *Result `json:"result,omitempty"`
	Peers  []Peer  `json:"peers"`
	Stalls []Stall `json:"stalls,omitempty"`
	Votes  []Vote  `json:"drop_votes,omitempty"`
	// Pause says that a table of two waits for the other player and cannot
	// go on without them; CanClaim that the viewer may claim the win.
	Pause    string `json:"pause,omitempty"`
	CanClaim bool   `json:"can_claim,omitempty"`
	// DropAfter is how long a seat must have kept the table waiting before
	// a drop may be proposed, in ms.
	DropAfter int64   `json:"drop_after_ms"`
	Sync      Sync    `json:"sync"`
	Cheats    []Cheat `json:"cheats,omitempty"`
	Lobby     *Lobby  `json:"lobby,omitempty"`
	// Step counts the steps applied: a new step is a new decision, even for
	// the same seat.
	Step uint64 `json:"step"`
	// Last is the target of the last move, to highlight.
	Last *engine.Target `json:"last_target,omitempty"`
	// Since is what the others did since the viewer's own last move
	// (oldest first): who bought Militia, why a Coin vanished.
	Since []Entry `json:"since_your_move,omitempty"`
}

// Seat is one seat of the game.
type Seat struct {
	Number int    `json:"number"` // from 1
	Name   string `json:"name"`
	// Color is the seat's colour name (Colors), the same on every screen.
	Color   string `json:"color"`
	You     bool   `json:"you,omitempty"`
	Bot     bool   `json:"bot,omitempty"`
	Dropped bool   `json:"dropped,omitempty"`
	// Peer is the seat's peer id (its short form is in Peers).
	Peer string `json:"peer,omitempty"`
}

// Colors are the seat colours, seat 1 first. Front ends map the names to
// what they can draw (tui: ANSI colours; the browser: CSS).
var Colors = []string{"red", "blue", "green", "yellow", "magenta", "cyan", "orange", "white"}

// SeatColor is the colour of seat (1-based); "" for no seat.
func SeatColor(seat int) string {
	if seat < 1 {
		return ""
	}
	return Colors[(seat-1)%len(Colors)]
}

// Entry is one line of the history.
type Entry struct {
	// Seq is the number of steps applied before it; Turn the turn, from 1
	// (0 before the game).
	Seq  uint64 `json:"seq"`
	Turn int    `json:"turn"`
	// Kind is "action", "chance", "bot" (a dropped seat's move played by
	// the game's bot), "drop", or "table" (joins, stalls, votes, the end),
	// "cheat" or "desync".
	Kind string `json:"kind"`
	// Seat is who acted, from 1; 0 for chance and the table.
	Seat int `json:"seat"`
	// Who names the actor ("Ana (seat 2)", "the beacon").
	Who string `json:"who"`
	// Text is what was done; Outcome what came out of it (drawn, rolled,
	// bought, scored), both as the viewer may know them.
	Text    string `json:"text"`
	Outcome string `json:"outcome,omitempty"`
	// Target is what the move pointed at (the square of a tile laid, the
	// pile bought from), for a front end to highlight the last move.
	Target *engine.Target `json:"target,omitempty"`
}

// Line is the entry as one line of text: "Ana (seat 2): Buy Militia — …".
func (e Entry) Line() string {
	s := e.Text
	if e.Who != "" {
		s = e.Who + ": " + s
	}
	if e.Outcome != "" {
		s += " — " + e.Outcome
	}
	return s
}

// Action is one legal move of the viewer.
type Action struct {
	// ID is stable for the same move in any state: the op and arguments.
	ID    string `json:"id"`
	Label string `json:"label"`
	// Group is the label's leading words ("Play Bank" for "Play Bank at
	// (2,0)"); moves that share it form one group of a long menu.
	Group  string         `json:"group"`
	Target *engine.Target `json:"target,omitempty"`
	Text   string         `json:"text,omitempty"`
	Risky  bool           `json:"risky,omitempty"`
	// Action is the engine action itself (not sent to browsers: they send
	// the ID back).
	Action engine.Action `json:"-"`
	// Then, for a combo (several moves as one pick, like a walk of five
	// spaces), is the moves to send after Action, one at a time, each once
	// the one before is committed and only while it is still legal. Steps
	// are their IDs, for a browser.
	Then  []engine.Action `json:"-"`
	Steps []string        `json:"steps,omitempty"`
}

// Score is one seat's score with its breakdown.
type Score struct {
	Seat   int                `json:"seat"`
	Name   string             `json:"name"`
	Total  int                `json:"total"`
	Parts  []engine.ScorePart `json:"parts,omitempty"`
	Winner bool               `json:"winner,omitempty"`
}

// Result is how the game ended.
type Result struct {
	Reason  string `json:"reason"`
	Winners []int  `json:"winners"` // seats, from 1
}

// Peer is one peer of the table.
type Peer struct {
	Name string `json:"name"`
	ID   string `json:"id"`   // the short form of its peer id
	Seat int    `json:"seat"` // from 1; 0 for no seat yet or a spectator
	// Conn is "here" (this peer), "connected", "not connected" or "left"
	// (dropped).
	Conn string `json:"conn"`
	Self bool   `json:"self,omitempty"`
	Bot  bool   `json:"bot,omitempty"`
	// Waited is how long the table has waited for it, in ms (0: it owes
	// nothing).
	Waited int64 `json:"waited_ms,omitempty"`
}

// Stall is a seat the table waits for.
type Stall struct {
	Seat int    `json:"seat"` // from 1; 0 in the lobby
	Name string `json:"name"`
	What string `json:"what"` // "an action", "a reveal", "a checkpoint", …
	For  int64  `json:"for_ms"`
	// Why, when the wait is held, says why in plain words, seats from 1
	// ("held: waiting for Bo (seat 3) to answer the card catch-up after
	// restart"); empty for a plain wait.
	Why string `json:"why,omitempty"`
	// CanDrop is set when the viewer may propose (or confirm) dropping it:
	// it is not the viewer, and it has waited at least DropAfter or another
	// player has proposed the drop. Droppable is whether a drop could pass
	// at all: a table of two cannot vote anyone out (the voters must be a
	// strict majority of the seats in play).
	CanDrop   bool `json:"can_drop,omitempty"`
	Droppable bool `json:"droppable"`
}

// Vote is a pending drop vote: Voters (seats; Voter the first) vote to
// drop Seats.
type Vote struct {
	Voter  int   `json:"voter"`
	Voters []int `json:"voters"`
	Seats  []int `json:"seats"`
	// Needed is how many votes the drop needs in all, Have how many it has.
	Needed int `json:"needed"`
	Have   int `json:"have"`
}

// Sync is the state-hash agreement line.
type Sync struct {
	OK   bool   `json:"ok"`
	Text string `json:"text"`
}

// Cheat is a cheat or a rejected envelope, named in plain words.
type Cheat struct {
	Kind string `json:"kind"` // "equivocation", "rejected", "desync"
	Seat int    `json:"seat"` // the seat concerned, from 1; 0 if none
	Name string `json:"name"`
	Text string `json:"text"`
}

// Lobby is the lobby as its screen shows it.
type Lobby struct {
	Code      string   `json:"code,omitempty"`
	Addresses []string `json:"addresses,omitempty"`
	Joined    []string `json:"joined"`
	// Host is set on the host's own screen; it alone may start the game.
	Host bool `json:"host,omitempty"`
	// Join is the command a player types to join ("boardmesh join CODE").
	Join string `json:"join,omitempty"`
}
