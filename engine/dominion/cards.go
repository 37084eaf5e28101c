package dominion

import "strings"

// Card ids index every count array. The base cards come first, then the 26
// Kingdom cards in cost order; the order is part of the canonical encoding.
const (
	Copper = iota
	Silver
	Gold
	Estate
	Duchy
	Province
	Curse
	Cellar
	Chapel
	Moat
	Harbinger
	Merchant
	Vassal
	Village
	Workshop
	Bureaucrat
	Gardens
	Militia
	Moneylender
	Poacher
	Remodel
	Smithy
	ThroneRoom
	Bandit
	CouncilRoom
	Festival
	Laboratory
	Library
	Market
	Mine
	Sentry
	Witch
	Artisan
	// NumCards is the number of card ids.
	NumCards
)

// firstKingdom is the id of the first Kingdom card.
const firstKingdom = Cellar

// Card types, as bits.
const (
	tAction = 1 << iota
	tTreasure
	tVictory
	tCurse
	tAttack
	tReaction
)

type cardInfo struct {
	name  string
	cost  int
	types uint8
	coins int // a Treasure's value
	vp    int // a Victory or Curse card's fixed value
	text  string
}

var cards = [NumCards]cardInfo{
	Copper:   {"Copper", 0, tTreasure, 1, 0, "$1"},
	Silver:   {"Silver", 3, tTreasure, 2, 0, "$2"},
	Gold:     {"Gold", 6, tTreasure, 3, 0, "$3"},
	Estate:   {"Estate", 2, tVictory, 0, 1, "1 VP"},
	Duchy:    {"Duchy", 5, tVictory, 0, 3, "3 VP"},
	Province: {"Province", 8, tVictory, 0, 6, "6 VP"},
	Curse:    {"Curse", 0, tCurse, 0, -1, "-1 VP"},

	Cellar:      {"Cellar", 2, tAction, 0, 0, "+1 Action. Discard any number of cards, then draw that many."},
	Chapel:      {"Chapel", 2, tAction, 0, 0, "Trash up to 4 cards from your hand."},
	Moat:        {"Moat", 2, tAction | tReaction, 0, 0, "+2 Cards. When another player plays an Attack card, you may first reveal this from your hand, to be unaffected by it."},
	Harbinger:   {"Harbinger", 3, tAction, 0, 0, "+1 Card, +1 Action. Look through your discard pile. You may put a card from it onto your deck."},
	Merchant:    {"Merchant", 3, tAction, 0, 0, "+1 Card, +1 Action. The first time you play a Silver this turn, +$1."},
	Vassal:      {"Vassal", 3, tAction, 0, 0, "+$2. Discard the top card of your deck. If it's an Action card, you may play it."},
	Village:     {"Village", 3, tAction, 0, 0, "+1 Card, +2 Actions."},
	Workshop:    {"Workshop", 3, tAction, 0, 0, "Gain a card costing up to $4."},
	Bureaucrat:  {"Bureaucrat", 4, tAction | tAttack, 0, 0, "Gain a Silver onto your deck. Each other player reveals a Victory card from their hand and puts it onto their deck (or reveals a hand with no Victory cards)."},
	Gardens:     {"Gardens", 4, tVictory, 0, 0, "Worth 1 VP per 10 cards you have (round down)."},
	Militia:     {"Militia", 4, tAction | tAttack, 0, 0, "+$2. Each other player discards down to 3 cards in hand."},
	Moneylender: {"Moneylender", 4, tAction, 0, 0, "You may trash a Copper from your hand for +$3."},
	Poacher:     {"Poacher", 4, tAction, 0, 0, "+1 Card, +1 Action, +$1. Discard a card per empty Supply pile."},
	Remodel:     {"Remodel", 4, tAction, 0, 0, "Trash a card from your hand. Gain a card costing up to $2 more than it."},
	Smithy:      {"Smithy", 4, tAction, 0, 0, "+3 Cards."},
	ThroneRoom:  {"Throne Room", 4, tAction, 0, 0, "You may play an Action card from your hand twice."},
	Bandit:      {"Bandit", 5, tAction | tAttack, 0, 0, "Gain a Gold. Each other player reveals the top 2 cards of their deck, trashes a revealed Treasure other than Copper, and discards the rest."},
	CouncilRoom: {"Council Room", 5, tAction, 0, 0, "+4 Cards, +1 Buy. Each other player draws a card."},
	Festival:    {"Festival", 5, tAction, 0, 0, "+2 Actions, +1 Buy, +$2."},
	Laboratory:  {"Laboratory", 5, tAction, 0, 0, "+2 Cards, +1 Action."},
	Library:     {"Library", 5, tAction, 0, 0, "Draw until you have 7 cards in hand, skipping any Action cards you choose to; set those aside, discarding them afterwards."},
	Market:      {"Market", 5, tAction, 0, 0, "+1 Card, +1 Action, +1 Buy, +$1."},
	Mine:        {"Mine", 5, tAction, 0, 0, "You may trash a Treasure from your hand. Gain a Treasure to your hand costing up to $3 more than it."},
	Sentry:      {"Sentry", 5, tAction, 0, 0, "+1 Card, +1 Action. Look at the top 2 cards of your deck. Trash and/or discard any number of them. Put the rest back on top in any order."},
	Witch:       {"Witch", 5, tAction | tAttack, 0, 0, "+2 Cards. Each other player gains a Curse."},
	Artisan:     {"Artisan", 6, tAction, 0, 0, "Gain a card to your hand costing up to $5. Put a card from your hand onto your deck."},
}

// firstGame is the recommended first Kingdom of the second edition.
var firstGame = [10]int{Cellar, Market, Merchant, Militia, Mine, Moat, Remodel, Smithy, Village, Workshop}

func isAction(c int) bool   { return cards[c].types&tAction != 0 }
func isTreasure(c int) bool { return cards[c].types&tTreasure != 0 }
func isVictory(c int) bool  { return cards[c].types&tVictory != 0 }
func isAttack(c int) bool   { return cards[c].types&tAttack != 0 }

// CardName returns the printed name of card id c.
func CardName(c int) string {
	if c < 0 || c >= NumCards {
		return "?"
	}
	return cards[c].name
}

// CardCost returns the cost in coins of card id c.
func CardCost(c int) int { return cards[c].cost }

func normName(s string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(s) {
		if r >= 'a' && r <= 'z' {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// CardByName finds a card id by name, ignoring case, spaces and
// punctuation ("Throne Room", "throneroom", "throne-room"); -1 if none.
func CardByName(name string) int {
	n := normName(name)
	for c := range cards {
		if normName(cards[c].name) == n {
			return c
		}
	}
	return -1
}

// argCard and argSentry are the shared argument slices of legal actions,
// so Legal allocates nothing per action. Callers must not modify an
// action's Args in place (the harness copies before perturbing).
var (
	argCard   [NumCards][1]int32
	argSentry [NumCards][3][2]int32
)

func init() {
	for c := 0; c < NumCards; c++ {
		argCard[c][0] = int32(c)
		for v := 0; v < 3; v++ {
			argSentry[c][v] = [2]int32{int32(c), int32(v)}
		}
	}
}
