package dragonslair

// card is a kind of card. The three noises are separate kinds only so the
// table can show which one came; they act the same.
type card uint8

const (
	cardCoin card = iota
	cardNecklace
	cardCup
	cardScepter
	cardCrown
	cardClink
	cardCrunch
	cardSneeze
	cardCap
	cardRaven
	cardHideout
	cardEgg
	cardSphere
	cardPassage
	numCards
)

// cardInfo is what the rules say about one kind of card.
type cardInfo struct {
	name  string
	short string // a short label for the board
	value int    // gold in the bag (treasures and eggs)
	count int    // copies in the full version
	full  bool   // only in the full version
}

var cards = [numCards]cardInfo{
	cardCoin:     {"Old Gold Coin", "Coin", 1, 10, false},
	cardNecklace: {"Necklace", "Necklace", 2, 10, false},
	cardCup:      {"Golden Cup", "Cup", 3, 8, false},
	cardScepter:  {"Scepter", "Scepter", 4, 5, false},
	cardCrown:    {"Crown", "Crown", 5, 3, false},
	cardClink:    {"Clinking Coins (noise)", "Clink!", 0, 6, false},
	cardCrunch:   {"Crunching Bones (noise)", "Crunch!", 0, 6, false},
	cardSneeze:   {"Dusty Sneeze (noise)", "Sneeze!", 0, 6, false},
	cardCap:      {"Invisibility Cap", "Cap", 0, 3, false},
	cardRaven:    {"Thieving Raven", "Raven", 0, 3, false},
	cardHideout:  {"Hideout", "Hideout", 0, 3, false},
	cardEgg:      {"Dragon Egg", "Egg", 2, 3, true},
	cardSphere:   {"Crystal Sphere", "Sphere", 0, 3, true},
	cardPassage:  {"Secret Passage", "Passage", 0, 3, true},
}

func (c card) String() string {
	if c >= numCards {
		return "unknown card"
	}
	return cards[c].name
}

func (c card) isNoise() bool    { return c >= cardClink && c <= cardSneeze }
func (c card) isTreasure() bool { return c <= cardCrown }

// inBag reports whether the card goes into the bag (treasures and eggs).
func (c card) inBag() bool { return c.isTreasure() || c == cardEgg }

// deckCounts is the deck of a game with the given edition and variants.
func deckCounts(full, ravens bool) [numCards]uint8 {
	var d [numCards]uint8
	for c := card(0); c < numCards; c++ {
		if cards[c].full && !full {
			continue
		}
		if c == cardRaven && !ravens {
			continue
		}
		d[c] = uint8(cards[c].count)
	}
	return d
}

// hallBonus is the escape bonus of each hall; 0 is the Exit, 8 the Nest.
var hallBonus = [9]int{0, 0, 0, 1, 2, 3, 4, 6, 8}

// nest is the deepest hall, where escaping is forced.
const nest = 8

// redFieldByPlayers is the red field of the Sleep Ladder per player count.
func redFieldByPlayers(n int) int {
	switch {
	case n <= 2:
		return 16
	case n <= 5:
		return 18
	case n == 6:
		return 19
	case n == 7:
		return 20
	default:
		return 21
	}
}
