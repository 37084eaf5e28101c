package dominion

import (
	"math/bits"
	"strconv"
	"strings"

	"github.com/boardmesh/boardmesh/engine"
)

// run carries the game forward until it needs a choice, a chance step, or
// is over. Card effects on the stack run first; with the stack empty the
// current player is asked for the next move of the turn.
func (s *State) run() {
	for {
		if s.phase == phaseOver || s.req != reqNone {
			return
		}
		if s.waiting() {
			// Cards the state already holds (an open table's, a public
			// card) are answered at once, without a beacon.
			var buf [16]engine.Opening
			if len(s.cards.AnswerBound(s.Openings(buf[:0]))) > 0 {
				return
			}
			continue
		}
		if s.ask != askNone {
			if s.autoAnswer() {
				continue
			}
			return
		}
		if k := len(s.stack); k > 0 {
			if s.exec(&s.stack[k-1]) {
				s.stack = s.stack[:len(s.stack)-1]
			}
			continue
		}
		switch s.phase {
		case phaseAction, phaseBuy:
			if s.isDropped(s.cur) {
				s.endTurn()
				continue
			}
			s.setAsk(askMain, s.cur)
			return
		case phaseEnd:
			s.nextTurn()
		default:
			return
		}
	}
}

func (s *State) setAsk(kind, seat int) { s.ask, s.askSeat = kind, seat }

// autoAnswer makes a choice nobody needs to make: a card effect's choice
// with only one possible answer, or any choice of a seat that has left
// (which takes the first legal answer: decline if it may, else the
// lowest card id). It reports whether it answered.
func (s *State) autoAnswer() bool {
	if s.ask == askMain {
		if s.isDropped(s.askSeat) {
			s.ask = askNone
			s.endTurn()
			return true
		}
		return false
	}
	if !s.isDropped(s.askSeat) && !publicChoice(s.ask) {
		return false
	}
	var buf [48]engine.Action
	legal := s.Legal(buf[:0])
	if len(legal) == 1 || (len(legal) > 0 && s.isDropped(s.askSeat)) {
		s.answer(legal[0])
		return true
	}
	return false
}

// publicChoice reports whether every peer can list the answers to a choice
// of this kind: gains from the Supply and Bandit's revealed cards. Only
// those are answered by the engine when one answer is left; a choice about
// a hand, a discard pile or a look is always asked (its seat's own client
// may answer a forced one), since on a secret table no other peer knows
// that it is forced.
func publicChoice(kind int) bool {
	switch kind {
	case askWorkshop, askRemodelGain, askMineGain, askArtisanGain, askBandit:
		return true
	}
	return false
}

func (s *State) startTurn() {
	s.phase = phaseAction
	s.actions, s.buys, s.coins = 1, 1, 0
	s.merchants, s.silver, s.bought = 0, false, false
}

// endTurn is the cleanup phase: everything in play and in hand goes to the
// discard pile, the game may end, and the player draws a new hand.
func (s *State) endTurn() {
	p := &s.p[s.cur]
	// The hand goes face down: its cards stay hidden.
	p.disc = append(append(p.disc, p.hand...), p.play...)
	// Emptied in place: the next turn's hand and plays reuse the room.
	p.hand, p.play = p.hand[:0], p.play[:0]
	p.turns++
	s.actions, s.buys, s.coins = 0, 0, 0
	s.merchants, s.silver, s.bought = 0, false, false
	if s.checkEnd() {
		return
	}
	s.phase = phaseEnd
	s.draw(s.cur, 5)
}

// nextTurn passes the turn to the next seat that has not left.
func (s *State) nextTurn() {
	s.turn++
	for k := 1; k <= s.n; k++ {
		c := (s.cur + k) % s.n
		if !s.isDropped(c) {
			s.cur = c
			s.startTurn()
			return
		}
	}
	s.finish("every player left the game")
}

// endPiles is how many empty Supply piles end the game.
func (s *State) endPiles() int {
	if s.n >= 5 {
		return 4
	}
	return 3
}

// checkEnd ends the game after a turn if the Provinces are gone or enough
// piles are empty.
func (s *State) checkEnd() bool {
	if s.supply[Province] == 0 {
		s.finish("the Province pile is empty")
		return true
	}
	if s.emptyPiles() >= s.endPiles() {
		var names []string
		for c := 0; c < NumCards; c++ {
			if s.supply[c] == 0 && s.inSupply(c) {
				names = append(names, cards[c].name)
			}
		}
		s.finish(strconv.Itoa(len(names)) + " Supply piles are empty (" + strings.Join(names, ", ") + ")")
		return true
	}
	return false
}

func (s *State) finish(reason string) {
	s.phase = phaseOver
	s.reason = reason
	s.ask, s.askSeat = askNone, 0
	s.req = reqNone
	s.stack = s.stack[:0]
}

// playTreasure plays the Treasure h (card c) from the current hand.
func (s *State) playTreasure(h engine.Handle, c int) {
	p := &s.p[s.cur]
	remove(&p.hand, h)
	p.play = append(p.play, h)
	s.coins += cards[c].coins
	if c == Silver && !s.silver {
		s.silver = true
		s.coins += s.merchants
	}
}

// answerMain carries out a move of the turn itself.
func (s *State) answerMain(a engine.Action) {
	p := &s.p[s.cur]
	switch a.Op {
	case opPlay:
		h := argHandle(a)
		c := s.card(h, s.cur)
		remove(&p.hand, h)
		p.play = append(p.play, h)
		s.actions--
		s.stack = append(s.stack, frame{card: int8(c)})
	case opTreasure:
		s.phase = phaseBuy
		h := argHandle(a)
		s.playTreasure(h, s.card(h, s.cur))
	case opAllTreasures:
		s.phase = phaseBuy
		for _, x := range a.Args {
			h, _ := engine.HandleArg(x)
			s.playTreasure(h, s.card(h, s.cur))
		}
	case opBuy:
		c := int(a.Args[0])
		s.phase = phaseBuy
		s.coins -= cards[c].cost
		s.buys--
		s.bought = true
		s.gain(s.cur, c, toDiscard)
		if s.buys == 0 {
			s.endTurn()
		}
	case opEndTurn:
		s.endTurn()
	}
}

// legalMain lists the moves of the turn: Actions (in the Action phase,
// with an Action left), Treasures (until the first buy; "play all" names
// every Treasure of the hand, Coppers first, then Silvers, then Golds, so
// that Merchants count as the rules say), buys, end turn.
func (s *State) legalMain(dst []engine.Action) []engine.Action {
	hand := s.p[s.cur].hand
	// The hand's cards as the seat knows them, read once: which cards it
	// holds (a bit per card id) and where the first copy of each is (what
	// pickFrom would list).
	var vbuf [32]int
	vals := vbuf[:0]
	var held uint64
	var at [NumCards]uint16 // index of the first copy of each held card
	for i, h := range hand {
		c := s.card(h, s.cur)
		vals = append(vals, c)
		if c >= 0 && held&(1<<c) == 0 {
			held |= 1 << c
			at[c] = uint16(i)
		}
	}
	var plays, treasures uint64
	if s.phase == phaseAction && s.actions > 0 {
		plays = held & actionCards
	}
	if !s.bought {
		treasures = held & treasureCards
	}
	nAll := 0
	if treasures != 0 {
		for _, c := range vals {
			if c == Copper || c == Silver || c == Gold {
				nAll++
			}
		}
		if nAll < 2 {
			nAll = 0
		}
	}
	// One allocation for every argument the list names.
	var args []int32
	if n := bits.OnesCount64(plays) + bits.OnesCount64(treasures) + nAll; n > 0 {
		args = make([]int32, 0, n)
	}
	for _, l := range [...]struct {
		op    uint16
		cards uint64
	}{{opPlay, plays}, {opTreasure, treasures}} {
		for m := l.cards; m != 0; m &= m - 1 {
			args = append(args, hand[at[bits.TrailingZeros64(m)]].Arg())
			k := len(args)
			dst = append(dst, engine.Action{Op: l.op, Args: args[k-1 : k : k]})
		}
	}
	if nAll > 0 {
		// Coppers, then Silvers, then Golds, each in hand order.
		k := len(args)
		for _, t := range [...]int{Copper, Silver, Gold} {
			for i, c := range vals {
				if c == t {
					args = append(args, hand[i].Arg())
				}
			}
		}
		dst = append(dst, engine.Action{Op: opAllTreasures, Args: args[k:len(args):len(args)]})
	}
	if s.buys > 0 {
		for m := s.piles; m != 0; m &= m - 1 {
			if c := bits.TrailingZeros64(m); s.supply[c] > 0 && cards[c].cost <= s.coins {
				dst = append(dst, engine.Action{Op: opBuy, Args: argCard[c][:]})
			}
		}
	}
	return append(dst, engine.Action{Op: opEndTurn})
}

// actionCards and treasureCards have bit c set for each Action and each
// Treasure card id c.
var actionCards, treasureCards = func() (a, t uint64) {
	for c := 0; c < NumCards; c++ {
		if isAction(c) {
			a |= 1 << c
		}
		if isTreasure(c) {
			t |= 1 << c
		}
	}
	return a, t
}()

// allTreasures appends the arguments of "play all Treasures": the hand's
// Coppers, then its Silvers, then its Golds, each in hand order.
func (s *State) allTreasures(dst []int32) []int32 {
	p := &s.p[s.cur]
	for _, c := range [...]int{Copper, Silver, Gold} {
		for _, h := range p.hand {
			if s.card(h, s.cur) == c {
				dst = append(dst, h.Arg())
			}
		}
	}
	return dst
}
