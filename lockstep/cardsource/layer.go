package cardsource

import (
	"io"

	"github.com/boardmesh/boardmesh/crypto"
	"github.com/boardmesh/boardmesh/engine"
	"github.com/boardmesh/boardmesh/lockstep"
	"github.com/boardmesh/boardmesh/lockstep/deal"
)

// Maker is the lockstep.CardMaker of a secret table's seat: its card
// layers draw their keys, shuffles and proofs' nonces from r
// (crypto/rand.Reader in a runner; a seeded stream in tests).
func Maker(r io.Reader) lockstep.CardMaker {
	return func(st engine.CardState, cfg lockstep.CardConfig) (lockstep.CardLayer, error) {
		s, err := New(st, deal.Config{Identity: cfg.Identity, Session: cfg.Session, Seats: cfg.Seats, Names: cfg.Names, Rand: r, Verify: cfg.Verify,
			Secret: cfg.Secret, Sent: cfg.Sent, Hold: cfg.Hold, Store: cfg.Store})
		if err != nil {
			return nil, err
		}
		return &layer{s}, nil
	}
}

// layer adapts a Source to lockstep.CardLayer.
type layer struct{ s *Source }

func (l *layer) Step(env *crypto.Envelope) error { return l.s.Step(env) }
func (l *layer) HasWork() bool                   { return l.s.HasWork() }
func (l *layer) Work() bool                      { return l.s.Work() }
func (l *layer) Err() error                      { return l.s.Err() }
func (l *layer) Sync()                           { l.s.Sync() }
func (l *layer) Held() bool                      { return l.s.Held() }
func (l *layer) Release()                        { l.s.Release() }
func (l *layer) At(h crypto.Hash)                { l.s.At(h) }

func (l *layer) TakeReady() lockstep.CardReady {
	if !l.s.HasReady() {
		return lockstep.CardReady{}
	}
	rd := l.s.Ready()
	l.s.Advance()
	out := lockstep.CardReady{Secret: rd.Secret, Persist: rd.Persist, Messages: rd.Messages}
	for _, ev := range rd.Events {
		switch ev.Kind {
		case deal.EventOtherState:
			out.OtherState = append(out.OtherState, ev.Evidence...)
		case deal.EventCheat:
			c := lockstep.CardCheat{Seat: ev.Seat, Text: ev.Text}
			if ev.Cheat == deal.CheatEquivocation && len(ev.Evidence) == 2 {
				c.Evidence = ev.Evidence
			}
			// One envelope of the named seat's as evidence is a bad proof
			// of its own: it convicts the seat, whether the deal goes on
			// and waits for its drop (ev.Convicted) or stopped.
			c.Convicted = ev.Seat > 0 && (ev.Convicted || len(ev.Evidence) == 1)
			c.Kind = ev.Cheat.String()
			if c.Convicted && len(ev.Evidence) == 1 {
				c.Proof = ev.Evidence[0]
			}
			out.Cheats = append(out.Cheats, c)
		case deal.EventRecovered, deal.EventLinkSkipped, deal.EventChainRedone, deal.EventAheadFull:
			// What changes the table for the players (the rest, a deck
			// shuffled or the keys in, is routine and not told), and a
			// seat so far ahead that this peer drops some of its card
			// envelopes: a lagging peer's news, not a cheat of that seat.
			out.Notes = append(out.Notes, ev.Text)
		}
	}
	return out
}

func (l *layer) Reveal(a engine.Action, seq uint64) ([]byte, error) {
	rs, err := l.s.Reveal(a, seq)
	if err != nil {
		return nil, err
	}
	return lockstep.EncodeReveals(rs), nil
}

func (l *layer) Apply(seat int, a engine.Action, seq uint64, reveals []byte) error {
	rs, err := lockstep.DecodeReveals(reveals)
	if err != nil {
		return err
	}
	return l.s.Apply(seat, a, seq, rs)
}

func (l *layer) Waiting() []lockstep.CardWait {
	var out []lockstep.CardWait
	for _, w := range l.s.Deal().Waiting() {
		out = append(out, lockstep.CardWait{Seat: w.Seat, What: w.What})
	}
	return out
}

func (l *layer) Drop(seat int) error        { return l.s.Drop(seat) }
func (l *layer) DropDone(seat int) bool     { return l.s.DropDone(seat) }
func (l *layer) ShowDropped(seat int) error { return l.s.ShowDropped(seat) }
