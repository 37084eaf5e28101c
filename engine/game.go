package engine

import (
	"fmt"
	"strings"
)

// ActorKind says what kind of actor the state waits for.
type ActorKind uint8

const (
	// ActorSeat means one seat must choose an action.
	ActorSeat ActorKind = iota
	// ActorChance means the state needs random bytes (a beacon round).
	ActorChance
	// ActorOver means the game has ended; Result is final.
	ActorOver
	// ActorCards means the state waits for the card layer to open cards
	// (CardState.Openings). Only a state with secret cards (CardState,
	// CardsSecret) is ever in it; an open table answers from the beacon as
	// a chance step instead.
	ActorCards
)

// Actor is who must act next. Seat is meaningful only for ActorSeat.
type Actor struct {
	Kind ActorKind
	Seat int
}

// SeatActor, ChanceActor and OverActor build the three kinds of Actor.
func SeatActor(seat int) Actor { return Actor{Kind: ActorSeat, Seat: seat} }

// ChanceActor is the actor of a state that waits for random bytes.
func ChanceActor() Actor { return Actor{Kind: ActorChance, Seat: -1} }

// OverActor is the actor of a finished game.
func OverActor() Actor { return Actor{Kind: ActorOver, Seat: -1} }

// CardsActor is the actor of a state that waits for its cards to be opened.
func CardsActor() Actor { return Actor{Kind: ActorCards, Seat: -1} }

func (a Actor) String() string {
	switch a.Kind {
	case ActorSeat:
		return fmt.Sprintf("seat %d", a.Seat)
	case ActorChance:
		return "chance"
	case ActorCards:
		return "cards"
	default:
		return "over"
	}
}

// Action is one choice of a seat: a game-defined operation and its
// arguments. Its canonical bytes ([Action.AppendBinary]) travel in signed
// envelopes, so two peers that agree on the bytes agree on the move.
type Action struct {
	Op   uint16
	Args []int32
}

// Equal reports whether two actions are the same move.
func (a Action) Equal(b Action) bool {
	if a.Op != b.Op || len(a.Args) != len(b.Args) {
		return false
	}
	for i := range a.Args {
		if a.Args[i] != b.Args[i] {
			return false
		}
	}
	return true
}

func (a Action) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "op%d", a.Op)
	for _, x := range a.Args {
		fmt.Fprintf(&b, " %d", x)
	}
	return b.String()
}

// Result is the outcome of a finished game.
type Result struct {
	// Scores holds each seat's final score, in seat order.
	Scores []int `json:"scores"`
	// Winners lists the winning seats in ascending order; more than one
	// means a shared win.
	Winners []int `json:"winners"`
	// Reason says in words why the game ended ("the dragon woke up").
	Reason string `json:"reason"`
}

// View is what one seat may see of a state: its own hidden information and
// everything public. Views are plain structs, so they marshal to JSON for
// scripts; Render draws them for a terminal.
type View interface {
	// Render draws the view as text no wider than width columns. With color
	// set it may use ANSI colours.
	Render(width int, color bool) string
}

// State is one game in progress. Implementations live in the game
// sub-packages. Methods that take a seat take -1 for a spectator where it
// makes sense (View).
type State interface {
	// Players is the number of seats.
	Players() int
	// ToAct says who must act next.
	ToAct() Actor
	// Turn counts the turns that have ended. It changes exactly when a
	// turn passes from one player to the next, which is when peers publish
	// checkpoints.
	Turn() int
	// Legal appends every legal action of the seat to act to dst and
	// returns it. It appends nothing when chance or nobody is to act.
	Legal(dst []Action) []Action
	// Apply performs seat's action. It returns an error (wrapping one of
	// ErrNotYourTurn, ErrGameOver or ErrIllegal) and leaves the state
	// unchanged if the action may not be taken.
	Apply(seat int, a Action) error
	// ApplyChance feeds random bytes (a beacon value, at least 32 bytes)
	// to a state whose actor is chance. It returns ErrNotChance otherwise.
	ApplyChance(beacon []byte) error
	// Clone returns a deep copy.
	Clone() State
	// Encode writes the canonical encoding of the state.
	Encode(e *Encoder)
	// View returns what seat may see; seat -1 is a spectator.
	View(seat int) View
	// Result is the outcome; meaningful once ToAct is ActorOver.
	Result() Result
	// Describe says in a player's words what action a would do in this
	// state ("Draw a card", "Escape with 8 treasure").
	Describe(a Action) string
}

// Bot chooses actions for a seat. Bots see the state the local peer holds;
// they must base their choices on what their seat may see.
type Bot interface {
	// Choose returns one of legal (which is never empty) for the seat to act.
	Choose(s State, legal []Action, r *Rand) Action
}

// BotSpec names a bot kind of a game.
type BotSpec struct {
	Name string
	Help string
	New  func() Bot
}

// Metric is one figure a game's statistics collector reports after a
// simulation.
type Metric struct {
	Name  string  `json:"name"`
	Value float64 `json:"value"`
	// Count is the number of observations behind Value, where that helps a
	// reader judge it (for a rate: the denominator).
	Count int64  `json:"count,omitempty"`
	Help  string `json:"help,omitempty"`
}

// Stats collects game-specific statistics during simulations. It sits
// outside the rules, so floats are fine here.
type Stats interface {
	// Observe is called after every step: prev is the state before it
	// (a clone), next the state after it, who the actor, a the action
	// (zero for chance).
	Observe(prev, next State, who Actor, a Action)
	// Finish is called once per game with its final state.
	Finish(final State)
	// Report returns the figures, in a fixed order.
	Report() []Metric
}

// Game is a game definition, registered by name in package games.
type Game struct {
	// Name is the short name used on the command line ("dragonslair").
	Name string
	// Title is the printed name ("The Sleeping Dragon's Lair").
	Title string
	// Version is the rules version; peers with different versions refuse
	// to start a session together (and a saved game to resume). It also
	// names the card protocol of a secret table: a change of its group,
	// encodings or proof transcripts (crypto/mentalpoker) bumps every
	// hidden-cards game's version, so that old and new peers refuse each
	// other at the lobby instead of calling each other's cards malformed.
	Version string
	// MinPlayers and MaxPlayers bound the number of seats.
	MinPlayers, MaxPlayers int
	// DefaultPlayers is the player count of `boardmesh play` and `sim`.
	DefaultPlayers int
	// Options lists the named options of the game.
	Options []OptionSpec
	// New sets up a game; the returned state usually waits for chance.
	New func(players int, opts Options) (State, error)
	// Decode rebuilds a state from its canonical encoding.
	Decode func(b []byte) (State, error)
	// Bots lists the bot kinds; the first is the default.
	Bots []BotSpec
	// NewStats, if set, makes a statistics collector for simulations.
	NewStats func() Stats
}

// Setup checks the player count and options and builds the initial state.
// Its errors say what is wrong and what is allowed.
func (g *Game) Setup(players int, opts Options) (State, error) {
	if players < g.MinPlayers || players > g.MaxPlayers {
		return nil, fmt.Errorf("%s is for %d to %d players, not %d", g.Title, g.MinPlayers, g.MaxPlayers, players)
	}
	resolved, err := ResolveOptions(g.Options, opts)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", g.Name, err)
	}
	return g.New(players, resolved)
}

// Bot returns the bot spec with the given name, or an error listing the
// bots the game has.
func (g *Game) Bot(name string) (BotSpec, error) {
	names := make([]string, 0, len(g.Bots))
	for _, b := range g.Bots {
		if b.Name == name {
			return b, nil
		}
		names = append(names, b.Name)
	}
	return BotSpec{}, fmt.Errorf("%s has no bot %q; its bots are: %s", g.Name, name, strings.Join(names, ", "))
}

// Dropper is implemented by games that define what happens to a seat whose
// player has left for good (a drop agreed by the remaining peers). Drop
// must be deterministic, leave exactly one actor, and never act for the
// seat again afterwards. Games without it keep the seat in play, and the
// protocol then plays it with the game's first bot kind on every peer.
type Dropper interface {
	Drop(seat int) error
}
