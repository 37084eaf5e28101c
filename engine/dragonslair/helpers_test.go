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
// drawn from the shuffled deck (an open table's state binds them): the
// next untouched positions lie on top, known to nobody.
func stack(t *testing.T, s *State, cs ...card) {
	t.Helper()
	for _, c := range cs {
		n := s.topN
		s.fillTop(int(n) + 1)
		if s.topN == n {
			t.Fatalf("no card left in the pile to stack %s on", c)
		}
		if err := s.cards.Bind(s.top[n].h, int(c)); err != nil {
			t.Fatalf("stacking %s: %v", c, err)
		}
	}
}

// valueOf reads the card an open table's state holds at h, without
// showing it to anyone (on a copy of the bookkeeping).
func valueOf(t *testing.T, s *State, h engine.Handle) card {
	t.Helper()
	c, ok := boundCard(s, h)
	if !ok {
		t.Fatalf("no card is bound at %s", h)
	}
	return c
}

func boundCard(s *State, h engine.Handle) (card, bool) {
	c := s.cards.Clone()
	if left := c.AnswerBound([]engine.Opening{{Deck: h.Deck, Pos: h.Pos, To: engine.Public}}); len(left) != 0 {
		return 0, false
	}
	v, _ := c.Public(h)
	return card(v), true
}

// knownBy is the mask of the seats that have seen h.
func knownBy(s *State, h engine.Handle) uint8 {
	var m uint8
	for i := 0; i < int(s.n); i++ {
		if s.cards.Seen(h, i) {
			m |= 1 << i
		}
	}
	return m
}

// show opens the card bound at h to seat (an open table).
func show(t *testing.T, s *State, h engine.Handle, seat int) {
	t.Helper()
	if err := s.cards.Open(engine.Opening{Deck: h.Deck, Pos: h.Pos, To: seat}, int(valueOf(t, s, h))); err != nil {
		t.Fatal(err)
	}
}

// elfPut plays the Elf's player's only move after the look: the noises
// it saw go under.
func elfPut(t *testing.T, s *State) {
	t.Helper()
	if s.phase != phaseElfPut {
		t.Fatalf("phase %d, want the Elf's player to send the noises under", s.phase)
	}
	legal := s.Legal(nil)
	if len(legal) != 1 {
		t.Fatalf("the Elf's player, who saw the cards, has %d moves, want 1", len(legal))
	}
	if err := s.Apply(int(s.cur), legal[0]); err != nil {
		t.Fatal(err)
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

// drainMiddle turns the pile's untouched middle over into the discards,
// as if earlier turns had drawn it, all but its last len(leave) cards,
// which it binds to leave, in order.
func drainMiddle(t *testing.T, s *State, leave ...card) {
	t.Helper()
	n := s.midLeft()
	if n < len(leave) {
		t.Fatalf("%d cards in the middle, cannot leave %d", n, len(leave))
	}
	for i, c := range leave {
		if err := s.cards.Bind(engine.Handle{Deck: s.pd, Pos: s.mid + uint16(n-len(leave)+i)}, int(c)); err != nil {
			t.Fatal(err)
		}
	}
	var want []engine.Opening
	for i := 0; i < n-len(leave); i++ {
		want = append(want, engine.Opening{Deck: s.pd, Pos: s.mid + uint16(i), To: engine.Public})
	}
	if err := s.cards.OpenFromBeacon(want, beacon(9)); err != nil {
		t.Fatal(err)
	}
	for _, o := range want {
		v, _ := s.cards.Public(o.Handle())
		s.deck[v]--
		s.discard[v]++
		s.discH = append(s.discH, o.Handle())
	}
	s.mid += uint16(n - len(leave))
	checkInvariant(t, s)
}
