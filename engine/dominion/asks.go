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

// Legal appends every legal action of the seat to act.
func (s *State) Legal(dst []engine.Action) []engine.Action {
	if s.phase == phaseOver || s.req != reqNone {
		return dst
	}
	p := &s.p[s.askSeat]
	done := engine.Action{Op: opDone}
	yes := engine.Action{Op: opYes}
	switch s.ask {
	case askMain:
		return s.legalMain(dst)
	case askVassal:
		return append(dst, done, yes)
	case askMoat:
		// Asked of every owner of a Moat: "yes" only with one in hand.
		if p.hand[Moat] > 0 {
			return append(dst, done, yes)
		}
		return append(dst, done)
	case askMoneylender:
		if p.hand[Copper] > 0 {
			return append(dst, done, yes)
		}
		return append(dst, done)
	case askLibrary:
		if isAction(s.lastAside()) {
			return append(dst, done, yes)
		}
		return append(dst, done)
	case askCellar, askChapel:
		return pickFrom(append(dst, done), &p.hand, nil)
	case askHarbinger:
		return pickFrom(append(dst, done), &p.disc, nil)
	case askWorkshop:
		return s.pickGain(dst, 4, false)
	case askBureaucrat:
		if n, _ := p.hand.kinds(isVictory); n == 0 {
			return append(dst, done) // reveal a hand with no Victory card
		}
		return pickFrom(dst, &p.hand, isVictory)
	case askMilitia, askPoacher, askRemodelTrash, askArtisanTop:
		return pickFrom(dst, &p.hand, nil)
	case askRemodelGain:
		return s.pickGain(dst, int(s.top().arg), false)
	case askThrone:
		return pickFrom(append(dst, done), &p.hand, isAction)
	case askBandit:
		var seen counts
		for _, c := range s.aside {
			if (c == Silver || c == Gold) && seen[c] == 0 {
				seen[c] = 1
			}
		}
		return pickFrom(dst, &seen, nil)
	case askMineTrash:
		return pickFrom(append(dst, done), &p.hand, isTreasure)
	case askMineGain:
		return s.pickGain(dst, int(s.top().arg), true)
	case askSentry:
		var seen counts
		for _, c := range s.aside {
			seen[c] = 1
		}
		for c := range seen {
			if seen[c] > 0 {
				for v := 0; v < 3; v++ {
					dst = append(dst, engine.Action{Op: opSentry, Args: argSentry[c][v][:]})
				}
			}
		}
		return dst
	case askArtisanGain:
		return s.pickGain(dst, 5, false)
	}
	return dst
}

func pickFrom(dst []engine.Action, z *counts, keep func(int) bool) []engine.Action {
	for c, v := range z {
		if v > 0 && (keep == nil || keep(c)) {
			dst = append(dst, engine.Action{Op: opPick, Args: argCard[c][:]})
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

// answer carries out a legal action a for the current choice.
func (s *State) answer(a engine.Action) {
	kind, seat := s.ask, s.askSeat
	s.ask = askNone
	if kind == askMain {
		s.answerMain(a)
		return
	}
	f := s.top()
	c := -1
	if len(a.Args) > 0 {
		c = int(a.Args[0])
	}
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
		p.hand[c]--
		p.disc[c]++
		f.n++
	case askChapel:
		if a.Op == opDone {
			f.step = stepDone
			return
		}
		p.hand[c]--
		s.trash[c]++
		f.n++
	case askHarbinger:
		if a.Op == opPick {
			p.disc[c]--
			p.top = append(p.top, int8(c))
		}
		f.step = stepDone
	case askVassal:
		f.step = stepDone
		if a.Op == opYes {
			c = int(f.arg)
			p.disc[c]--
			p.play[c]++
			s.stack = append(s.stack, frame{card: int8(c)})
		}
	case askWorkshop, askRemodelGain:
		s.gain(seat, c, toDiscard)
		f.step = stepDone
	case askBureaucrat:
		if a.Op == opPick {
			p.hand[c]--
			p.top = append(p.top, int8(c))
		}
		f.target++
	case askMilitia:
		p.hand[c]--
		p.disc[c]++
	case askMoneylender:
		if a.Op == opYes {
			p.hand[Copper]--
			s.trash[Copper]++
			s.coins += 3
		}
		f.step = stepDone
	case askPoacher:
		p.hand[c]--
		p.disc[c]++
		f.n--
	case askRemodelTrash, askMineTrash:
		if a.Op == opDone {
			f.step = stepDone
			return
		}
		p.hand[c]--
		s.trash[c]++
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
		p.hand[c]--
		p.play[c]++
		f.arg = int8(c)
		f.step = 1
	case askBandit:
		s.banditTrash(f, c)
	case askLibrary:
		if a.Op == opYes {
			f.n++
		} else {
			k := len(s.aside) - 1
			p.hand[s.aside[k]]++
			s.aside = s.aside[:k]
		}
		f.step = 1
	case askMineGain:
		s.gain(seat, c, toHand)
		f.step = stepDone
	case askSentry:
		for i, x := range s.aside {
			if int(x) == c {
				s.aside = append(s.aside[:i], s.aside[i+1:]...)
				break
			}
		}
		switch a.Args[1] {
		case sentryTrash:
			s.trash[c]++
		case sentryDiscard:
			p.disc[c]++
		default:
			p.top = append(p.top, int8(c))
		}
	case askArtisanGain:
		s.gain(seat, c, toHand)
	case askArtisanTop:
		p.hand[c]--
		p.top = append(p.top, int8(c))
		f.step = stepDone
	}
}
