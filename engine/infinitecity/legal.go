package infinitecity

import (
	"fmt"
	"sort"

	"github.com/boardmesh/boardmesh/engine"
)

// Action ops.
const (
	// OpPlay lays a tile: Args = the tile's handle (engine.Handle.Arg: its
	// position in the shuffled deck), x, y. The tile comes from the hand,
	// or from the Library's tiles while a Library is being used; laying it
	// opens it to everyone (Reveals).
	OpPlay uint16 = iota + 1
	// OpTile picks the tile at (x, y) for an instruction: Args = x, y.
	OpTile
	// OpSeat picks another player for swap-hands: Args = seat.
	OpSeat
	// OpReturn puts a tile of the hand at the bottom of the pile: Args =
	// its handle. The tile stays hidden.
	OpReturn
	// OpDone stops putting tiles back.
	OpDone
)

// Legal appends every legal action of the seat to act.
func (s *State) Legal(dst []engine.Action) []engine.Action {
	if s.ToAct().Kind != engine.ActorSeat {
		return dst
	}
	t := s.top()
	switch t.kind {
	case tkPlay, tkPlayPeek:
		from := s.hands[s.current]
		if t.kind == tkPlayPeek {
			from = s.peek
		}
		spots := s.spots(nil)
		tiles := s.choices(from)
		// One backing array for every action's arguments: a hand of 5 and a
		// big city make hundreds of actions, and bots list them every move.
		args := make([]int32, 0, 3*len(tiles)*len(spots))
		for _, pos := range tiles {
			for _, p := range spots {
				args = append(args, handle(pos).Arg(), int32(p[0]), int32(p[1]))
				dst = append(dst, engine.Action{Op: OpPlay, Args: args[len(args)-3 : len(args) : len(args)]})
			}
		}
	case tkTarget, tkTarget2:
		for i, c := range s.board {
			if s.targetOK(t, i) {
				dst = append(dst, engine.Action{Op: OpTile, Args: []int32{int32(c.x), int32(c.y)}})
			}
		}
	case tkSeat:
		for p := 0; p < s.players; p++ {
			if p != s.current && !s.dropped[p] {
				dst = append(dst, engine.Action{Op: OpSeat, Args: []int32{int32(p)}})
			}
		}
	case tkRecycle:
		if t.n > 0 {
			for _, pos := range s.choices(s.hands[s.current]) {
				dst = append(dst, engine.Action{Op: OpReturn, Args: []int32{handle(pos).Arg()}})
			}
		}
		dst = append(dst, engine.Action{Op: OpDone})
	}
	return dst
}

// choices returns the tiles of from (handles) that are different choices
// for the player to act: one per kind it knows, in kind order (the
// lowest handle of each kind), then every tile it does not know (only on a
// peer that is not the player's own, on a secret table).
func (s *State) choices(from []int) []int {
	type kt struct{ kind, pos int }
	var known []kt
	var unknown []int
	for _, pos := range from {
		k, ok := s.cards.Value(handle(pos), s.current)
		if !ok {
			unknown = append(unknown, pos)
			continue
		}
		dup := false
		for _, x := range known {
			dup = dup || x.kind == int(k)
		}
		if !dup {
			known = append(known, kt{int(k), pos})
		}
	}
	sort.Slice(known, func(i, j int) bool { return known[i].kind < known[j].kind })
	out := make([]int, 0, len(known)+len(unknown))
	for _, x := range known {
		out = append(out, x.pos)
	}
	return append(out, unknown...)
}

// canonical refuses, on an open table, a tile of from named by another
// copy of its kind than the one Legal offers, so that Legal lists every
// legal move (one per kind) and one move has one encoding. On a secret
// table the other peers cannot tell two copies apart, so any held copy is
// accepted there (the two moves have the same effect).
func (s *State) canonical(from []int, pos int) error {
	if s.cards.Mode() != engine.CardsOpen {
		return nil
	}
	for _, c := range s.choices(from) {
		if c == pos {
			return nil
		}
	}
	return engine.Illegal("pick the %s the list offers, not another copy of it", s.heldName(pos))
}

// tileOf returns the kind of handle pos as seat knows it, or -1.
func (s *State) tileOf(pos, seat int) int {
	if k, ok := s.cards.Value(handle(pos), seat); ok {
		return int(k)
	}
	return -1
}

// heldName names a tile of the player to act ("Housing", or "that tile"
// when this peer does not know it).
func (s *State) heldName(pos int) string {
	if k := s.tileOf(pos, s.current); k >= 0 {
		return s.set.Kinds[k].Name
	}
	return "that tile"
}

// handleArg reads a deck-0 handle argument, or -1.
func handlePos(a int32) int {
	h, ok := engine.HandleArg(a)
	if !ok || h.Deck != 0 {
		return -1
	}
	return int(h.Pos)
}

// targetOK reports whether tile i may be picked for the pending task t.
func (s *State) targetOK(t *task, i int) bool {
	if s.protected(i) {
		return false
	}
	c := s.board[i]
	cur := s.current
	origin := c.x == t.ox && c.y == t.oy
	nextToOrigin := abs(c.x-t.ox)+abs(c.y-t.oy) == 1
	in := s.set.Kinds[t.src].Instr
	if t.kind == tkTarget2 {
		first := c.x == t.sx && c.y == t.sy
		switch in {
		case InSwapTiles:
			return !first
		case InMoveMarker:
			return !first && nextToOrigin
		}
		return false
	}
	switch in {
	case InReturnMarkers, InRemoveMarkers:
		return sum(c.marks) > 0
	case InSwapTiles:
		n := 0
		for j := range s.board {
			if !s.protected(j) {
				n++
			}
		}
		return n >= 2
	case InMarkAdjacent:
		return s.supply[cur] > 0 && nextToOrigin
	case InMarkLine:
		return s.supply[cur] > 0 && !origin && (c.x == t.ox || c.y == t.oy)
	case InMarkNearOwn:
		if s.supply[cur] == 0 || origin {
			return false
		}
		for _, d := range dirs {
			if j := s.find(c.x+d[0], c.y+d[1]); j >= 0 && s.board[j].marks[cur] > 0 {
				return true
			}
		}
		return false
	case InMoveMarker:
		if c.marks[cur] == 0 || origin {
			return false
		}
		for _, d := range dirs {
			j := s.find(t.ox+d[0], t.oy+d[1])
			if j >= 0 && j != i && !s.protected(j) {
				return true
			}
		}
		return false
	}
	return false
}

// hasChoice reports whether the seat task t waits for has anything to
// choose; a task without a choice cannot be carried out and is dropped.
func (s *State) hasChoice(t *task) bool {
	cur := s.current
	switch t.kind {
	case tkPlay:
		return len(s.hands[cur]) > 0 && s.supply[cur] > 0 && s.endSeat != cur
	case tkPlayPeek:
		return len(s.peek) > 0
	case tkTarget, tkTarget2:
		for i := range s.board {
			if s.targetOK(t, i) {
				return true
			}
		}
		return false
	case tkSeat:
		for p := 0; p < s.players; p++ {
			if p != cur && !s.dropped[p] {
				return true
			}
		}
		return false
	case tkRecycle:
		return len(s.hands[cur]) > 0 || t.m > 0
	}
	return false
}

// validate says in a player's words why a may not be played now.
func (s *State) validate(a engine.Action) error {
	t := s.top()
	want := func(n int) error {
		if len(a.Args) != n {
			return engine.Illegal("this action takes %d numbers, not %d", n, len(a.Args))
		}
		return nil
	}
	switch a.Op {
	case OpPlay:
		if t.kind != tkPlay && t.kind != tkPlayPeek {
			return engine.Illegal("you cannot lay a tile now: %s", s.prompt())
		}
		if err := want(3); err != nil {
			return err
		}
		pos, x, y := handlePos(a.Args[0]), int(a.Args[1]), int(a.Args[2])
		if t.kind == tkPlayPeek {
			if !has(s.peek, pos) {
				return engine.Illegal("that tile is not one the Library shows")
			}
		} else if !has(s.hands[s.current], pos) {
			return engine.Illegal("that tile is not in your hand")
		}
		name := s.heldName(pos)
		if t.kind == tkPlayPeek {
			if err := s.canonical(s.peek, pos); err != nil {
				return err
			}
		} else if err := s.canonical(s.hands[s.current], pos); err != nil {
			return err
		}
		if why := s.spotOK(x, y); why != "" {
			return engine.Illegal("%s cannot go on (%d,%d): %s", name, x, y, why)
		}
	case OpTile:
		if t.kind != tkTarget && t.kind != tkTarget2 {
			return engine.Illegal("you cannot pick a tile now: %s", s.prompt())
		}
		if err := want(2); err != nil {
			return err
		}
		x, y := int(a.Args[0]), int(a.Args[1])
		i := s.find(x, y)
		if i < 0 {
			return engine.Illegal("there is no tile on (%d,%d)", x, y)
		}
		if s.protected(i) {
			return engine.Illegal("%s is protected by a Power Station", s.tileName(i))
		}
		if !s.targetOK(t, i) {
			return engine.Illegal("%s cannot be picked: %s", s.tileName(i), s.prompt())
		}
	case OpSeat:
		if t.kind != tkSeat {
			return engine.Illegal("you cannot pick a player now: %s", s.prompt())
		}
		if err := want(1); err != nil {
			return err
		}
		p := int(a.Args[0])
		if p < 0 || p >= s.players || p == s.current || s.dropped[p] {
			return engine.Illegal("%s is not another player at the table", seatName(p))
		}
	case OpReturn:
		if t.kind != tkRecycle {
			return engine.Illegal("you cannot put tiles back now: %s", s.prompt())
		}
		if err := want(1); err != nil {
			return err
		}
		if t.n == 0 {
			return engine.Illegal("you have already put back %d tiles", t.m)
		}
		pos := handlePos(a.Args[0])
		if !has(s.hands[s.current], pos) {
			return engine.Illegal("you have no such tile in your hand")
		}
		if err := s.canonical(s.hands[s.current], pos); err != nil {
			return err
		}
	case OpDone:
		if t.kind != tkRecycle {
			return engine.Illegal("there is nothing to stop now: %s", s.prompt())
		}
		if err := want(0); err != nil {
			return err
		}
	default:
		return engine.Illegal("unknown action %d", a.Op)
	}
	return nil
}

// Describe says what a would do.
func (s *State) Describe(a engine.Action) string {
	if s.reason != endNone || len(s.stack) == 0 {
		return fmt.Sprintf("action %s", a)
	}
	t := s.top()
	switch {
	case a.Op == OpPlay && len(a.Args) == 3:
		from := ""
		if t.kind == tkPlayPeek {
			from = " from the Library"
		}
		name := "a tile"
		if k := s.tileOf(handlePos(a.Args[0]), s.current); k >= 0 {
			name = s.set.Kinds[k].Name
		}
		return fmt.Sprintf("Play %s%s at (%d,%d)", name, from, a.Args[1], a.Args[2])
	case a.Op == OpTile && len(a.Args) == 2 && (t.kind == tkTarget || t.kind == tkTarget2):
		i := s.find(int(a.Args[0]), int(a.Args[1]))
		if i < 0 {
			return fmt.Sprintf("Pick the empty square (%d,%d)", a.Args[0], a.Args[1])
		}
		name := s.tileName(i)
		first := ""
		if j := s.find(t.sx, t.sy); t.kind == tkTarget2 && j >= 0 {
			first = s.tileName(j)
		}
		switch s.set.Kinds[t.src].Instr {
		case InReturnMarkers:
			return "Return the markers on " + name + " to their owners"
		case InRemoveMarkers:
			return "Remove the markers on " + name + " from the game"
		case InSwapTiles:
			if t.kind == tkTarget2 {
				return "Swap " + first + " with " + name
			}
			return "Swap " + name + " with another tile"
		case InMoveMarker:
			if t.kind == tkTarget2 {
				return "Move your marker from " + first + " to " + name
			}
			return "Move your marker away from " + name
		default:
			return "Put a marker on " + name
		}
	case a.Op == OpSeat && len(a.Args) == 1:
		return "Swap hands with " + seatName(int(a.Args[0]))
	case a.Op == OpReturn && len(a.Args) == 1:
		name := "a tile"
		if k := s.tileOf(handlePos(a.Args[0]), s.current); k >= 0 {
			name = s.set.Kinds[k].Name
		}
		return "Put " + name + " back into the pile"
	case a.Op == OpDone:
		if t.kind == tkRecycle && t.m > 0 {
			return fmt.Sprintf("Stop and draw %d tiles", t.m)
		}
		return "Keep your hand"
	}
	return fmt.Sprintf("action %s", a)
}

// tileName names tile i for a player: "Housing at (2,-1)".
func (s *State) tileName(i int) string {
	c := s.board[i]
	if c.kind == faceDown {
		return fmt.Sprintf("the face-down tile at (%d,%d)", c.x, c.y)
	}
	return fmt.Sprintf("%s at (%d,%d)", s.set.Kinds[c.kind].Name, c.x, c.y)
}

// prompt says what the player to act must do now.
func (s *State) prompt() string {
	if s.reason != endNone {
		return "the game is over: " + endText[s.reason]
	}
	if len(s.stack) == 0 {
		return "nothing is pending"
	}
	t := s.top()
	src := func() string {
		if t.src < 0 {
			return ""
		}
		return s.set.Kinds[t.src].Name + ": "
	}
	switch t.kind {
	case tkDeal:
		return "waiting for the deal"
	case tkRefill, tkDraw:
		return fmt.Sprintf("waiting for %s to draw %d tiles", seatName(s.current), t.n)
	case tkLook:
		return fmt.Sprintf("waiting for %s and %s to look at their new hands", seatName(s.current), seatName(t.n))
	case tkFlip:
		return fmt.Sprintf("waiting for the face-down tile at (%d,%d) to be turned over", t.ox, t.oy)
	case tkReveal:
		return "waiting for the Library to show the top tiles of the pile"
	case tkPlay:
		return src() + seatName(s.current) + " lays a tile from their hand"
	case tkPlayPeek:
		return src() + seatName(s.current) + " lays one of the tiles the Library shows"
	case tkTarget2:
		j := s.find(t.sx, t.sy)
		if s.set.Kinds[t.src].Instr == InSwapTiles {
			return src() + "pick the tile to swap with " + s.tileName(j)
		}
		return src() + "pick where the marker from " + s.tileName(j) + " goes"
	case tkTarget:
		return src() + s.set.Kinds[t.src].Instr.Text()
	case tkSeat:
		return src() + "pick the player to swap hands with"
	case tkRecycle:
		return src() + fmt.Sprintf("put up to %d more tiles back into the pile, or stop", t.n)
	}
	return ""
}

func has(list []int, k int) bool {
	for _, x := range list {
		if x == k {
			return true
		}
	}
	return false
}

func sum(v []int) int {
	n := 0
	for _, x := range v {
		n += x
	}
	return n
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// seatName names a seat for players, counting from 1 as the command line
// and the summaries do.
func seatName(p int) string { return fmt.Sprintf("seat %d", p+1) }
