package infinitecity

import (
	"fmt"

	"github.com/boardmesh/boardmesh/engine"
)

// Apply performs seat's action: it validates first and changes nothing
// when the action is refused.
func (s *State) Apply(seat int, a engine.Action) error {
	if err := engine.CheckTurn(s.ToAct(), seat); err != nil {
		return err
	}
	if err := s.validate(a); err != nil {
		return err
	}
	s.do(a)
	s.settle()
	return nil
}

// ApplyChance fixes whatever the pending chance step draws: a deal, a
// draw, a flipped tile, or the tiles a Library shows.
func (s *State) ApplyChance(beacon []byte) error {
	if err := engine.CheckChance(s.ToAct(), beacon); err != nil {
		return err
	}
	r := engine.NewRand(beacon)
	t := s.stack[len(s.stack)-1]
	s.pop()
	switch t.kind {
	case tkDeal:
		for p := 0; p < s.players; p++ {
			if !s.dropped[p] {
				s.draw(p, s.hand, r)
			}
		}
		s.startFrom(0)
	case tkRefill:
		s.draw(s.current, t.n, r)
		s.passTurn()
	case tkDraw:
		s.draw(s.current, t.n, r)
		if t.src >= 0 {
			s.ran[t.src]++
		}
	case tkFlip:
		i := s.find(t.ox, t.oy)
		k := r.Pick(s.pool)
		s.pool[k]--
		s.board[i].kind = k
		s.revealed(k, t.ox, t.oy)
	case tkReveal:
		n := min(libraryLook, s.pile)
		for ; n > 0; n-- {
			k := r.Pick(s.pool)
			s.pool[k]--
			s.pile--
			s.peek = insertSorted(s.peek, k)
		}
		s.push(task{kind: tkPlayPeek, src: t.src})
	}
	s.settle()
	return nil
}

// draw moves up to n unknown tiles into seat's hand. Every unknown tile
// (in the pile or face down on the table) is equally likely, which is what
// drawing from a shuffled pile gives.
func (s *State) draw(seat, n int, r *engine.Rand) {
	for ; n > 0 && s.pile > 0; n-- {
		k := r.Pick(s.pool)
		s.pool[k]--
		s.pile--
		s.hands[seat] = insertSorted(s.hands[seat], k)
	}
}

// do carries out a validated action.
func (s *State) do(a engine.Action) {
	t := *s.top()
	cur := s.current
	switch a.Op {
	case OpPlay:
		s.pop()
		k, x, y := int(a.Args[0]), int(a.Args[1]), int(a.Args[2])
		if t.kind == tkPlayPeek {
			s.peek = removeOne(s.peek, k)
			for _, r := range s.peek {
				s.pool[r]++
				s.pile++
			}
			s.peek = nil
		} else {
			s.hands[cur] = removeOne(s.hands[cur], k)
		}
		if t.src >= 0 {
			s.ran[t.src]++
		}
		s.insert(cell{x: x, y: y, kind: k, marks: make([]int, s.players)})
		s.placeMarker(s.find(x, y))
		s.revealed(k, x, y)
	case OpTile:
		i := s.find(int(a.Args[0]), int(a.Args[1]))
		c := &s.board[i]
		in := s.set.Kinds[t.src].Instr
		if t.kind == tkTarget && (in == InSwapTiles || in == InMoveMarker) {
			top := s.top()
			top.kind, top.sx, top.sy = tkTarget2, c.x, c.y
			return
		}
		s.pop()
		s.ran[t.src]++
		switch in {
		case InReturnMarkers:
			for p, m := range c.marks {
				s.supply[p] += m
				c.marks[p] = 0
			}
		case InRemoveMarkers:
			for p, m := range c.marks {
				s.lost[p] += m
				c.marks[p] = 0
			}
		case InSwapTiles:
			f := &s.board[s.find(t.sx, t.sy)]
			f.kind, c.kind = c.kind, f.kind
			f.marks, c.marks = c.marks, f.marks
		case InMoveMarker:
			s.board[s.find(t.sx, t.sy)].marks[cur]--
			c.marks[cur]++
			if c.kind == faceDown {
				s.push(task{kind: tkFlip, src: -1, ox: c.x, oy: c.y})
			}
		default: // the marking instructions
			s.placeMarker(i)
		}
	case OpSeat:
		s.pop()
		s.ran[t.src]++
		p := int(a.Args[0])
		s.hands[cur], s.hands[p] = s.hands[p], s.hands[cur]
	case OpReturn:
		k := int(a.Args[0])
		s.hands[cur] = removeOne(s.hands[cur], k)
		s.pool[k]++
		s.pile++
		top := s.top()
		top.n--
		top.m++
		if top.n == 0 || len(s.hands[cur]) == 0 {
			s.finishRecycle()
		}
	case OpDone:
		s.finishRecycle()
	}
}

func (s *State) finishRecycle() {
	t := *s.top()
	s.pop()
	s.ran[t.src]++
	if t.m > 0 {
		s.push(task{kind: tkDraw, src: -1, n: t.m})
	}
}

// placeMarker puts a marker of the player to act on tile i. A marker on a
// face-down tile turns it over (a chance step fixes what it is), and then
// its instruction runs.
func (s *State) placeMarker(i int) {
	cur := s.current
	c := &s.board[i]
	c.marks[cur]++
	s.supply[cur]--
	if s.supply[cur] == 0 && s.endSeat < 0 {
		s.endSeat = cur
	}
	if c.kind == faceDown {
		s.push(task{kind: tkFlip, src: -1, ox: c.x, oy: c.y})
	}
}

// revealed runs when tile kind k turns face up at (x, y), laid or flipped:
// the last Power Station ends the game at once; otherwise the tile's
// instruction is carried out.
func (s *State) revealed(k, x, y int) {
	if s.set.Power > 0 && s.set.Kinds[k].Instr == InProtect {
		up := 0
		for i := range s.board {
			if s.instrAt(i) == InProtect {
				up++
			}
		}
		if up == s.set.Power {
			s.ran[k]++
			s.end(endPower)
			return
		}
	}
	t := task{src: k, ox: x, oy: y}
	cur := s.current
	// Once a player has used their last marker, instructions that would put
	// more tiles on the table are not carried out that turn.
	tilesAllowed := s.endSeat != cur
	switch s.set.Kinds[k].Instr {
	case InNone, InProtect, InPlaza:
		s.ran[k]++
	case InPlayAnother:
		if tilesAllowed {
			t.kind = tkPlay
			s.push(t)
		}
	case InLibrary:
		if tilesAllowed && s.pile > 0 && s.supply[cur] > 0 {
			t.kind = tkReveal
			s.push(t)
		}
	case InDrawTiles:
		if s.pile > 0 {
			t.kind, t.n = tkDraw, drawCount
			s.push(t)
		}
	case InSwapHands:
		t.kind = tkSeat
		s.push(t)
	case InRecycle:
		t.kind, t.n = tkRecycle, recycleMax
		s.push(t)
	default:
		t.kind = tkTarget
		s.push(t)
	}
}

// settle drops pending tasks that cannot be carried out and ends turns
// until a seat has a real choice, chance is needed, or the game is over.
func (s *State) settle() {
	for s.reason == endNone {
		if len(s.stack) == 0 {
			s.finishTurn()
			continue
		}
		t := s.top()
		if t.kind.chance() || s.hasChoice(t) {
			return
		}
		s.pop()
	}
}

// finishTurn refills the hand of the player whose turn ends, then passes
// the turn.
func (s *State) finishTurn() {
	need := s.hand - len(s.hands[s.current])
	if !s.dropped[s.current] && need > 0 && s.pile > 0 {
		s.push(task{kind: tkRefill, src: -1, n: min(need, s.pile)})
		return
	}
	s.passTurn()
}

func (s *State) passTurn() {
	s.turn++
	s.startFrom(s.current + 1)
}

// startFrom gives the turn to the first seat from seat on that may play,
// or ends the game: after the player who used their last marker, everyone
// else has had one more turn when the turn comes back to them; a player
// with no markers left is skipped in that last round.
func (s *State) startFrom(seat int) {
	if s.pile == 0 {
		empty := true
		for p, h := range s.hands {
			if !s.dropped[p] && len(h) > 0 {
				empty = false
			}
		}
		if empty {
			s.end(endNoTiles)
			return
		}
	}
	for i := 0; i < s.players; i++ {
		p := (seat + i) % s.players
		if s.endSeat >= 0 && p == s.endSeat {
			s.end(endMarkers)
			return
		}
		if s.dropped[p] || s.endSeat >= 0 && s.supply[p] == 0 {
			continue
		}
		s.current = p
		s.push(task{kind: tkPlay, src: -1})
		return
	}
	if s.endSeat >= 0 {
		s.end(endMarkers)
	} else {
		s.end(endAllLeft)
	}
}

func (s *State) end(reason int) {
	for _, k := range s.peek {
		s.pool[k]++
		s.pile++
	}
	s.peek = nil
	s.stack = s.stack[:0]
	s.reason = reason
}

// Drop takes a player who has left for good out of the game: their hand
// goes back into the pile, their markers stay on the table (and score),
// and they take no more turns. If it was their turn, the rest of it is
// abandoned.
func (s *State) Drop(seat int) error {
	if seat < 0 || seat >= s.players {
		return fmt.Errorf("%w: there is no seat %d", engine.ErrIllegal, seat)
	}
	if s.reason != endNone {
		return engine.ErrGameOver
	}
	if s.dropped[seat] {
		return fmt.Errorf("%w: seat %d has already left", engine.ErrIllegal, seat)
	}
	s.dropped[seat] = true
	for _, k := range s.hands[seat] {
		s.pool[k]++
		s.pile++
	}
	s.hands[seat] = nil
	if seat == s.current && s.stack[0].kind != tkDeal {
		for _, k := range s.peek {
			s.pool[k]++
			s.pile++
		}
		s.peek = nil
		s.stack = s.stack[:0]
		s.passTurn()
	}
	s.settle()
	return nil
}

func insertSorted(list []int, k int) []int {
	i := len(list)
	for i > 0 && list[i-1] > k {
		i--
	}
	list = append(list, 0)
	copy(list[i+1:], list[i:])
	list[i] = k
	return list
}

func removeOne(list []int, k int) []int {
	for i, x := range list {
		if x == k {
			out := append(list[:i:i], list[i+1:]...)
			if len(out) == 0 {
				return nil
			}
			return out
		}
	}
	return list
}
