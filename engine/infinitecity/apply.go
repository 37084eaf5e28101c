package infinitecity

import (
	"fmt"

	"github.com/boardmesh/boardmesh/engine"
)

// Apply performs seat's action: it validates first and changes nothing
// when the action is refused. A tile laid from a hand or a Library is
// opened to everyone by the move itself: on an open table the state holds
// its card; on a secret one it must be the seat's own peer (which knows
// the card) or the card comes with the move (ApplyRevealed).
func (s *State) Apply(seat int, a engine.Action) error { return s.ApplyRevealed(seat, a, nil) }

// ApplyRevealed is Apply with the cards the move opens (Reveals), in order.
func (s *State) ApplyRevealed(seat int, a engine.Action, cards []int) error {
	if err := engine.CheckTurn(s.ToAct(), seat); err != nil {
		return err
	}
	if err := s.validate(a); err != nil {
		return err
	}
	shown := s.Reveals(a, nil)
	if cards != nil && len(cards) != len(shown) {
		return engine.Illegal("the move shows %d tiles, not %d", len(shown), len(cards))
	}
	vals := make([]int, len(shown))
	for i, h := range shown {
		v := engine.NoCard
		if cards != nil {
			v = cards[i]
		} else if k, ok := s.cards.Value(h, seat); ok {
			v = int(k)
		}
		if err := s.cards.Check(engine.Opening{Deck: h.Deck, Pos: h.Pos, To: engine.Public}, v); err != nil {
			return engine.Illegal("the tile the move lays is not shown: %v", err)
		}
		vals[i] = v
	}
	for i, h := range shown {
		// Checked above; an error here is a broken invariant.
		if err := s.cards.Open(engine.Opening{Deck: h.Deck, Pos: h.Pos, To: engine.Public}, vals[i]); err != nil {
			panic(err)
		}
	}
	s.do(a)
	s.settle()
	return nil
}

// Reveals appends the handles a makes public: the tile a play lays.
func (s *State) Reveals(a engine.Action, dst []engine.Handle) []engine.Handle {
	if a.Op == OpPlay && len(a.Args) == 3 {
		if h, ok := engine.HandleArg(a.Args[0]); ok {
			dst = append(dst, h)
		}
	}
	return dst
}

// Cards is the state's card bookkeeping (engine.CardState).
func (s *State) Cards() *engine.Cards { return &s.cards }

// UseSecretCards makes the card layer answer this table's openings. It is
// allowed only before the deal.
func (s *State) UseSecretCards() error { return s.cards.UseSecret() }

// Openings appends the openings the state waits for: those of the card
// task on top of the stack that are not answered yet.
func (s *State) Openings(dst []engine.Opening) []engine.Opening {
	if s.reason != endNone || len(s.stack) == 0 || !s.top().kind.cards() {
		return dst
	}
	t := s.top()
	cur := s.current
	switch t.kind {
	case tkDeal:
		i := 0
		for p := 0; p < s.players; p++ {
			if s.dropped[p] {
				continue
			}
			for j := 0; j < s.hand && i < len(s.pile); j++ {
				dst = s.cards.Want(dst, handle(s.pile[i]), p)
				i++
			}
		}
	case tkRefill, tkDraw:
		for _, pos := range s.pile[:min(t.n, len(s.pile))] {
			dst = s.cards.Want(dst, handle(pos), cur)
		}
	case tkReveal:
		for _, pos := range s.pile[:min(libraryLook, len(s.pile))] {
			dst = s.cards.Want(dst, handle(pos), cur)
		}
	case tkFlip:
		if i := s.find(t.ox, t.oy); i >= 0 {
			dst = s.cards.Want(dst, handle(s.board[i].pos), engine.Public)
		}
	case tkLook:
		for _, pos := range s.hands[cur] {
			dst = s.cards.Want(dst, handle(pos), cur)
		}
		for _, pos := range s.hands[t.n] {
			dst = s.cards.Want(dst, handle(pos), t.n)
		}
	}
	return dst
}

// Open answers one of the openings the state waits for (engine.CardState):
// card is the value, or engine.NoCard on a secret table's peer that is not
// the opening's recipient. The state moves on after the last one.
func (s *State) Open(o engine.Opening, card int) error {
	listed := false
	for _, w := range s.Openings(nil) {
		listed = listed || w == o
	}
	if !listed {
		return fmt.Errorf("%w: %s", engine.ErrNotWaiting, o)
	}
	if err := s.cards.Open(o, card); err != nil {
		return err
	}
	s.settle()
	return nil
}

// ApplyChance is the open card source: it answers every opening the state
// waits for from the beacon (a deal, a draw, a flipped tile, the tiles a
// Library shows).
func (s *State) ApplyChance(beacon []byte) error {
	if err := engine.CheckChance(s.ToAct(), beacon); err != nil {
		return err
	}
	if err := s.cards.OpenFromBeacon(s.Openings(nil), beacon); err != nil {
		return err
	}
	s.settle()
	return nil
}

// complete finishes the card task t on top of the stack once all its
// cards are opened: the tiles move where the task takes them and the turn
// goes on.
func (s *State) complete(t task) {
	s.pop()
	switch t.kind {
	case tkDeal:
		for p := 0; p < s.players; p++ {
			if !s.dropped[p] {
				s.draw(p, s.hand)
			}
		}
		s.startFrom(0)
	case tkRefill:
		s.draw(s.current, t.n)
		s.passTurn()
	case tkDraw:
		s.draw(s.current, t.n)
		if t.src >= 0 {
			s.ran[t.src]++
		}
	case tkFlip:
		i := s.find(t.ox, t.oy)
		k, _ := s.cards.Public(handle(s.board[i].pos))
		s.board[i].kind = int(k)
		s.revealed(int(k), t.ox, t.oy)
	case tkReveal:
		n := min(libraryLook, len(s.pile))
		s.peek = append([]int(nil), s.pile[:n]...)
		s.pile = s.pile[n:]
		s.push(task{kind: tkPlayPeek, src: t.src})
	case tkLook:
	}
}

// draw moves up to n tiles from the top of the pile into seat's hand.
func (s *State) draw(seat, n int) {
	for ; n > 0 && len(s.pile) > 0; n-- {
		s.hands[seat] = insertSorted(s.hands[seat], s.pile[0])
		s.pile = s.pile[1:]
	}
	if len(s.pile) == 0 {
		s.pile = nil
	}
}

// putBack puts tiles at the bottom of the pile.
func (s *State) putBack(pos ...int) { s.pile = append(s.pile, pos...) }

// do carries out a validated action.
func (s *State) do(a engine.Action) {
	t := *s.top()
	cur := s.current
	switch a.Op {
	case OpPlay:
		s.pop()
		pos, x, y := int(a.Args[0]), int(a.Args[1]), int(a.Args[2])
		kv, _ := s.cards.Public(handle(pos))
		k := int(kv)
		if t.kind == tkPlayPeek {
			s.putBack(removeOne(s.peek, pos)...)
			s.peek = nil
		} else {
			s.hands[cur] = removeOne(s.hands[cur], pos)
		}
		if t.src >= 0 {
			s.ran[t.src]++
		}
		s.insert(cell{x: x, y: y, pos: pos, kind: k, marks: make([]int, s.players)})
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
			f.pos, c.pos = c.pos, f.pos
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
		// Each of the two now holds tiles it has not seen: they look.
		s.push(task{kind: tkLook, src: -1, n: p})
	case OpReturn:
		pos := int(a.Args[0])
		s.hands[cur] = removeOne(s.hands[cur], pos)
		s.putBack(pos)
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
		if tilesAllowed && len(s.pile) > 0 && s.supply[cur] > 0 {
			t.kind = tkReveal
			s.push(t)
		}
	case InDrawTiles:
		if len(s.pile) > 0 {
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
		if t.kind.cards() {
			want := s.Openings(nil)
			if s.cards.Mode() == engine.CardsOpen {
				want = s.cards.AnswerBound(want)
			}
			if len(want) > 0 {
				return
			}
			s.complete(*t)
			continue
		}
		if s.hasChoice(t) {
			return
		}
		s.pop()
	}
}

// finishTurn refills the hand of the player whose turn ends, then passes
// the turn.
func (s *State) finishTurn() {
	need := s.hand - len(s.hands[s.current])
	if !s.dropped[s.current] && need > 0 && len(s.pile) > 0 {
		s.push(task{kind: tkRefill, src: -1, n: min(need, len(s.pile))})
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
	if len(s.pile) == 0 {
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
	s.putBack(s.peek...)
	s.peek = nil
	s.stack = s.stack[:0]
	s.reason = reason
}

// Drop takes a player who has left for good out of the game: their hand
// goes to the bottom of the pile, their markers stay on the table (and score),
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
	s.putBack(s.hands[seat]...)
	s.hands[seat] = nil
	if seat == s.current && s.stack[0].kind != tkDeal {
		s.putBack(s.peek...)
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
