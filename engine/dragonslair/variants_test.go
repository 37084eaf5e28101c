package dragonslair

import (
	"strings"
	"testing"

	"github.com/boardmesh/boardmesh/engine"
)

func pileTotal(s *State) int { return s.deckSize() }

func TestVariantFullVersionIsTheDefault(t *testing.T) {
	st, err := Game.Setup(4, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := st.(*State)
	if pileTotal(s) != 72 || s.heroMode != heroesDealt || s.phase != phaseDealHeroes || s.red != 18 || s.eggBonus != 5 {
		t.Fatalf("default game: %d cards, hero mode %d, red field %d, egg bonus %d", pileTotal(s), s.heroMode, s.red, s.eggBonus)
	}
}

func TestVariantFreeVersionHas63CardsAndNoHeroes(t *testing.T) {
	s := table(t, 4, optEdition, "free", optHeroes, "dealt")
	if pileTotal(s) != 63 || s.deck[cardEgg]+s.deck[cardSphere]+s.deck[cardPassage] != 0 {
		t.Fatalf("free version: %d cards", pileTotal(s))
	}
	if s.phase != phaseStart || s.seats[0].hero != noHero {
		t.Fatal("the free version has no heroes")
	}
}

func TestVariantFirstGameHasNoHeroes(t *testing.T) {
	s := table(t, 4, optFirstGame, "true", optHeroes, "dealt")
	if pileTotal(s) != 72 || s.phase != phaseStart || s.heroMode != heroesNone {
		t.Fatal("the first game: the full deck without heroes")
	}
}

func TestVariantShortGameLowersTheRedFieldBySix(t *testing.T) {
	for n := 2; n <= 8; n++ {
		s := table(t, n, optShortGame, "true")
		if int(s.red) != redFieldByPlayers(n)-6 {
			t.Errorf("%d players, short game: red field %d, want %d", n, s.red, redFieldByPlayers(n)-6)
		}
	}
}

func TestVariantForTwoPlaysToRedField16(t *testing.T) {
	s := table(t, 2)
	if s.red != 16 {
		t.Fatalf("two players: red field %d, want 16", s.red)
	}
	s.seats[1].score = 4
	draws(t, s, cardRaven)
	if gold(s, 0) != 2 || gold(s, 1) != 2 {
		t.Fatal("with two players the raven takes from the other player")
	}
}

func TestVariantWithChildrenHasNoHeroesAndNoRavens(t *testing.T) {
	s := table(t, 4, optChildren, "true", optHeroes, "dealt")
	if s.deck[cardRaven] != 0 || pileTotal(s) != 69 || s.phase != phaseStart {
		t.Fatalf("with children: %d ravens, %d cards, phase %d", s.deck[cardRaven], pileTotal(s), s.phase)
	}
	s = table(t, 4, optChildren, "true", optEdition, "free")
	if pileTotal(s) != 60 {
		t.Fatalf("free version with children: %d cards, want 60", pileTotal(s))
	}
}

func TestRedFieldByPlayerCount(t *testing.T) {
	want := map[int]int{2: 16, 3: 18, 4: 18, 5: 18, 6: 19, 7: 20, 8: 21}
	for n, red := range want {
		if s := table(t, n); int(s.red) != red {
			t.Errorf("%d players: red field %d, want %d", n, s.red, red)
		}
	}
	if s := table(t, 5, optRedField, "25", optShortGame, "true"); s.red != 25 {
		t.Errorf("red-field=25 gave %d", s.red)
	}
}

func TestBadSetupSaysWhatIsAllowed(t *testing.T) {
	cases := []struct {
		players int
		opts    engine.Options
		want    []string
	}{
		{1, nil, []string{"2 to 8", "not 1"}},
		{9, nil, []string{"2 to 8"}},
		{4, engine.Options{{Name: "edition", Value: "deluxe"}}, []string{"full", "free"}},
		{4, engine.Options{{Name: "heroes", Value: "some"}}, []string{"dealt", "chosen", "none"}},
		{4, engine.Options{{Name: "red-field", Value: "99"}}, []string{"0 to 40"}},
		{4, engine.Options{{Name: "dragons", Value: "2"}}, []string{"edition", "short-game"}},
	}
	for _, c := range cases {
		_, err := Game.Setup(c.players, c.opts)
		if err == nil {
			t.Errorf("%d players %s: accepted", c.players, c.opts)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%d players %s: error %q does not say %q", c.players, c.opts, err, w)
			}
		}
	}
}

func TestRoundEndMovesTheDragonAndTheGameEndsAtTheRedField(t *testing.T) {
	s := table(t, 3, optRedField, "2")
	s.seats[2].score = 5
	for i := 0; i < 3; i++ {
		passTurn(t, s)
	}
	if s.dragon != 1 || s.round != 2 || s.cur != 0 {
		t.Fatalf("after round 1: dragon %d, round %d, seat %d", s.dragon, s.round, s.cur)
	}
	for i := 0; i < 3; i++ {
		passTurn(t, s)
	}
	if s.phase != phaseOver || s.dragon != 2 || s.turns != 6 {
		t.Fatalf("phase %d, dragon %d, turns %d: the game should end when the dragon reaches the red field", s.phase, s.dragon, s.turns)
	}
	r := s.Result()
	if len(r.Winners) != 1 || r.Winners[0] != 2 || !strings.Contains(r.Reason, "dragon") {
		t.Fatalf("result %+v, want seat 2, the richest, to win", r)
	}
}

func TestRedFieldReachedMidRoundFinishesTheRound(t *testing.T) {
	s := table(t, 3, optRedField, "1")
	s.seats[2].score = 5
	bustTurn(t, s)
	if !s.ending || s.phase == phaseOver {
		t.Fatal("a bust onto the red field should make the round the last, not end it")
	}
	passTurn(t, s)
	passTurn(t, s)
	if s.phase != phaseOver || s.turns != 3 {
		t.Fatalf("phase %d after %d turns: everyone should have had the same number of turns", s.phase, s.turns)
	}
}

// keepEggs gives seat k eggs kept from earlier escapes.
func keepEggs(s *State, seat, k int) {
	s.deck[cardEgg] -= uint8(k)
	s.seats[seat].eggs += uint8(k)
}

func TestEggMajorityGetsFive(t *testing.T) {
	s := table(t, 3, optRedField, "1")
	keepEggs(s, 1, 2)
	keepEggs(s, 2, 1)
	for i := 0; i < 3; i++ {
		passTurn(t, s) // coin, coin, coin: 1 gold each
	}
	if gold(s, 1) != 1+5 || gold(s, 2) != 1 {
		t.Fatalf("gold %d/%d, want the 2-egg seat to get 5 more", gold(s, 1), gold(s, 2))
	}
}

func TestEggMajorityTieSplitsRoundedDown(t *testing.T) {
	s := table(t, 3, optRedField, "1")
	keepEggs(s, 0, 1)
	keepEggs(s, 1, 1)
	keepEggs(s, 2, 1)
	for i := 0; i < 3; i++ {
		passTurn(t, s)
	}
	for i := 0; i < 3; i++ {
		if gold(s, i) != 1+1 {
			t.Fatalf("three-way egg tie: seat %d has %d, want 1 + 5/3 = 2", i, gold(s, i))
		}
	}
	if s.phase != phaseStart || !s.tiebreak {
		t.Fatal("the three equal scores should go to a tie-break")
	}
	s = table(t, 2, optRedField, "1", optEggBonus, "7")
	keepEggs(s, 0, 1)
	keepEggs(s, 1, 1)
	passTurn(t, s)
	passTurn(t, s)
	if gold(s, 0) != 1+3 {
		t.Fatalf("egg-bonus 7 split by two: %d, want 1 + 3", gold(s, 0))
	}
}

func TestTieBreakIsOneMoreTurnEachInReverseSeatOrder(t *testing.T) {
	s := table(t, 3, optRedField, "1")
	bustTurn(t, s) // seat 0: 0 gold
	draws(t, s, cardCup)
	do(t, s, opEscape) // seat 1: 3
	draws(t, s, cardCup)
	do(t, s, opEscape) // seat 2: 3
	if !s.tiebreak || s.cur != 2 || s.phase != phaseStart {
		t.Fatalf("tie of seats 1 and 2: tiebreak %v, seat %d to act; want seat 2 first", s.tiebreak, s.cur)
	}
	if s.seats[0].tied {
		t.Fatal("seat 0 is not in the tie")
	}
	draws(t, s, cardCoin)
	do(t, s, opEscape) // seat 2 gathers 1
	if s.cur != 1 || s.phase != phaseStart {
		t.Fatalf("seat %d to act, want seat 1", s.cur)
	}
	draws(t, s, cardNecklace)
	do(t, s, opEscape) // seat 1 gathers 2
	if s.phase != phaseOver {
		t.Fatal("the game should end after the tie-break turns")
	}
	r := s.Result()
	if len(r.Winners) != 1 || r.Winners[0] != 1 || r.Scores[1] != 5 || r.Scores[2] != 4 {
		t.Fatalf("result %+v, want seat 1 to win with 5", r)
	}
}

func TestTieStillTiedAfterTheExtraTurnsIsSharedWin(t *testing.T) {
	s := table(t, 2, optRedField, "1")
	passTurn(t, s)
	passTurn(t, s)
	if !s.tiebreak {
		t.Fatal("1 and 1 should tie")
	}
	bustTurn(t, s)
	bustTurn(t, s)
	r := s.Result()
	if s.phase != phaseOver || len(r.Winners) != 2 || !strings.Contains(r.Reason, "shared") {
		t.Fatalf("result %+v, want a shared win", r)
	}
}
