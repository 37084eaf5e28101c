package tui

import (
	"github.com/boardmesh/boardmesh/cli/present"
	"github.com/boardmesh/boardmesh/engine"
)

// PeerInfo is one peer of the table as the UI lists it.
type PeerInfo struct {
	Name string
	Seat int    // -1 for a spectator
	Conn string // "connected", "waiting 4s", "gone", …
	Self bool
	Bot  bool
}

// Snapshot is everything the UI shows at one moment. The runner builds a
// fresh one after every change and never touches it again, so the UI may
// read it from its own goroutine.
type Snapshot struct {
	Title string
	// Seat is the local seat, -1 when spectating.
	Seat int
	// State is a clone the UI may read; nil before the game starts.
	State engine.State
	// Legal is non-empty exactly when the local seat must choose.
	Legal []engine.Action
	// Step counts the steps applied to State. A snapshot with a new step
	// is a new decision, even when the same seat chooses again (Dominion's
	// action phase), so the UI accepts a new choice.
	Step uint64
	// Status says whose turn it is, or what the table waits for.
	Status string
	// Log holds the latest lines of what happened, oldest first; History,
	// when set, replaces it with the full history of the presentation
	// model, coloured by seat.
	Log     []string
	History []present.Entry
	Peers   []PeerInfo
	// Sync says whether every peer's state hash agrees, or reports the
	// desync.
	Sync   string
	Desync bool
	// Over is set when the game has ended; Result says how.
	Over   bool
	Result string
	// CanStart is set for a host in its lobby: the s key starts the game.
	CanStart bool
	// Err is a fatal error to show before quitting.
	Err string
	// Table is the presentation model the snapshot was made from, when
	// there is one: its stalls (the drop key), votes, terms and scores.
	Table *present.Table
	// Rules is a short summary of the game's rules, for the help screen.
	Rules string
}
