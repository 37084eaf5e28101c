package p2p

import (
	"errors"

	"github.com/boardmesh/boardmesh/engine"
)

// InjectDesync returns a copy of g whose states go wrong at step seq, as a
// peer with a bug in its rules engine would: the step with that seq (the
// seq+1st action or chance step since the seat draw) changes the state
// differently from the honest rules. For a developer who wants to see
// desync detection work; the game given to every honest peer is g itself,
// untouched.
//
// The wrong change keeps who acts next and the turn counter, so the
// session runs on until the state hashes are compared (the next action's
// pre-state hash or the turn's checkpoint) and the desync is reported with
// the differing fields: an action step applies another legal action of
// the same seat instead, a chance step another beacon. If no such change
// exists at seq (one legal action, or a chance step whose outcome does not
// depend on the beacon), the next step that has one goes wrong instead.
// On a secret table the card layer's answers are not counted, and a move
// that shows cards goes wrong with another move that shows none (chosen
// and applied without this seat's private knowledge, as a replay of the
// log would): the step that goes wrong may come later than seq.
func InjectDesync(g *engine.Game, seq uint64) *engine.Game {
	c := *g
	newState := g.New
	c.New = func(players int, opts engine.Options) (engine.State, error) {
		s, err := newState(players, opts)
		if err != nil {
			return nil, err
		}
		return wrapBuggy(&buggyState{State: s, at: seq}), nil
	}
	return &c
}

// buggyState wraps an honest state and counts the steps applied to it.
// The count is part of the value, so a clone carries it and a state
// rebuilt from a log (resume, replay) goes wrong at the same step.
type buggyState struct {
	engine.State
	at    uint64
	steps uint64
	done  bool
}

// The wrapper must neither hide nor invent an interface the protocol
// looks for, or it would treat the buggy peer differently from the honest
// ones: engine.Dropper (drops) and engine.CardState (a game with hidden
// cards; hidden, the peer cannot sit at a secret table, whose card
// protocol then stalls on it instead of the desync being named).

// buggyDropper is a buggyState of a game that implements engine.Dropper.
type buggyDropper struct{ *buggyState }

func (s buggyDropper) Drop(seat int) error { return s.State.(engine.Dropper).Drop(seat) }

// buggyCards is a buggyState of a game with hidden cards.
type buggyCards struct{ *buggyState }

func (s buggyCards) cs() engine.CardState                           { return s.State.(engine.CardState) }
func (s buggyCards) Cards() *engine.Cards                           { return s.cs().Cards() }
func (s buggyCards) UseSecretCards() error                          { return s.cs().UseSecretCards() }
func (s buggyCards) Openings(dst []engine.Opening) []engine.Opening { return s.cs().Openings(dst) }
func (s buggyCards) Open(o engine.Opening, card int) error          { return s.cs().Open(o, card) }
func (s buggyCards) Reveals(a engine.Action, dst []engine.Handle) []engine.Handle {
	return s.cs().Reveals(a, dst)
}

// ApplyRevealed is an action step on a table whose moves show cards: it
// goes wrong as Apply does, with another legal action that shows none.
func (s buggyCards) ApplyRevealed(seat int, a engine.Action, cards []int) error {
	return s.step(seat, a, func(st engine.State, b engine.Action) error {
		if b.Equal(a) {
			return st.(engine.CardState).ApplyRevealed(seat, a, cards)
		}
		if len(st.(engine.CardState).Reveals(b, nil)) > 0 {
			return errors.New("shows cards")
		}
		return st.(engine.CardState).ApplyRevealed(seat, b, nil)
	})
}

// buggyCardsDropper is both.
type buggyCardsDropper struct{ buggyCards }

func (s buggyCardsDropper) Drop(seat int) error { return s.State.(engine.Dropper).Drop(seat) }

func wrapBuggy(b *buggyState) engine.State {
	_, drops := b.State.(engine.Dropper)
	_, cards := b.State.(engine.CardState)
	switch {
	case drops && cards:
		return buggyCardsDropper{buggyCards{b}}
	case cards:
		return buggyCards{b}
	case drops:
		return buggyDropper{b}
	}
	return b
}

func (s *buggyState) Clone() engine.State {
	c := *s
	c.State = s.State.Clone()
	return wrapBuggy(&c)
}

func (s *buggyState) due() bool { return !s.done && s.steps >= s.at }

func (s *buggyState) Apply(seat int, a engine.Action) error {
	return s.step(seat, a, func(st engine.State, b engine.Action) error { return st.Apply(seat, b) })
}

// step applies action a of seat with apply, or, when due, another legal
// action (apply of it) whose outcome differs usably.
func (s *buggyState) step(seat int, a engine.Action, apply func(st engine.State, b engine.Action) error) error {
	if !s.due() {
		if err := apply(s.State, a); err != nil {
			return err
		}
		s.steps++
		return nil
	}
	honest := s.State.Clone()
	if err := apply(honest, a); err != nil {
		return err
	}
	// The wrong move is chosen and applied as a replay of the log would
	// (public): its outcome must not depend on this seat's knowledge.
	base, pubHonest := s.public(), honest
	if base != s.State {
		if pubHonest = base.Clone(); apply(pubHonest, a) != nil {
			pubHonest = honest
		}
	}
	for _, b := range base.Legal(nil) {
		if b.Equal(a) {
			continue
		}
		wrong := base.Clone()
		if apply(wrong, b) == nil && s.differs(pubHonest, wrong) {
			if cs, ok := s.State.(engine.CardState); ok && cs.Cards().Knowledge() != nil {
				wrong.(engine.CardState).Cards().SetKnowledge(cs.Cards().Knowledge().Clone())
			}
			s.State, s.done = wrong, true
			s.steps++
			return nil
		}
	}
	s.State = honest
	s.steps++
	return nil
}

// public is a copy of the state as a replay of the log holds it: on a
// secret table without this seat's private knowledge (or the state
// itself, where it has none). The wrong move is chosen among the moves
// legal there and applied there, so that the peer's own log rebuilds the
// wrong state it had (as it would for a bug in the rules, which do not
// depend on what the seat knows): it can then send its state at an
// earlier step (a desync report's step), and its report and the bundle
// agree.
func (s *buggyState) public() engine.State {
	cs, ok := s.State.(engine.CardState)
	if !ok || cs.Cards().Knowledge() == nil {
		return s.State
	}
	c := s.State.Clone()
	c.(engine.CardState).Cards().SetKnowledge(nil)
	return c
}

func (s *buggyState) ApplyChance(beacon []byte) error {
	if !s.due() {
		if err := s.State.ApplyChance(beacon); err != nil {
			return err
		}
		s.steps++
		return nil
	}
	honest := s.State.Clone()
	if err := honest.ApplyChance(beacon); err != nil {
		return err
	}
	other := append([]byte(nil), beacon...)
	for i := range 32 {
		for j := range other {
			other[j] = beacon[j] ^ byte(0x5a+i*37) ^ byte(j)
		}
		wrong := s.State.Clone()
		if wrong.ApplyChance(other) == nil && s.differs(honest, wrong) {
			s.State, s.done = wrong, true
			s.steps++
			return nil
		}
	}
	s.State = honest
	s.steps++
	return nil
}

// differs reports whether wrong is a usable wrong outcome: a different
// state hash and a field that shows it, with the same actor and turn, and
// the game not over.
//
// With hidden cards it may ask for other cards (the openings are the card
// protocol's next batch): the deal's envelopes carry the state they
// answer, so a batch or a reshuffle of another state is found out as a
// desync (lockstep/deal's state.go), as an action for another state is.
func (s *buggyState) differs(honest, wrong engine.State) bool {
	ha, wa := honest.ToAct(), wrong.ToAct()
	if ha != wa || wa.Kind == engine.ActorOver || honest.Turn() != wrong.Turn() ||
		engine.Hash(honest) == engine.Hash(wrong) || len(engine.Diff(honest, wrong)) == 0 {
		// (A change only the card bookkeeping sees, which has no field
		// a desync report could name, is no use either.)
		return false
	}
	return true
}
