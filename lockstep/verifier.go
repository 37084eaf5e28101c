package lockstep

import (
	"errors"
	"fmt"

	"github.com/boardmesh/boardmesh/crypto"
	"github.com/boardmesh/boardmesh/engine"
)

// Verifier checks a session log entry by entry, as it grows: feeding it
// the entries of a log one at a time does the same checks, in the same
// order, as Verify on the whole log, so a spectator that polls a growing
// log checks each entry once instead of the whole log on every poll.
// (Added after the first API commit; additive.)
type Verifier struct {
	m   *machine
	n   int
	err error
	// held are entries fed while a secret table waits for cards, not yet
	// checked: a card the wait opens to everyone is named only by the
	// next action (secretAction.opened), which Verify finds ahead in the
	// whole log and a growing log has not brought yet. They are checked,
	// in order, when that action is fed.
	held []*crypto.Envelope
}

// maxHeld bounds the entries a Verifier holds for the next action: more
// than a turn's checkpoints and reveals of 8 seats ever are.
const maxHeld = 4096

// NewVerifier returns a Verifier of an empty log; games resolves the
// roster's game (games.Lookup).
func NewVerifier(games func(string) (*engine.Game, error)) *Verifier {
	m := newMachine(games)
	m.checkSigs, m.record = true, true
	m.scratch = make([]byte, 0, 1024)
	return &Verifier{m: m}
}

// Feed checks the next entry of the log. It returns a *VerifyError naming
// the entry if it fails, and from then on returns that error again: a log
// that failed once cannot become valid by going on.
func (v *Verifier) Feed(env *crypto.Envelope) error {
	if v.err != nil {
		return v.err
	}
	if env == nil {
		v.err = &VerifyError{Index: v.n + len(v.held), Err: fmt.Errorf("%w: missing entry", ErrMalformed)}
		return v.err
	}
	if len(v.held) == 0 {
		// A wait for cards the hint can answer is passed here, before
		// the entry that ends it, not after the entry before it: a round
		// of drop votes that all name the waiting state (each voter held
		// by its vote there) is taken at that state, and a wait passed
		// before it could not be undone (endsWait; a node's replay does
		// the same, §5.6). The caller's PassCards passes it sooner, once
		// it has fed what it has.
		if v.m.endsWait(env) {
			if err := v.PassCards(); err != nil {
				return err
			}
		}
		err := v.feed(env, nil)
		if err == nil {
			return nil
		}
		if !errors.Is(err, errOpenedAhead) {
			return err
		}
		// The wait's card opened to everyone is named by the next action:
		// hold this entry (and those after it) until it comes. What the
		// wait answered already stays answered; the rest is answered then.
		v.err = nil
	}
	v.held = append(v.held, env)
	if env.Kind != crypto.KindAction && len(v.held) < maxHeld {
		return nil
	}
	held := v.held
	v.held = nil
	for k, e := range held {
		if err := v.feed(e, held[k+1:]); err != nil {
			return err
		}
	}
	return nil
}

// SetCardHint gives the Verifier of a live peer the values of the cards
// opened to everyone that its card layer knows (the peer's own state's
// engine.Cards Public), so a wait for cards is passed when they are open
// instead of when the next action lists them. Only for the peer's own
// knowledge: a wrong hint is caught by the next entry's state hash, as a
// forged log would be. (Added for secret tables; additive.)
func (v *Verifier) SetCardHint(f func(engine.Handle) (card int, ok bool)) { v.m.cardHint = f }

// PassCards passes a wait for cards the card hint can answer now (see
// SetCardHint). Feed calls it only before an entry that ends the wait
// (not before a drop vote that names the waiting state, §5.6), so a
// caller with a hint calls it once it has fed every entry it has: the
// hint must then be of a state no further on than those entries (a live
// peer's own state is: a peer held at a wait by its vote has not
// observed the wait's cards).
func (v *Verifier) PassCards() error {
	if v.err != nil || len(v.held) > 0 {
		return v.err
	}
	if err := v.m.hintedCards(); err != nil {
		v.err = &VerifyError{Index: v.n, Err: err}
	}
	return v.err
}

// feed checks one entry, with the entries after it that are known.
func (v *Verifier) feed(env *crypto.Envelope, ahead []*crypto.Envelope) error {
	i := v.n
	v.m.ahead = ahead
	err := v.m.feed(env)
	v.m.ahead = nil
	if err != nil {
		v.err = &VerifyError{Index: i, Entry: env, Err: err}
		return v.err
	}
	for _, ev := range v.m.events {
		if ev.Kind == EventEquivocation {
			v.m.phase = PhaseStopped
		}
	}
	v.m.events = v.m.events[:0]
	v.n++
	return nil
}

// OnStep makes the Verifier call f after every step of the game (an
// action, a chance step, a dropped seat's bot move, a drop), with clones of
// the states before and after it, which f may keep. Front ends use it to
// tell each step with its outcome (what was drawn, what was rolled). Set it
// before the first Feed. (Added for the presentation model; additive.)
func (v *Verifier) OnStep(f func(prev, next engine.State, s ReplayStep, a engine.Action)) {
	if f == nil {
		v.m.onStep = nil
		return
	}
	v.m.onStep = func(prev, next engine.State, info stepInfo) {
		f(prev, next, ReplayStep{Kind: info.Kind, Author: info.Author, Seat: info.Seat, Entry: info.Entry, What: info.What}, info.Action)
	}
}

// Len is the number of entries fed so far: verified, or held until the
// next action of a secret table (see Verifier.held; Replay shows the
// verified ones).
func (v *Verifier) Len() int { return v.n + len(v.held) }

// Replay returns what the entries verified so far show, as Verify would.
// It is a snapshot: later Feeds do not change it (Final is a clone).
func (v *Verifier) Replay() *Replay {
	r := replayOf(v.m)
	if r.Final != nil {
		r.Final = r.Final.Clone()
	}
	r.Seats = append([]int(nil), r.Seats...)
	r.Dropped = append([]bool(nil), r.Dropped...)
	r.Hashes = append([]crypto.Hash(nil), r.Hashes...)
	r.Beacons = append([]crypto.Hash(nil), r.Beacons...)
	r.EntrySeq = append([]uint64(nil), r.EntrySeq...)
	return r
}
