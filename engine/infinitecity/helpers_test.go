package infinitecity

import (
	"bytes"
	"errors"
	"fmt"
	"testing"

	"github.com/boardmesh/boardmesh/engine"
)

// kind returns the id of the standard tile called name.
func kind(t testing.TB, name string) int {
	t.Helper()
	for i, k := range standard.Kinds {
		if k.Name == name {
			return i
		}
	}
	t.Fatalf("no tile %q", name)
	return -1
}

// table is a hand-built position: an empty table and empty hands, every
// tile in the pile, seat 0 to lay a tile. Tests then put tiles and hands
// in place with put and give, which keep the tile and marker accounts.
func table(t testing.TB, players int) *State { return tableWith(t, players, 15) }

// tableWith is table with another number of markers per player.
func tableWith(t testing.TB, players, markers int) *State {
	t.Helper()
	s, err := newState(standard, players, markers, 5)
	if err != nil {
		t.Fatal(err)
	}
	s.board = nil
	s.pile = nil
	for p := 0; p < standard.Total; p++ {
		s.pile = append(s.pile, p)
	}
	s.stack = []task{{kind: tkPlay, src: -1}}
	return s
}

// takeTop takes the top tile of the pile and, unless name is "", makes it
// the standard tile name opened to to (a seat or engine.Public): the open
// card source binds a position when it is first opened, so a test may
// choose what it holds as long as a copy is left.
func (s *State) takeTop(t testing.TB, name string, to int) int {
	t.Helper()
	if len(s.pile) == 0 {
		t.Fatal("the pile is empty")
	}
	pos := s.pile[0]
	s.pile = s.pile[1:]
	if name != "" {
		if err := s.cards.Open(engine.Opening{Pos: uint16(pos), To: to}, kind(t, name)); err != nil {
			t.Fatalf("no %s left: %v", name, err)
		}
	}
	return pos
}

// left is the number of copies of kind k not yet bound to a position.
func left(s *State, k int) int {
	n := s.set.Kinds[k].Count
	for p := 0; p < s.set.Total; p++ {
		if boundKind(s, p) == k {
			n--
		}
	}
	return n
}

// boundKind is the kind the state holds for position p (as the seat that
// saw it, or everyone), or -1.
func boundKind(s *State, p int) int {
	for q := -1; q < s.players; q++ {
		if v, ok := s.cards.Value(handle(p), q); ok {
			return int(v)
		}
	}
	return -1
}

// unbound is the number of positions the shared state holds no card for.
func unbound(s *State) int {
	n := 0
	for p := 0; p < s.set.Total; p++ {
		if !s.cards.Bound(handle(p)) {
			n++
		}
	}
	return n
}

// kindsOf returns the kinds of the tiles (handles) from as seat knows
// them, sorted; -1 for one it does not know.
func kindsOf(s *State, from []int, seat int) []int {
	var out []int
	for _, pos := range from {
		out = insertSorted(out, s.tileOf(pos, seat))
	}
	return out
}

// held returns the handle of a tile called name in the hand of the player
// to act (or among the Library's tiles while they are to be played).
func held(t testing.TB, s *State, name string) int32 {
	t.Helper()
	from := s.hands[s.current]
	if len(s.stack) > 0 && s.top().kind == tkPlayPeek {
		from = s.peek
	}
	k := kind(t, name)
	for _, pos := range from {
		if s.tileOf(pos, s.current) == k {
			return handle(pos).Arg()
		}
	}
	t.Fatalf("%s holds no %s", seatName(s.current), name)
	return -1
}

// put lays the standard tile name face up on (x, y) with the given
// markers (one entry per seat); name "" lays a face-down tile.
func (s *State) put(t testing.TB, x, y int, name string, marks ...int) {
	t.Helper()
	if s.find(x, y) >= 0 {
		t.Fatalf("(%d,%d) is taken", x, y)
	}
	c := cell{x: x, y: y, kind: faceDown, marks: make([]int, s.players)}
	c.pos = s.takeTop(t, name, engine.Public)
	if name != "" {
		c.kind = kind(t, name)
	}
	for p, m := range marks {
		c.marks[p] = m
		s.supply[p] -= m
	}
	s.insert(c)
}

// give puts the named tiles into seat's hand.
func (s *State) give(t testing.TB, seat int, names ...string) {
	t.Helper()
	for _, n := range names {
		s.hands[seat] = insertSorted(s.hands[seat], s.takeTop(t, n, seat))
	}
}

// valid fails t if the built or reached state breaks the accounts.
func valid(t testing.TB, s *State) {
	t.Helper()
	if err := invariant(s); err != nil {
		t.Fatal(err)
	}
	if _, err := engine.DecodeState(Game, engine.Encode(s)); err != nil {
		t.Fatalf("state does not survive encoding: %v", err)
	}
}

func play(t *testing.T, s *State, name string, x, y int) {
	t.Helper()
	must(t, s, engine.Action{Op: OpPlay, Args: []int32{held(t, s, name), int32(x), int32(y)}})
}

func pick(t *testing.T, s *State, x, y int) {
	t.Helper()
	must(t, s, engine.Action{Op: OpTile, Args: []int32{int32(x), int32(y)}})
}

// must applies a as the seat to act and checks it was listed as legal.
func must(t *testing.T, s *State, a engine.Action) {
	t.Helper()
	who := s.ToAct()
	if who.Kind != engine.ActorSeat {
		t.Fatalf("%s is to act, not a seat (%s)", who, s.prompt())
	}
	if !listed(s, a) {
		t.Fatalf("%q is not among the legal actions (%s)", s.Describe(a), s.prompt())
	}
	if err := s.Apply(who.Seat, a); err != nil {
		t.Fatalf("%s: %v", s.Describe(a), err)
	}
	valid(t, s)
}

func listed(s *State, a engine.Action) bool {
	for _, l := range s.Legal(nil) {
		if l.Equal(a) {
			return true
		}
	}
	return false
}

// refuse checks that seat's action a is refused as illegal with the state
// unchanged and not listed as legal.
func refuse(t *testing.T, s *State, seat int, a engine.Action) error {
	t.Helper()
	before := engine.Encode(s)
	err := s.Apply(seat, a)
	if err == nil {
		t.Fatalf("%s was accepted", s.Describe(a))
	}
	if !bytes.Equal(before, engine.Encode(s)) {
		t.Fatalf("refused %s changed the state", s.Describe(a))
	}
	if seat == s.ToAct().Seat && listed(s, a) {
		t.Fatalf("refused %s is listed as legal", s.Describe(a))
	}
	return err
}

func illegal(t *testing.T, err error) {
	t.Helper()
	if !errors.Is(err, engine.ErrIllegal) {
		t.Fatalf("error %v does not wrap ErrIllegal", err)
	}
}

// chanceTo plays the pending chance step with the first of many beacons
// whose outcome satisfies want: a real outcome the draw can give, chosen
// so that a test can follow one branch of the rules.
func chanceTo(t *testing.T, s *State, want func(*State) bool) {
	t.Helper()
	for i := uint64(0); i < 5000; i++ {
		b := engine.Derive([]byte("test"), "chance", i)
		c := s.clone()
		if err := c.ApplyChance(b); err != nil {
			t.Fatal(err)
		}
		if want(c) {
			if err := s.ApplyChance(b); err != nil {
				t.Fatal(err)
			}
			valid(t, s)
			return
		}
	}
	t.Fatal("no beacon gives the wanted outcome")
}

// anyChance plays the pending chance step with a fixed beacon.
func anyChance(t *testing.T, s *State) {
	t.Helper()
	if err := s.ApplyChance(engine.Derive([]byte("test"), "any", 0)); err != nil {
		t.Fatal(err)
	}
	valid(t, s)
}

// flippedTo returns a predicate: the tile at (x, y) turned out to be name.
func flippedTo(t *testing.T, x, y int, name string) func(*State) bool {
	k := kind(t, name)
	return func(c *State) bool {
		i := c.find(x, y)
		return i >= 0 && c.board[i].kind == k
	}
}

func marksAt(t *testing.T, s *State, x, y int) []int {
	t.Helper()
	i := s.find(x, y)
	if i < 0 {
		t.Fatalf("no tile on (%d,%d)", x, y)
	}
	return s.board[i].marks
}

func eq(a, b []int) bool { return fmt.Sprint(a) == fmt.Sprint(b) }

// fullCity lays all 120 standard tiles face up in a 12 by 10 rectangle,
// each with a marker of one of 4 players (30 markers each), in patches so
// that groups of every size appear.
func fullCity(t testing.TB) *State {
	s := tableWith(t, 4, 30)
	i := 0
	for k, kd := range standard.Kinds {
		for c := 0; c < kd.Count; c++ {
			x, y := i%12, i/12
			marks := make([]int, 4)
			marks[(x/3+y/2+k)%4] = 1
			if s.supply[(x/3+y/2+k)%4] == 0 {
				marks = nil
			}
			s.put(t, x, y, kd.Name, marks...)
			i++
		}
	}
	return s
}
