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

// give puts cards into a zone of seat: hidden cards that seat alone has
// seen (Supply copies from the bottom of their piles, reshuffled into a
// deck of their own and opened to seat), owned by seat.
func give(s *State, seat int, z *[]engine.Handle, cs ...int) {
	if len(cs) == 0 {
		*z = nil
		return
	}
	sizes := pileSizes(s.n)
	used := map[engine.Handle]bool{}
	for i := 0; i < s.cards.NumDecks(); i++ {
		for _, h := range s.cards.Sources(i) {
			used[h] = true
		}
	}
	var from []engine.Handle
	for _, c := range cs {
		for k := pileStart(&sizes, c); ; k++ {
			h := engine.Handle{Deck: supplyDeck, Pos: uint16(k)}
			if !used[h] {
				used[h] = true
				from = append(from, h)
				break
			}
		}
	}
	d, err := s.cards.Reshuffle(from)
	if err != nil {
		panic(err)
	}
	*z = nil
	for i, c := range cs {
		h := engine.Handle{Deck: d, Pos: uint16(i)}
		if err := s.cards.Open(engine.Opening{Deck: d, Pos: uint16(i), To: seat}, c); err != nil {
			panic(err)
		}
		*z = append(*z, h)
		s.p[seat].own[c]++
	}
}

// pool puts cards at the bottom of seat's deck that nobody has seen (a
// shuffled part: the open card source draws them in a random order).
func pool(s *State, seat int, cs ...int) {
	var from []engine.Handle
	for _, c := range cs {
		// From the top of the pile, as a gain would (give takes bottoms).
		h := gainHandle(s.n, c, int(s.supply[c]))
		s.supply[c]--
		from = append(from, h)
		s.p[seat].own[c]++
	}
	d, err := s.cards.Reshuffle(from)
	if err != nil {
		panic(err)
	}
	var z []engine.Handle
	for i := range cs {
		z = append(z, engine.Handle{Deck: d, Pos: uint16(i)})
	}
	s.p[seat].deck = append(z, s.p[seat].deck...)
}

// deck puts known cards on seat's deck, the first listed on top.
func deck(s *State, seat int, cs ...int) {
	rev := make([]int, len(cs))
	for i, c := range cs {
		rev[len(cs)-1-i] = c
	}
	give(s, seat, &s.p[seat].deck, rev...)
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

// resolve turns a test's action written with card ids (play(Smithy),
// pick(Estate), act(opSentry, Copper, sentryBack)) into the legal action
// that names a copy of that card by its handle; an action with no
// arguments matches the first legal action of its op. An action that
// matches none is returned as it is (and is refused).
func resolve(s *State, a engine.Action) engine.Action {
	for _, l := range s.Legal(nil) {
		if l.Op != a.Op {
			continue
		}
		if len(a.Args) == 0 {
			if len(l.Args) <= 1 || a.Op == opAllTreasures {
				return l
			}
			continue
		}
		if len(l.Args) != len(a.Args) || s.argCard(l, s.askSeat) != int(a.Args[0]) {
			continue
		}
		same := true
		for i := 1; i < len(a.Args); i++ {
			same = same && a.Args[i] == l.Args[i]
		}
		if same {
			return l
		}
	}
	// No legal move: name a copy the seat holds, if any, to be refused
	// for the reason a player would hear.
	if len(a.Args) > 0 && a.Op != opBuy {
		p := &s.p[s.askSeat]
		for _, z := range [][]engine.Handle{p.hand, p.disc, s.aside} {
			if h, ok := s.first(s.askSeat, z, int(a.Args[0])); ok {
				b := engine.Action{Op: a.Op, Args: append([]int32{h.Arg()}, a.Args[1:]...)}
				return b
			}
		}
	}
	return a
}

func do(t *testing.T, s *State, seat int, as ...engine.Action) {
	t.Helper()
	for _, a := range as {
		a = resolve(s, a)
		if err := s.Apply(seat, a); err != nil {
			t.Fatalf("seat %d: %s: %v\n%s", seat, s.Describe(a), err, s.View(seat).Render(100, false))
		}
	}
}

// applied is a copy of s after seat's action a (s itself unchanged).
func (s *State) applied(t *testing.T, seat int, a engine.Action) *State {
	t.Helper()
	n := s.clone()
	if err := n.Apply(seat, resolve(s, a)); err != nil {
		t.Fatal(err)
	}
	return n
}

func refused(t *testing.T, s *State, seat int, a engine.Action) error {
	t.Helper()
	before := engine.Encode(s)
	a = resolve(s, a)
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
	for i := len(s.p[seat].deck) - 1; i >= 0; i-- {
		c := s.card(s.p[seat].deck[i], seat)
		if c < 0 {
			break
		}
		got = append(got, c)
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
	a = resolve(s, a)
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
			out = append(out, s.argCard(l, s.askSeat))
		}
	}
	return out
}

func ptr(z counts) *counts { return &z }
