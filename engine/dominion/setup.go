package dominion

import (
	"fmt"
	"sort"
	"strings"

	"github.com/boardmesh/boardmesh/engine"
)

// Option names.
const (
	optKingdom = "kingdom"
	optRandom  = "random-kingdom"
)

// parseKingdom reads ten Kingdom card names separated by '+', ':', ',',
// ';' or '/'. Option lists are split on commas before a game sees them,
// so on the command line '+' is the separator that works.
func parseKingdom(v string) ([10]int8, error) {
	var k [10]int8
	v = strings.TrimSpace(v)
	if v == "" || normName(v) == "firstgame" {
		for i, c := range firstGame {
			k[i] = int8(c)
		}
		sortKingdom(&k)
		return k, nil
	}
	parts := strings.FieldsFunc(v, func(r rune) bool { return strings.ContainsRune("+:,;/", r) })
	if len(parts) != 10 {
		return k, fmt.Errorf("kingdom: name exactly 10 Kingdom cards separated by '+', got %d", len(parts))
	}
	for i, name := range parts {
		c := CardByName(name)
		if c < firstKingdom {
			return k, fmt.Errorf("kingdom: %q is not a Kingdom card of the base game; they are: %s", strings.TrimSpace(name), kingdomNames())
		}
		for _, prev := range k[:i] {
			if int(prev) == c {
				return k, fmt.Errorf("kingdom: %s named twice", cards[c].name)
			}
		}
		k[i] = int8(c)
	}
	sortKingdom(&k)
	return k, nil
}

func sortKingdom(k *[10]int8) {
	sort.Slice(k[:], func(a, b int) bool { return k[a] < k[b] })
}

func kingdomNames() string {
	var names []string
	for c := firstKingdom; c < NumCards; c++ {
		names = append(names, cards[c].name)
	}
	return strings.Join(names, ", ")
}

// newState sets up a game: the starting decks, the Supply for the player
// count, and a first chance step (the random Kingdom, or the first hands).
func newState(players int, opts engine.Options) (*State, error) {
	if players < 2 || players > 6 {
		return nil, fmt.Errorf("Dominion is for 2 to 6 players, not %d", players)
	}
	s := &State{n: players, p: make([]player, players), asideOwner: 0, phase: phaseSetup}
	s.cards = newCards[players].Clone()
	for i := range s.p {
		p := &s.p[i]
		p.own[Copper], p.own[Estate] = 7, 3
		d := startDeck(i)
		for k := 9; k >= 0; k-- {
			p.deck = append(p.deck, engine.Handle{Deck: d, Pos: uint16(k)})
		}
	}
	s.supply = baseSupply(players)
	kv, _ := opts.Get(optKingdom)
	if opts.Bool(optRandom) {
		if strings.TrimSpace(kv) != "" && normName(kv) != "firstgame" {
			return nil, fmt.Errorf("options kingdom and random-kingdom exclude each other")
		}
		for i := range s.kingdom {
			s.kingdom[i] = -1
		}
		s.req = reqKingdom
		s.setPiles()
		return s, nil
	}
	k, err := parseKingdom(kv)
	if err != nil {
		return nil, err
	}
	s.kingdom = k
	s.fillKingdom()
	s.req = reqDeal
	return s, nil
}

// baseSupply is the Supply of base cards for a player count.
func baseSupply(players int) counts {
	var z counts
	victory := int16(12)
	if players == 2 {
		victory = 8
	}
	z[Estate], z[Duchy], z[Province] = victory, victory, victory
	z[Curse] = int16(10 * (players - 1))
	z[Copper] = int16(60 - 7*players)
	z[Silver], z[Gold] = 40, 30
	if players >= 5 {
		// The rules add a second set of base cards: every extra Copper,
		// Silver and Gold joins the Supply.
		z[Copper] = int16(120 - 7*players)
		z[Silver], z[Gold] = 80, 60
		z[Province] = int16(15 + 3*(players-5))
	}
	return z
}

// fillKingdom puts 10 of each Kingdom card in the Supply (Victory
// Kingdom cards: as many as the other Victory piles).
func (s *State) fillKingdom() {
	s.setPiles()
	for _, k := range s.kingdom {
		s.supply[k] = 10
		if isVictory(int(k)) {
			s.supply[k] = s.supply[Estate]
		}
	}
}

// drawKingdom picks ten of the 26 Kingdom cards, each set equally likely.
func (s *State) drawKingdom(r *engine.Rand) {
	var left [NumCards - firstKingdom]int8
	for i := range left {
		left[i] = int8(firstKingdom + i)
	}
	n := len(left)
	for i := range s.kingdom {
		j := r.Intn(n)
		s.kingdom[i] = left[j]
		left[j] = left[n-1]
		n--
	}
	sortKingdom(&s.kingdom)
	s.fillKingdom()
}

// initialTotals is how many copies of each card a game of this set-up
// has in all, wherever they are: the card-conservation invariant.
func (s *State) initialTotals() counts {
	t := baseSupply(s.n)
	victory := t[Estate]
	t[Copper] += int16(7 * s.n)
	t[Estate] += int16(3 * s.n)
	for c := firstKingdom; c < NumCards; c++ {
		t[c] = 0
		if s.inKingdom(c) {
			t[c] = 10
			if isVictory(c) {
				t[c] = victory
			}
		}
	}
	return t
}
