package cli

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"

	"github.com/boardmesh/boardmesh/engine"
	"github.com/boardmesh/boardmesh/lockstep"
	"github.com/boardmesh/boardmesh/lockstep/cardsource"
	"github.com/boardmesh/boardmesh/p2p"
)

// A secret table's log holds the cards opened to everyone and, of the
// cards opened to one seat alone, only ciphertexts and the other seats'
// decryption shares. Only that seat can open them again: with its
// hidden-card key (the log's card-key file) and its identity (its own
// card envelopes bind the deal to it). replay --seat N rebuilds seat N's
// node from the log with both, as a resumed peer would, offline, and
// takes the seat's knowledge from it, so that the history names the
// seat's own cards as its screen did.

// seatKnowledge returns seat's state rebuilt from the log with its private
// knowledge attached, or nil and why the seat's own cards stay unnamed
// ("" where there is nothing to name: an open table, or no seat asked).
func seatKnowledge(opts *ReplayOptions, lf *lockstep.LogFile, r *lockstep.Replay) (engine.State, string) {
	if opts.Seat == 0 || r == nil || r.Mode != lockstep.ModeSecret || opts.Seat > len(r.Seats) {
		return nil, ""
	}
	unnamed := fmt.Sprintf("seat %d's own cards stay unnamed: ", opts.Seat)
	keyPath := p2p.CardKeyPath(opts.File)
	key, err := p2p.ReadCardKey(keyPath)
	if err != nil {
		return nil, unnamed + err.Error()
	}
	if key == nil {
		return nil, unnamed + fmt.Sprintf("its hidden-card key is not beside the log (%s): only the seat's own peer keeps it", keyPath)
	}
	id, err := p2p.LogIdentity(opts.File)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, unnamed + fmt.Sprintf("the identity of the peer that wrote the log is not here (%s, or the home of a session log)", p2p.LogIdentityPath(opts.File))
	}
	if err != nil {
		return nil, unnamed + err.Error()
	}
	if m := r.Members[r.Seats[opts.Seat-1]]; m.ID != id.ID() {
		own := ""
		for s, mi := range r.Seats {
			if r.Members[mi].ID == id.ID() {
				own = fmt.Sprintf(" (seat %d: --seat %d tells its cards)", s+1, s+1)
			}
		}
		return nil, unnamed + fmt.Sprintf("the identity that wrote this log is %s's%s, not seat %d's (%s): a seat opens only its own cards",
			memberName(r, id.ID()), own, opts.Seat, memberName(r, m.ID))
	}
	// The resumed node's card layer (CardKey given) is held: it signs
	// nothing new, it only steps the log's card envelopes again.
	n, err := lockstep.New(lockstep.Config{Identity: id, Games: opts.Games, Log: lf.Entries, Sent: lf.SentBy(id),
		CardKey: key, CardLog: lf.Cards, Cards: cardsource.Maker(rand.Reader)})
	if err != nil {
		return nil, unnamed + "rebuilding the seat from its log failed: " + err.Error()
	}
	st := n.State()
	if cs, ok := st.(engine.CardState); !ok || cs.Cards().Knowledge() == nil {
		return nil, unnamed + "the rebuilt seat holds no knowledge of its cards"
	}
	return st, ""
}

// withKnowledge attaches know to the states of one step told to its seat,
// for the telling only; the returned func takes it off again.
func withKnowledge(know *engine.Knowledge, states ...engine.State) func() {
	var undo []*engine.Cards
	for _, st := range states {
		if cs, ok := st.(engine.CardState); ok && know != nil && cs.Cards().Knowledge() == nil {
			c := cs.Cards()
			c.SetKnowledge(know)
			undo = append(undo, c)
		}
	}
	return func() {
		for _, c := range undo {
			c.SetKnowledge(nil)
		}
	}
}
