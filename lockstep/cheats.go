package lockstep

import (
	"errors"
	"fmt"

	"github.com/boardmesh/boardmesh/crypto"
)

// raisedKey is one (author, kind, reason) whose event was raised at the
// current step: more of the same are counted, not shown again.
type raisedKey struct {
	author crypto.PeerID
	kind   crypto.Kind
	cheat  CheatKind
	reason string // for rejections that are not cheats
}

// cheatOf names the cheat behind a rejection, or 0 for a rejection that
// is no cheat (stale, out of phase, a dropped peer's late envelope).
func cheatOf(err error) CheatKind {
	switch {
	case errors.Is(err, ErrBadSignature):
		return CheatForged
	case errors.Is(err, ErrWrongSession):
		return CheatReplayed
	case errors.Is(err, ErrNotYourTurn):
		return CheatOutOfTurn
	case errors.Is(err, ErrIllegal):
		return CheatIllegal
	case errors.Is(err, ErrStateHash):
		return CheatWrongHash
	case errors.Is(err, ErrBadReveal):
		return CheatBadReveal
	case errors.Is(err, ErrEquivocation):
		return CheatEquivocation
	case errors.Is(err, ErrCheckpoint):
		return CheatWrongCheckpoint
	case errors.Is(err, ErrLyingState):
		return CheatLyingState
	case errors.Is(err, ErrBadBody), errors.Is(err, ErrMalformed):
		return CheatMalformed
	}
	return 0
}

// differing reports whether c is a state hash that differs from ours (an
// action's, reveal's or vote's, or a checkpoint's): until the states are
// compared, a desync as much as a cheat, so raised as EventRejected.
func differing(c CheatKind) bool { return c == CheatWrongHash || c == CheatWrongCheckpoint }

// who is an author as players know it: its name and seat (from 1).
func (n *Node) who(id crypto.PeerID) (string, int) {
	name := n.m.nameOf(id)
	seat := n.m.seatOfPeer(id) + 1
	if seat > 0 {
		name = fmt.Sprintf("%s (seat %d)", name, seat)
	}
	return name, seat
}

// cheatWhat is the sentence of an EventCheat.
func (n *Node) cheatWhat(c CheatKind, env *crypto.Envelope, err error) string {
	name, _ := n.who(env.Author)
	switch c {
	case CheatForged:
		return fmt.Sprintf("%s under the name of %s has a signature that does not verify (forged or corrupted); ignored", env.Kind.WithArticle(), name)
	case CheatReplayed:
		return fmt.Sprintf("%s that %s signed for another table was sent here (replayed); ignored", env.Kind.WithArticle(), name)
	case CheatOutOfTurn:
		return fmt.Sprintf("%s sent an action for step %d out of turn; refused: %v", name, env.Seq, err)
	case CheatIllegal:
		return fmt.Sprintf("%s sent an illegal action for step %d; refused: %v", name, env.Seq, err)
	case CheatWrongHash:
		if env.Kind.Card() {
			return fmt.Sprintf("%s's state differs from ours: its %s envelope for the hidden cards answers another game state, so it is set aside unchecked and our states are compared (a desync report follows, or its lie is named): %v", name, env.Kind, err)
		}
		return fmt.Sprintf("%s's state differs from ours at step %d: its %s is for another state, so it is refused, and our states are compared (a desync report follows, or its lie is named): %v", name, env.Seq, env.Kind, err)
	case CheatBadReveal:
		return fmt.Sprintf("%s sent a reveal for beacon round %d that is not the next element of its hash chain; refused", name, env.Seq)
	case CheatWrongCheckpoint:
		return fmt.Sprintf("%s's state differs from ours at step %d: its checkpoint has another state hash, so the game stops and our states are compared (a desync report follows, or its lie is named): %v", name, env.Seq, err)
	case CheatMalformed:
		return fmt.Sprintf("%s sent a malformed %s; refused: %v", name, env.Kind, err)
	case CheatLyingState:
		return fmt.Sprintf("%s is lying about its state (%v); %s is the suspect, no player's move is", name, err, name)
	case CheatEquivocation:
		what := fmt.Sprintf("%s signed two different %s envelopes%s", name, env.Kind, env.Kind.ForSlot(env.Seq))
		if n.m.phase == PhaseOver {
			// Seen after the end (a late or slow relay): a player who reads
			// only "equivocation" would expect the game to stop, and it
			// cannot; say why.
			what += afterTheEnd
		}
		return what
	}
	return fmt.Sprintf("%s: %v", name, err)
}

// afterTheEnd ends the sentence of an equivocation seen once the game is
// over: the log is closed, so the pair cannot be committed as evidence.
const afterTheEnd = ", seen after the game ended: the result stands, and the closed log cannot hold the proof"

// reject reports a rejected envelope and returns err. Every rejection is
// counted; an event is raised at most once per (author, kind, reason) and
// step, so a flood of bad envelopes cannot flood the player's screen. A
// non-member's envelope once the roster exists is only counted: an
// outsider has no seat to blame and nobody needs to read about it.
func (n *Node) reject(env *crypto.Envelope, err error) error {
	if n.rejected != nil {
		n.rejected[slotOf(env)] = err
	}
	if n.m.members != nil && errors.Is(err, ErrNotMember) {
		n.counters.Outsider++
		return err
	}
	n.counters.Rejected++
	c := cheatOf(err)
	key := raisedKey{author: env.Author, kind: env.Kind, cheat: c}
	if c == 0 {
		key.reason = err.Error()
	}
	if at := uint64(len(n.m.log)); n.raised == nil || n.raisedAt != at {
		n.raised, n.raisedAt = map[raisedKey]bool{}, at
	}
	if n.raised[key] || len(n.raised) >= maxRaised {
		return err
	}
	n.raised[key] = true
	name, seat := n.who(env.Author)
	if c == 0 {
		n.rd.Events = append(n.rd.Events, Event{Kind: EventRejected, Peer: env.Author, Seat: seat, Who: name,
			Seq: env.Seq, Err: err, Text: fmt.Sprintf("rejected %s from %s: %v", env.Kind, name, err)})
		return err
	}
	what := n.cheatWhat(c, env, err)
	if differing(c) {
		// A state hash that differs from ours is no proof of cheating:
		// its author's engine may have gone wrong, or ours. Named as what
		// it shows, not as a cheat; the state envelopes decide which it
		// is (desync.go): a desync report, or a lying state (a cheat).
		n.rd.Events = append(n.rd.Events, Event{Kind: EventRejected, Cheat: c, Peer: env.Author, Seat: seat, Who: name,
			What: what, Seq: env.Seq, Err: err, Text: what})
		return err
	}
	n.rd.Events = append(n.rd.Events, Event{Kind: EventCheat, Cheat: c, Peer: env.Author, Seat: seat, Who: name,
		What: what, Seq: env.Seq, Err: err, Text: c.String() + ": " + what})
	return err
}

// maxRaised bounds the distinct rejections shown at one step.
const maxRaised = 256
