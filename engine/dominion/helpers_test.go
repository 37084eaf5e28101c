package dominion

import (
	"errors"
	"strings"
	"testing"

	"github.com/boardmesh/boardmesh/engine"
)

// table sets up an n-player game whose Kingdom holds the given cards
// (filled up to ten with others), deals, and then empties every player's
// hand, deck and discard pile so a test can place exactly the cards it
// needs. Card conservation is not kept by such set-ups; the playout tests
// check it on real games.
func table(t *testing.T, n int, kingdom ...int) *State {
	t.Helper()
	var names []string
	have := map[int]bool{}
	for _, c := range kingdom {
		names = append(names, cards[c].name)
		have[c] = true
	}
	for c := firstKingdom; len(names) < 10; c++ {
		if !have[c] {
			names = append(names, cards[c].name)
		}
	}
	s, err := newState(n, engine.Options{{Name: optKingdom, Value: strings.Join(names, "+")}})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.ApplyChance(make([]byte, 32)); err != nil {
		t.Fatal(err)
	}
	for i := range s.p {
		s.p[i] = player{}
	}
	return s
}

func zone(cs ...int) counts {
	var z counts
	for _, c := range cs {
		z[c]++
	}
	return z
}

// deck puts known cards on seat's deck, the first listed on top.
func deck(s *State, seat int, cs ...int) {
	s.p[seat].top = nil
	for i := len(cs) - 1; i >= 0; i-- {
		s.p[seat].top = append(s.p[seat].top, int8(cs[i]))
	}
}

func act(op int, args ...int) engine.Action {
	a := engine.Action{Op: uint16(op)}
	for _, x := range args {
		a.Args = append(a.Args, int32(x))
	}
	return a
}

func play(c int) engine.Action { return act(opPlay, c) }
func pick(c int) engine.Action { return act(opPick, c) }
func buy(c int) engine.Action  { return act(opBuy, c) }

var (
	done = act(opDone)
	yes  = act(opYes)
)

func do(t *testing.T, s *State, seat int, as ...engine.Action) {
	t.Helper()
	for _, a := range as {
		if err := s.Apply(seat, a); err != nil {
			t.Fatalf("seat %d: %s: %v\n%s", seat, s.Describe(a), err, s.View(seat).Render(100, false))
		}
	}
}

// applied is a copy of s after seat's action a (s itself unchanged).
func (s *State) applied(t *testing.T, seat int, a engine.Action) *State {
	t.Helper()
	n := s.clone()
	if err := n.Apply(seat, a); err != nil {
		t.Fatal(err)
	}
	return n
}

func refused(t *testing.T, s *State, seat int, a engine.Action) error {
	t.Helper()
	before := engine.Encode(s)
	err := s.Apply(seat, a)
	if err == nil {
		t.Fatalf("seat %d: %v was accepted", seat, a)
	}
	if string(engine.Encode(s)) != string(before) {
		t.Fatalf("refused %v changed the state", a)
	}
	if !errors.Is(err, engine.ErrIllegal) && !errors.Is(err, engine.ErrNotYourTurn) {
		t.Fatalf("error %v wraps neither ErrIllegal nor ErrNotYourTurn", err)
	}
	return err
}

// chance feeds a fixed beacon.
func chance(t *testing.T, s *State, b byte) {
	t.Helper()
	beacon := make([]byte, 32)
	beacon[0] = b
	if err := s.ApplyChance(beacon); err != nil {
		t.Fatal(err)
	}
}

func wantActor(t *testing.T, s *State, want engine.Actor) {
	t.Helper()
	if got := s.ToAct(); got != want {
		t.Fatalf("actor %v, want %v; prompt: %s", got, want, s.prompt())
	}
}

func wantZone(t *testing.T, what string, got counts, want ...int) {
	t.Helper()
	if w := zone(want...); got != w {
		t.Fatalf("%s = %v, want %v", what, list(&got), list(&w))
	}
}

func wantTop(t *testing.T, s *State, seat int, want ...int) {
	t.Helper()
	var got []int
	for i := len(s.p[seat].top) - 1; i >= 0; i-- {
		got = append(got, int(s.p[seat].top[i]))
	}
	if len(got) != len(want) {
		t.Fatalf("seat %d deck top %v, want %v", seat, names(got), names(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("seat %d deck top %v, want %v", seat, names(got), names(want))
		}
	}
}

func names(cs []int) []string {
	var out []string
	for _, c := range cs {
		out = append(out, cards[c].name)
	}
	return out
}

func legalHas(s *State, a engine.Action) bool {
	for _, l := range s.Legal(nil) {
		if l.Equal(a) {
			return true
		}
	}
	return false
}

func pickable(s *State) []int {
	var out []int
	for _, l := range s.Legal(nil) {
		if l.Op == opPick {
			out = append(out, int(l.Args[0]))
		}
	}
	return out
}
