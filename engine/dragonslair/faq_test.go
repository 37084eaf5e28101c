package dragonslair

import (
	"strings"
	"testing"

	"github.com/boardmesh/boardmesh/engine"
)

// Each answer of the rules' FAQ, as a test.

func TestFAQNoiseAsFirstCardStillEntersHallOne(t *testing.T) {
	s := table(t, 3)
	draws(t, s, cardCrunch)
	if s.hall != 1 || s.noises() != 1 || s.phase != phaseCard {
		t.Fatalf("hall %d, noises %d, phase %d; want hall 1 with one harmless noise", s.hall, s.noises(), s.phase)
	}
}

func TestFAQEscapeAddsOnlyThisTurnsGold(t *testing.T) {
	s := table(t, 3)
	s.seats[0].score = 40
	draws(t, s, cardCup, cardCoin)
	do(t, s, opEscape)
	if gold(s, 0) != 44 {
		t.Fatalf("40 gold and an escape with 3 + 1 from hall 2 gave %d, want 44", gold(s, 0))
	}
}

func TestFAQEscapeWithAnEmptyBagTakesTheHallBonus(t *testing.T) {
	s := table(t, 3)
	draws(t, s, cardClink, cardCap, cardCap, cardCap)
	if s.bagValue() != 0 || s.hall != 4 {
		t.Fatalf("bag %d in hall %d, want an empty bag in hall 4", s.bagValue(), s.hall)
	}
	do(t, s, opEscape)
	if gold(s, 0) != hallBonus[4] {
		t.Fatalf("escape with an empty bag from hall 4 gave %d, want the bonus %d", gold(s, 0), hallBonus[4])
	}
}

func TestFAQRavenNeverTakesAPlayerBelowZero(t *testing.T) {
	for _, tc := range []struct{ has, want int32 }{{5, 2}, {2, 2}, {1, 1}, {0, 0}} {
		s := table(t, 3)
		s.seats[1].score = tc.has
		draws(t, s, cardRaven)
		if gold(s, 1) != int(tc.has-tc.want) || gold(s, 0) != int(tc.want) {
			t.Errorf("raven on a player with %d: they have %d, the raven's owner %d; want %d and %d",
				tc.has, gold(s, 1), gold(s, 0), tc.has-tc.want, tc.want)
		}
	}
}

func TestFAQOneCapSavesFromOneNoiseAndTwoFromTwo(t *testing.T) {
	s := table(t, 3)
	draws(t, s, cardCap, cardCoin, cardClink, cardCrunch)
	if s.phase != phaseCard || s.front[cardCap] != 0 || s.noises() != 1 {
		t.Fatalf("one cap against a second noise: phase %d, caps %d, noises %d", s.phase, s.front[cardCap], s.noises())
	}
	draws(t, s, cardSneeze)
	if s.dragon != 1 || s.cur != 1 {
		t.Fatalf("a third noise after the only cap should stir the dragon: dragon %d, seat %d", s.dragon, s.cur)
	}

	s = table(t, 3)
	draws(t, s, cardCap, cardCap, cardClink, cardCrunch, cardSneeze)
	if s.phase != phaseCard || s.dragon != 0 || s.noises() != 1 {
		t.Fatalf("two caps against two noises: phase %d, dragon %d, noises %d", s.phase, s.dragon, s.noises())
	}
	if s.discard[cardCap] != 2 || s.discard[cardCrunch] != 1 || s.discard[cardSneeze] != 1 {
		t.Fatal("the caps and the noises they muffled should be discarded")
	}
	draws(t, s, cardClink)
	if s.dragon != 1 {
		t.Fatal("a third noise after both caps should stir the dragon")
	}
}

func TestFAQSecretPassageStopsAtTheNestAndForcesTheEscape(t *testing.T) {
	s := table(t, 3)
	draws(t, s, cardCoin, cardCoin, cardCoin, cardCoin, cardCoin, cardCoin, cardPassage)
	if s.hall != nest {
		t.Fatalf("a passage from hall 6 reached hall %d, want the Nest (%d)", s.hall, nest)
	}
	if hasOp(s, opDraw) {
		t.Fatal("drawing is offered in the Nest")
	}
	stack(t, s, cardCoin)
	err := refused(t, s, 0, engine.Action{Op: opDraw}, engine.ErrIllegal)
	if !strings.Contains(err.Error(), "Nest") || !strings.Contains(err.Error(), "Escape with") {
		t.Fatalf("the refusal should name the Nest and the allowed escape: %v", err)
	}
	do(t, s, opEscape)
	if gold(s, 0) != 6+hallBonus[nest] {
		t.Fatalf("escape from the Nest with 6 gold gave %d, want %d", gold(s, 0), 6+hallBonus[nest])
	}
}

func TestFAQEggCountsForTheTrophyHunter(t *testing.T) {
	s := table(t, 3)
	s.seats[0].hero = heroHunter
	draws(t, s, cardCoin, cardCoin, cardCoin, cardEgg)
	do(t, s, opEscape)
	if want := 3 + 2 + hallBonus[4] + hunterGold; gold(s, 0) != want {
		t.Fatalf("3 treasures and an egg in hall 4 gave %d, want %d with the Trophy Hunter's bonus", gold(s, 0), want)
	}
}

func TestFAQCrystalSphereCardIsSeenOnlyByItsPlayer(t *testing.T) {
	s := table(t, 3)
	draws(t, s, cardSphere)
	if s.phase != phasePeek || s.ToAct().Kind != engine.ActorChance {
		t.Fatalf("the sphere should wait for a chance step to fix the top card, phase %d", s.phase)
	}
	if err := s.ApplyChance(beacon(7)); err != nil {
		t.Fatal(err)
	}
	seen := valueOf(t, s, s.top[0].h)
	mine := s.View(0).(*View)
	if len(mine.KnownTop) != 1 || mine.KnownTop[0] != seen.String() {
		t.Fatalf("seat 0 should see %s on top, sees %v", seen, mine.KnownTop)
	}
	for _, seat := range []int{1, 2, -1} {
		if v := s.View(seat).(*View); len(v.KnownTop) != 0 {
			t.Fatalf("seat %d sees the sphere's card: %v", seat, v.KnownTop)
		}
		if strings.Contains(s.View(seat).Render(100, false), "You saw") {
			t.Fatalf("seat %d's board shows the sphere's card", seat)
		}
	}
}

func TestFAQGoldOver99KeepsCounting(t *testing.T) {
	s := table(t, 3)
	s.seats[0].score = 98
	draws(t, s, cardCrown)
	do(t, s, opEscape)
	if gold(s, 0) != 103 {
		t.Fatalf("98 + 5 = %d", gold(s, 0))
	}
}

func TestFAQEmptyDeckTurnsTheDiscardsIntoANewDeck(t *testing.T) {
	s := table(t, 3)
	// Leave one Crown in the pile, everything else in the discards.
	drainMiddle(t, s, cardCrown)
	before := s.discard
	do(t, s, opDraw)
	if newestCard(s) != cardCrown {
		t.Fatalf("drew %s, want the last card, the Crown", newestCard(s))
	}
	if s.deck != before || s.discard != ([numCards]uint8{}) {
		t.Fatalf("after the last card the discards should be the new pile:\npile %v\nwant %v\ndiscards %v", s.deck, before, s.discard)
	}
	checkInvariant(t, s)
	do(t, s, opDraw)
	if s.phase == phaseDraw {
		if err := s.ApplyChance(beacon(1)); err != nil {
			t.Fatal(err)
		}
	}
	if s.draws != 2 {
		t.Fatal("no card could be drawn from the new pile")
	}
	checkInvariant(t, s)
}
