package infinitecity

import (
	"fmt"

	"github.com/boardmesh/boardmesh/engine"
)

// faceDown is the kind of a placed tile whose identity nobody knows yet.
const faceDown = -1

// cell is one tile on the table: the handle of its card (a position of
// the shuffled deck) and, once it is face up, its kind.
type cell struct {
	x, y  int
	pos   int   // the tile's handle (deck 0)
	kind  int   // a kind id, or faceDown
	marks []int // markers per seat
}

// taskKind is what a pending task waits for.
type taskKind uint8

const (
	tkDeal     taskKind = iota // cards: deal the starting hands
	tkRefill                   // cards: the player to act refills to the hand size; then the turn passes
	tkDraw                     // cards: the player to act draws n tiles (an instruction)
	tkFlip                     // cards: the face-down tile at (ox, oy) is opened to everyone
	tkReveal                   // cards: a Library shows the top tiles of the pile to the player to act
	tkLook                     // cards: after swapped hands, the player to act and seat n look at their new hands
	tkPlay                     // seat: play a tile from the hand
	tkPlayPeek                 // seat: play one of the tiles a Library shows
	tkTarget                   // seat: pick a tile for the instruction of src at (ox, oy)
	tkTarget2                  // seat: pick the second tile (swap, move) after (sx, sy)
	tkSeat                     // seat: pick another player (swap hands)
	tkRecycle                  // seat: put a tile back into the pile, or stop
	numTasks
)

// cards reports whether the task waits for cards to be opened (by the
// beacon on an open table, by the card layer on a secret one).
func (k taskKind) cards() bool { return k <= tkLook }

// task is one pending step of the current turn. src is the kind of the
// tile whose instruction the task carries out (-1 for the turn's own
// steps); n counts what is left (tiles to draw, tiles that may still be put
// back; for tkLook, the other seat) and m what is done (tiles put back).
type task struct {
	kind   taskKind
	src    int
	ox, oy int
	sx, sy int
	n, m   int
}

// End reasons.
const (
	endNone = iota
	endMarkers
	endPower
	endNoTiles
	endAllLeft
	numEnds
)

var endText = [numEnds]string{
	"",
	"a player used all their control markers and everyone else had a last turn",
	"every Power Station is on the table",
	"no tiles are left to play",
	"every player has left",
}

// State is a game of Infinite City in progress.
//
// Every tile is a card of one deck (deck 0: the set's tiles in kind order,
// shuffled jointly before the game), and every zone holds handles, never
// kinds: the pile, the hands and the Library's tiles. A kind is known to
// the rules only once the tile is face up (cards.Public); a seat knows its
// own tiles through cards.Value (the shared state on an open table, its
// private Knowledge on a secret one).
type State struct {
	set     *TileSet
	players int
	markers int // control markers per player at the start
	hand    int // hand size refilled to

	current int
	turn    int
	endSeat int // the seat that used its last marker, or -1
	reason  int // endNone while the game runs

	supply  []int // markers in each player's supply
	lost    []int // markers removed from the game
	dropped []bool
	hands   [][]int // handles, sorted

	pile  []int        // handles, top first; tiles put back go to the bottom
	cards engine.Cards // what is known of every handle

	board []cell // sorted by (y, x)
	peek  []int  // handles a Library shows, in the order taken
	stack []task
	ran   []int // per kind: how often its instruction was carried out
}

var _ engine.State = (*State)(nil)
var _ engine.Dropper = (*State)(nil)
var _ engine.CardState = (*State)(nil)

// deckOf lists the cards of a tile set before the shuffle: every kind's
// copies, in kind order. Peers derive it from the options, so it is public.
func deckOf(set *TileSet) [][]uint16 {
	d := make([]uint16, 0, set.Total)
	for k, kd := range set.Kinds {
		for i := 0; i < kd.Count; i++ {
			d = append(d, uint16(k))
		}
	}
	return [][]uint16{d}
}

// handle is the deck-0 handle of position pos.
func handle(pos int) engine.Handle { return engine.Handle{Pos: uint16(pos)} }

// newState sets up the table: the starting plus of five face-down tiles
// (the first five positions of the shuffled deck) and a deal waiting for
// the cards.
func newState(set *TileSet, players, markers, hand int) (*State, error) {
	if set.Total < 5+players*hand {
		return nil, fmt.Errorf("the tile set has %d tiles; %d players with hands of %d need at least %d", set.Total, players, hand, 5+players*hand)
	}
	cards, err := engine.NewCards(deckOf(set))
	if err != nil {
		return nil, err
	}
	s := &State{
		set: set, players: players, markers: markers, hand: hand,
		endSeat: -1,
		supply:  make([]int, players),
		lost:    make([]int, players),
		dropped: make([]bool, players),
		hands:   make([][]int, players),
		cards:   cards,
		ran:     make([]int, len(set.Kinds)),
	}
	for i := range s.supply {
		s.supply[i] = markers
	}
	for p := 5; p < set.Total; p++ {
		s.pile = append(s.pile, p)
	}
	for i, p := range [5][2]int{{0, -1}, {-1, 0}, {0, 0}, {1, 0}, {0, 1}} {
		s.board = append(s.board, cell{x: p[0], y: p[1], pos: i, kind: faceDown, marks: make([]int, players)})
	}
	s.stack = []task{{kind: tkDeal, src: -1}}
	return s, nil
}

// Players is the number of seats.
func (s *State) Players() int { return s.players }

// Turn counts the turns that have passed.
func (s *State) Turn() int { return s.turn }

// ToAct says who must act next.
func (s *State) ToAct() engine.Actor {
	if s.reason != endNone || len(s.stack) == 0 {
		return engine.OverActor()
	}
	if s.top().kind.cards() {
		if s.cards.Mode() == engine.CardsSecret {
			return engine.CardsActor()
		}
		return engine.ChanceActor()
	}
	return engine.SeatActor(s.current)
}

func (s *State) top() *task { return &s.stack[len(s.stack)-1] }

func (s *State) pop() { s.stack = s.stack[:len(s.stack)-1] }

func (s *State) push(t task) { s.stack = append(s.stack, t) }

// Clone returns a deep copy.
func (s *State) Clone() engine.State { return s.clone() }

func (s *State) clone() *State {
	c := *s
	c.supply = append([]int(nil), s.supply...)
	c.lost = append([]int(nil), s.lost...)
	c.dropped = append([]bool(nil), s.dropped...)
	c.hands = make([][]int, len(s.hands))
	for i, h := range s.hands {
		c.hands[i] = append([]int(nil), h...)
	}
	c.pile = append([]int(nil), s.pile...)
	c.cards = s.cards.Clone()
	c.board = make([]cell, len(s.board), len(s.board)+4)
	marks := make([]int, len(s.board)*s.players)
	for i, b := range s.board {
		m := marks[i*s.players : (i+1)*s.players : (i+1)*s.players]
		copy(m, b.marks)
		c.board[i] = cell{x: b.x, y: b.y, pos: b.pos, kind: b.kind, marks: m}
	}
	c.peek = append([]int(nil), s.peek...)
	c.stack = append([]task(nil), s.stack...)
	c.ran = append([]int(nil), s.ran...)
	return &c
}

// Encode writes the canonical encoding of the state.
func (s *State) Encode(e *engine.Encoder) {
	if s.set == standard {
		e.Text("tiles", "standard")
	} else {
		e.Text("tiles", s.set.String())
	}
	e.Int("players", s.players)
	e.Int("markers", s.markers)
	e.Int("hand", s.hand)
	e.Int("current", s.current)
	e.Int("turn", s.turn)
	e.Int("endSeat", s.endSeat)
	e.Int("reason", s.reason)
	e.Ints("supply", s.supply)
	e.Ints("lost", s.lost)
	e.Begin("dropped")
	for i, d := range s.dropped {
		e.BeginItem("seat", i)
		e.Bool("dropped", d)
		e.End()
	}
	e.End()
	for i, h := range s.hands {
		e.BeginItem("hands", i)
		e.Ints("tiles", h)
		e.End()
	}
	e.Ints("pile", s.pile)
	e.Len("board", len(s.board))
	for i, c := range s.board {
		e.BeginItem("board", i)
		e.Int("x", c.x)
		e.Int("y", c.y)
		e.Int("pos", c.pos)
		e.Int("kind", c.kind)
		e.Ints("marks", c.marks)
		e.End()
	}
	e.Ints("peek", s.peek)
	e.Len("stack", len(s.stack))
	for i, t := range s.stack {
		e.BeginItem("stack", i)
		e.Uint("kind", uint64(t.kind))
		e.Int("src", t.src)
		e.Int("ox", t.ox)
		e.Int("oy", t.oy)
		e.Int("sx", t.sx)
		e.Int("sy", t.sy)
		e.Int("n", t.n)
		e.Int("m", t.m)
		e.End()
	}
	e.Ints("ran", s.ran)
	s.cards.Encode(e)
}

const maxStack = 64

// decode rebuilds a state from its canonical encoding and checks that it is
// one the rules can reach in shape (ranges, tile and marker accounting), so
// that no decoded state can make a later step misbehave.
func decode(b []byte) (engine.State, error) {
	d := engine.NewDecoder(b)
	spec := d.Text(8192)
	s := &State{}
	if d.Err() != nil {
		return nil, d.Err()
	}
	if spec == "standard" {
		s.set = standard
	} else {
		ts, err := ParseTiles(spec)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", engine.ErrDecode, err)
		}
		s.set = ts
	}
	nk := len(s.set.Kinds)
	s.players = d.Int()
	if d.Err() == nil && (s.players < 2 || s.players > 6) {
		return nil, fmt.Errorf("%w: %d players", engine.ErrDecode, s.players)
	}
	s.markers = d.Int()
	s.hand = d.Int()
	s.current = d.Int()
	s.turn = d.Int()
	s.endSeat = d.Int()
	s.reason = d.Int()
	s.supply = d.Ints(6)
	s.lost = d.Ints(6)
	s.dropped = make([]bool, s.players)
	for i := range s.dropped {
		s.dropped[i] = d.Bool()
	}
	s.hands = make([][]int, s.players)
	for i := range s.hands {
		s.hands[i] = d.Ints(maxTiles)
	}
	s.pile = d.Ints(maxTiles)
	n := d.Len(maxTiles)
	if d.Err() != nil {
		return nil, d.Err()
	}
	s.board = make([]cell, n)
	for i := range s.board {
		c := &s.board[i]
		c.x, c.y, c.pos, c.kind = d.Int(), d.Int(), d.Int(), d.Int()
		c.marks = d.Ints(6)
	}
	s.peek = d.Ints(libraryLook)
	n = d.Len(maxStack)
	if d.Err() != nil {
		return nil, d.Err()
	}
	s.stack = make([]task, n)
	for i := range s.stack {
		t := &s.stack[i]
		k := d.Uint()
		if k >= uint64(numTasks) {
			return nil, fmt.Errorf("%w: task kind %d", engine.ErrDecode, k)
		}
		t.kind = taskKind(k)
		t.src, t.ox, t.oy, t.sx, t.sy, t.n, t.m = d.Int(), d.Int(), d.Int(), d.Int(), d.Int(), d.Int(), d.Int()
	}
	s.ran = d.Ints(maxKinds)
	if d.Err() != nil {
		return nil, d.Err()
	}
	cards, err := engine.DecodeCards(d, deckOf(s.set))
	if err != nil {
		return nil, err
	}
	s.cards = cards
	if err := d.Finish(); err != nil {
		return nil, err
	}
	if len(s.peek) == 0 {
		s.peek = nil
	}
	if len(s.pile) == 0 {
		s.pile = nil
	}
	for i, h := range s.hands {
		if len(h) == 0 {
			s.hands[i] = nil
		}
	}
	if err := s.check(nk); err != nil {
		return nil, fmt.Errorf("%w: %v", engine.ErrDecode, err)
	}
	return s, nil
}

// check verifies the shape and accounting of a decoded state.
func (s *State) check(nk int) error {
	p := s.players
	switch {
	case s.markers < 1 || s.markers > 30 || s.hand < 1 || s.hand > 10:
		return fmt.Errorf("markers %d or hand %d out of range", s.markers, s.hand)
	case s.current < 0 || s.current >= p || s.turn < 0:
		return fmt.Errorf("current seat %d or turn %d out of range", s.current, s.turn)
	case s.endSeat < -1 || s.endSeat >= p || s.reason < 0 || s.reason >= numEnds:
		return fmt.Errorf("end seat %d or reason %d out of range", s.endSeat, s.reason)
	case len(s.supply) != p || len(s.lost) != p || len(s.ran) != nk:
		return fmt.Errorf("list lengths do not match %d players and %d tile kinds", p, nk)
	}
	for _, r := range s.ran {
		if r < 0 {
			return fmt.Errorf("negative instruction count")
		}
	}
	if err := s.checkTiles(); err != nil {
		return err
	}
	if err := s.checkMarkers(); err != nil {
		return err
	}
	for i := 1; i < len(s.board); i++ {
		a, b := s.board[i-1], s.board[i]
		if a.y > b.y || a.y == b.y && a.x >= b.x {
			return fmt.Errorf("board not sorted at tile %d", i)
		}
	}
	for _, c := range s.board {
		if c.kind < faceDown || c.kind >= nk || len(c.marks) != p {
			return fmt.Errorf("bad tile at (%d,%d)", c.x, c.y)
		}
		if c.x < -1000 || c.x > 1000 || c.y < -1000 || c.y > 1000 {
			return fmt.Errorf("tile at (%d,%d) is too far out", c.x, c.y)
		}
	}
	if !s.connected() {
		return fmt.Errorf("the tiles on the table are not all connected")
	}
	if s.reason != endNone {
		if len(s.stack) != 0 || len(s.peek) != 0 {
			return fmt.Errorf("a finished game has pending steps")
		}
		return nil
	}
	if len(s.stack) == 0 {
		return fmt.Errorf("a running game has nothing pending")
	}
	for i, t := range s.stack {
		if t.src < -1 || t.src >= nk || t.n < 0 || t.n > maxTiles || t.m < 0 || t.m > maxTiles {
			return fmt.Errorf("bad task %d", i)
		}
		if t.kind.cards() && i != len(s.stack)-1 {
			return fmt.Errorf("task %d waits for cards below the top", i)
		}
		if t.src < 0 && (t.kind == tkTarget || t.kind == tkTarget2 || t.kind == tkSeat || t.kind == tkRecycle || t.kind == tkReveal) {
			return fmt.Errorf("task %d has no tile", i)
		}
		switch t.kind {
		case tkFlip:
			if j := s.find(t.ox, t.oy); j < 0 || s.board[j].kind != faceDown {
				return fmt.Errorf("flip of a tile that is not face down")
			}
		case tkTarget, tkTarget2:
			if t.src < 0 || s.find(t.ox, t.oy) < 0 {
				return fmt.Errorf("target task without its tile")
			}
			if t.kind == tkTarget2 && s.find(t.sx, t.sy) < 0 {
				return fmt.Errorf("second-target task without its first tile")
			}
		case tkDeal:
			if i != 0 || len(s.stack) != 1 {
				return fmt.Errorf("deal is not alone")
			}
		case tkLook:
			if t.n < 0 || t.n >= p {
				return fmt.Errorf("swapped hands with seat %d", t.n+1)
			}
		}
	}
	if (s.top().kind == tkPlayPeek) != (len(s.peek) > 0) {
		return fmt.Errorf("library tiles do not match the pending step")
	}
	return nil
}

// checkTiles checks that every tile of the set is in exactly one place
// (the pile, a hand, the Library's tiles or the table), that a tile is face
// up exactly when its card is public and shows that card, and that hands
// are sorted.
func (s *State) checkTiles() error {
	where := make([]bool, s.set.Total)
	place := func(pos int) error {
		if pos < 0 || pos >= len(where) {
			return fmt.Errorf("tile %d does not exist", pos)
		}
		if where[pos] {
			return fmt.Errorf("tile %d is in two places", pos)
		}
		where[pos] = true
		return nil
	}
	for _, pos := range s.pile {
		if err := place(pos); err != nil {
			return err
		}
	}
	for _, pos := range s.peek {
		if err := place(pos); err != nil {
			return err
		}
	}
	for _, h := range s.hands {
		for i, pos := range h {
			if err := place(pos); err != nil {
				return err
			}
			if i > 0 && h[i-1] >= pos {
				return fmt.Errorf("hand not sorted")
			}
		}
	}
	for _, c := range s.board {
		if err := place(c.pos); err != nil {
			return err
		}
		v, pub := s.cards.Public(handle(c.pos))
		switch {
		case c.kind == faceDown && pub && !s.flipPending(c):
			return fmt.Errorf("the face-down tile at (%d,%d) is known to everyone", c.x, c.y)
		case c.kind != faceDown && (!pub || int(v) != c.kind):
			return fmt.Errorf("the tile at (%d,%d) does not show its card", c.x, c.y)
		}
	}
	for pos, ok := range where {
		if !ok {
			return fmt.Errorf("tile %d is nowhere", pos)
		}
	}
	return nil
}

// flipPending reports whether c is the tile a pending flip waits for (its
// card may be public already while the rest of the table's cards are still
// being opened).
func (s *State) flipPending(c cell) bool {
	if len(s.stack) == 0 {
		return false
	}
	t := s.top()
	return t.kind == tkFlip && t.ox == c.x && t.oy == c.y
}

// checkMarkers checks that every player's markers are in the supply, on
// the table or out of the game, and add up to the starting number.
func (s *State) checkMarkers() error {
	for p := 0; p < s.players; p++ {
		on := 0
		for _, c := range s.board {
			if len(c.marks) != s.players {
				return fmt.Errorf("tile at (%d,%d) has %d marker counts", c.x, c.y, len(c.marks))
			}
			if c.marks[p] < 0 {
				return fmt.Errorf("negative markers")
			}
			on += c.marks[p]
		}
		if s.supply[p] < 0 || s.lost[p] < 0 || s.supply[p]+s.lost[p]+on != s.markers {
			return fmt.Errorf("seat %d: %d in supply, %d on the table, %d out of the game; want %d in all", p, s.supply[p], on, s.lost[p], s.markers)
		}
	}
	return nil
}
