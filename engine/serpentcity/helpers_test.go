package serpentcity

import (
	"bytes"
	"errors"
	"fmt"
	"testing"

	"github.com/boardmesh/boardmesh/engine"
)

// newTest sets up a game and puts it in the first player's main phase
// with mp Movement Points, as if the roll had been made.
func newTest(t *testing.T, players, mp int, opts ...engine.Option) *State {
	t.Helper()
	es, err := Game.Setup(players, opts)
	if err != nil {
		t.Fatal(err)
	}
	s := es.(*State)
	s.ph, s.mp = phMain, mp
	return s
}

func must(t *testing.T, s *State, seat int, a engine.Action) {
	t.Helper()
	if err := s.Apply(seat, a); err != nil {
		t.Fatalf("%s by seat %d: %v", s.Describe(a), seat, err)
	}
}

// mustNot checks a is refused as illegal and changes nothing.
func mustNot(t *testing.T, s *State, seat int, a engine.Action) {
	t.Helper()
	before := engine.Encode(s)
	err := s.Apply(seat, a)
	if err == nil {
		t.Fatalf("%s by seat %d was accepted", s.Describe(a), seat)
	}
	if !errors.Is(err, engine.ErrIllegal) && !errors.Is(err, engine.ErrNotYourTurn) {
		t.Fatalf("%s: error %v is not ErrIllegal", s.Describe(a), err)
	}
	if !bytes.Equal(before, engine.Encode(s)) {
		t.Fatalf("refused %s changed the state", s.Describe(a))
	}
}

func isLegal(s *State, a engine.Action) bool { return has(s.Legal(nil), a) }

// beaconFor finds a beacon whose stream satisfies want, for chance steps
// with a chosen result (a die face, a card).
func beaconFor(t *testing.T, want func(r *engine.Rand) bool) []byte {
	t.Helper()
	for i := 0; i < 100000; i++ {
		b := engine.Derive([]byte("test"), "beacon", uint64(i))
		if want(engine.NewRand(b)) {
			return b
		}
	}
	t.Fatal("no beacon found")
	return nil
}

// rollBeacon gives the turn roll a+b.
func rollBeacon(t *testing.T, a, b int) []byte {
	return beaconFor(t, func(r *engine.Rand) bool { return r.Die(6) == a && r.Die(6) == b })
}

// rewardBeacon gives Reward Roll face (1-based).
func rewardBeacon(t *testing.T, s *State, face int) []byte {
	n := len(s.cfg.r.Reward)
	return beaconFor(t, func(r *engine.Rand) bool { return r.Intn(n) == face-1 })
}

func chance(t *testing.T, s *State, b []byte) {
	t.Helper()
	if err := s.ApplyChance(b); err != nil {
		t.Fatal(err)
	}
}

// place puts k occupying pawns of p on t (taken from START first, then
// from the reserve), as a setup shortcut.
func place(s *State, p, t, k int) {
	for i := 0; i < k; i++ {
		if s.pl[p].start > 0 {
			s.pl[p].start--
		}
		s.pl[p].terr[t]++
	}
	if s.occupancy(t) > s.cfg.r.OccupationSlots {
		panic("test setup puts more pawns on a Territory than it has slots")
	}
	s.settle()
}

func milKind(s *State, key string) int {
	for k, c := range s.cfg.decks[milDeck] {
		if c.Key == key {
			return k
		}
	}
	panic("no card " + key)
}

func econKind(s *State, key string) int {
	for k, c := range s.cfg.decks[econDeck] {
		if c.Key == key {
			return k
		}
	}
	panic("no card " + key)
}

// endTurnTo ends turns until seat is in its main phase with the given roll.
func endTurnTo(t *testing.T, s *State, seat, a, b int) {
	t.Helper()
	for i := 0; i < 20; i++ {
		if s.ph == phRoll && s.cur == seat {
			chance(t, s, rollBeacon(t, a, b))
			return
		}
		switch s.ph {
		case phRoll:
			chance(t, s, rollBeacon(t, 1, 2))
		case phMain:
			must(t, s, s.cur, act(opEnd))
		default:
			t.Fatalf("unexpected phase %d", s.ph)
		}
	}
	t.Fatal(fmt.Sprint("seat ", seat, " never came"))
}

// give deals p the top card of deck d's pile as a card of kind k (a
// stacked deck: engine.Cards.Bind, then opened to p), and returns it.
func give(s *State, p, d, k int) engine.Handle {
	pile := s.pile[d]
	h := pile[len(pile)-1]
	s.pile[d] = pile[:len(pile)-1]
	if err := s.cards.Bind(h, k); err != nil {
		panic(err)
	}
	if err := s.cards.Open(engine.Opening{Deck: h.Deck, Pos: h.Pos, To: p}, k); err != nil {
		panic(err)
	}
	s.pl[p].hand[d] = append(s.pl[p].hand[d], h)
	return h
}

// noCard is a handle argument that names no card of any hand.
var noCard = engine.Handle{Deck: 200, Pos: 0}.Arg()

// cardAction plays p's first card of kind k of deck d (op opMil or
// opEcon), or names noCard when p holds none.
func cardAction(s *State, op uint16, p, d, k int, extra ...int32) engine.Action {
	if a, ok := s.cardAct(op, p, d, k, extra...); ok {
		return a
	}
	return act(op, append([]int32{noCard}, extra...)...)
}

func milAct(s *State, p, k int) engine.Action { return cardAction(s, opMil, p, milDeck, k) }

func econAct(s *State, p, k int, extra ...int32) engine.Action {
	return cardAction(s, opEcon, p, econDeck, k, extra...)
}

// spent counts the spent cards of kind k of deck d (they are public).
func spent(s *State, d, k int) int {
	n := 0
	for _, h := range s.disc[d] {
		if v, ok := s.cards.Public(h); ok && int(v) == k {
			n++
		}
	}
	return n
}
