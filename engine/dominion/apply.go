package dominion

import (
	"fmt"

	"github.com/boardmesh/boardmesh/engine"
)

// Apply performs seat's action after checking it is one of Legal's; an
// illegal action changes nothing.
func (s *State) Apply(seat int, a engine.Action) error { return s.ApplyRevealed(seat, a, nil) }

// isLegal reports whether a is one of Legal's actions.
func (s *State) isLegal(a engine.Action) bool {
	return s.ToAct().Kind == engine.ActorSeat && s.isLegalNow(a)
}

// isLegalNow is isLegal in a state where a seat is to act (the caller
// checked ToAct).
func (s *State) isLegalNow(a engine.Action) bool {
	if s.ask == askMain {
		// The moves of the turn itself are checked directly, exactly as
		// legalMain lists them, which keeps simulations fast (no list, no
		// allocation).
		return s.isLegalMain(a)
	}
	var buf [48]engine.Action
	for _, l := range s.Legal(buf[:0]) {
		if l.Equal(a) {
			return true
		}
	}
	return false
}

// isLegalMain reports whether a is one of legalMain's actions.
func (s *State) isLegalMain(a engine.Action) bool {
	switch a.Op {
	case opBuy:
		if len(a.Args) != 1 {
			return false
		}
		c := int(a.Args[0])
		return c >= 0 && c < NumCards && s.buys > 0 && s.supply[c] > 0 && cards[c].cost <= s.coins && s.inSupply(c)
	case opEndTurn:
		return len(a.Args) == 0
	case opPlay:
		return len(a.Args) == 1 && s.phase == phaseAction && s.actions > 0 && s.listedPick(s.cur, s.p[s.cur].hand, a.Args[0], isAction)
	case opTreasure:
		return len(a.Args) == 1 && !s.bought && s.listedPick(s.cur, s.p[s.cur].hand, a.Args[0], isTreasure)
	case opAllTreasures:
		if s.bought {
			return false
		}
		var buf [64]int32
		all := s.allTreasures(buf[:0])
		if len(all) < 2 || len(all) != len(a.Args) {
			return false
		}
		for i := range all {
			if all[i] != a.Args[i] {
				return false
			}
		}
		return true
	}
	return false
}

// listedPick reports whether pickFrom(seat, z, keep) lists the handle of
// argument x: it is in z, seat knows its card, keep takes it, and no
// earlier handle of z holds the same card as seat knows them.
func (s *State) listedPick(seat int, z []engine.Handle, x int32, keep func(int) bool) bool {
	h, ok := engine.HandleArg(x)
	if !ok {
		return false
	}
	c := s.card(h, seat)
	if c < 0 || !keep(c) {
		return false
	}
	for _, g := range z {
		if g == h {
			return true
		}
		if s.card(g, seat) == c {
			return false
		}
	}
	return false
}

// whyIllegal explains, in a player's words, why a is not legal now.
func (s *State) whyIllegal(a engine.Action) error {
	if s.ask == askMain {
		switch {
		case a.Op == opPlay && len(a.Args) == 1:
			c := s.argCard(a, s.cur)
			switch {
			case c < 0 || index(s.p[s.cur].hand, argHandle(a)) < 0:
				return engine.Illegal("that card is not in your hand")
			case !isAction(c):
				return engine.Illegal("%s is not an Action card", CardName(c))
			case s.phase != phaseAction:
				return engine.Illegal("the Action phase is over: you played a Treasure or bought a card")
			case s.actions == 0:
				return engine.Illegal("you have no Actions left to play %s", CardName(c))
			case false:
				return engine.Illegal("%s is not an Action card", CardName(c))
			case s.phase != phaseAction:
				return engine.Illegal("the Action phase is over: you played a Treasure or bought a card")
			case s.actions == 0:
				return engine.Illegal("you have no Actions left to play %s", CardName(c))
			}
			return engine.Illegal("play the copy of %s the game lists", CardName(c))
		case a.Op == opTreasure && len(a.Args) == 1:
			c := s.argCard(a, s.cur)
			switch {
			case c < 0 || index(s.p[s.cur].hand, argHandle(a)) < 0:
				return engine.Illegal("that card is not in your hand")
			case !isTreasure(c):
				return engine.Illegal("%s is not a Treasure", CardName(c))
			case s.bought:
				return engine.Illegal("Treasures cannot be played after buying a card")
			}
			return engine.Illegal("play the copy of %s the game lists", CardName(c))
		case a.Op == opAllTreasures:
			return engine.Illegal("play all Treasures names every Treasure in your hand, and there must be two, before any buy")
		case a.Op == opBuy && len(a.Args) == 1 && a.Args[0] >= 0 && a.Args[0] < NumCards:
			c := int(a.Args[0])
			name := CardName(c)
			switch {
			case !s.inSupply(c):
				return engine.Illegal("%s is not in this game's Supply", name)
			case s.supply[c] == 0:
				return engine.Illegal("the %s pile is empty", name)
			case cards[c].cost > s.coins:
				return engine.Illegal("%s costs $%d and you have $%d", name, cards[c].cost, s.coins)
			default:
				return engine.Illegal("you have no Buys left")
			}
		}
		return engine.Illegal("that is not a move of this turn (action %s)", a)
	}
	return engine.Illegal("that does not answer the question asked: %s", s.prompt())
}

// Describe says what action a does in this state.
func (s *State) Describe(a engine.Action) string { return s.describeCard(a, s.argCard(a, s.askSeat)) }

// describeCard is Describe with c the card a names (-1 if not known).
func (s *State) describeCard(a engine.Action, c int) string {
	name := CardName(c)
	switch a.Op {
	case opPlay:
		return "Play " + name
	case opTreasure:
		return "Play " + name
	case opAllTreasures:
		return "Play all Treasures"
	case opBuy:
		if c >= 0 && c < NumCards {
			return fmt.Sprintf("Buy %s ($%d)", name, cards[c].cost)
		}
		return "Buy " + name
	case opEndTurn:
		if s.buys > 0 && !s.bought {
			return "End turn without buying"
		}
		return "End turn"
	case opSentry:
		if len(a.Args) < 2 {
			return "Sentry: ?"
		}
		switch a.Args[1] {
		case sentryTrash:
			return "Trash " + name
		case sentryDiscard:
			return "Discard " + name
		default:
			return "Put " + name + " back on your deck"
		}
	case opYes:
		switch s.ask {
		case askMoat:
			return "Reveal Moat (unaffected by the attack)"
		case askVassal:
			return "Play " + CardName(s.topArg())
		case askMoneylender:
			return "Trash a Copper for +$3"
		case askLibrary:
			return "Set aside " + CardName(s.lastAside())
		}
		return "Yes"
	case opDone:
		switch s.ask {
		case askMoat:
			return "Do not react to the attack"
		case askVassal:
			return "Leave " + CardName(s.topArg()) + " in the discard pile"
		case askMoneylender:
			return "Do not trash a Copper"
		case askLibrary:
			return "Keep " + CardName(s.lastAside()) + " in hand"
		case askCellar:
			return "Done discarding"
		case askChapel:
			return "Done trashing"
		case askThrone:
			return "Play no card twice"
		case askMineTrash:
			return "Trash no Treasure"
		case askBureaucrat:
			return "Reveal your hand: it has no Victory card"
		}
		return "Choose nothing"
	case opPick:
		switch s.ask {
		case askCellar, askMilitia, askPoacher:
			return "Discard " + name
		case askChapel, askRemodelTrash, askMineTrash, askBandit:
			return "Trash " + name
		case askHarbinger:
			return "Put " + name + " from your discard pile onto your deck"
		case askWorkshop, askRemodelGain:
			return "Gain " + name
		case askMineGain, askArtisanGain:
			return "Gain " + name + " to your hand"
		case askBureaucrat:
			return "Put " + name + " onto your deck"
		case askThrone:
			return "Play " + name + " twice"
		case askArtisanTop:
			return "Put " + name + " from your hand onto your deck"
		}
		return "Choose " + name
	}
	return a.String()
}

func (s *State) topArg() int {
	if len(s.stack) == 0 {
		return -1
	}
	return int(s.top().arg)
}

// lastAside is the card aside last, as the seat asked knows it.
func (s *State) lastAside() int {
	if len(s.aside) == 0 {
		return -1
	}
	return s.card(s.aside[len(s.aside)-1], s.asideOwner)
}

// prompt says what the state is waiting for, in a player's words, as the
// seat being asked may know it.
func (s *State) prompt() string { return s.promptFor(s.askSeat) }

// promptFor is the prompt as seat may read it: the card Library drew is
// named to its owner alone.
func (s *State) promptFor(seat int) string {
	switch {
	case s.phase == phaseOver:
		return "The game is over: " + s.reason + "."
	case s.req != reqNone:
		return "Waiting for the cards to be drawn (a random draw)."
	}
	who := fmt.Sprintf("Seat %d", s.askSeat+1)
	var f *frame
	if len(s.stack) > 0 {
		f = s.top()
	}
	switch s.ask {
	case askMain:
		if s.phase == phaseAction {
			return fmt.Sprintf("%s: Action phase — play an Action, play Treasures, buy, or end the turn.", who)
		}
		return fmt.Sprintf("%s: Buy phase — play Treasures, buy a card, or end the turn.", who)
	case askMoat:
		return fmt.Sprintf("%s: %s is played; reveal Moat to be unaffected?", who, CardName(int(f.card)))
	case askCellar:
		return fmt.Sprintf("%s: Cellar — discard any number of cards, then draw that many (%d discarded so far).", who, f.n)
	case askChapel:
		return fmt.Sprintf("%s: Chapel — trash up to %d more cards from your hand.", who, 4-f.n)
	case askHarbinger:
		return who + ": Harbinger — you may put a card from your discard pile onto your deck."
	case askVassal:
		return fmt.Sprintf("%s: Vassal discarded %s — play it?", who, CardName(int(f.arg)))
	case askWorkshop:
		return who + ": Workshop — gain a card costing up to $4."
	case askBureaucrat:
		return who + ": Bureaucrat — put a Victory card from your hand onto your deck."
	case askMilitia:
		return fmt.Sprintf("%s: Militia — discard down to 3 cards (%d to go).", who, len(s.p[s.askSeat].hand)-3)
	case askMoneylender:
		return who + ": Moneylender — trash a Copper from your hand for +$3?"
	case askPoacher:
		return fmt.Sprintf("%s: Poacher — discard %d more card(s), one per empty Supply pile.", who, f.n)
	case askRemodelTrash:
		return who + ": Remodel — trash a card from your hand."
	case askRemodelGain:
		return fmt.Sprintf("%s: Remodel — gain a card costing up to $%d.", who, f.arg)
	case askThrone:
		return who + ": Throne Room — choose an Action card to play twice."
	case askBandit:
		return who + ": Bandit revealed Silver and Gold from your deck — which do you trash?"
	case askLibrary:
		if seat != s.askSeat {
			return who + ": Library drew an Action card — set it aside or keep it?"
		}
		return fmt.Sprintf("%s: Library drew %s — set it aside or keep it?", who, CardName(s.lastAside()))
	case askMineTrash:
		return who + ": Mine — you may trash a Treasure from your hand."
	case askMineGain:
		return fmt.Sprintf("%s: Mine — gain a Treasure to your hand costing up to $%d.", who, f.arg)
	case askSentry:
		return who + ": Sentry — trash, discard or put back each card you look at (the last put back ends on top)."
	case askArtisanGain:
		return who + ": Artisan — gain a card to your hand costing up to $5."
	case askArtisanTop:
		return who + ": Artisan — put a card from your hand onto your deck."
	}
	return ""
}
