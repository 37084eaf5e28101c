package lockstep

import (
	"fmt"

	"github.com/boardmesh/boardmesh/engine"
)

// diceRace is the tiny game of the protocol tests: each turn a chance
// step rolls a die, then the player moves (the whole roll, or half of it
// rounded up), then ends the turn or, once per game, rests (skips to the
// next player with one extra step). First to the goal wins. It has what the
// protocol needs to show: chance steps, turns of several actions, and a
// Turn counter. It does not implement engine.Dropper, so dropped seats are
// played by its bot.
type diceRace struct {
	pos    []int
	rested []bool
	cur    int
	stage  int // 0: roll (chance), 1: move, 2: end or rest, 3: over
	die    int
	turn   int
	goal   int
	// glitch, when set, makes Apply corrupt the state after that many
	// applies: a peer with a bug, for the desync test.
	glitch  int
	applies int
}

const (
	opMoveAll  = 1
	opMoveHalf = 2
	opEnd      = 3
	opRest     = 4
)

var diceGame = &engine.Game{
	Name: "dicerace", Title: "Dice Race", Version: "dicerace/1",
	MinPlayers: 2, MaxPlayers: 8, DefaultPlayers: 3,
	Options: []engine.OptionSpec{{Name: "goal", Kind: engine.OptionInt, Default: "20", Min: 5, Max: 200, Help: "squares to win"}},
	New: func(players int, opts engine.Options) (engine.State, error) {
		return &diceRace{pos: make([]int, players), rested: make([]bool, players), goal: opts.Int("goal")}, nil
	},
	Decode: decodeDice,
	Bots:   []engine.BotSpec{engine.RandomBotSpec},
}

func testGames(name string) (*engine.Game, error) {
	if name == diceGame.Name {
		return diceGame, nil
	}
	return nil, fmt.Errorf("unknown game %q", name)
}

func (s *diceRace) Players() int { return len(s.pos) }
func (s *diceRace) Turn() int    { return s.turn }

func (s *diceRace) ToAct() engine.Actor {
	switch s.stage {
	case 0:
		return engine.ChanceActor()
	case 3:
		return engine.OverActor()
	}
	return engine.SeatActor(s.cur)
}

func (s *diceRace) Legal(dst []engine.Action) []engine.Action {
	switch s.stage {
	case 1:
		return append(dst, engine.Action{Op: opMoveAll}, engine.Action{Op: opMoveHalf})
	case 2:
		dst = append(dst, engine.Action{Op: opEnd})
		if !s.rested[s.cur] {
			dst = append(dst, engine.Action{Op: opRest})
		}
	}
	return dst
}

func (s *diceRace) Apply(seat int, a engine.Action) error {
	if err := engine.CheckTurn(s.ToAct(), seat); err != nil {
		return err
	}
	ok := false
	for _, l := range s.Legal(nil) {
		ok = ok || l.Equal(a)
	}
	if !ok {
		return engine.Illegal("%s is not possible now", s.Describe(a))
	}
	switch a.Op {
	case opMoveAll, opMoveHalf:
		d := s.die
		if a.Op == opMoveHalf {
			d = (d + 1) / 2
		}
		s.pos[seat] += d
		s.stage = 2
		if s.pos[seat] >= s.goal {
			s.stage = 3
		}
	case opEnd, opRest:
		if a.Op == opRest {
			s.rested[seat] = true
			s.pos[seat]++
		}
		s.cur = (s.cur + 1) % len(s.pos)
		s.turn++
		s.stage = 0
	}
	s.applies++
	if s.glitch > 0 && s.applies == s.glitch {
		s.pos[len(s.pos)-1] += 7
	}
	return nil
}

func (s *diceRace) ApplyChance(b []byte) error {
	if err := engine.CheckChance(s.ToAct(), b); err != nil {
		return err
	}
	s.die = engine.NewRand(b).Die(6)
	s.stage = 1
	return nil
}

func (s *diceRace) Clone() engine.State {
	c := *s
	c.pos = append([]int(nil), s.pos...)
	c.rested = append([]bool(nil), s.rested...)
	return &c
}

func (s *diceRace) Encode(e *engine.Encoder) {
	e.Ints("pos", s.pos)
	e.Len("rested", len(s.rested))
	for i, r := range s.rested {
		e.BeginItem("rested", i)
		e.Bool("v", r)
		e.End()
	}
	e.Int("cur", s.cur)
	e.Int("stage", s.stage)
	e.Int("die", s.die)
	e.Int("turn", s.turn)
	e.Int("goal", s.goal)
}

func decodeDice(b []byte) (engine.State, error) {
	d := engine.NewDecoder(b)
	s := &diceRace{pos: d.Ints(8)}
	n := d.Len(8)
	for i := 0; i < n; i++ {
		s.rested = append(s.rested, d.Bool())
	}
	s.cur, s.stage, s.die, s.turn, s.goal = d.Int(), d.Int(), d.Int(), d.Int(), d.Int()
	if err := d.Finish(); err != nil {
		return nil, err
	}
	return s, nil
}

type diceView struct{ s *diceRace }

func (v diceView) Render(int, bool) string { return fmt.Sprint(v.s.pos) }

func (s *diceRace) View(int) engine.View { return diceView{s} }

func (s *diceRace) Result() engine.Result {
	best := 0
	for i, p := range s.pos {
		if p > s.pos[best] {
			best = i
		}
	}
	return engine.Result{Scores: append([]int(nil), s.pos...), Winners: []int{best}, Reason: "reached the goal"}
}

func (s *diceRace) Describe(a engine.Action) string {
	switch a.Op {
	case opMoveAll:
		return fmt.Sprintf("move %d", s.die)
	case opMoveHalf:
		return fmt.Sprintf("move %d", (s.die+1)/2)
	case opEnd:
		return "end the turn"
	case opRest:
		return "rest"
	}
	return a.String()
}
