package lockstep

import (
	"errors"

	"github.com/boardmesh/boardmesh/crypto"
)

// Reasons an envelope is rejected. Step returns them wrapped with details;
// Verify wraps them in a *VerifyError that names the entry.
var (
	ErrBadSignature = crypto.ErrBadSignature
	ErrMalformed    = crypto.ErrMalformed
	ErrBadReveal    = crypto.ErrBadReveal
	// ErrWrongSession: the envelope belongs to another session or lobby.
	ErrWrongSession = errors.New("lockstep: envelope from another session")
	// ErrDuplicate: an envelope we already have (a replay or a re-send).
	ErrDuplicate = errors.New("lockstep: duplicate or replayed envelope")
	// ErrStale: an envelope for a step or round already committed without it.
	ErrStale = errors.New("lockstep: envelope for a step already decided")
	// ErrNotMember: the author is not in the roster.
	ErrNotMember = errors.New("lockstep: author is not a member of the session")
	// ErrNotYourTurn: an action from a peer whose seat is not to act.
	ErrNotYourTurn = errors.New("lockstep: action out of turn")
	// ErrIllegal: the engine refused the action.
	ErrIllegal = errors.New("lockstep: illegal action")
	// ErrStateHash: an action or reveal carrying a pre-state hash that is
	// not ours.
	ErrStateHash = errors.New("lockstep: wrong pre-state hash")
	// ErrCheckpoint: a checkpoint whose hash differs from ours (a desync).
	ErrCheckpoint = errors.New("lockstep: checkpoint hash differs")
	// ErrEquivocation: two different envelopes from one author for one slot.
	ErrEquivocation = errors.New("lockstep: equivocation")
	// ErrDropped: an envelope from a seat dropped by agreement.
	ErrDropped = errors.New("lockstep: author was dropped")
	// ErrBadBody: a body that does not decode canonically for its kind.
	ErrBadBody = errors.New("lockstep: malformed body")
	// ErrFalseCheat: the other player's claim of the win names a cheat of
	// this peer's, proven by an envelope this peer signed: an honest peer
	// signs only what its own card layer made by the protocol, so it
	// refuses the claim (claim.go, pinnedOnUs).
	ErrFalseCheat = errors.New("lockstep: a claim names a cheat this peer did not commit")
	// ErrUnexpected: an entry that cannot come next in a log.
	ErrUnexpected = errors.New("lockstep: unexpected entry")
	// ErrRefused: the roster names a game or rules version we do not have.
	ErrRefused = errors.New("lockstep: refused")
	// ErrPhase: an intent that does not fit the current phase.
	ErrPhase = errors.New("lockstep: not possible now")
	// ErrFork: a peer's log contradicts ours at an index (StepAnswer).
	ErrFork = errors.New("lockstep: logs differ")
	// ErrLyingState: a state envelope whose hashes contradict a state hash
	// its author signed in a committed entry (an agreed checkpoint, its
	// action or its checkpoint): its author lies.
	ErrLyingState = errors.New("lockstep: state envelope contradicts what its author signed")
	// ErrStopped: the session has stopped (equivocation or desync).
	ErrStopped = errors.New("lockstep: session stopped")
	// ErrCannotStart: the lobby stopped because too few members are left
	// to play (the others never sent their seat draw's reveal).
	ErrCannotStart = errors.New("lockstep: the table cannot start")
	// ErrRedraw: a re-proposal refused in the seat draw because this peer
	// holds the reveal of a member it leaves out (lobby.go). Not
	// ErrRefused: the peer stays at the table, drawing the seats it was.
	ErrRedraw = errors.New("lockstep: a seat draw that can complete may not be redone")
)
