package dragonslair

import (
	"testing"

	"github.com/boardmesh/boardmesh/engine"
)

// One test (or more) per hero.

func TestHeroDwarfDiggerKeepsTheBagGoldOnABust(t *testing.T) {
	s := table(t, 3)
	s.seats[0].hero = heroDwarf
	draws(t, s, cardCrown, cardClink, cardEgg, cardCup, cardCrunch)
	if s.phase != phaseDwarf || s.cur != 0 {
		t.Fatalf("phase %d: the Dwarf's player should be asked", s.phase)
	}
	do(t, s, opDwarfUse)
	if gold(s, 0) != 10 || !s.seats[0].used {
		t.Fatalf("gold %d, used %v; want Crown 5 + egg 2 + Cup 3 = 10 without the hall bonus", gold(s, 0), s.seats[0].used)
	}
	if s.dragon != 1 || s.seats[0].eggs != 0 || s.discard[cardEgg] != 1 {
		t.Fatalf("the bust still happens: dragon %d, eggs kept %d", s.dragon, s.seats[0].eggs)
	}
	checkInvariant(t, s)
}

func TestHeroDwarfDiggerDeclinedIsKeptForLater(t *testing.T) {
	s := table(t, 3)
	s.seats[0].hero = heroDwarf
	draws(t, s, cardCoin, cardClink, cardCrunch)
	do(t, s, opDwarfDecline)
	if gold(s, 0) != 0 || s.seats[0].used || s.dragon != 1 {
		t.Fatalf("gold %d, used %v, dragon %d", gold(s, 0), s.seats[0].used, s.dragon)
	}
}

func TestHeroDwarfDiggerIsNotAskedWithAnEmptyBag(t *testing.T) {
	s := table(t, 3)
	s.seats[0].hero = heroDwarf
	draws(t, s, cardClink, cardCrunch)
	if s.phase == phaseDwarf || s.cur != 1 {
		t.Fatal("an empty bag has nothing for the Dwarf to save")
	}
}

func TestHeroElfTrackerSendsTheNoisesOfTheTopFourUnder(t *testing.T) {
	s := table(t, 3)
	s.seats[0].hero = heroElf
	stack(t, s, cardClink, cardCoin, cardCrunch, cardCrown, cardSneeze)
	if !hasOp(s, opElf) {
		t.Fatal("the Elf is not offered at the start of the turn")
	}
	do(t, s, opElf)
	elfPut(t, s)
	if s.phase != phaseStart || !s.seats[0].used {
		t.Fatalf("phase %d: the turn should go on with its first card", s.phase)
	}
	got := []card{}
	for _, sl := range s.top[:s.topN] {
		got = append(got, valueOf(t, s, sl.h))
	}
	if len(got) != 3 || got[0] != cardCoin || got[1] != cardCrown || got[2] != cardSneeze {
		t.Fatalf("top after the Elf: %v; want Coin, Crown, then the unseen fifth card", got)
	}
	if knownBy(s, s.top[0].h) != 1 || knownBy(s, s.top[1].h) != 1 || knownBy(s, s.top[2].h) != 0 {
		t.Fatal("only the four looked-at cards should be known, and only to seat 0")
	}
	if s.botN != 2 || valueOf(t, s, s.bottom[0].h) != cardClink || valueOf(t, s, s.bottom[1].h) != cardCrunch {
		t.Fatal("the two noises should lie under the deck in their order")
	}
	if hasOp(s, opElf) {
		t.Fatal("the Elf is offered a second time")
	}
	do(t, s, opDraw)
	if newestCard(s) != cardCoin {
		t.Fatalf("drew %s, want the Coin the Elf left on top", newestCard(s))
	}
	if v := s.View(1).(*View); len(v.KnownTop) != 0 || len(v.KnownUnder) != 0 || v.Under != 2 {
		t.Fatalf("seat 1 should see only that 2 cards went under: %+v %+v", v.KnownTop, v.KnownUnder)
	}
	checkInvariant(t, s)
}

func TestHeroElfTrackerFixesUnseenCardsByChance(t *testing.T) {
	s := table(t, 3)
	s.seats[0].hero = heroElf
	do(t, s, opElf)
	if s.ToAct().Kind != engine.ActorChance {
		t.Fatal("looking at unknown cards should wait for a chance step")
	}
	if err := s.ApplyChance(beacon(11)); err != nil {
		t.Fatal(err)
	}
	elfPut(t, s)
	if int(s.topN)+int(s.botN) != elfLook {
		t.Fatalf("%d on top and %d under, want 4 cards seen", s.topN, s.botN)
	}
	for _, sl := range s.top[:s.topN] {
		if c := valueOf(t, s, sl.h); c.isNoise() || knownBy(s, sl.h) != 1 {
			t.Fatalf("a seen card on top: %s known by %b", c, knownBy(s, sl.h))
		}
	}
	for _, sl := range s.bottom[:s.botN] {
		if c := valueOf(t, s, sl.h); !c.isNoise() {
			t.Fatalf("%s went under", c)
		}
	}
	checkInvariant(t, s)
}

func TestHeroElfTrackerOnlyAtTheStartOfTheTurn(t *testing.T) {
	s := table(t, 3)
	s.seats[0].hero = heroElf
	draws(t, s, cardCoin)
	refused(t, s, 0, engine.Action{Op: opElf}, engine.ErrIllegal)
}

func TestHeroSleepyWizardStopsTheDragonAtTheEndOfARound(t *testing.T) {
	s := table(t, 3)
	s.seats[2].hero = heroWizard
	passTurn(t, s)
	passTurn(t, s)
	passTurn(t, s)
	if s.phase != phaseWizard || s.cur != 2 {
		t.Fatalf("phase %d, seat %d: the Wizard should be asked at the end of the round", s.phase, s.cur)
	}
	before := gold(s, 2)
	do(t, s, opWizardUse)
	if s.dragon != 0 || gold(s, 2) != before+wizardGold || s.round != 2 || s.cur != 0 || s.phase != phaseStart {
		t.Fatalf("dragon %d, gold +%d, round %d, seat %d", s.dragon, gold(s, 2)-before, s.round, s.cur)
	}
	passTurn(t, s)
	passTurn(t, s)
	passTurn(t, s)
	if s.phase == phaseWizard || s.dragon != 1 {
		t.Fatal("a used Wizard is asked again or the dragon did not move")
	}
}

func TestHeroSleepyWizardDeclinedLetsTheDragonMove(t *testing.T) {
	s := table(t, 2)
	s.seats[0].hero = heroWizard
	passTurn(t, s)
	passTurn(t, s)
	do(t, s, opWizardDecline)
	if s.dragon != 1 || s.seats[0].used {
		t.Fatal("declining should let the dragon move and keep the power")
	}
	passTurn(t, s)
	passTurn(t, s)
	if s.phase != phaseWizard {
		t.Fatal("the Wizard should be asked again next round")
	}
}

func TestHeroSleepyWizardStillPaysAtTheLastRound(t *testing.T) {
	s := table(t, 2, optRedField, "1")
	s.seats[1].hero = heroWizard
	bustTurn(t, s) // the dragon reaches the red field mid-round
	if !s.ending {
		t.Fatal("the dragon on the red field should make this round the last")
	}
	passTurn(t, s)
	do(t, s, opWizardUse)
	if s.phase != phaseOver {
		t.Fatal("the Wizard cannot undo a red field reached by a bust")
	}
	if gold(s, 1) != 1+wizardGold {
		t.Fatalf("seat 1 has %d gold, want its coin and the Wizard's %d", gold(s, 1), wizardGold)
	}
}

func TestHeroSleepyWizardCanHoldTheDragonOffTheRedField(t *testing.T) {
	s := table(t, 2, optRedField, "1")
	s.seats[0].hero = heroWizard
	passTurn(t, s)
	passTurn(t, s)
	do(t, s, opWizardUse)
	if s.phase != phaseStart || s.round != 2 {
		t.Fatal("with the dragon kept off the red field the game should go on")
	}
}

func TestHeroNightThiefFromTheThirdRound(t *testing.T) {
	s := table(t, 3)
	s.seats[0].hero = heroThief
	s.seats[1].score, s.seats[2].score = 10, 3
	if hasOp(s, opThief) {
		t.Fatal("the Night Thief is offered in round 1")
	}
	s.round = 3
	var targets []int32
	for _, a := range s.Legal(nil) {
		if a.Op == opThief {
			targets = append(targets, a.Args[0])
		}
	}
	if len(targets) != 2 || targets[0] != 1 || targets[1] != 2 {
		t.Fatalf("targets %v, want seats 1 and 2", targets)
	}
	refused(t, s, 0, engine.Action{Op: opThief, Args: []int32{0}}, engine.ErrIllegal)
	do(t, s, opThief, 2)
	if gold(s, 0) != 3 || gold(s, 2) != 0 || !s.seats[0].used {
		t.Fatalf("took %d from a player with 3, want all 3", gold(s, 0))
	}
	if s.phase != phaseStart || hasOp(s, opThief) {
		t.Fatal("the turn should go on, and the Thief be spent")
	}
	s = table(t, 3)
	s.seats[0].hero = heroThief
	s.seats[1].score = 10
	s.round = 4
	draws(t, s, cardCoin)
	do(t, s, opThief, 1)
	if gold(s, 0) != thiefGold || gold(s, 1) != 10-thiefGold {
		t.Fatal("the Thief should take 4 in the middle of a turn too")
	}
	draws(t, s, cardClink, cardCrunch)
	if gold(s, 0) != thiefGold {
		t.Fatal("the Thief's gold should survive a bust")
	}
}

func TestHeroWanderingBardAddsFourOnce(t *testing.T) {
	s := table(t, 2)
	s.seats[0].hero = heroBard
	draws(t, s, cardCoin)
	do(t, s, opEscapePower)
	if gold(s, 0) != 1+bardGold || !s.seats[0].used {
		t.Fatalf("gold %d, want 1 + %d", gold(s, 0), bardGold)
	}
	passTurn(t, s)
	draws(t, s, cardCoin)
	if hasOp(s, opEscapePower) {
		t.Fatal("the Bard is offered a second time")
	}
	refused(t, s, 0, engine.Action{Op: opEscapePower}, engine.ErrIllegal)
}

func TestHeroAlchemistCountsTheBestTreasureTwice(t *testing.T) {
	s := table(t, 2)
	s.seats[0].hero = heroAlchemist
	draws(t, s, cardEgg)
	if hasOp(s, opEscapePower) {
		t.Fatal("the Alchemist is offered with no treasure in the bag")
	}
	draws(t, s, cardCup, cardCrown)
	do(t, s, opEscapePower)
	if want := 2 + 3 + 5 + hallBonus[3] + 5; gold(s, 0) != want {
		t.Fatalf("gold %d, want %d (the Crown twice, not the egg)", gold(s, 0), want)
	}
}

func TestHeroFearlessKnightNeedsANoiseFromThisTurn(t *testing.T) {
	s := table(t, 2)
	s.seats[0].hero = heroKnight
	draws(t, s, cardCoin)
	if hasOp(s, opEscapePower) {
		t.Fatal("the Knight is offered without a noise")
	}
	draws(t, s, cardSneeze)
	do(t, s, opEscapePower)
	if gold(s, 0) != 1+knightGold {
		t.Fatalf("gold %d, want 1 + %d", gold(s, 0), knightGold)
	}
}

func TestHeroTrophyHunterAlwaysWithFourCards(t *testing.T) {
	s := table(t, 2)
	s.seats[0].hero = heroHunter
	for turn, c := range []card{cardCoin, cardNecklace} {
		before := gold(s, 0)
		draws(t, s, c, c, c, c)
		do(t, s, opEscape)
		if got := gold(s, 0) - before; got != 4*cards[c].value+hallBonus[4]+hunterGold {
			t.Fatalf("escape %d: %d gold, want 4 + %d + %d", turn+1, got, hallBonus[4], hunterGold)
		}
		passTurn(t, s)
	}
	before := gold(s, 0)
	draws(t, s, cardCup, cardCup, cardCap)
	do(t, s, opEscape)
	if gold(s, 0)-before != 6+hallBonus[3] {
		t.Fatal("the Trophy Hunter paid for fewer than 4 treasures")
	}
}

func TestHeroesDealtAreDistinctAndFaceUp(t *testing.T) {
	st, err := Game.Setup(8, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := st.(*State)
	if s.ToAct().Kind != engine.ActorChance {
		t.Fatal("the full version should start by dealing heroes in a chance step")
	}
	if err := s.ApplyChance(beacon(2)); err != nil {
		t.Fatal(err)
	}
	seen := map[hero]bool{}
	for i := 0; i < 8; i++ {
		h := s.seats[i].hero
		if h == noHero || seen[h] {
			t.Fatalf("seat %d was dealt %s", i, h)
		}
		seen[h] = true
	}
	v := s.View(3).(*View)
	if v.Seats[5].Hero != s.seats[5].hero.String() {
		t.Fatal("heroes are dealt face up: every seat sees every hero")
	}
}

func TestHeroesChosenInSeatOrder(t *testing.T) {
	s := table(t, 3, optHeroes, "chosen")
	if s.phase != phaseChooseHero || s.cur != 0 || len(s.Legal(nil)) != int(numHeroes) {
		t.Fatal("seat 0 should choose first from all 8 heroes")
	}
	do(t, s, opChooseHero, int(heroKnight))
	refused(t, s, 1, engine.Action{Op: opChooseHero, Args: []int32{int32(heroKnight)}}, engine.ErrIllegal)
	do(t, s, opChooseHero, int(heroBard))
	do(t, s, opChooseHero, int(heroElf))
	if s.phase != phaseStart || s.cur != 0 {
		t.Fatal("play should start with seat 0 after the choice")
	}
	if s.seats[0].hero != heroKnight || s.seats[1].hero != heroBard || s.seats[2].hero != heroElf {
		t.Fatal("heroes went to the wrong seats")
	}
}
