package dominion

import (
	"fmt"

	"github.com/boardmesh/boardmesh/engine"
)

// This file is Dominion's side of the hidden-card contract
// (engine.CardState, docs/hidden-cards.md): what a move shows, and how a
// peer that does not know the acting seat's cards checks its move.

var _ engine.CardState = (*State)(nil)

// Cards is the state's card bookkeeping.
func (s *State) Cards() *engine.Cards { return &s.cards }

// UseSecretCards makes the card layer answer openings; allowed before any
// card is opened (the first hands are dealt but not yet opened).
func (s *State) UseSecretCards() error { return s.cards.UseSecret() }

// Open answers one of Openings; the state runs on once the last is
// answered. A refused answer changes nothing.
func (s *State) Open(o engine.Opening, card int) error {
	if s.ToAct().Kind != engine.ActorCards {
		return fmt.Errorf("%w: %s", engine.ErrNotWaiting, o)
	}
	for _, w := range s.Openings(nil) {
		if w == o {
			if err := s.cards.Open(o, card); err != nil {
				return err
			}
			s.run()
			return nil
		}
	}
	return fmt.Errorf("%w: %s", engine.ErrNotWaiting, o)
}

// Reveals appends the cards the seat to act shows everyone with move a: a
// card played or trashed from the hand, a Moat or a Bureaucrat's Victory
// card revealed, a hand with no Victory card, a card Library sets aside,
// a card Sentry trashes. Discards, a card put onto the deck and Sentry's
// discards stay hidden (the rules reveal none of them).
func (s *State) Reveals(a engine.Action, dst []engine.Handle) []engine.Handle {
	if s.phase == phaseOver || s.ToAct().Kind != engine.ActorSeat {
		return dst
	}
	return s.reveals(a, dst)
}

// reveals is Reveals where a seat is to act (the caller checked ToAct).
func (s *State) reveals(a engine.Action, dst []engine.Handle) []engine.Handle {
	one := func() []engine.Handle {
		if h, ok := engine.HandleArg(a.Args[0]); ok && len(a.Args) > 0 {
			return append(dst, h)
		}
		return dst
	}
	if len(a.Args) == 0 {
		switch {
		case s.ask == askBureaucrat && a.Op == opDone:
			return append(dst, s.p[s.askSeat].hand...)
		case s.ask == askLibrary && a.Op == opYes && len(s.aside) > 0:
			return append(dst, s.aside[len(s.aside)-1])
		}
		return dst
	}
	switch s.ask {
	case askMain:
		switch a.Op {
		case opPlay, opTreasure:
			return one()
		case opAllTreasures:
			for _, x := range a.Args {
				if h, ok := engine.HandleArg(x); ok {
					dst = append(dst, h)
				}
			}
		}
	case askMoat, askMoneylender:
		if a.Op == opYes {
			return one()
		}
	case askChapel, askRemodelTrash, askMineTrash, askThrone, askBureaucrat:
		if a.Op == opPick {
			return one()
		}
	case askSentry:
		if a.Op == opSentry && len(a.Args) == 2 && a.Args[1] == sentryTrash {
			return one()
		}
	}
	return dst
}

// ApplyRevealed is Apply with the cards of Reveals(a), in order. On an
// open table, or on the acting seat's own peer, cards may be nil (the
// state or its knowledge holds them) and the move must be one of Legal's;
// any other peer of a secret table checks the move from the public state
// and the revealed cards. Nothing changes unless the move is accepted.
func (s *State) ApplyRevealed(seat int, a engine.Action, vals []int) error {
	if err := engine.CheckTurn(s.ToAct(), seat); err != nil {
		return err
	}
	var hbuf [16]engine.Handle
	hs := s.reveals(a, hbuf[:0])
	for i, h := range hs {
		if index(hs[:i], h) >= 0 {
			return engine.Illegal("the move shows one card twice")
		}
	}
	// An open table checks the move against Legal (one copy of each card:
	// one encoding per move). A secret table's peers all check it the same
	// way, from the public state and the cards shown, whether they know the
	// hand or not, so that they all accept the same moves: any held copy.
	open := s.cards.Mode() == engine.CardsOpen
	own := open || s.cards.Knowledge() != nil && s.cards.Knowledge().Seat == seat
	if open && !s.isLegalNow(a) {
		return s.whyIllegal(a)
	}
	var vbuf [16]int
	if vals == nil && own {
		vals = vbuf[:0]
		for range hs {
			vals = append(vals, 0)
		}
		for i, h := range hs {
			if vals[i] = s.card(h, seat); vals[i] < 0 {
				return engine.Illegal("that card is not yours to show")
			}
		}
	}
	if len(vals) != len(hs) {
		return fmt.Errorf("%w: the move shows %d cards and %d values came with it", engine.ErrBadCard, len(hs), len(vals))
	}
	for i, h := range hs {
		if err := s.cards.Check(engine.Opening{Deck: h.Deck, Pos: h.Pos, To: engine.Public}, vals[i]); err != nil {
			return err
		}
	}
	if !open {
		if err := s.checkUnseen(a, hs, vals); err != nil {
			return err
		}
	}
	for i, h := range hs {
		// Check passed above: this cannot fail.
		if err := s.cards.Open(engine.Opening{Deck: h.Deck, Pos: h.Pos, To: engine.Public}, vals[i]); err != nil {
			return err
		}
	}
	s.answer(a)
	s.run()
	return nil
}

// checkUnseen checks, on a secret table's peer that does not know the
// acting seat's cards, that move a fits the question and the public state:
// the cards it names are where the move takes them from, and the cards it
// shows (hs, with values vals) are of the kind the move needs. A copy of a
// hidden card named may be any the seat holds.
func (s *State) checkUnseen(a engine.Action, hs []engine.Handle, vals []int) error {
	seat := s.askSeat
	p := &s.p[seat]
	bad := func(format string, args ...any) error { return engine.Illegal(format, args...) }
	shown := func(i int, keep func(int) bool, what string) error {
		if i >= len(vals) || !keep(vals[i]) {
			return bad("the card shown is not %s", what)
		}
		return nil
	}
	inZone := func(z []engine.Handle) error {
		if len(a.Args) < 1 {
			return bad("the move names no card")
		}
		h, ok := engine.HandleArg(a.Args[0])
		if !ok || index(z, h) < 0 {
			return bad("that card is not where the move takes it from")
		}
		return nil
	}
	args := func(n int) error {
		if len(a.Args) != n {
			return bad("the move has %d arguments, not %d", len(a.Args), n)
		}
		return nil
	}
	isCopper := func(c int) bool { return c == Copper }
	isMoat := func(c int) bool { return c == Moat }
	any := func(int) bool { return true }
	switch s.ask {
	case askMain:
		switch a.Op {
		case opPlay, opTreasure:
			if err := args(1); err != nil {
				return err
			}
			if err := inZone(p.hand); err != nil {
				return err
			}
			if a.Op == opPlay {
				if s.phase != phaseAction || s.actions == 0 {
					return bad("no Action can be played now")
				}
				return shown(0, func(c int) bool { return isAction(c) && s.inKingdom(c) }, "an Action card")
			}
			if s.bought {
				return bad("Treasures cannot be played after buying a card")
			}
			return shown(0, isTreasure, "a Treasure")
		case opAllTreasures:
			if s.bought || len(hs) < 2 || len(hs) != len(a.Args) {
				return bad("play all Treasures needs two Treasures before any buy")
			}
			last := Copper
			for i, h := range hs {
				if index(p.hand, h) < 0 {
					return bad("that card is not in the hand")
				}
				if err := shown(i, isTreasure, "a Treasure"); err != nil {
					return err
				}
				if vals[i] < last {
					return bad("play all Treasures plays Coppers, then Silvers, then Golds")
				}
				last = vals[i]
			}
			return nil
		case opBuy, opEndTurn:
			if !s.isLegal(a) {
				return s.whyIllegal(a)
			}
			return nil
		}
	case askVassal, askBandit, askWorkshop, askRemodelGain, askMineGain, askArtisanGain:
		// Public choices: every peer lists them.
		if !s.isLegal(a) {
			return s.whyIllegal(a)
		}
		return nil
	case askMoat, askMoneylender:
		if a.Op == opDone {
			return args(0)
		}
		if a.Op != opYes || args(1) != nil || inZone(p.hand) != nil {
			break
		}
		if s.ask == askMoat {
			return shown(0, isMoat, "a Moat")
		}
		return shown(0, isCopper, "a Copper")
	case askLibrary:
		if a.Op == opDone {
			return args(0)
		}
		if a.Op == opYes && args(0) == nil {
			return shown(0, isAction, "an Action card")
		}
	case askCellar, askChapel, askThrone, askMineTrash:
		if a.Op == opDone {
			return args(0)
		}
		if a.Op != opPick || args(1) != nil || inZone(p.hand) != nil {
			break
		}
		switch s.ask {
		case askThrone:
			return shown(0, isAction, "an Action card")
		case askMineTrash:
			return shown(0, isTreasure, "a Treasure")
		}
		return nil
	case askHarbinger:
		if a.Op == opDone {
			return args(0)
		}
		if a.Op == opPick && args(1) == nil {
			return inZone(p.disc)
		}
	case askBureaucrat:
		if a.Op == opDone && args(0) == nil {
			for i := range hs {
				if err := shown(i, func(c int) bool { return !isVictory(c) }, "a card other than a Victory card"); err != nil {
					return err
				}
			}
			return nil
		}
		if a.Op == opPick && args(1) == nil && inZone(p.hand) == nil {
			return shown(0, isVictory, "a Victory card")
		}
	case askMilitia, askPoacher, askRemodelTrash, askArtisanTop:
		if a.Op == opPick && args(1) == nil {
			return inZone(p.hand)
		}
	case askSentry:
		if a.Op == opSentry && args(2) == nil && a.Args[1] >= sentryTrash && a.Args[1] <= sentryBack {
			return inZone(s.aside)
		}
	}
	_ = any
	return bad("that does not answer the question asked: %s", s.prompt())
}
