package dragonslair

import "github.com/boardmesh/boardmesh/engine"

// push records an event for the table to read; the newest is log[0].
func (s *State) push(l last) {
	copy(s.log[1:], s.log[:len(s.log)-1])
	s.log[0] = l
}

// startTurn begins seat's turn at the Exit.
func (s *State) startTurn(seat int) {
	s.phase = phaseStart
	s.cur = uint8(seat)
	s.turnSeat = uint8(seat)
	s.hall = 0
	s.turnBase = s.seats[seat].score
}

// draw turns over the top card: it waits for the card to be opened to
// everyone (settle goes on at once where the state already holds it).
func (s *State) draw() {
	s.fillTop(1)
	s.phase = phaseDraw
	s.settle()
}

// resolve applies the card just turned over by the turn player; h is its
// handle, now public.
func (s *State) resolve(c card, h engine.Handle) {
	seat := int(s.turnSeat)
	p := &s.seats[seat]
	s.draws++
	s.deck[c]--
	if s.hall < nest {
		s.hall++
	}
	// The pile is refilled the moment it runs out, before the card acts,
	// so the discards the card makes start the next discard pile.
	s.reshuffleIfEmpty()
	s.push(last{ev: evCard, seat: int8(seat), card: c})
	s.front[c]++
	s.frontH = append(s.frontH, h)
	bust, sphere := false, false
	switch {
	case c.isNoise():
		if s.noises() == 1 {
			break // the first noise does no harm
		}
		if s.front[cardCap] > 0 {
			s.frontToDiscard(cardCap)
			s.frontToDiscard(c)
			s.push(last{ev: evCapSaved, seat: int8(seat), card: c})
			break
		}
		bust = true
	case c == cardRaven:
		victim := s.nextActive(seat)
		if victim == seat {
			break
		}
		take := min(int32(ravenGold), s.seats[victim].score)
		s.seats[victim].score -= take
		p.score += take
		s.push(last{ev: evRaven, seat: int8(seat), other: int8(victim), amount: take})
	case c == cardHideout:
		v := 0
		for t := cardCoin; t <= cardCrown; t++ {
			v += int(s.front[t]) * cards[t].value
			for s.front[t] > 0 {
				s.frontToDiscard(t)
			}
		}
		p.score += int32(v)
		s.push(last{ev: evHideout, seat: int8(seat), amount: int32(v)})
	case c == cardSphere:
		sphere = true
	case c == cardPassage:
		if s.hall < nest {
			s.hall++
		}
	}
	switch {
	case bust:
		if p.hero == heroDwarf && !p.used && s.bagValue() > 0 {
			s.phase = phaseDwarf
			s.cur = uint8(seat)
			return
		}
		s.bust(false)
	case sphere && !s.pileEmpty():
		// The top card is opened to the turn player alone.
		s.fillTop(1)
		s.phase = phasePeek
		s.settle()
	default:
		s.phase = phaseCard
	}
}

// bust ends the turn after a second noise: everything in front goes to the
// discards and the dragon stirs. With the Dwarf's power the gold of the
// bag is still scored.
func (s *State) bust(dwarf bool) {
	seat := int(s.turnSeat)
	p := &s.seats[seat]
	if dwarf {
		v := int32(s.bagValue())
		p.score += v
		p.used = true
		s.push(last{ev: evDwarf, seat: int8(seat), amount: v})
	}
	s.push(last{ev: evBust, seat: int8(seat)})
	s.discardFront()
	s.moveDragon()
	s.endTurn()
}

// escapeValue is the gold an escape now brings, with or without the
// once-per-game power of the turn player's hero.
func (s *State) escapeValue(power bool) int {
	p := &s.seats[s.turnSeat]
	v := s.bagValue() + hallBonus[s.hall]
	if power {
		switch p.hero {
		case heroBard:
			v += bardGold
		case heroAlchemist:
			v += s.bestTreasure()
		case heroKnight:
			v += knightGold
		}
	}
	if p.hero == heroHunter && s.bagCards() >= hunterCards {
		v += hunterGold
	}
	return v
}

// escape scores the bag and the hall bonus and ends the turn; eggs stay
// in front of the player for the rest of the game.
func (s *State) escape(power bool) {
	seat := int(s.turnSeat)
	p := &s.seats[seat]
	v := s.escapeValue(power)
	if power {
		p.used = true
	}
	p.score += int32(v)
	p.eggs += s.front[cardEgg]
	for s.front[cardEgg] > 0 {
		s.takeFront(cardEgg) // kept out of the game: the handle goes nowhere
	}
	s.push(last{ev: evEscape, seat: int8(seat), amount: int32(v)})
	s.discardFront()
	s.endTurn()
}

func (s *State) moveDragon() {
	s.dragon++
	if s.dragon >= s.red {
		s.ending = true
	}
}

// endTurn passes the turn on, ending the round after the last seat.
func (s *State) endTurn() {
	seat := int(s.turnSeat)
	s.turns++
	s.hall = 0
	if s.tiebreak {
		s.seats[seat].tieGain = s.seats[seat].score - s.turnBase
		s.tieNext++
		s.nextTieTurn()
		return
	}
	next := s.nextActive(seat)
	if next > seat {
		s.startTurn(next)
		return
	}
	s.endRound()
}

// wizardSeat is the seat whose Sleepy Wizard may still act, or -1.
func (s *State) wizardSeat() int {
	for i := 0; i < int(s.n); i++ {
		p := &s.seats[i]
		if p.hero == heroWizard && !p.used && !p.dropped {
			return i
		}
	}
	return -1
}

// endRound asks the Wizard, if unused, before the dragon moves.
func (s *State) endRound() {
	if w := s.wizardSeat(); w >= 0 {
		s.phase = phaseWizard
		s.cur = uint8(w)
		return
	}
	s.afterRound(false)
}

func (s *State) afterRound(wizard bool) {
	if !wizard {
		s.moveDragon()
		s.push(last{ev: evDragonMoves, seat: -1, amount: int32(s.dragon)})
	}
	if s.ending {
		s.finish()
		return
	}
	s.round++
	s.startTurn(s.nextActive(int(s.n) - 1))
}

// finish scores the egg majority and ends the game, or starts the
// tie-break turns.
func (s *State) finish() {
	most := uint8(0)
	for i := 0; i < int(s.n); i++ {
		most = max(most, s.seats[i].eggs)
	}
	if most > 0 && s.eggBonus > 0 {
		k := 0
		for i := 0; i < int(s.n); i++ {
			if s.seats[i].eggs == most {
				k++
			}
		}
		for i := 0; i < int(s.n); i++ {
			if s.seats[i].eggs == most {
				s.seats[i].score += int32(int(s.eggBonus) / k)
			}
		}
	}
	best := s.bestScore()
	k := 0
	for i := 0; i < int(s.n); i++ {
		if s.contender(i) && s.seats[i].score == best {
			k++
		}
	}
	if k < 2 {
		s.setWinners(func(i int) bool { return s.seats[i].score == best }, reasonWoke)
		return
	}
	s.tiebreak = true
	for i := 0; i < int(s.n); i++ {
		s.seats[i].tied = s.contender(i) && s.seats[i].score == best
	}
	s.nextTieTurn()
}

// contender reports whether seat i can win: players who left cannot,
// unless everyone left.
func (s *State) contender(i int) bool {
	return !s.seats[i].dropped || s.activeCount() == 0
}

func (s *State) bestScore() int32 {
	best := int32(-1)
	for i := 0; i < int(s.n); i++ {
		if s.contender(i) {
			best = max(best, s.seats[i].score)
		}
	}
	return best
}

// nextTieTurn starts the next tie-break turn, in reverse seat order, or
// decides the game by the gold the tied players took in them.
func (s *State) nextTieTurn() {
	k := 0
	for i := int(s.n) - 1; i >= 0; i-- {
		if !s.seats[i].tied {
			continue
		}
		if k == int(s.tieNext) {
			if s.seats[i].dropped {
				s.tieNext++
				k++
				continue
			}
			s.startTurn(i)
			return
		}
		k++
	}
	best, tied := int32(-1<<30), 0
	for i := 0; i < int(s.n); i++ {
		if s.seats[i].tied && s.contender(i) {
			best = max(best, s.seats[i].tieGain)
			tied++
		}
	}
	if tied == 0 {
		// Every tied player left during the tie-break: the richest of
		// those still at the table wins.
		top := s.bestScore()
		s.setWinners(func(i int) bool { return s.seats[i].score == top }, reasonWoke)
		return
	}
	s.setWinners(func(i int) bool { return s.seats[i].tied && s.seats[i].tieGain == best }, reasonTie)
}

// Reasons the game ended.
const (
	reasonWoke uint8 = iota + 1
	reasonTie
	reasonLeft
)

func (s *State) setWinners(won func(i int) bool, reason uint8) {
	s.winner = 0
	for i := 0; i < int(s.n); i++ {
		if s.contender(i) && won(i) {
			s.winner |= 1 << i
		}
	}
	s.reason = reason
	s.phase = phaseOver
}
