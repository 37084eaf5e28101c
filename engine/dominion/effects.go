package dominion

import "github.com/boardmesh/boardmesh/engine"

// stepDone marks a frame whose card has nothing left to do.
const stepDone = 100

// exec carries out the card of frame f from its step on. It returns true
// when the card is finished; false when it set a choice or a chance step,
// pushed another frame (f is then stale), or simply wants to be run again.
func (s *State) exec(f *frame) bool {
	if f.step == stepDone {
		return true
	}
	p := &s.p[s.cur]
	switch int(f.card) {
	case Moat:
		return s.simple(f, 2, 0, 0, 0)
	case Merchant:
		if f.step == 0 {
			s.merchants++
		}
		return s.simple(f, 1, 1, 0, 0)
	case Village:
		return s.simple(f, 1, 2, 0, 0)
	case Smithy:
		return s.simple(f, 3, 0, 0, 0)
	case Festival:
		return s.simple(f, 0, 2, 1, 2)
	case Laboratory:
		return s.simple(f, 2, 1, 0, 0)
	case Market:
		return s.simple(f, 1, 1, 1, 1)
	case Cellar:
		return s.cellar(f, p)
	case Chapel:
		if f.step == 0 && f.n < 4 && len(p.hand) > 0 {
			s.setAsk(askChapel, s.cur)
			return false
		}
		return true
	case Harbinger:
		switch f.step {
		case 0:
			s.actions++
			f.step = 1
			if s.draw(s.cur, 1) {
				return false
			}
			fallthrough
		case 1:
			if len(p.disc) > 0 {
				s.setAsk(askHarbinger, s.cur)
				return false
			}
		}
		return true
	case Vassal:
		return s.vassal(f, p)
	case Workshop:
		if s.anyGain(4, false) {
			s.setAsk(askWorkshop, s.cur)
			return false
		}
		return true
	case Bureaucrat:
		return s.bureaucrat(f)
	case Militia:
		return s.militia(f)
	case Moneylender:
		// Asked with any hand, not only with a Copper in it: on a secret
		// table no other peer knows the hand.
		if len(p.hand) > 0 {
			s.setAsk(askMoneylender, s.cur)
			return false
		}
		return true
	case Poacher:
		return s.poacher(f, p)
	case Remodel:
		switch f.step {
		case 0:
			if len(p.hand) > 0 {
				s.setAsk(askRemodelTrash, s.cur)
				return false
			}
		case 1:
			if s.anyGain(int(f.arg), false) {
				s.setAsk(askRemodelGain, s.cur)
				return false
			}
		}
		return true
	case ThroneRoom:
		switch f.step {
		case 0:
			if len(p.hand) > 0 {
				s.setAsk(askThrone, s.cur)
				return false
			}
			return true
		case 1, 2:
			c := f.arg
			f.step++
			s.stack = append(s.stack, frame{card: c})
			return false
		}
		return true
	case Bandit:
		return s.bandit(f)
	case CouncilRoom:
		return s.councilRoom(f)
	case Library:
		return s.library(f, p)
	case Mine:
		switch f.step {
		case 0:
			if len(p.hand) > 0 {
				s.setAsk(askMineTrash, s.cur)
				return false
			}
		case 1:
			if s.anyGain(int(f.arg), true) {
				s.setAsk(askMineGain, s.cur)
				return false
			}
		}
		return true
	case Sentry:
		return s.sentry(f)
	case Witch:
		return s.witch(f)
	case Artisan:
		switch f.step {
		case 0:
			f.step = 1
			if s.anyGain(5, false) {
				s.setAsk(askArtisanGain, s.cur)
				return false
			}
			fallthrough
		case 1:
			if len(p.hand) > 0 {
				s.setAsk(askArtisanTop, s.cur)
				return false
			}
		}
		return true
	}
	return true
}

// simple does "+cards, +actions, +buys, +coins" in the order printed (the
// draw last, which is the same for every card that has only these).
func (s *State) simple(f *frame, draw, actions, buys, coins int) bool {
	if f.step == 0 {
		s.actions += actions
		s.buys += buys
		s.coins += coins
		f.step = 1
		if s.draw(s.cur, draw) {
			return false
		}
	}
	return true
}

// anyGain reports whether a Supply pile (of Treasures only, if
// treasures) has a card costing up to max.
func (s *State) anyGain(max int, treasures bool) bool {
	for c := 0; c < NumCards; c++ {
		if s.supply[c] > 0 && cards[c].cost <= max && (!treasures || isTreasure(c)) {
			return true
		}
	}
	return false
}

func (s *State) cellar(f *frame, p *player) bool {
	switch f.step {
	case 0:
		s.actions++
		f.step = 1
		fallthrough
	case 1:
		if len(p.hand) > 0 {
			s.setAsk(askCellar, s.cur)
			return false
		}
		fallthrough
	case 2:
		f.step = 3
		if s.draw(s.cur, int(f.n)) {
			return false
		}
	}
	return true
}

func (s *State) vassal(f *frame, p *player) bool {
	switch f.step {
	case 0:
		s.coins += 2
		f.step = 1
		if s.reveal(s.cur, 1) {
			return false
		}
		fallthrough
	case 1:
		if len(s.aside) == 0 {
			return true
		}
		// The card was opened to everyone (Openings): its value is public.
		h := s.aside[0]
		c := s.card(h, engine.Public)
		s.aside = s.aside[:0]
		p.disc = append(p.disc, h)
		if isAction(c) {
			f.arg = int8(c)
			f.step = 2
			s.setAsk(askVassal, s.cur)
			return false
		}
	}
	return true
}

func (s *State) poacher(f *frame, p *player) bool {
	switch f.step {
	case 0:
		s.actions++
		s.coins++
		f.step = 1
		if s.draw(s.cur, 1) {
			return false
		}
		fallthrough
	case 1:
		f.n = int8(s.emptyPiles())
		f.step = 2
		fallthrough
	case 2:
		if f.n > 0 && len(p.hand) > 0 {
			s.setAsk(askPoacher, s.cur)
			return false
		}
	}
	return true
}

// reactions asks each other player with a Moat in hand, in turn order,
// whether to reveal it; f.target is the offset of the next one to ask.
func (s *State) reactions(f *frame) (wait bool) {
	for int(f.target) < s.n {
		t := s.seatAt(int(f.target))
		// Everyone who owns a Moat (what everyone may count: gains and
		// trashes are public) is asked, whether it is in hand or not.
		if s.owned(t)[Moat] > 0 && len(s.p[t].hand) > 0 {
			s.setAsk(askMoat, t)
			return true
		}
		f.target++
	}
	return false
}

func immune(f *frame, seat int) bool { return f.mask&(1<<seat) != 0 }

// attackStart runs the reactions of an Attack: steps 0 and 1 of every
// Attack card. It reports whether the card must wait.
func (s *State) attackStart(f *frame) (wait bool) {
	if f.step == 0 {
		f.target = 1
		f.step = 1
	}
	if f.step == 1 {
		if s.reactions(f) {
			return true
		}
		f.target = 1
		f.step = 2
		return false
	}
	return false
}

func (s *State) witch(f *frame) bool {
	if f.step < 2 {
		if s.attackStart(f) {
			return false
		}
		f.step = 3
		if s.draw(s.cur, 2) {
			return false
		}
	}
	for k := 1; k < s.n; k++ {
		t := s.seatAt(k)
		if !immune(f, t) && s.supply[Curse] > 0 {
			s.gain(t, Curse, toDiscard)
		}
	}
	return true
}

func (s *State) militia(f *frame) bool {
	if f.step < 2 {
		if s.attackStart(f) {
			return false
		}
		s.coins += 2
	}
	for int(f.target) < s.n {
		t := s.seatAt(int(f.target))
		if !immune(f, t) && len(s.p[t].hand) > 3 {
			s.setAsk(askMilitia, t)
			return false
		}
		f.target++
	}
	return true
}

func (s *State) bureaucrat(f *frame) bool {
	if f.step < 2 {
		if s.attackStart(f) {
			return false
		}
		if s.supply[Silver] > 0 {
			s.gain(s.cur, Silver, toDeck)
		}
	}
	for int(f.target) < s.n {
		t := s.seatAt(int(f.target))
		// Asked with any hand: a hand with no Victory card is revealed.
		if len(s.p[t].hand) > 0 && !immune(f, t) {
			s.setAsk(askBureaucrat, t)
			return false
		}
		f.target++
	}
	return true
}

func (s *State) bandit(f *frame) bool {
	if f.step < 2 {
		if s.attackStart(f) {
			return false
		}
		if s.supply[Gold] > 0 {
			s.gain(s.cur, Gold, toDiscard)
		}
	}
	switch f.step {
	case 2:
		for int(f.target) < s.n && immune(f, s.seatAt(int(f.target))) {
			f.target++
		}
		if int(f.target) >= s.n {
			return true
		}
		f.step = 3
		if s.reveal(s.seatAt(int(f.target)), 2) {
			return false
		}
		fallthrough
	case 3:
		silver, gold := false, false
		for _, h := range s.aside {
			c := s.card(h, engine.Public)
			silver = silver || c == Silver
			gold = gold || c == Gold
		}
		switch {
		case silver && gold:
			s.setAsk(askBandit, s.asideOwner)
			return false
		case silver:
			s.banditTrash(f, Silver)
		case gold:
			s.banditTrash(f, Gold)
		default:
			s.banditTrash(f, -1)
		}
	}
	return false
}

// banditTrash trashes card c (-1: none) from the revealed cards, discards
// the rest, and moves on to the next player.
func (s *State) banditTrash(f *frame, c int) {
	p := &s.p[s.asideOwner]
	for _, h := range s.aside {
		if s.card(h, engine.Public) == c {
			s.trashCard(s.asideOwner, c)
			c = -1
		} else {
			p.disc = append(p.disc, h)
		}
	}
	s.aside = s.aside[:0]
	f.target++
	f.step = 2
}

func (s *State) councilRoom(f *frame) bool {
	switch f.step {
	case 0:
		s.buys++
		f.step = 1
		f.target = 1
		if s.draw(s.cur, 4) {
			return false
		}
		fallthrough
	case 1:
		for int(f.target) < s.n {
			t := s.seatAt(int(f.target))
			f.target++
			if s.draw(t, 1) {
				return false
			}
		}
	}
	return true
}

// library draws one card at a time into aside: f.n cards there are set
// aside; one more is the card just drawn, which goes to hand unless it is
// an Action the player skips.
func (s *State) library(f *frame, p *player) bool {
	switch f.step {
	case 0, 1:
		if len(p.hand) >= 7 || p.deckSize()+len(p.disc) == 0 {
			break
		}
		f.step = 2
		if s.reveal(s.cur, 1) {
			return false
		}
		fallthrough
	case 2:
		// Every card drawn is asked about, Action or not: only its owner
		// may know which it is until it is set aside.
		if len(s.aside) > int(f.n) {
			s.setAsk(askLibrary, s.cur)
			return false
		}
	}
	p.disc = append(p.disc, s.aside...)
	s.aside = s.aside[:0]
	return true
}

func (s *State) sentry(f *frame) bool {
	switch f.step {
	case 0:
		s.actions++
		f.step = 1
		if s.draw(s.cur, 1) {
			return false
		}
		fallthrough
	case 1:
		f.step = 2
		if s.reveal(s.cur, 2) {
			return false
		}
		fallthrough
	case 2:
		if len(s.aside) > 0 {
			s.setAsk(askSentry, s.cur)
			return false
		}
	}
	return true
}
