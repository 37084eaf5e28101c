package dragonslair

import (
	"fmt"

	"github.com/boardmesh/boardmesh/engine"
)

// The hidden-card contract (engine.CardState, docs/hidden-cards.md). The
// only hidden zone is the pile: deck 0 holds the game's cards, every
// reshuffle of the discards a new deck. A card turned over is opened to
// everyone; the Crystal Sphere's look opens the top card to its player
// alone, the Elf Tracker's the top four to its player alone. No move
// shows a card of its own (Reveals is empty): the Elf's player says which
// of the cards it saw are noises (opElfUnder), and since nobody else can
// check that then, each claim is checked when its card is turned over.

// Cards is the state's card bookkeeping (engine.CardState).
func (s *State) Cards() *engine.Cards { return &s.cards }

// UseSecretCards makes the card layer answer this table's openings. It is
// allowed only before the first card is opened.
func (s *State) UseSecretCards() error { return s.cards.UseSecret() }

// Openings appends the openings the state waits for: the card turned
// over (to everyone), the Sphere's card or the Elf's four (to the turn
// player); a card its recipient has seen already is not asked again.
func (s *State) Openings(dst []engine.Opening) []engine.Opening {
	switch s.phase {
	case phaseDraw:
		if s.topN > 0 {
			dst = s.cards.Want(dst, s.top[0].h, engine.Public)
		}
	case phasePeek:
		if s.topN > 0 {
			dst = s.cards.Want(dst, s.top[0].h, int(s.turnSeat))
		}
	case phaseElf:
		for i := 0; i < min(elfLook, int(s.topN)); i++ {
			dst = s.cards.Want(dst, s.top[i].h, int(s.turnSeat))
		}
	}
	return dst
}

// Open answers one of Openings (engine.CardState). A card turned over
// that contradicts what the Elf Tracker's player said of it is refused and
// the cheat named: the card layer has proved the card, so the claim was
// false.
func (s *State) Open(o engine.Opening, card int) error {
	listed := false
	var buf [elfLook]engine.Opening
	for _, w := range s.Openings(buf[:0]) {
		listed = listed || w == o
	}
	if !listed {
		return fmt.Errorf("%w: %s", engine.ErrNotWaiting, o)
	}
	if err := s.checkClaim(o, card); err != nil {
		return err
	}
	if err := s.cards.Open(o, card); err != nil {
		return err
	}
	s.settle()
	return nil
}

// checkClaim refuses a public card that belies the Elf's claim on it.
func (s *State) checkClaim(o engine.Opening, v int) error {
	if o.To != engine.Public || s.topN == 0 || s.top[0].h != o.Handle() || v < 0 || v >= int(numCards) {
		return nil
	}
	sl := s.top[0]
	noise := card(v).isNoise()
	switch {
	case sl.claim == claimNoise && !noise:
		return fmt.Errorf("%w: %s's Elf Tracker sent the %s under the deck as a noise: seat %d cheated", engine.ErrBadCard, seatName(int(sl.by)), card(v), sl.by+1)
	case sl.claim == claimSafe && noise:
		return fmt.Errorf("%w: %s's Elf Tracker kept the %s on top as no noise: seat %d cheated", engine.ErrBadCard, seatName(int(sl.by)), card(v), sl.by+1)
	}
	return nil
}

// Reveals appends nothing: no move of this game shows a card; the card
// turned over is an opening of its own.
func (s *State) Reveals(a engine.Action, dst []engine.Handle) []engine.Handle { return dst }

// ApplyRevealed is Apply; no move shows a card, so cards must be empty.
func (s *State) ApplyRevealed(seat int, a engine.Action, cards []int) error {
	if len(cards) != 0 {
		return engine.Illegal("no move of this game shows a card, this one came with %d", len(cards))
	}
	return s.Apply(seat, a)
}

// settle moves on from a card phase once its openings are answered (on
// an open table at once for a card the state already holds).
func (s *State) settle() {
	for s.phase == phaseDraw || s.phase == phaseElf || s.phase == phasePeek {
		var buf [elfLook]engine.Opening // at most the Elf Tracker's four
		want := s.Openings(buf[:0])
		if s.cards.Mode() == engine.CardsOpen {
			want = s.cards.AnswerBound(want)
		}
		if len(want) > 0 {
			return
		}
		switch s.phase {
		case phaseDraw:
			sl := s.popTop()
			v, _ := s.cards.Public(sl.h)
			s.resolve(card(v), sl.h)
		case phasePeek:
			s.phase = phaseSphere
		case phaseElf:
			s.phase = phaseElfPut
		}
	}
}
