package dragonslair

import (
	"bytes"
	"errors"
	"testing"

	"github.com/boardmesh/boardmesh/engine"
)

// table sets up a game without heroes (unless opts say otherwise) that
// waits for seat 0's first card.
func table(t *testing.T, players int, opts ...string) *State {
	t.Helper()
	var o engine.Options
	for i := 0; i+1 < len(opts); i += 2 {
		o = append(o, engine.Option{Name: opts[i], Value: opts[i+1]})
	}
	if _, ok := o.Get(optHeroes); !ok {
		o = append(o, engine.Option{Name: optHeroes, Value: "none"})
	}
	st, err := Game.Setup(players, o)
	if err != nil {
		t.Fatal(err)
	}
	return st.(*State)
}

// stack fixes the next cards of the pile, in order, as if they had been
// drawn from the shuffled deck: they leave the unordered middle and lie on
// top, known to nobody.
func stack(t *testing.T, s *State, cs ...card) {
	t.Helper()
	for _, c := range cs {
		if s.deck[c] == 0 {
			t.Fatalf("no %s left in the middle of the pile to stack", c)
		}
		s.deck[c]--
		s.top[s.topN] = slot{card: c}
		s.topN++
	}
}

// do applies op for the seat to act and fails the test on an error.
func do(t *testing.T, s *State, op uint16, args ...int) {
	t.Helper()
	a := engine.Action{Op: op}
	for _, x := range args {
		a.Args = append(a.Args, int32(x))
	}
	if err := s.Apply(int(s.cur), a); err != nil {
		t.Fatalf("%s: %v", s.Describe(a), err)
	}
}

// draws turns over the stacked cards cs one by one (stacking them first).
func draws(t *testing.T, s *State, cs ...card) {
	t.Helper()
	stack(t, s, cs...)
	for range cs {
		do(t, s, opDraw)
	}
}

// refused checks that seat's action is refused with an error wrapping
// want and leaves the state byte for byte unchanged.
func refused(t *testing.T, s *State, seat int, a engine.Action, want error) error {
	t.Helper()
	before := engine.Encode(s)
	err := s.Apply(seat, a)
	if err == nil {
		t.Fatalf("%s by seat %d was accepted", a, seat)
	}
	if !errors.Is(err, want) {
		t.Fatalf("%s by seat %d: error %v does not wrap %v", a, seat, err, want)
	}
	if !bytes.Equal(before, engine.Encode(s)) {
		t.Fatalf("refused %s changed the state", a)
	}
	return err
}

func hasOp(s *State, op uint16) bool {
	for _, a := range s.Legal(nil) {
		if a.Op == op {
			return true
		}
	}
	return false
}

func gold(s *State, seat int) int { return int(s.seats[seat].score) }

func checkInvariant(t *testing.T, s *State) {
	t.Helper()
	if err := invariant(s); err != nil {
		t.Fatal(err)
	}
}

// beacon is a fixed 32-byte beacon for chance steps in tests.
func beacon(b byte) []byte { return bytes.Repeat([]byte{b}, 32) }

// passTurn plays the turn of the seat to act: one safe treasure, then an
// escape.
func passTurn(t *testing.T, s *State) {
	t.Helper()
	for c := cardCoin; c <= cardCrown; c++ {
		if s.deck[c] > 0 {
			draws(t, s, c)
			do(t, s, opEscape)
			return
		}
	}
	t.Fatal("no treasure left to stack")
}

// bustTurn plays a turn that ends with a second noise.
func bustTurn(t *testing.T, s *State) {
	t.Helper()
	var ns []card
	for _, c := range []card{cardClink, cardCrunch, cardSneeze} {
		for k := 0; k < int(s.deck[c]) && len(ns) < 2; k++ {
			ns = append(ns, c)
		}
	}
	draws(t, s, ns...)
}
