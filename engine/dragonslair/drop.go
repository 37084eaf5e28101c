package dragonslair

import (
	"fmt"

	"github.com/boardmesh/boardmesh/engine"
)

// Drop takes a player who left for good out of the game. Their turns are
// skipped from now on and they cannot win, but their gold and eggs stay
// on the board (a Raven or the Night Thief can still take that gold). If
// it is their turn, the turn ends as if they had walked out of the cave
// with nothing: the cards in front of them are discarded, the dragon does
// not stir. If the last player leaves, the game ends.
func (s *State) Drop(seat int) error {
	if s.phase == phaseOver {
		return engine.ErrGameOver
	}
	if seat < 0 || seat >= int(s.n) {
		return fmt.Errorf("%w: no %s", engine.ErrIllegal, seatName(seat))
	}
	if s.seats[seat].dropped {
		return fmt.Errorf("%w: %s has already left", engine.ErrIllegal, seatName(seat))
	}
	s.seats[seat].dropped = true
	s.push(last{ev: evDropped, seat: int8(seat)})
	if s.activeCount() == 0 {
		s.discardFront()
		best := s.bestScore()
		s.setWinners(func(i int) bool { return s.seats[i].score == best }, reasonLeft)
		return nil
	}
	switch {
	case s.phase == phaseChooseHero && int(s.cur) == seat:
		s.nextChooser(seat)
	case s.phase == phaseDwarf && int(s.cur) == seat:
		s.bust(false)
	case s.phase == phaseWizard && int(s.cur) == seat:
		s.afterRound(false)
	case s.phase == phaseDealHeroes, s.phase == phaseChooseHero, s.phase == phaseWizard:
		// Not this seat's turn: it is skipped from now on.
	case int(s.turnSeat) == seat:
		// Their turn, perhaps waiting for a card: the pile keeps any card
		// fixed on top, and what lies in front of them is discarded.
		s.discardFront()
		s.endTurn()
	}
	return nil
}
