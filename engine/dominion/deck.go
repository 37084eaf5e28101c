package dominion

import "github.com/boardmesh/boardmesh/engine"

// Pending chance steps (public randomness; the cards are openings).
const (
	reqNone    = iota
	reqKingdom // draw ten Kingdom cards at random, then deal
	reqDeal    // deal the first hands
)

// Where a gained card goes.
const (
	toDiscard = iota
	toHand
	toDeck
)

// draw makes seat i draw n cards into hand. The handles move at once; the
// cards are opened to i by the card source before anyone acts, and draw
// reports whether the state waits for that.
func (s *State) draw(i, n int) (wait bool) {
	s.take(i, n, false)
	return s.waiting()
}

// reveal moves the top n cards of seat i's deck into aside, where the
// current effect deals with them: looked at by i (Sentry, Library) or shown
// to everyone (Vassal, Bandit), as Openings says. It reports whether the
// state waits for the cards.
func (s *State) reveal(i, n int) (wait bool) {
	s.asideOwner = i
	s.take(i, n, true)
	return s.waiting()
}

// waiting reports whether cards are still to be opened (without listing
// them: ToAct and every step ask it).
func (s *State) waiting() bool {
	if s.phase == phaseOver || s.req != reqNone {
		return false
	}
	for i := range s.p {
		if s.cards.WantsAny(s.p[i].hand, i) {
			return true
		}
	}
	return len(s.aside) > 0 && s.cards.WantsAny(s.aside, s.asideTo())
}

// take moves the top n cards of seat i's deck to hand (or aside),
// reshuffling the discard pile into a new deck only when the deck is empty
// and a card is needed; it stops early if seat i runs out of cards.
func (s *State) take(i, n int, toAside bool) {
	p := &s.p[i]
	for k := 0; k < n; k++ {
		if len(p.deck) == 0 {
			if len(p.disc) == 0 || !s.reshuffle(i) {
				return
			}
		}
		h := p.deck[len(p.deck)-1]
		p.deck = p.deck[:len(p.deck)-1]
		if toAside {
			s.aside = append(s.aside, h)
		} else {
			p.hand = append(p.hand, h)
		}
	}
}

// reshuffle makes seat i's discard pile its deck: a new deck of the card
// layer, shuffled by the owner and the others on a secret table; drawn as
// the open card source's late-bound draws on an open one.
func (s *State) reshuffle(i int) bool {
	p := &s.p[i]
	d, err := s.cards.Reshuffle(p.disc)
	if err != nil {
		// Only MaxDecks reshuffles in one game (never seen: 25 at most in
		// 200 bot games): the game ends rather than breaks.
		s.finish("too many reshuffles for one game")
		return false
	}
	// The discard pile's handles are now the new deck's sources (Reshuffle
	// copied them): both zones are refilled in place.
	n := len(p.disc)
	p.disc, p.deck = p.disc[:0], p.deck[:0] // the deck ran out (take)
	for k := 0; k < n; k++ {
		p.deck = append(p.deck, engine.Handle{Deck: d, Pos: uint16(n - 1 - k)})
	}
	return true
}

// gain moves one card c from the Supply to seat i; the caller has checked
// the pile is not empty.
func (s *State) gain(i, c, dest int) {
	h := gainHandle(s.n, c, int(s.supply[c]))
	s.supply[c]--
	p := &s.p[i]
	p.own[c]++
	switch dest {
	case toHand:
		p.hand = append(p.hand, h)
	case toDeck:
		p.deck = append(p.deck, h)
	default:
		p.disc = append(p.disc, h)
	}
}

// trashCard trashes card c of seat i (its handle already taken from its
// zone).
func (s *State) trashCard(i, c int) {
	s.trash[c]++
	s.p[i].own[c]--
}

// ApplyChance draws the Kingdom, or, on an open table, opens the cards the
// state waits for (the open card source).
func (s *State) ApplyChance(beacon []byte) error {
	if err := engine.CheckChance(s.ToAct(), beacon); err != nil {
		return err
	}
	if s.req == reqKingdom || s.req == reqDeal {
		// The first hands are one step, as everyone sees it: on an open
		// table their cards are opened from the same beacon; on a secret
		// one the card layer opens them next.
		if s.req == reqKingdom {
			s.drawKingdom(engine.NewRand(beacon))
		}
		s.req = reqNone
		s.deal()
		if s.cards.Mode() == engine.CardsOpen {
			var buf [32]engine.Opening
			if err := s.cards.OpenFromBeacon(s.Openings(buf[:0]), engine.Derive(beacon, "deal", 0)); err != nil {
				return err
			}
		}
		s.run()
		return nil
	}
	var buf [16]engine.Opening
	if err := s.cards.OpenFromBeacon(s.Openings(buf[:0]), beacon); err != nil {
		return err
	}
	s.run()
	return nil
}

// deal gives every player a first hand of 5 (handles; the openings follow).
func (s *State) deal() {
	for i := range s.p {
		s.take(i, 5, false)
	}
	s.phase = phaseAction
	s.startTurn()
}

// Openings appends the cards the state waits to see opened, in a fixed
// order: every card in a hand that its holder has not seen, seat by seat;
// then the cards aside: shown to everyone for Vassal and Bandit, looked at
// by their owner for Sentry and Library (a card Library sets aside is made
// public by the move that sets it aside).
func (s *State) Openings(dst []engine.Opening) []engine.Opening {
	if s.phase == phaseOver || s.req != reqNone {
		return dst
	}
	for i := range s.p {
		for _, h := range s.p[i].hand {
			dst = s.cards.Want(dst, h, i)
		}
	}
	to := s.asideTo()
	for _, h := range s.aside {
		dst = s.cards.Want(dst, h, to)
	}
	return dst
}

// asideTo is who the cards aside are opened to: everyone for Vassal and
// Bandit, their owner for Sentry and Library.
func (s *State) asideTo() int {
	if len(s.stack) > 0 && (s.top().card == Vassal || s.top().card == Bandit) {
		return engine.Public
	}
	return s.asideOwner
}
