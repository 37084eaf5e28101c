package p2p

import (
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

// buggyDropper is a buggyState of a game that implements engine.Dropper:
// the wrapper must neither hide nor invent the interface, or the protocol
// would treat drops differently from the honest peers.
type buggyDropper struct{ *buggyState }

func (s buggyDropper) Drop(seat int) error { return s.State.(engine.Dropper).Drop(seat) }

func wrapBuggy(b *buggyState) engine.State {
	if _, ok := b.State.(engine.Dropper); ok {
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
	if !s.due() {
		if err := s.State.Apply(seat, a); err != nil {
			return err
		}
		s.steps++
		return nil
	}
	honest := s.State.Clone()
	if err := honest.Apply(seat, a); err != nil {
		return err
	}
	for _, b := range s.State.Legal(nil) {
		if b.Equal(a) {
			continue
		}
		wrong := s.State.Clone()
		if wrong.Apply(seat, b) == nil && s.differs(honest, wrong) {
			s.State, s.done = wrong, true
			s.steps++
			return nil
		}
	}
	s.State = honest
	s.steps++
	return nil
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
// state hash with the same actor and turn, and the game not over.
func (s *buggyState) differs(honest, wrong engine.State) bool {
	ha, wa := honest.ToAct(), wrong.ToAct()
	return ha == wa && wa.Kind != engine.ActorOver && honest.Turn() == wrong.Turn() &&
		engine.Hash(honest) != engine.Hash(wrong)
}
