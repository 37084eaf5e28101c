package dominion

import "github.com/boardmesh/boardmesh/engine"

// Operations of actions. Args[0] is a card id where one is named.
const (
	opPlay         = 1 + iota // play Action card Args[0]
	opTreasure                // play Treasure Args[0]
	opAllTreasures            // play every Treasure in hand
	opBuy                     // buy card Args[0]
	opEndTurn                 // end the turn (cleanup)
	opPick                    // answer a choice with card Args[0]
	opDone                    // decline, or stop choosing
	opYes                     // accept a yes/no choice
	opSentry                  // Sentry: card Args[0], verb Args[1]
)

// Sentry verbs.
const (
	sentryTrash = iota
	sentryDiscard
	sentryBack
)

// Choices the state can be waiting for.
const (
	askNone = iota
	askMain
	askMoat
	askCellar
	askChapel
	askHarbinger
	askVassal
	askWorkshop
	askBureaucrat
	askMilitia
	askMoneylender
	askPoacher
	askRemodelTrash
	askRemodelGain
	askThrone
	askBandit
	askLibrary
	askMineTrash
	askMineGain
	askSentry
	askArtisanGain
	askArtisanTop
	numAsks
)

func (s *State) top() *frame { return &s.stack[len(s.stack)-1] }

// Legal appends every legal action of the seat to act, as that seat knows
// its cards: on a secret table only its own peer can list them. A card of
// a hand, a discard pile or the aside is named by its handle (one copy of
// each card: which copy does not matter).
func (s *State) Legal(dst []engine.Action) []engine.Action {
	if s.phase == phaseOver || s.req != reqNone || s.waiting() {
		return dst
	}
	seat := s.askSeat
	p := &s.p[seat]
	done := engine.Action{Op: opDone}
	yes := engine.Action{Op: opYes}
	switch s.ask {
	case askMain:
		return s.legalMain(dst)
	case askVassal:
		return append(dst, done, yes)
	case askMoat:
		// Asked of every owner of a Moat: "yes" only with one in hand.
		if h, ok := s.first(seat, p.hand, Moat); ok {
			return append(dst, done, engine.Action{Op: opYes, Args: []int32{h.Arg()}})
		}
		return append(dst, done)
	case askMoneylender:
		if h, ok := s.first(seat, p.hand, Copper); ok {
			return append(dst, done, engine.Action{Op: opYes, Args: []int32{h.Arg()}})
		}
		return append(dst, done)
	case askLibrary:
		if isAction(s.lastAside()) {
			return append(dst, done, yes)
		}
		return append(dst, done)
	case askCellar, askChapel:
		return s.pickFrom(append(dst, done), seat, p.hand, nil)
	case askHarbinger:
		return s.pickFrom(append(dst, done), seat, p.disc, nil)
	case askWorkshop:
		return s.pickGain(dst, 4, false)
	case askBureaucrat:
		if hand := s.handOf(seat); !hasKind(&hand, isVictory) {
			return append(dst, done) // reveal a hand with no Victory card
		}
		return s.pickFrom(dst, seat, p.hand, isVictory)
	case askMilitia, askPoacher, askRemodelTrash, askArtisanTop:
		return s.pickFrom(dst, seat, p.hand, nil)
	case askRemodelGain:
		return s.pickGain(dst, int(s.top().arg), false)
	case askThrone:
		return s.pickFrom(append(dst, done), seat, p.hand, isAction)
	case askBandit:
		return s.pickFrom(dst, seat, s.aside, func(c int) bool { return c == Silver || c == Gold })
	case askMineTrash:
		return s.pickFrom(append(dst, done), seat, p.hand, isTreasure)
	case askMineGain:
		return s.pickGain(dst, int(s.top().arg), true)
	case askSentry:
		for _, a := range s.pickFrom(nil, seat, s.aside, nil) {
			for v := int32(0); v < 3; v++ {
				dst = append(dst, engine.Action{Op: opSentry, Args: []int32{a.Args[0], v}})
			}
		}
		return dst
	case askArtisanGain:
		return s.pickGain(dst, 5, false)
	}
	return dst
}

func hasKind(z *counts, keep func(int) bool) bool {
	n, _ := z.kinds(keep)
	return n > 0
}

// pickFrom appends a pick of the first copy of each card of z that seat
// knows and keep accepts, in card order.
func (s *State) pickFrom(dst []engine.Action, seat int, z []engine.Handle, keep func(int) bool) []engine.Action {
	var at [NumCards]int
	n := 0
	for i, h := range z {
		if c := s.card(h, seat); c >= 0 && at[c] == 0 && (keep == nil || keep(c)) {
			at[c] = i + 1
			n++
		}
	}
	if n == 0 {
		return dst
	}
	// One allocation for every pick's argument.
	args := make([]int32, n)
	k := 0
	for _, i := range at {
		if i > 0 {
			args[k] = z[i-1].Arg()
			dst = append(dst, engine.Action{Op: opPick, Args: args[k : k+1 : k+1]})
			k++
		}
	}
	return dst
}

func (s *State) pickGain(dst []engine.Action, max int, treasures bool) []engine.Action {
	for c := 0; c < NumCards; c++ {
		if s.supply[c] > 0 && cards[c].cost <= max && (!treasures || isTreasure(c)) {
			dst = append(dst, engine.Action{Op: opPick, Args: argCard[c][:]})
		}
	}
	return dst
}

// argHandle is the handle an action names first.
func argHandle(a engine.Action) engine.Handle {
	if len(a.Args) == 0 {
		return engine.Handle{}
	}
	h, _ := engine.HandleArg(a.Args[0])
	return h
}

// isGainPick reports whether the current choice picks a Supply pile by
// card id (every other pick names a handle).
func (s *State) isGainPick() bool {
	switch s.ask {
	case askWorkshop, askRemodelGain, askMineGain, askArtisanGain:
		return true
	}
	return false
}

// argCard is the card action a names, as seat knows it (-1 if unknown).
func (s *State) argCard(a engine.Action, seat int) int {
	if len(a.Args) == 0 {
		return -1
	}
	if a.Op == opBuy || a.Op == opPick && s.isGainPick() {
		return int(a.Args[0])
	}
	h, ok := engine.HandleArg(a.Args[0])
	if !ok {
		return -1
	}
	return s.card(h, seat)
}

// answer carries out a legal action a for the current choice. Every card
// it moves is named by a handle; c is its card as the engine knows it
// (the revealed value on a secret table where the move shows it, -1 where
// the move keeps it hidden and this peer does not know it).
func (s *State) answer(a engine.Action) {
	kind, seat := s.ask, s.askSeat
	c := s.argCard(a, seat)
	s.ask = askNone
	if kind == askMain {
		s.answerMain(a)
		return
	}
	f := s.top()
	h := argHandle(a)
	p := &s.p[seat]
	switch kind {
	case askMoat:
		if a.Op == opYes {
			f.mask |= 1 << seat
		}
		f.target++
	case askCellar:
		if a.Op == opDone {
			f.step = 2
			return
		}
		remove(&p.hand, h)
		p.disc = append(p.disc, h)
		f.n++
	case askChapel:
		if a.Op == opDone {
			f.step = stepDone
			return
		}
		remove(&p.hand, h)
		s.trashCard(seat, c)
		f.n++
	case askHarbinger:
		if a.Op == opPick {
			remove(&p.disc, h)
			p.deck = append(p.deck, h)
		}
		f.step = stepDone
	case askVassal:
		f.step = stepDone
		if a.Op == opYes {
			// The discarded card is the last of the discard pile.
			k := len(p.disc) - 1
			p.play = append(p.play, p.disc[k])
			p.disc = p.disc[:k]
			s.stack = append(s.stack, frame{card: f.arg})
		}
	case askWorkshop, askRemodelGain:
		s.gain(seat, c, toDiscard)
		f.step = stepDone
	case askBureaucrat:
		if a.Op == opPick {
			remove(&p.hand, h)
			p.deck = append(p.deck, h)
		}
		f.target++
	case askMilitia:
		remove(&p.hand, h)
		p.disc = append(p.disc, h)
	case askMoneylender:
		if a.Op == opYes {
			remove(&p.hand, h)
			s.trashCard(seat, Copper)
			s.coins += 3
		}
		f.step = stepDone
	case askPoacher:
		remove(&p.hand, h)
		p.disc = append(p.disc, h)
		f.n--
	case askRemodelTrash, askMineTrash:
		if a.Op == opDone {
			f.step = stepDone
			return
		}
		remove(&p.hand, h)
		s.trashCard(seat, c)
		f.arg = int8(cards[c].cost + 2)
		if kind == askMineTrash {
			f.arg = int8(cards[c].cost + 3)
		}
		f.step = 1
	case askThrone:
		if a.Op == opDone {
			f.step = stepDone
			return
		}
		remove(&p.hand, h)
		p.play = append(p.play, h)
		f.arg = int8(c)
		f.step = 1
	case askBandit:
		s.banditTrash(f, c)
	case askLibrary:
		if a.Op == opYes {
			f.n++
		} else {
			k := len(s.aside) - 1
			p.hand = append(p.hand, s.aside[k])
			s.aside = s.aside[:k]
		}
		f.step = 1
	case askMineGain:
		s.gain(seat, c, toHand)
		f.step = stepDone
	case askSentry:
		remove(&s.aside, h)
		switch a.Args[1] {
		case sentryTrash:
			s.trashCard(seat, c)
		case sentryDiscard:
			p.disc = append(p.disc, h)
		default:
			p.deck = append(p.deck, h)
		}
	case askArtisanGain:
		s.gain(seat, c, toHand)
	case askArtisanTop:
		remove(&p.hand, h)
		p.deck = append(p.deck, h)
		f.step = stepDone
	}
}
