package dominion

import "github.com/boardmesh/boardmesh/engine"

// This file declares Dominion's decks for the hidden-card contract
// (docs/hidden-cards.md, "Dominion's plan"): what every peer derives from
// the options alone, before any card is dealt. It is the first step of the
// conversion: the state does not use these handles yet (see the plan for
// what is left).
//
// Deck 0 is the Supply, an open deck: every pile's copies, face up, pile by
// pile in card-id order. It holds all 26 Kingdom piles whatever the Kingdom,
// so that a random Kingdom (drawn from the beacon after setup) needs no
// deck declared late; piles not in the game are never gained from. Decks
// 1…n are the players' starting decks (7 Coppers, 3 Estates), hidden.

// supplyDeck is the deck id of the Supply; seat i's starting deck is
// startDeck(i).
const supplyDeck = 0

func startDeck(seat int) uint8 { return uint8(1 + seat) }

// pileSizes is how many copies of each card the Supply deck declares for a
// player count: the base piles of baseSupply, 10 of each Kingdom card
// (Gardens: as many as the other Victory piles).
func pileSizes(players int) counts {
	z := baseSupply(players)
	for c := firstKingdom; c < NumCards; c++ {
		z[c] = 10
		if isVictory(c) {
			z[c] = z[Estate]
		}
	}
	return z
}

// pileStart is where card c's pile begins in the Supply deck.
func pileStart(sizes *counts, c int) int {
	n := 0
	for k := 0; k < c; k++ {
		n += int(sizes[k])
	}
	return n
}

// declaredDecks are the decks of a game of players seats.
func declaredDecks(players int) []engine.Deck {
	sizes := pileSizes(players)
	supply := make([]uint16, 0, sizes.total())
	for c := 0; c < NumCards; c++ {
		for k := 0; k < int(sizes[c]); k++ {
			supply = append(supply, uint16(c))
		}
	}
	ds := []engine.Deck{{Cards: supply, Open: true}}
	for i := 0; i < players; i++ {
		start := make([]uint16, 0, 10)
		for k := 0; k < 7; k++ {
			start = append(start, Copper)
		}
		for k := 0; k < 3; k++ {
			start = append(start, Estate)
		}
		ds = append(ds, engine.Deck{Cards: start})
	}
	return ds
}

// gainHandle is the Supply handle of the copy of c gained when c's pile
// holds left cards (left ≥ 1): the top of the pile, its highest position.
// The pile's count alone therefore says which handles are still in the
// Supply, and the state needs to keep no list of them.
func gainHandle(players, c, left int) engine.Handle {
	return engine.Handle{Deck: supplyDeck, Pos: uint16(pileStarts[players][c] + left - 1)}
}

// pileStarts[n][c] is pileStart(pileSizes(n), c) for every player count,
// computed once (a gain asks for it; a table is cheaper than the sums).
var pileStarts = func() (t [7][NumCards]int) {
	for n := 2; n < len(t); n++ {
		sizes := pileSizes(n)
		for c := range t[n] {
			t[n][c] = pileStart(&sizes, c)
		}
	}
	return t
}()

// newCards[n] is the card bookkeeping of a new game of n players, made
// once: a game starts from a clone of it (declaring 400 to 570 Supply
// positions for each game was a tenth of a bot game). It is never changed.
var newCards = func() (t [7]engine.Cards) {
	for n := 2; n < len(t); n++ {
		c, err := engine.NewDecks(declaredDecks(n))
		if err != nil {
			panic(err) // the declared decks are within the bounds
		}
		t[n] = c
	}
	return t
}()
