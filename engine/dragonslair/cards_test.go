package dragonslair

import (
	"testing"

	"github.com/boardmesh/boardmesh/engine"
)

// One test per card kind, plus the halls.

func TestCardTreasuresAddTheirValueToTheBag(t *testing.T) {
	for c, want := range map[card]int{cardCoin: 1, cardNecklace: 2, cardCup: 3, cardScepter: 4, cardCrown: 5} {
		s := table(t, 3)
		draws(t, s, c)
		if s.bagValue() != want || s.bagCards() != 1 {
			t.Errorf("%s: bag %d with %d cards, want %d with 1", c, s.bagValue(), s.bagCards(), want)
		}
	}
}

func TestCardDeckCompositions(t *testing.T) {
	total := func(d [numCards]uint8) (n int) {
		for _, x := range d {
			n += int(x)
		}
		return n
	}
	full, free := deckCounts(true, true), deckCounts(false, true)
	if total(full) != 72 || total(free) != 63 {
		t.Fatalf("full deck %d cards, free deck %d; want 72 and 63", total(full), total(free))
	}
	noises := int(full[cardClink]) + int(full[cardCrunch]) + int(full[cardSneeze])
	if noises != 18 || full[cardClink] != 6 || full[cardCrunch] != 6 || full[cardSneeze] != 6 {
		t.Fatalf("noises %d, want 18 in three kinds of 6", noises)
	}
	for _, c := range []card{cardEgg, cardSphere, cardPassage} {
		if full[c] != 3 || free[c] != 0 {
			t.Errorf("%s: %d in the full deck and %d in the free one, want 3 and 0", c, full[c], free[c])
		}
	}
	for _, c := range []card{cardCap, cardRaven, cardHideout} {
		if full[c] != 3 || free[c] != 3 {
			t.Errorf("%s: %d and %d, want 3 in both", c, full[c], free[c])
		}
	}
}

func TestCardEveryNoiseKindActsTheSame(t *testing.T) {
	kinds := []card{cardClink, cardCrunch, cardSneeze}
	for _, first := range kinds {
		for _, second := range kinds {
			s := table(t, 3)
			draws(t, s, cardCup, first)
			if s.phase != phaseCard {
				t.Fatalf("a first %s ended the turn", first)
			}
			draws(t, s, second)
			if s.dragon != 1 || gold(s, 0) != 0 || s.cur != 1 {
				t.Errorf("%s then %s: dragon %d, gold %d, next seat %d; want a bust", first, second, s.dragon, gold(s, 0), s.cur)
			}
		}
	}
}

func TestCardInvisibilityCapMufflesTheSecondNoise(t *testing.T) {
	s := table(t, 3)
	draws(t, s, cardClink, cardCup, cardCap, cardSneeze)
	if s.phase != phaseCard || s.dragon != 0 {
		t.Fatalf("the cap did not save the turn: phase %d, dragon %d", s.phase, s.dragon)
	}
	if s.front[cardClink] != 1 || s.front[cardSneeze] != 0 || s.front[cardCap] != 0 {
		t.Fatal("the first noise should stay, the cap and the second noise go")
	}
	if s.discard[cardCap] != 1 || s.discard[cardSneeze] != 1 {
		t.Fatal("the cap and the second noise should be in the discards")
	}
	if s.bagValue() != 3 || s.hall != 4 {
		t.Fatalf("bag %d in hall %d, want 3 in hall 4", s.bagValue(), s.hall)
	}
	do(t, s, opEscape)
	if gold(s, 0) != 3+hallBonus[4] {
		t.Fatalf("escape gave %d", gold(s, 0))
	}
}

func TestCardCapKeptUnusedIsDiscardedAtTheEndOfTheTurn(t *testing.T) {
	s := table(t, 3)
	draws(t, s, cardCap)
	do(t, s, opEscape)
	if s.discard[cardCap] != 1 || s.front[cardCap] != 0 {
		t.Fatal("an unused cap should be discarded when the turn ends")
	}
}

func TestCardRavenTakesFromTheLeftAndTheGoldSurvivesABust(t *testing.T) {
	s := table(t, 4)
	s.seats[1].score, s.seats[3].score = 9, 9
	draws(t, s, cardRaven)
	if gold(s, 0) != 2 || gold(s, 1) != 7 || gold(s, 3) != 9 {
		t.Fatalf("seat 0's raven: gold %d/%d/%d, want 2 taken from seat 1 (the next seat)", gold(s, 0), gold(s, 1), gold(s, 3))
	}
	draws(t, s, cardClink, cardCrunch)
	if gold(s, 0) != 2 {
		t.Fatalf("the raven's gold was lost in the bust: %d", gold(s, 0))
	}
	// The last seat's left neighbour is seat 0.
	s = table(t, 4)
	s.seats[0].score = 5
	s.turnSeat, s.cur = 3, 3
	draws(t, s, cardRaven)
	if gold(s, 3) != 2 || gold(s, 0) != 3 {
		t.Fatalf("seat 3's raven: seat 3 %d, seat 0 %d; want 2 taken from seat 0", gold(s, 3), gold(s, 0))
	}
}

func TestCardHideoutBanksTheTreasuresWithoutBonus(t *testing.T) {
	s := table(t, 3)
	draws(t, s, cardCrown, cardClink, cardEgg, cardCup, cardHideout)
	if gold(s, 0) != 8 {
		t.Fatalf("the hideout banked %d, want Crown + Cup = 8 (no hall bonus, no egg)", gold(s, 0))
	}
	if s.front[cardCrown] != 0 || s.front[cardCup] != 0 || s.discard[cardCrown] != 1 || s.discard[cardCup] != 1 {
		t.Fatal("the banked treasures should be discarded")
	}
	if s.noises() != 1 || s.front[cardEgg] != 1 || s.bagValue() != 2 {
		t.Fatalf("the noise and the egg should stay: noises %d, eggs %d", s.noises(), s.front[cardEgg])
	}
	draws(t, s, cardSneeze)
	if gold(s, 0) != 8 || s.dragon != 1 {
		t.Fatalf("after a bust the hideout's gold should stay: %d, dragon %d", gold(s, 0), s.dragon)
	}
}

func TestCardDragonEggIsWorthTwoAndStaysAfterAnEscape(t *testing.T) {
	s := table(t, 3)
	draws(t, s, cardEgg, cardCoin)
	if s.bagValue() != 3 {
		t.Fatalf("bag %d, want egg 2 + coin 1", s.bagValue())
	}
	do(t, s, opEscape)
	if gold(s, 0) != 3 || s.seats[0].eggs != 1 || s.discard[cardEgg] != 0 {
		t.Fatalf("gold %d, eggs kept %d, eggs discarded %d; want 3, 1, 0", gold(s, 0), s.seats[0].eggs, s.discard[cardEgg])
	}
	draws(t, s, cardEgg, cardClink, cardCrunch)
	if s.seats[1].eggs != 0 || s.discard[cardEgg] != 1 {
		t.Fatal("an egg in the bag should be lost in a bust")
	}
	checkInvariant(t, s)
}

func TestCardCrystalSphereKeepThenDrawTheSeenCard(t *testing.T) {
	s := table(t, 3)
	draws(t, s, cardSphere)
	if err := s.ApplyChance(beacon(3)); err != nil {
		t.Fatal(err)
	}
	if s.phase != phaseSphere || s.hall != 1 {
		t.Fatalf("phase %d, hall %d; want the sphere's choice in hall 1", s.phase, s.hall)
	}
	seen := valueOf(t, s, s.top[0].h)
	do(t, s, opSphereKeep)
	if s.phase != phaseCard {
		t.Fatalf("phase %d after keeping the card", s.phase)
	}
	do(t, s, opDraw)
	if s.phase == phaseDraw {
		t.Fatal("the seen card needed a chance step to be drawn")
	}
	if newestCard(s) != seen {
		t.Fatalf("drew %s, the sphere showed %s", newestCard(s), seen)
	}
}

func TestCardCrystalSpherePutUnderGoesBelowTheUnknownCards(t *testing.T) {
	s := table(t, 3)
	stack(t, s, cardSphere, cardScepter)
	do(t, s, opDraw)
	if s.phase != phaseSphere || valueOf(t, s, s.top[0].h) != cardScepter || knownBy(s, s.top[0].h) != 1 {
		t.Fatalf("phase %d: the sphere should show seat 0 the Scepter already fixed on top", s.phase)
	}
	do(t, s, opSphereUnder)
	if s.topN != 0 || s.botN != 1 || valueOf(t, s, s.bottom[0].h) != cardScepter {
		t.Fatal("the Scepter should lie under the deck")
	}
	if v := s.View(0).(*View); len(v.KnownUnder) != 1 || v.Under != 1 {
		t.Fatalf("seat 0 should know the card it put under: %+v", v.KnownUnder)
	}
	if v := s.View(1).(*View); len(v.KnownUnder) != 0 || v.Under != 1 {
		t.Fatal("seat 1 should only see that a card went under")
	}
	probe := s.Clone().(*State)
	do(t, probe, opDraw)
	if probe.phase != phaseDraw {
		t.Fatal("the next card should come from the unknown middle, fixed by chance")
	}
	// Empty the middle: then the next card is the one under the deck.
	drainMiddle(t, s)
	do(t, s, opDraw)
	if newestCard(s) != cardScepter || s.botN != 0 {
		t.Fatalf("drew %s, want the Scepter from under the deck", newestCard(s))
	}
	checkInvariant(t, s)
}

func TestCardSecretPassageMovesOneHallMore(t *testing.T) {
	s := table(t, 3)
	draws(t, s, cardCoin, cardPassage)
	if s.hall != 3 {
		t.Fatalf("from hall 1 a passage reached hall %d, want 3", s.hall)
	}
	draws(t, s, cardCoin)
	if s.hall != 4 {
		t.Fatalf("the next card reached hall %d, want 4", s.hall)
	}
}

func TestCardEveryHallPaysItsEscapeBonus(t *testing.T) {
	want := []int{1: 0, 2: 0, 3: 1, 4: 2, 5: 3, 6: 4, 7: 6, 8: 8}
	for h := 1; h <= nest; h++ {
		s := table(t, 3)
		// Cards worth no gold with nobody to rob: the bag stays empty.
		blanks := []card{cardCap, cardRaven, cardHideout}
		for i := 0; i < h; i++ {
			draws(t, s, blanks[i%3])
		}
		do(t, s, opEscape)
		if gold(s, 0) != want[h] {
			t.Errorf("escape from hall %d gave %d, want %d", h, gold(s, 0), want[h])
		}
	}
}

func TestCardDrawingUnknownCardsWaitsForChance(t *testing.T) {
	s := table(t, 3)
	do(t, s, opDraw)
	if s.ToAct().Kind != engine.ActorChance || s.draws != 0 {
		t.Fatal("turning over an unknown card should wait for a chance step")
	}
	if err := s.ApplyChance(beacon(5)); err != nil {
		t.Fatal(err)
	}
	if s.draws != 1 || s.hall != 1 {
		t.Fatalf("draws %d, hall %d after the chance step", s.draws, s.hall)
	}
	checkInvariant(t, s)
}
