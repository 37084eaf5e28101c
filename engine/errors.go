package engine

import (
	"errors"
	"fmt"
)

// Sentinel errors of the contract. Games wrap them with words that say what
// was wrong, so a caller can both show the message and test the kind.
var (
	// ErrNotYourTurn: the seat that tried to act is not the one to act.
	ErrNotYourTurn = errors.New("not your turn")
	// ErrGameOver: the game has ended; nothing more can be played.
	ErrGameOver = errors.New("the game is over")
	// ErrIllegal: the action breaks a rule in this state.
	ErrIllegal = errors.New("illegal move")
	// ErrNotChance: random bytes were given to a state that does not need them.
	ErrNotChance = errors.New("the game is not waiting for a random draw")
	// ErrShortBeacon: fewer random bytes than a chance step needs.
	ErrShortBeacon = errors.New("beacon too short")
	// ErrDecode: a canonical encoding could not be read.
	ErrDecode = errors.New("cannot decode state")
)

// Illegal returns an error wrapping ErrIllegal with a player's explanation.
func Illegal(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrIllegal, fmt.Sprintf(format, args...))
}

// CheckTurn returns the contract's error for a seat that may not act in a
// state whose actor is who, or nil if seat is the one to act.
func CheckTurn(who Actor, seat int) error {
	switch who.Kind {
	case ActorOver:
		return ErrGameOver
	case ActorChance:
		return fmt.Errorf("%w: the game is waiting for a random draw", ErrNotYourTurn)
	case ActorCards:
		return fmt.Errorf("%w: the game is waiting for cards to be opened", ErrNotYourTurn)
	}
	if who.Seat != seat {
		// Seats are counted from 1 in every message a player reads.
		return fmt.Errorf("%w: seat %d is to act, not seat %d", ErrNotYourTurn, who.Seat+1, seat+1)
	}
	return nil
}

// CheckChance returns ErrNotChance unless who is chance, and ErrShortBeacon
// if beacon holds fewer than 32 bytes.
func CheckChance(who Actor, beacon []byte) error {
	if who.Kind != ActorChance {
		return fmt.Errorf("%w (%s is to act)", ErrNotChance, who)
	}
	if len(beacon) < 32 {
		return fmt.Errorf("%w: %d bytes, need 32", ErrShortBeacon, len(beacon))
	}
	return nil
}
