package engine

// This file holds the optional interfaces a game's state implements to
// help front ends (the terminal UI, the browser view, replay) tell the
// game well. None of them is part of the rules: they are presentation,
// and front ends fall back to Describe and Render without them.

// Narration is one step of the game as one seat may know it.
type Narration struct {
	// What is what was done ("Buy Militia", "Play a tile at (1,2)").
	What string
	// Outcome is what came out of it that the seat may know: the card
	// drawn, the die rolled, the tile turned, the points scored. Empty
	// when nothing new became known.
	Outcome string
}

// Narrator is implemented by states that tell their steps in full. On the
// state before a step, Narrate tells the step (who acted, and a, zero for
// chance) that led to next, as seat (-1: a spectator) may know it. It must
// name nothing that seat may not see: a safe implementation compares
// View(seat) of the two states and reads the action's public part only.
type Narrator interface {
	Narrate(next State, who Actor, a Action, seat int) Narration
}

// ScorePart is one line of a score's breakdown ("Provinces", 12).
type ScorePart struct {
	Label  string `json:"label"`
	Points int    `json:"points"`
}

// Scorer is implemented by states that can explain scores. ScoreParts
// returns seat's score made up of its parts, as viewer (-1: a spectator)
// may know it; ok is false when viewer may not know it yet (the victory
// points of another Dominion player before the end).
type Scorer interface {
	ScoreParts(seat, viewer int) (parts []ScorePart, ok bool)
}

// Target is what a legal action points at on the board, so a front end can
// make the thing itself clickable: Kind says what (one of the Target*
// kinds), ID names it within the game ("Militia", "road-7", "3,-2"), X and
// Y are its coordinates where it has some.
type Target struct {
	Kind string `json:"kind"`
	ID   string `json:"id"`
	X    int    `json:"x,omitempty"`
	Y    int    `json:"y,omitempty"`
}

// The kinds of Target.
const (
	TargetSquare = "square" // a square or space of the board (X, Y or a named space)
	TargetCard   = "card"   // a card in the player's hand or in play
	TargetPile   = "pile"   // a supply pile or a draw pile
	TargetHero   = "hero"   // a hero, pawn or piece
	TargetButton = "button" // no thing on the board: end the turn, pass
)

// ActionInfo is what a front end shows beside a legal action.
type ActionInfo struct {
	// Target is what the action points at; zero when it points at nothing.
	Target Target
	// Text is the effect text of the card, tile or hero the action uses.
	Text string
	// Risky marks a choice a player should not make by accident (end the
	// turn with Actions or Buys left, give up a treasure): never the
	// default highlight.
	Risky bool
}

// ActionInformer is implemented by states that say more about their legal
// actions.
type ActionInformer interface {
	ActionInfo(a Action) ActionInfo
}

// Term is a card, tile, hero or space with its effect text.
type Term struct {
	Name string `json:"name"`
	Kind string `json:"kind"` // "card", "tile", "hero", "space", …
	Text string `json:"text"`
}

// Glossary is implemented by states that list the terms a seat sees now
// (the kingdom's cards, the heroes in play), with their texts.
type Glossary interface {
	Terms(seat int) []Term
}

// Compact is implemented by views that can draw their essentials in a
// given number of lines: the terminal UI uses it when the full board does
// not fit (80x24). mark lists things to highlight, such as the target of
// the last move (the tile just laid).
type Compact interface {
	RenderCompact(width, height int, color bool, mark []Target) string
}

// Combo is a run of moves a front end may offer as one pick ("Move a pawn
// from space 3 to space 8"). Steps[0] is legal now and each later step is
// legal after the ones before it, in the state the combo was made for; a
// front end sends them one at a time, each once the one before is
// committed, and stops when the next is no longer legal (another effect
// intervened).
type Combo struct {
	Label string
	Steps []Action
}

// Combiner is implemented by states that offer combos of their legal
// moves (Serpent City's walks of several spaces).
type Combiner interface {
	Combos(legal []Action) []Combo
}
