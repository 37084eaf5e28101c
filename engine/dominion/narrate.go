package dominion

import (
	"fmt"
	"strings"

	"github.com/boardmesh/boardmesh/engine"
)

// Narrate tells a step as seat may know it (engine.Narrator). It reads
// only the two views of that seat and the public part of the action: a
// card that goes from one hidden place to another (Sentry's look,
// Harbinger's and Artisan's card put on the deck, the card Library keeps,
// a discard from the hand) is named to its owner alone.
func (s *State) Narrate(next engine.State, who engine.Actor, a engine.Action, seat int) engine.Narration {
	n, ok := next.(*State)
	if !ok {
		return engine.Narration{What: s.Describe(a)}
	}
	before := s.View(seat).(*View)
	after := n.View(seat).(*View)
	var out engine.Narration
	if who.Kind == engine.ActorSeat {
		// A card the move shows (an Action or Treasure played from a
		// secret hand) is known to the viewer only once the move has
		// shown it: named from the state after it, where it said "Play ?"
		// before. (A buy's or a gain's argument is a Supply pile, known;
		// nor may the state after read a pick as one.)
		c := s.argCard(a, s.askSeat)
		if c < 0 && a.Op != opBuy && !(a.Op == opPick && (s.isGainPick() || n.isGainPick())) {
			c = n.argCard(a, seat)
		}
		if who.Seat == seat {
			out.What = s.describeCard(a, c)
		} else {
			out.What = s.publicDescribe(a, c)
		}
	}
	out.Outcome = strings.Join(viewChanges(before, after, who, a, s, n), "; ")
	if who.Kind == engine.ActorChance && s.phase == phaseSetup {
		out.What = "The Kingdom is drawn and everyone draws 5 cards"
	}
	return out
}

// publicDescribe is Describe as the other players may know it, c the card
// a names as they know it (-1 if not known).
func (s *State) publicDescribe(a engine.Action, c int) string {
	switch a.Op {
	case opSentry:
		if len(a.Args) >= 2 && a.Args[1] == sentryTrash {
			return s.describeCard(a, c) // the trash is public
		}
		if len(a.Args) >= 2 && a.Args[1] == sentryDiscard {
			return "Sentry: discard a card they looked at"
		}
		return "Sentry: put a card they looked at back on their deck"
	case opYes:
		if s.ask == askLibrary {
			return s.describeCard(a, c) // set aside face up
		}
	case opDone:
		switch s.ask {
		case askLibrary:
			return "Library: keep the drawn card in hand"
		case askMoat:
			return "No reaction to the attack"
		case askBureaucrat:
			// The hand is revealed to everyone (the rules' words).
			return "Reveal their hand, with no Victory card: " + s.revealedHand()
		}
	case opPick:
		switch s.ask {
		case askCellar, askMilitia, askPoacher:
			return "Discard a card"
		case askHarbinger:
			return "Put a card from their discard pile onto their deck"
		case askArtisanTop:
			return "Put a card from their hand onto their deck"
		case askBureaucrat:
			return "Reveal " + CardName(s.argCard(a, engine.Public)) + " and put it onto their deck"
		}
	}
	d := s.describeCard(a, c)
	d = strings.ReplaceAll(d, " your ", " their ")
	return d
}

// viewChanges lists what became known between two views of one seat.
func viewChanges(b, a *View, who engine.Actor, act engine.Action, s, next *State) []string {
	var out []string
	// A seat draws a new hand when it had none (the first deal, or the
	// draw after a Clean-up that waited for the beacon) and in the step of
	// its Clean-up, which discards what was left of its hand first:
	// telling that as the difference of two hand sizes ("drew 3 cards")
	// would be wrong. (On a secret table the Clean-up draws in the step
	// that ends the turn, and the turn passes in the step that opens the
	// cards, so the seat's count of turns played tells it, not the turn.)
	newHand := func(i int) bool {
		return i >= 0 && i < len(b.Players) && i < len(s.p) && i < len(next.p) &&
			(b.Players[i].Hand == 0 || next.p[i].turns != s.p[i].turns)
	}
	// An Action card played from the hand left it in the step that drew
	// (Smithy, Laboratory, Village): counted back, so that Smithy's three
	// cards are told as three, not two.
	played := -1
	if who.Kind == engine.ActorSeat && (act.Op == opPlay || act.Op == opPick && s.ask == askThrone) {
		played = who.Seat
	}
	hand := b.Hand
	if played == a.Seat && played >= 0 {
		// The viewer's own play: its card is out of the hand before the
		// draw, so a drawn card of its kind is told too.
		hand = without(b.Hand, CardName(s.argCard(act, a.Seat)))
	}
	// A seat that shuffled its discard pile into a new deck (its deck ran
	// out while it drew): players keep track of it, and the history said
	// nothing of it before.
	for i := range a.Players {
		if n := reshuffled(s, next, i); n > 0 {
			if i == a.Seat {
				out = append(out, fmt.Sprintf("you shuffled your discard pile (%s) into a new deck", plural(n, "card")))
			} else {
				out = append(out, fmt.Sprintf("seat %d shuffled their discard pile (%s) into a new deck", i+1, plural(n, "card")))
			}
		}
	}
	// Cards that came into the viewer's hand: a new hand is told whole,
	// also in the step after the Clean-up or the first deal, where the
	// beacon (or the card layer) tells the values of the cards drawn.
	switch drawn := diffCounts(a.Hand, hand); {
	case len(drawn) == 0:
	case newHand(a.Seat) || s.phase == phaseEnd && s.cur == a.Seat ||
		len(b.Hand) == 0 && a.Seat < len(s.p) && s.p[a.Seat].turns == 0: // the first hand, its values told after the deal
		out = append(out, "your new hand: "+strings.Join(diffCounts(a.Hand, nil), ", "))
	default:
		out = append(out, "you got "+strings.Join(drawn, ", "))
	}
	// Other seats' hands growing: how many, not which.
	for i := range a.Players {
		if i == a.Seat || i >= len(b.Players) {
			continue
		}
		d := a.Players[i].Hand - b.Players[i].Hand
		if i == played {
			d++
		}
		if d > 0 || newHand(i) && a.Players[i].Hand > 0 {
			if newHand(i) {
				out = append(out, fmt.Sprintf("seat %d drew a new hand", i+1))
			} else {
				out = append(out, fmt.Sprintf("seat %d drew %s", i+1, plural(d, "card")))
			}
		}
	}
	// Gains: a Supply pile went down.
	bought := -1
	if who.Kind == engine.ActorSeat && act.Op == opBuy && len(act.Args) == 1 {
		bought = int(act.Args[0])
	}
	for i, p := range a.Supply {
		if i < len(b.Supply) && p.Count < b.Supply[i].Count {
			c := CardByName(p.Card)
			k := b.Supply[i].Count - p.Count
			if c == bought && k == 1 {
				continue
			}
			gainer := ""
			for j := range a.Players {
				if j < len(b.Players) && owned(a.Players[j])-owned(b.Players[j]) > 0 {
					if gainer != "" {
						gainer = ""
						break
					}
					gainer = fmt.Sprintf("seat %d", j+1)
				}
			}
			if k > 1 || gainer == "" {
				out = append(out, fmt.Sprintf("%d×%s gained", k, p.Card))
			} else {
				out = append(out, fmt.Sprintf("%s gained %s", gainer, p.Card))
			}
		}
	}
	if t := diffCounts(a.Trash, b.Trash); len(t) > 0 {
		out = append(out, "trashed "+strings.Join(t, ", "))
	}
	if len(a.Aside) > len(b.Aside) && a.AsideOwner == b.AsideOwner || len(a.Aside) > 0 && len(b.Aside) == 0 {
		from := 0
		if a.AsideOwner == b.AsideOwner && len(b.Aside) <= len(a.Aside) {
			from = len(b.Aside)
		}
		out = append(out, fmt.Sprintf("%s by seat %d: %s", strings.ToLower(a.AsideWhat), a.AsideOwner+1, strings.Join(a.Aside[from:], ", ")))
	}
	if who.Kind == engine.ActorSeat && (act.Op == opTreasure || act.Op == opAllTreasures) && a.Coins != b.Coins {
		out = append(out, fmt.Sprintf("$%d to spend", a.Coins))
	}
	if a.Over && !b.Over {
		var sc []string
		for i, v := range a.Scores {
			sc = append(sc, fmt.Sprintf("seat %d %d VP", i+1, v))
		}
		out = append(out, "game over: "+strings.Join(sc, ", "))
	}
	return out
}

func owned(p PlayerView) int { return p.Hand + p.Deck + p.Discard }

// reshuffled is the size of the discard pile seat i shuffled into a new
// deck in the step from s to next, 0 if it shuffled none: each reshuffle
// makes a deck of the card layer, so a card of seat i from a deck that s
// did not have yet is one of it.
func reshuffled(s, next *State, i int) int {
	if i < 0 || i >= len(next.p) {
		return 0
	}
	first := s.cards.NumDecks()
	p := &next.p[i]
	for _, zone := range [][]engine.Handle{p.deck, p.hand, p.disc} {
		for _, h := range zone {
			if int(h.Deck) >= first {
				return len(next.cards.Sources(int(h.Deck)))
			}
		}
	}
	return 0
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

// without is cs less one card named name.
func without(cs []CardCount, name string) []CardCount {
	out := make([]CardCount, 0, len(cs))
	for _, c := range cs {
		if c.Card == name {
			c.Count--
		}
		if c.Count > 0 {
			out = append(out, c)
		}
	}
	return out
}

// diffCounts lists the cards in a but not in b, with their counts.
func diffCounts(a, b []CardCount) []string {
	var out []string
	for _, x := range a {
		have := 0
		for _, y := range b {
			if y.Card == x.Card {
				have = y.Count
			}
		}
		if d := x.Count - have; d > 0 {
			if d == 1 {
				out = append(out, x.Card)
			} else {
				out = append(out, fmt.Sprintf("%d×%s", d, x.Card))
			}
		}
	}
	return out
}

// ScoreParts is seat's victory points by card (engine.Scorer): known to
// the seat itself during the game, to everyone at the end.
func (s *State) ScoreParts(seat, viewer int) ([]engine.ScorePart, bool) {
	if seat < 0 || seat >= s.n || (seat != viewer && s.phase != phaseOver) {
		return nil, false
	}
	all := s.owned(seat)
	var parts []engine.ScorePart
	for c := 0; c < NumCards; c++ {
		if all[c] > 0 && cards[c].vp != 0 {
			parts = append(parts, engine.ScorePart{Label: fmt.Sprintf("%d×%s", all[c], cards[c].name), Points: int(all[c]) * cards[c].vp})
		}
	}
	if all[Gardens] > 0 {
		parts = append(parts, engine.ScorePart{Label: fmt.Sprintf("%d×Gardens (%d cards)", all[Gardens], all.total()), Points: int(all[Gardens]) * (all.total() / 10)})
	}
	return parts, true
}

// Terms lists the cards of the Supply with their texts (engine.Glossary).
func (s *State) Terms(seat int) []engine.Term {
	var out []engine.Term
	for c := 0; c < NumCards; c++ {
		if s.inSupply(c) && cards[c].text != "" {
			out = append(out, engine.Term{Name: cards[c].name, Kind: "card", Text: fmt.Sprintf("$%d. %s", cards[c].cost, cards[c].text)})
		}
	}
	return out
}

// ActionInfo says what a move points at and whether it is risky
// (engine.ActionInformer): ending the turn with a Buy and $2 or more
// unspent, or with an Action card and an Action left, is risky.
func (s *State) ActionInfo(a engine.Action) engine.ActionInfo {
	c := s.argCard(a, s.askSeat)
	var info engine.ActionInfo
	if c >= 0 && c < NumCards {
		info.Text = cards[c].text
		kind := engine.TargetCard
		if a.Op == opBuy || s.ask == askWorkshop || s.ask == askRemodelGain || s.ask == askMineGain || s.ask == askArtisanGain {
			kind = engine.TargetPile
		}
		info.Target = engine.Target{Kind: kind, ID: cards[c].name}
	}
	switch a.Op {
	case opEndTurn:
		info.Target = engine.Target{Kind: engine.TargetButton, ID: "end-turn"}
		hand := s.handOf(s.cur)
		hasAction := false
		for k := firstKingdom; k < NumCards; k++ {
			hasAction = hasAction || hand[k] > 0 && isAction(k)
		}
		treasure := hand[Copper]+hand[Silver]+hand[Gold] > 0 && !s.bought
		info.Risky = s.buys > 0 && !s.bought && (s.coins >= 2 || treasure) || s.phase == phaseAction && s.actions > 0 && hasAction
	case opAllTreasures:
		info.Target = engine.Target{Kind: engine.TargetButton, ID: "all-treasures"}
	case opDone:
		info.Target = engine.Target{Kind: engine.TargetButton, ID: "done"}
	}
	return info
}

// revealedHand names the hand a Bureaucrat victim reveals, as everyone
// sees it (the move opens it to all; before it is applied, as its owner
// knows it).
func (s *State) revealedHand() string {
	z := s.zc(s.askSeat, s.p[s.askSeat].hand)
	return joinCounts(list(&z), false)
}
