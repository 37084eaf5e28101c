package infinitecity

import (
	"fmt"

	"github.com/boardmesh/boardmesh/engine"
)

// faceDown is the kind of a placed tile whose identity nobody knows yet.
const faceDown = -1

// cell is one tile on the table.
type cell struct {
	x, y  int
	kind  int   // a kind id, or faceDown
	marks []int // markers per seat
}

// taskKind is what a pending task waits for.
type taskKind uint8

const (
	tkDeal     taskKind = iota // chance: deal the starting hands
	tkRefill                   // chance: the player to act refills to the hand size; then the turn passes
	tkDraw                     // chance: the player to act draws n tiles (an instruction)
	tkFlip                     // chance: the face-down tile at (ox, oy) gets its identity
	tkReveal                   // chance: a Library shows the top tiles of the pile
	tkPlay                     // seat: play a tile from the hand
	tkPlayPeek                 // seat: play one of the tiles a Library shows
	tkTarget                   // seat: pick a tile for the instruction of src at (ox, oy)
	tkTarget2                  // seat: pick the second tile (swap, move) after (sx, sy)
	tkSeat                     // seat: pick another player (swap hands)
	tkRecycle                  // seat: put a tile back into the pile, or stop
	numTasks
)

func (k taskKind) chance() bool { return k <= tkReveal }

// task is one pending step of the current turn. src is the kind of the
// tile whose instruction the task carries out (-1 for the turn's own
// steps); n counts what is left (tiles to draw, tiles that may still be put
// back) and m what is done (tiles put back).
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
	hands   [][]int // kind ids, sorted

	pool []int // unknown tiles (pile and face-down on the table) per kind
	pile int

	board []cell // sorted by (y, x)
	peek  []int  // tiles a Library shows, sorted
	stack []task
	ran   []int // per kind: how often its instruction was carried out
}

var _ engine.State = (*State)(nil)
var _ engine.Dropper = (*State)(nil)

// newState sets up the table: the starting plus of five face-down tiles
// and a deal waiting for chance.
func newState(set *TileSet, players, markers, hand int) (*State, error) {
	if set.Total < 5+players*hand {
		return nil, fmt.Errorf("the tile set has %d tiles; %d players with hands of %d need at least %d", set.Total, players, hand, 5+players*hand)
	}
	s := &State{
		set: set, players: players, markers: markers, hand: hand,
		endSeat: -1,
		supply:  make([]int, players),
		lost:    make([]int, players),
		dropped: make([]bool, players),
		hands:   make([][]int, players),
		pool:    make([]int, len(set.Kinds)),
		ran:     make([]int, len(set.Kinds)),
	}
	for i := range s.supply {
		s.supply[i] = markers
	}
	for i, k := range set.Kinds {
		s.pool[i] = k.Count
	}
	s.pile = set.Total - 5
	for _, p := range [5][2]int{{0, -1}, {-1, 0}, {0, 0}, {1, 0}, {0, 1}} {
		s.board = append(s.board, cell{x: p[0], y: p[1], kind: faceDown, marks: make([]int, players)})
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
	if s.top().kind.chance() {
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
	c.pool = append([]int(nil), s.pool...)
	c.board = make([]cell, len(s.board), len(s.board)+4)
	marks := make([]int, len(s.board)*s.players)
	for i, b := range s.board {
		m := marks[i*s.players : (i+1)*s.players : (i+1)*s.players]
		copy(m, b.marks)
		c.board[i] = cell{x: b.x, y: b.y, kind: b.kind, marks: m}
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
	e.Ints("pool", s.pool)
	e.Int("pile", s.pile)
	e.Len("board", len(s.board))
	for i, c := range s.board {
		e.BeginItem("board", i)
		e.Int("x", c.x)
		e.Int("y", c.y)
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
	s.pool = d.Ints(maxKinds)
	s.pile = d.Int()
	n := d.Len(maxTiles)
	if d.Err() != nil {
		return nil, d.Err()
	}
	s.board = make([]cell, n)
	for i := range s.board {
		c := &s.board[i]
		c.x, c.y, c.kind = d.Int(), d.Int(), d.Int()
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
	if err := d.Finish(); err != nil {
		return nil, err
	}
	if len(s.peek) == 0 {
		s.peek = nil
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
	case len(s.supply) != p || len(s.lost) != p || len(s.pool) != nk || len(s.ran) != nk:
		return fmt.Errorf("list lengths do not match %d players and %d tile kinds", p, nk)
	case s.pile < 0:
		return fmt.Errorf("negative pile")
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
		}
	}
	if (s.top().kind == tkPlayPeek) != (len(s.peek) > 0) {
		return fmt.Errorf("library tiles do not match the pending step")
	}
	return nil
}

// checkTiles checks that every tile of the set is in exactly one place.
func (s *State) checkTiles() error {
	known := 0
	down := 0
	for _, c := range s.board {
		if c.kind == faceDown {
			down++
		} else {
			known++
		}
	}
	unknown := 0
	for _, n := range s.pool {
		if n < 0 {
			return fmt.Errorf("negative tile count")
		}
		unknown += n
	}
	if unknown != s.pile+down {
		return fmt.Errorf("%d unknown tiles, but the pile has %d and the table %d face down", unknown, s.pile, down)
	}
	per := make([]int, len(s.set.Kinds))
	copy(per, s.pool)
	add := func(k int) error {
		if k < 0 || k >= len(per) {
			return fmt.Errorf("tile kind %d out of range", k)
		}
		per[k]++
		return nil
	}
	for _, c := range s.board {
		if c.kind != faceDown {
			if err := add(c.kind); err != nil {
				return err
			}
		}
	}
	for _, h := range s.hands {
		for i, k := range h {
			if err := add(k); err != nil {
				return err
			}
			if i > 0 && h[i-1] > k {
				return fmt.Errorf("hand not sorted")
			}
		}
	}
	for i, k := range s.peek {
		if err := add(k); err != nil {
			return err
		}
		if i > 0 && s.peek[i-1] > k {
			return fmt.Errorf("library tiles not sorted")
		}
	}
	for k, n := range per {
		if n != s.set.Kinds[k].Count {
			return fmt.Errorf("%d copies of %s accounted for, the set has %d", n, s.set.Kinds[k].Name, s.set.Kinds[k].Count)
		}
	}
	return nil
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
