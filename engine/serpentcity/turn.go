package serpentcity

import (
	"github.com/boardmesh/boardmesh/engine"
)

// beginTurn starts the current player's turn: income, then the roll.
func (s *State) beginTurn() {
	s.acted, s.bonusTaken, s.conflictUsed, s.econPlayed, s.capitalEntered, s.passed = false, false, false, false, false, false
	s.ipBuys, s.offers, s.mp, s.picks, s.ending = 0, 0, 0, 0, false
	s.dice = [2]int{}
	for t := range s.entered {
		s.entered[t], s.forcedDone[t] = false, false
	}
	pl := &s.pl[s.cur]
	for t := range pl.fresh {
		pl.fresh[t] = 0
	}
	for i := range pl.frozen {
		pl.road[i] += pl.frozen[i]
		pl.frozen[i] = 0
	}
	s.produce(s.cur)
	s.ph = phRoll
	s.settle()
}

// resume returns to whatever the turn was doing after a card pick, a draw
// or a Reward Roll: more Pact picks, the end of the turn, or the main phase.
func (s *State) resume() {
	if s.ph == phOver {
		return
	}
	if s.picks > 0 {
		if s.deckLeft(econDeck)+s.deckLeft(milDeck) == 0 {
			s.picks = 0 // both decks are spent: the picks are lost
		} else {
			s.picks--
			s.ph, s.who = phPick, s.cur
			return
		}
	}
	if s.ending {
		s.continueEnd()
		return
	}
	s.ph = phMain
}

// continueEnd runs the end of the turn: each Territory where the current
// player and at least two others stand forces one conflict, then the next
// player's turn begins.
func (s *State) continueEnd() {
	if !s.pl[s.cur].dropped {
		for t := 0; t < s.cfg.T; t++ {
			if s.forcedDone[t] || s.pl[s.cur].terr[t] == 0 || s.occupiers(t) < 3 {
				continue
			}
			s.forcedDone[t] = true
			s.ph, s.cLoc = phForced, t
			return
		}
	}
	s.nextTurn()
}

func (s *State) nextTurn() {
	s.pl[s.cur].passedLast = s.passed
	s.turns++
	next := s.cur
	for k := 0; k < s.n; k++ {
		next++
		if next == s.n {
			next = 0
			s.round++
			if s.round > s.rounds {
				s.endByRounds()
				return
			}
		}
		if !s.pl[next].dropped {
			s.cur = next
			s.beginTurn()
			return
		}
	}
	s.endByRounds() // everyone has left
}

func (s *State) endByRounds() {
	best := -1
	for p := range s.pl {
		if best < 0 || s.better(p, best) {
			best = p
		}
	}
	reason := "round " + itoa(s.rounds) + " ended; most Influence Points"
	if s.round <= s.rounds {
		reason = "every player left"
	}
	s.finish([]int{best}, reason)
}

// ApplyChance feeds random bytes to a chance step: the turn roll, a card
// draw on an open table (the open card source) or a Reward Roll.
func (s *State) ApplyChance(beacon []byte) error {
	if err := engine.CheckChance(s.ToAct(), beacon); err != nil {
		return err
	}
	r := engine.NewRand(beacon)
	switch s.ph {
	case phRoll:
		a, b := r.Die(6), r.Die(6)
		s.dice = [2]int{a, b}
		s.mp = a + b
		s.ph = phMain
		if s.luck && a == b && (a == 1 || a == 6) && s.aloneLast(s.cur) {
			d := econDeck
			if a == 6 {
				d = milDeck
			}
			if s.deckLeft(d) > 0 {
				s.startDraw(s.cur, d)
			}
		}
	case phDraw:
		// The open card source: the drawn card is opened to its drawer
		// from this beacon (a secret table's card layer answers instead).
		if err := s.cards.OpenFromBeacon(s.Openings(nil), beacon); err != nil {
			return err
		}
		s.resume()
	case phReward:
		face := r.Intn(len(s.cfg.r.Reward))
		s.lastRew = face + 1
		rw := s.cfg.r.Reward[face]
		s.gainAll(s.who, rw.Gain.arr())
		if rw.Card && s.deckLeft(econDeck)+s.deckLeft(milDeck) > 0 {
			s.ph = phPick
		} else {
			s.resume()
		}
	}
	s.settle()
	s.autoplay()
	return nil
}

// aloneLast: p has strictly fewer IP than every other player (Stroke of Luck).
func (s *State) aloneLast(p int) bool {
	for q := range s.pl {
		if q != p && s.pl[q].ip <= s.pl[p].ip {
			return false
		}
	}
	return true
}

// crossStart pays the START bonus on the turn's first crossing and owes a
// Pact card pick for each Territory the player shares.
func (s *State) crossStart() {
	if s.bonusTaken {
		return
	}
	s.bonusTaken = true
	s.gainAll(s.cur, s.cfg.bonus)
	for t := 0; t < s.cfg.T; t++ {
		if s.pl[s.cur].terr[t] > 0 && s.shared(t) {
			s.picks++
		}
	}
	s.resume()
}

// Drop hands a departed player's seat to the rules: their turns are
// skipped, they answer every question with "no", and their pawns stay on
// the board where others may fight them.
func (s *State) Drop(seat int) error {
	if seat < 0 || seat >= s.n {
		return engine.Illegal("there is no seat %d", seat)
	}
	if s.pl[seat].dropped {
		return engine.Illegal("seat %d has already left", seat)
	}
	s.pl[seat].dropped = true
	s.autoplay()
	return nil
}

// autoplay answers for dropped seats until a present seat or chance is to
// act, so the state always has exactly one live actor.
func (s *State) autoplay() {
	for guard := 0; guard < 1000; guard++ {
		who := s.ToAct()
		if who.Kind != engine.ActorSeat || !s.pl[who.Seat].dropped {
			return
		}
		var a engine.Action
		switch s.ph {
		case phMain:
			a = engine.Action{Op: opEnd}
		case phPick:
			a = engine.Action{Op: opPick, Args: []int32{econDeck}}
			if s.deckLeft(econDeck) == 0 {
				a.Args[0] = milDeck
			}
		case phAttCard, phDefCard:
			a = engine.Action{Op: opNoCard}
		case phOffer:
			a = engine.Action{Op: opCancel}
		case phAnswer:
			a = engine.Action{Op: opDecline}
		case phForced:
			legal := s.Legal(nil)
			a = legal[0]
		}
		if s.check(who.Seat, a, nil) != "" {
			return // cannot happen: every phase above has its answer
		}
		s.do(who.Seat, a)
	}
}
