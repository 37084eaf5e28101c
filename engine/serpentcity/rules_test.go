package serpentcity

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/boardmesh/boardmesh/engine"
)

// Territory indexes of the default board used below.
const (
	northMarket  = 0 // touches Road space index 1
	northArsenal = 1
	northMine    = 4 // index 9
	southMarket  = 5
	southMine    = 9 // index 19
)

func TestTwoToSixPlayers(t *testing.T) {
	for n := 0; n <= 8; n++ {
		_, err := Game.Setup(n, nil)
		if ok := n >= 2 && n <= 6; ok != (err == nil) {
			t.Errorf("%d players: err=%v", n, err)
		}
	}
}

func TestPlayerSetup(t *testing.T) {
	s := newTest(t, 4, 0)
	for p := range s.pl {
		if s.pl[p].start != 3 || s.pl[p].res != [nRes]int{1, 1, 1, 0, 0} {
			t.Errorf("player %d starts with %d pawns and %v", p, s.pl[p].start, s.pl[p].res)
		}
	}
}

func TestMovementPointsAreTwoDice(t *testing.T) {
	seen := map[int]bool{}
	for i := 0; i < 300; i++ {
		es, _ := Game.Setup(2, nil)
		s := es.(*State)
		chance(t, s, engine.Derive([]byte("mp"), "x", uint64(i)))
		if s.mp != s.dice[0]+s.dice[1] || s.mp < 2 || s.mp > 12 || s.ph != phMain {
			t.Fatalf("roll %v gave %d MP", s.dice, s.mp)
		}
		seen[s.mp] = true
	}
	if len(seen) != 11 {
		t.Errorf("saw only MP values %v", seen)
	}
}

func TestMovementPointsSplitFreelyAndInterleavedWithActions(t *testing.T) {
	s := newTest(t, 2, 5)
	must(t, s, 0, act(opMove, -1)) // pawn 1 to space index 0
	must(t, s, 0, act(opMove, 0))  // pawn 1 on to index 1
	s.pl[0].res[Coin] = 3
	must(t, s, 0, act(opEnter, northMarket)) // an action between moves
	must(t, s, 0, act(opMove, -1))           // a second pawn uses the rest
	if s.mp != 1 || s.pl[0].road[0] != 1 || s.pl[0].terr[northMarket] != 1 {
		t.Fatalf("mp %d, road %v, terr %v", s.mp, s.pl[0].road, s.pl[0].terr)
	}
	must(t, s, 0, act(opMove, 0))
	mustNot(t, s, 0, act(opMove, 1)) // pool spent
}

func TestMovesAreClockwiseOneSpaceAtATime(t *testing.T) {
	s := newTest(t, 2, 12)
	must(t, s, 0, act(opMove, -1))
	for i := 0; i < 5; i++ {
		must(t, s, 0, act(opMove, int32(i)))
		if s.pl[0].road[i+1] != 1 {
			t.Fatalf("pawn did not move from %d to %d", i, i+1)
		}
	}
	// No action moves a pawn backwards: every move goes to the next space.
	for _, a := range s.Legal(nil) {
		if a.Op == opMove && a.Args[0] >= 0 && s.pl[0].road[a.Args[0]] == 0 {
			t.Errorf("move from an empty space offered: %v", a)
		}
	}
}

func TestStartIsABoundaryWhereNoPawnStops(t *testing.T) {
	s := newTest(t, 2, 3)
	s.pl[0].start = 0
	s.pl[0].road[19] = 1
	must(t, s, 0, act(opMove, 19))
	if s.pl[0].start != 0 || s.pl[0].road[0] != 1 {
		t.Fatalf("a pawn crossing START must land on the first space: start %d road0 %d", s.pl[0].start, s.pl[0].road[0])
	}
	if !s.bonusTaken {
		t.Fatal("crossing START gave no bonus")
	}
}

func TestStartBonusOnlyOncePerTurn(t *testing.T) {
	s := newTest(t, 2, 10)
	s.pl[0].start = 0
	s.pl[0].road[19] = 2
	must(t, s, 0, act(opMove, 19))
	want := [nRes]int{2, 2, 2, 1, 0}
	if s.pl[0].res != want {
		t.Fatalf("after the first crossing: %v, want %v", s.pl[0].res, want)
	}
	must(t, s, 0, act(opMove, 19))
	if s.pl[0].res != want {
		t.Fatalf("a second crossing paid again: %v", s.pl[0].res)
	}
	// The next turn pays again.
	endTurnTo(t, s, 0, 6, 6)
	s.pl[0].road[19]++
	must(t, s, 0, act(opMove, 19))
	if s.pl[0].res[Fuel] != 2 {
		t.Fatalf("the next turn's crossing paid no bonus: %v", s.pl[0].res)
	}
}

// The text's own example: a player shares two Territories and crosses START
// with three pawns in one turn — one base bonus and two card picks.
func TestPactExampleTwoSharedTerritoriesThreePawnsCrossing(t *testing.T) {
	s := newTest(t, 3, 12)
	place(s, 0, northMarket, 1)
	place(s, 1, northMarket, 1)
	place(s, 0, southMarket, 1)
	place(s, 2, southMarket, 2)
	place(s, 0, northArsenal, 1) // held alone: not shared, no pick
	s.pl[0].road[19] = 3
	res0 := s.pl[0].res
	cards := 0
	for i := 0; i < 3; i++ {
		must(t, s, 0, act(opMove, 19))
		for s.ph == phPick || s.ph == phDraw {
			if s.ph == phPick {
				must(t, s, 0, act(opPick, int32(cards%2)))
			} else {
				chance(t, s, engine.Derive([]byte("draw"), "", uint64(cards)))
				cards++
			}
		}
	}
	for r := 0; r < Diamond; r++ {
		if s.pl[0].res[r] != res0[r]+1 {
			t.Errorf("%s: %d → %d, want one base bonus", resNames[r], res0[r], s.pl[0].res[r])
		}
	}
	if cards != 2 || s.handCount(0, econDeck) != 1 || s.handCount(0, milDeck) != 1 {
		t.Fatalf("drew %d cards (%d Economic, %d Military), want two picks", cards, s.handCount(0, econDeck), s.handCount(0, milDeck))
	}
	if s.pl[0].road[0] != 3 || s.ph != phMain {
		t.Fatalf("pawns %v, phase %d", s.pl[0].road, s.ph)
	}
}

func TestChangingModeStopsThePawnForTheTurn(t *testing.T) {
	s := newTest(t, 2, 12)
	s.pl[0].res = [nRes]int{5, 5, 5, 5, 5}
	s.pl[0].start = 0
	s.pl[0].road[1] = 1
	must(t, s, 0, act(opEnter, northMarket))
	mustNot(t, s, 0, act(opLeave, northMarket))
	mustNot(t, s, 0, act(opPromote, northMarket))
	// A pawn that returns to the Road stops there for the turn.
	place(s, 0, southMarket, 1)
	must(t, s, 0, act(opLeave, southMarket))
	if s.pl[0].frozen[11] != 1 {
		t.Fatal("returned pawn not on its Road space")
	}
	mustNot(t, s, 0, act(opMove, 11))
	mustNot(t, s, 0, act(opEnter, southMarket))
	// Next turn it moves again.
	endTurnTo(t, s, 0, 3, 3)
	must(t, s, 0, act(opMove, 11))
}

func TestNoDirectRoadToCapitalPromotionNextTurn(t *testing.T) {
	s := newTest(t, 2, 12)
	s.pl[0].res = [nRes]int{10, 10, 10, 10, 10}
	s.pl[0].start = 0
	s.pl[0].road[1] = 1
	must(t, s, 0, act(opEnter, northMarket))
	mustNot(t, s, 0, act(opPromote, northMarket))
	endTurnTo(t, s, 0, 3, 3)
	must(t, s, 0, act(opPromote, northMarket))
	if s.pl[0].capital != 1 || s.pl[0].ip != 4 {
		t.Fatalf("capital %d ip %d", s.pl[0].capital, s.pl[0].ip)
	}
}

func TestNoReturnFromTheCapital(t *testing.T) {
	s := newTest(t, 2, 12)
	s.pl[0].capital = 2
	s.pl[0].start = 1
	s.pl[0].res = [nRes]int{10, 10, 10, 10, 10}
	before := s.pl[0].capital
	for _, a := range s.Legal(nil) {
		c := s.clone()
		must(t, c, 0, a)
		if c.pl[0].capital < before {
			t.Fatalf("%s took a pawn out of the Capital", s.Describe(a))
		}
	}
}

func TestOccupationSlotsAreSharedByPawnsAndBuildings(t *testing.T) {
	s := newTest(t, 2, 12)
	s.pl[0].res = [nRes]int{10, 10, 10, 10, 10}
	place(s, 1, northMarket, 2)
	place(s, 0, northMarket, 1)
	must(t, s, 0, act(opBuild, northMarket))
	must(t, s, 0, act(opBuild, northMarket)) // 5 slots now used
	s.pl[0].road[1] = 1
	mustNot(t, s, 0, act(opEnter, northMarket))
	if s.occupancy(northMarket) != 5 {
		t.Fatalf("occupancy %d", s.occupancy(northMarket))
	}
}

func TestDominanceLevelsProductionAndIP(t *testing.T) {
	for k, want := range []struct{ prod, ip int }{{0, 0}, {1, 1}, {2, 2}, {3, 3}, {3, 3}} {
		s := newTest(t, 2, 0)
		s.pl[0].start = 5
		place(s, 0, northMarket, k)
		if s.pl[0].src[srcDominance] != want.ip {
			t.Errorf("%d pawns: %d dominance IP, want %d", k, s.pl[0].src[srcDominance], want.ip)
		}
		coins := s.pl[0].res[Coin]
		s.produce(0)
		if got := s.pl[0].res[Coin] - coins; got != want.prod {
			t.Errorf("%d pawns produce %d Coin, want %d", k, got, want.prod)
		}
	}
}

func TestSharedTerritoryPaysOneResourceAndNoDominanceIP(t *testing.T) {
	s := newTest(t, 2, 0)
	place(s, 0, northMarket, 3)
	place(s, 1, northMarket, 1)
	if s.pl[0].src[srcDominance] != 0 || s.pl[1].src[srcDominance] != 0 {
		t.Fatal("dominance IP on a shared Territory")
	}
	for p := 0; p < 2; p++ {
		c := s.pl[p].res[Coin]
		s.produce(p)
		if s.pl[p].res[Coin]-c != 1 {
			t.Errorf("player %d got %d Coin from a shared Territory", p, s.pl[p].res[Coin]-c)
		}
	}
}

func TestDiamondMineAlwaysOneDiamondAndNoBuilding(t *testing.T) {
	for k := 1; k <= 3; k++ {
		s := newTest(t, 2, 0)
		s.pl[0].res = [nRes]int{9, 9, 9, 9, 0}
		place(s, 0, northMine, k)
		s.produce(0)
		if s.pl[0].res[Diamond] != 1 {
			t.Errorf("%d pawns on the Mine produce %d Diamonds", k, s.pl[0].res[Diamond])
		}
		mustNot(t, s, 0, act(opBuild, northMine))
	}
}

func TestBuildingsCostLimitProductionAndSets(t *testing.T) {
	s := newTest(t, 2, 0)
	s.pl[0].res = [nRes]int{4, 0, 2, 2, 0}
	place(s, 0, northMarket, 1)
	must(t, s, 0, act(opBuild, northMarket))
	if s.pl[0].res != [nRes]int{2, 0, 1, 1, 0} {
		t.Fatalf("a Building cost %v", s.pl[0].res)
	}
	if s.pl[0].src[srcSets] != 0 {
		t.Fatal("a single Building gave IP")
	}
	must(t, s, 0, act(opBuild, northMarket))
	if s.pl[0].src[srcSets] != 1 {
		t.Fatalf("a set of 2 gave %d IP", s.pl[0].src[srcSets])
	}
	s.pl[0].res = [nRes]int{9, 9, 9, 9, 0}
	mustNot(t, s, 0, act(opBuild, northMarket)) // at most 2
	c := s.pl[0].res[Coin]
	s.produce(0)
	if s.pl[0].res[Coin]-c != 1+2 {
		t.Fatalf("level I with 2 Buildings produced %d", s.pl[0].res[Coin]-c)
	}
	// Buildings produce and count only while an occupying pawn stays.
	s.pl[0].terr[northMarket] = 0
	s.settle()
	if s.pl[0].src[srcSets] != 0 {
		t.Fatal("a set without an occupying pawn still counts")
	}
	// Architect raises the set to 2 IP.
	s.pl[0].terr[northMarket] = 1
	s.pl[0].architect = true
	s.settle()
	if s.pl[0].src[srcSets] != 2 {
		t.Fatalf("Architect set gives %d", s.pl[0].src[srcSets])
	}
}

func TestBuildingsOnSharedTerritoryMayBelongToDifferentPlayers(t *testing.T) {
	s := newTest(t, 2, 0)
	s.pl[0].res = [nRes]int{9, 9, 9, 9, 0}
	place(s, 0, northMarket, 1)
	place(s, 1, northMarket, 1)
	must(t, s, 0, act(opBuild, northMarket))
	s.bld[northMarket] = append(s.bld[northMarket], 1)
	if s.ownBuildings(0, northMarket) != 1 || s.ownBuildings(1, northMarket) != 1 {
		t.Fatal("buildings of two owners")
	}
}

// fight runs a voluntary conflict with the given cards (-1 none) and the
// Reward Roll face 1, and returns the winner.
func fight(t *testing.T, s *State, att, def, loc, attCard, defCard int) int {
	t.Helper()
	if s.cur != att || s.ph != phMain {
		t.Fatal("fight needs the attacker's main phase")
	}
	must(t, s, att, act(opAttack, int32(loc), int32(def)))
	if attCard >= 0 {
		must(t, s, att, milAct(s, att, attCard))
	} else {
		must(t, s, att, act(opNoCard))
	}
	if defCard >= 0 {
		must(t, s, def, milAct(s, def, defCard))
	} else {
		must(t, s, def, act(opNoCard))
	}
	if s.ph != phReward {
		t.Fatalf("no Reward Roll after the conflict (phase %d)", s.ph)
	}
	w := s.who
	chance(t, s, rewardBeacon(t, s, 1))
	return w
}

func TestStrengthIsPawnCountAndDefenderWinsTies(t *testing.T) {
	s := newTest(t, 2, 0)
	place(s, 0, northMarket, 2)
	place(s, 1, northMarket, 2)
	if w := fight(t, s, 0, 1, northMarket, -1, -1); w != 1 {
		t.Fatal("defender lost a tie")
	}
	s = newTest(t, 2, 0)
	place(s, 0, northMarket, 3)
	place(s, 1, northMarket, 2)
	if w := fight(t, s, 0, 1, northMarket, -1, -1); w != 0 {
		t.Fatal("3 pawns lost to 2")
	}
}

func TestDefenceBonusOnlyAtLevelThree(t *testing.T) {
	// 3 attackers against 2 defenders (level II, +0): attacker wins.
	s := newTest(t, 2, 0)
	place(s, 0, northMarket, 3)
	s.pl[1].start = 5
	place(s, 1, northMarket, 2)
	if w := fight(t, s, 0, 1, northMarket, -1, -1); w != 0 {
		t.Fatal("level II gave a defence bonus")
	}
	// 2 attackers with Convoy (+2) against 3 defenders (level III, +1):
	// 4 : 4, a tie the defender wins.
	s = newTest(t, 2, 0)
	place(s, 0, northMarket, 2)
	give(s, 0, milDeck, milKind(s, kConvoy))
	place(s, 1, northMarket, 3)
	if w := fight(t, s, 0, 1, northMarket, milKind(s, kConvoy), -1); w != 1 {
		t.Fatal("level III gave no +1")
	}
}

func TestMilitaryCardsAttackerThenDefender(t *testing.T) {
	s := newTest(t, 2, 0)
	place(s, 0, northMarket, 1)
	place(s, 1, northMarket, 1)
	give(s, 0, milDeck, milKind(s, kReinforce))
	give(s, 1, milDeck, milKind(s, kBarricade))
	s.pl[0].ipBought, s.pl[1].ipBought = 3, 3 // Reinforcements needs IP 3+
	s.settle()
	must(t, s, 0, act(opAttack, northMarket, 1))
	if s.ToAct().Seat != 0 || s.ph != phAttCard {
		t.Fatal("the attacker chooses first")
	}
	mustNot(t, s, 1, act(opNoCard))
	must(t, s, 0, milAct(s, 0, milKind(s, kReinforce)))
	if s.ToAct().Seat != 1 || s.ph != phDefCard {
		t.Fatal("then the defender answers, out of turn")
	}
	must(t, s, 1, milAct(s, 1, milKind(s, kBarricade)))
	// 1+2 against 1+2: the defender wins the tie; both cards are spent.
	if s.who != 1 {
		t.Fatal("tie went to the attacker")
	}
	if s.handCount(0, milDeck)+s.handCount(1, milDeck) != 0 || spent(s, milDeck, milKind(s, kReinforce)) != 1 {
		t.Fatal("played cards not spent")
	}
}

func TestAmbushIgnoresDefenderCardAndLeavesItUnspent(t *testing.T) {
	s := newTest(t, 2, 0)
	place(s, 0, northMarket, 2)
	place(s, 1, northMarket, 2)
	give(s, 0, milDeck, milKind(s, kAmbush))
	hb := give(s, 1, milDeck, milKind(s, kBarricade))
	w := fight(t, s, 0, 1, northMarket, milKind(s, kAmbush), milKind(s, kBarricade))
	if w != 1 {
		t.Fatal("2 against 2 is a tie: the defender should win")
	}
	if s.held(1, milDeck, milKind(s, kBarricade)) != 1 {
		t.Fatal("the ambushed card was spent")
	}
	// It is never shown: only its holder knows it, and nobody else's
	// screen names it.
	if _, pub := s.cards.Public(hb); pub || s.kind(hb, 0) >= 0 || s.cDefCard != -1 {
		t.Fatal("the ambushed Barricade was shown")
	}
	for _, seat := range []int{-1, 0} {
		if b, _ := json.Marshal(s.View(seat)); strings.Contains(string(b), "Barricade\"") {
			t.Fatalf("seat %d's view names the ambushed Barricade: %s", seat+1, b)
		}
	}
	if b, _ := json.Marshal(s.View(1)); !strings.Contains(string(b), "Barricade\"") {
		t.Fatalf("its holder's view does not name the Barricade: %s", b)
	}
	if s.held(0, milDeck, milKind(s, kAmbush)) != 0 {
		t.Fatal("Ambush was not spent")
	}
	// With 3 against 2 plus Barricade (+2), Ambush makes the attacker win.
	s = newTest(t, 2, 0)
	place(s, 0, northMarket, 3)
	place(s, 1, northMarket, 2)
	give(s, 0, milDeck, milKind(s, kAmbush))
	give(s, 1, milDeck, milKind(s, kBarricade))
	if w := fight(t, s, 0, 1, northMarket, milKind(s, kAmbush), milKind(s, kBarricade)); w != 0 {
		t.Fatal("the ambushed Barricade still counted")
	}
}

func TestCapitalHasNoDefenceBonusNoConvoyOrTunnelsButSmallUnits(t *testing.T) {
	s := newTest(t, 2, 0)
	T := s.cfg.T
	s.pl[0].capital = 1
	s.pl[1].capital = 2
	give(s, 0, milDeck, milKind(s, kConvoy))
	give(s, 0, milDeck, milKind(s, kTunnels))
	give(s, 0, milDeck, milKind(s, kSmall))
	s.settle()
	must(t, s, 0, act(opAttack, int32(T), 1))
	mustNot(t, s, 0, milAct(s, 0, milKind(s, kConvoy)))
	mustNot(t, s, 0, milAct(s, 0, milKind(s, kTunnels)))
	must(t, s, 0, milAct(s, 0, milKind(s, kSmall)))
	must(t, s, 1, act(opNoCard))
	// 1+2 against 2 with no defence bonus: the attacker wins.
	if s.who != 0 || s.pl[1].capital != 0 || s.pl[0].capital != 1 {
		t.Fatalf("winner %d, capital %d/%d", s.who, s.pl[0].capital, s.pl[1].capital)
	}
}

func TestLoserRemovesOccupyingPawnsButRoadPawnsAreSafe(t *testing.T) {
	s := newTest(t, 2, 0)
	s.pl[0].start = 6
	place(s, 0, northMarket, 3)
	place(s, 1, northMarket, 1)
	s.pl[1].start = 0
	s.pl[1].road[5] = 2
	place(s, 1, southMarket, 1)
	fight(t, s, 0, 1, northMarket, -1, -1)
	if s.pl[1].terr[northMarket] != 0 || s.pl[1].road[5] != 2 || s.pl[1].terr[southMarket] != 1 {
		t.Fatalf("loser's pawns: terr %v road %v", s.pl[1].terr, s.pl[1].road)
	}
	if s.pl[0].terr[northMarket] != 3 {
		t.Fatal("winner lost pawns")
	}
}

func TestTopUpToTwoPawnsOnStart(t *testing.T) {
	s := newTest(t, 2, 0)
	s.pl[0].start = 3
	place(s, 0, northMarket, 3)
	s.pl[1].start = 0
	place(s, 1, northMarket, 1) // the loser's only active pawn
	fight(t, s, 0, 1, northMarket, -1, -1)
	if s.active(1) != 2 || s.pl[1].start != 2 {
		t.Fatalf("loser has %d active pawns, %d on START", s.active(1), s.pl[1].start)
	}
}

func TestTacticalRetreatMovesLostPawnsToFreeStartSlots(t *testing.T) {
	s := newTest(t, 2, 0)
	place(s, 0, northMarket, 3)
	s.pl[1].start = 5
	place(s, 1, northMarket, 2)
	s.pl[1].road[7] = 1
	s.pl[1].start = 3 // one of four START slots free
	give(s, 1, milDeck, milKind(s, kRetreat))
	before := s.active(1)
	fight(t, s, 0, 1, northMarket, -1, milKind(s, kRetreat))
	if s.pl[1].start != 4 || s.active(1) != before-1 || s.pl[1].terr[northMarket] != 0 {
		t.Fatalf("after the retreat: START %d, active %d (was %d)", s.pl[1].start, s.active(1), before)
	}
}

func TestBuildingsPassToWinnerUnlessLoserPlaysSabotage(t *testing.T) {
	for _, sabotage := range []bool{false, true} {
		s := newTest(t, 2, 0)
		s.bld[northMarket] = []int{1, 1}
		place(s, 0, northMarket, 2)
		place(s, 1, northMarket, 1)
		card := -1
		if sabotage {
			card = milKind(s, kSabotage)
			give(s, 1, milDeck, card)
		}
		s.settle()
		fight(t, s, 0, 1, northMarket, -1, card)
		if sabotage && len(s.bld[northMarket]) != 0 {
			t.Fatalf("Sabotage left %v", s.bld[northMarket])
		}
		if !sabotage && (s.ownBuildings(0, northMarket) != 2 || s.pl[0].src[srcSets] != 1) {
			t.Fatalf("winner got %v", s.bld[northMarket])
		}
	}
}

func TestVoluntaryConflictAtMostOncePerTurn(t *testing.T) {
	s := newTest(t, 2, 0)
	s.pl[0].start = 6
	place(s, 0, northMarket, 3)
	place(s, 0, southMarket, 3)
	place(s, 1, northMarket, 1)
	place(s, 1, southMarket, 1)
	fight(t, s, 0, 1, northMarket, -1, -1)
	mustNot(t, s, 0, act(opAttack, southMarket, 1))
}

func TestVoluntaryConflictBlockedWhereAPawnEnteredThisTurn(t *testing.T) {
	s := newTest(t, 2, 6)
	s.pl[0].res = [nRes]int{9, 9, 9, 9, 9}
	s.pl[0].start = 5
	place(s, 0, northMarket, 1)
	place(s, 1, northMarket, 1)
	place(s, 0, southMarket, 1)
	place(s, 1, southMarket, 1)
	s.pl[0].road[1] = 1
	must(t, s, 0, act(opEnter, northMarket))
	mustNot(t, s, 0, act(opAttack, northMarket, 1))
	if !isLegal(s, act(opAttack, southMarket, 1)) {
		t.Fatal("a conflict elsewhere must stay allowed")
	}
	// Entering the Capital blocks only the Capital.
	s.pl[1].capital = 1
	s.pl[0].terr[southMarket] = 2
	must(t, s, 0, act(opPromote, southMarket))
	mustNot(t, s, 0, act(opAttack, int32(s.cfg.T), 1))
	if !isLegal(s, act(opAttack, southMarket, 1)) {
		t.Fatal("entering the Capital blocked a Territory conflict")
	}
}

func TestForcedConflictWithThreePlayersAtTurnEnd(t *testing.T) {
	s := newTest(t, 4, 6)
	s.pl[0].res = [nRes]int{9, 9, 9, 9, 9}
	place(s, 1, northMine, 1)
	place(s, 2, northMine, 2)
	s.pl[0].start = 0
	s.pl[0].road[9] = 1
	must(t, s, 0, act(opEnter, northMine)) // entering does not prevent it
	s.pl[3].capital, s.pl[1].capital, s.pl[2].capital = 1, 1, 0
	s.pl[0].capital = 1 // three in the Capital too: never forced there
	must(t, s, 0, act(opEnd))
	if s.ph != phForced || s.cLoc != northMine || s.ToAct().Seat != 0 {
		t.Fatalf("no forced conflict on the Diamond Mine (phase %d)", s.ph)
	}
	mustNot(t, s, 0, act(opForced, 3)) // not on the Mine
	must(t, s, 0, act(opForced, 2))
	must(t, s, 0, act(opNoCard))
	must(t, s, 2, act(opNoCard))
	chance(t, s, rewardBeacon(t, s, 1))
	if s.ph != phRoll || s.cur != 1 {
		t.Fatalf("after the forced conflict the turn should pass (phase %d, cur %d)", s.ph, s.cur)
	}
}

func TestRewardRollForTheWinner(t *testing.T) {
	s := newTest(t, 2, 0)
	place(s, 0, northMarket, 2)
	place(s, 1, northMarket, 1)
	must(t, s, 0, act(opAttack, northMarket, 1))
	must(t, s, 0, act(opNoCard))
	must(t, s, 1, act(opNoCard))
	w := s.pl[0].res
	chance(t, s, rewardBeacon(t, s, 4)) // face 4: 2 Fuel
	if s.pl[0].res[Fuel] != w[Fuel]+2 {
		t.Fatalf("reward gave %v", s.pl[0].res)
	}
	// Face 6: a card from the deck of the winner's choice.
	s = newTest(t, 2, 0)
	place(s, 0, northMarket, 2)
	place(s, 1, northMarket, 1)
	must(t, s, 0, act(opAttack, northMarket, 1))
	must(t, s, 0, act(opNoCard))
	must(t, s, 1, act(opNoCard))
	chance(t, s, rewardBeacon(t, s, 6))
	must(t, s, 0, act(opPick, milDeck))
	chance(t, s, engine.Derive([]byte("c"), "", 0))
	if s.handCount(0, milDeck) != 1 || s.ph != phMain {
		t.Fatal("no card from the Reward Roll")
	}
}

func TestPassNeedsOccupationNoActionAndNotTwiceInARow(t *testing.T) {
	s := newTest(t, 2, 6)
	mustNot(t, s, 0, act(opPass)) // no occupying pawn
	place(s, 0, northMarket, 1)
	must(t, s, 0, act(opMove, -1))
	mustNot(t, s, 0, act(opPass)) // already moved
	endTurnTo(t, s, 0, 2, 2)
	must(t, s, 0, act(opPass))
	if s.ph != phReward {
		t.Fatal("passing makes a Reward Roll")
	}
	chance(t, s, rewardBeacon(t, s, 1))
	if s.cur != 1 {
		t.Fatal("passing ends the turn")
	}
	endTurnTo(t, s, 0, 2, 2)
	mustNot(t, s, 0, act(opPass))
	// The option lifts the ban.
	s = newTest(t, 2, 6, engine.Option{Name: "pass_twice", Value: "true"})
	place(s, 0, northMarket, 1)
	s.pl[0].passedLast = true
	must(t, s, 0, act(opPass))
}

func TestCardsPlayableOnlyWithinTheirIPRange(t *testing.T) {
	s := newTest(t, 2, 6)
	k := econKind(s, kInvestor) // 0–8
	give(s, 0, econDeck, k)
	s.pl[0].ipBought = 9
	s.settle()
	mustNot(t, s, 0, econAct(s, 0, k))
	s.pl[0].ipBought = 8
	s.settle()
	must(t, s, 0, econAct(s, 0, k))
}

func TestAtMostOneEconomicCardPerTurn(t *testing.T) {
	s := newTest(t, 2, 6)
	k := econKind(s, kWindfall)
	give(s, 0, econDeck, k)
	give(s, 0, econDeck, k)
	must(t, s, 0, econAct(s, 0, k))
	mustNot(t, s, 0, econAct(s, 0, k))
	if spent(s, econDeck, k) != 1 {
		t.Fatal("played card not spent")
	}
}

func TestInvestorAndArchitectArePermanent(t *testing.T) {
	s := newTest(t, 2, 6)
	give(s, 0, econDeck, econKind(s, kInvestor))
	must(t, s, 0, econAct(s, 0, econKind(s, kInvestor)))
	for turn := 0; turn < 3; turn++ {
		c := s.pl[0].res[Coin]
		s.produce(0)
		if s.pl[0].res[Coin] != c+1 {
			t.Fatal("Investor stopped paying")
		}
	}
	if spent(s, econDeck, econKind(s, kInvestor)) != 0 {
		t.Fatal("a permanent card went to the discard")
	}
}

func TestResourceCapIsSixteen(t *testing.T) {
	s := newTest(t, 2, 6)
	s.pl[0].res = [nRes]int{15, 16, 0, 0, 0}
	give(s, 0, econDeck, econKind(s, kWindfall))
	must(t, s, 0, econAct(s, 0, econKind(s, kWindfall)))
	if s.pl[0].res[Coin] != 16 || s.pl[0].res[Weapon] != 16 {
		t.Fatalf("cap broken: %v", s.pl[0].res)
	}
}

func TestTwoDiamondsPayForAMissingUnit(t *testing.T) {
	s := newTest(t, 2, 6)
	s.pl[0].res = [nRes]int{1, 1, 0, 0, 2} // a pawn costs Coin, Weapon, Fuel
	must(t, s, 0, act(opBuyPawn))
	if s.pl[0].res != [nRes]int{0, 0, 0, 0, 0} {
		t.Fatalf("paid %v", s.pl[0].res)
	}
	s.pl[0].res = [nRes]int{1, 0, 0, 0, 3} // two missing units need 4 Diamonds
	mustNot(t, s, 0, act(opBuyPawn))
}

func TestPawnLimitsByPlayerCount(t *testing.T) {
	for n, limit := range map[int]int{2: 15, 3: 13, 4: 11, 5: 11, 6: 11} {
		s := newTest(t, n, 0)
		s.pl[0].res = [nRes]int{16, 16, 16, 16, 16}
		s.pl[0].start = 1
		s.pl[0].road[3] = limit - 1
		mustNot(t, s, 0, act(opBuyPawn))
		s.pl[0].road[3] = limit - 2
		must(t, s, 0, act(opBuyPawn))
	}
}

func TestIPRecomputedAfterEveryChangeAndImmediateWin(t *testing.T) {
	s := newTest(t, 2, 0)
	s.pl[0].capital = 2
	place(s, 0, northMarket, 1) // 8 + 1 (level I)
	place(s, 1, southMarket, 1)
	if s.pl[0].ip != 9 {
		t.Fatalf("ip %d", s.pl[0].ip)
	}
	place(s, 0, northMarket, 1) // level II
	if s.pl[0].ip != 10 {
		t.Fatalf("ip %d at level II", s.pl[0].ip)
	}
	place(s, 1, northMarket, 1) // sharing takes the dominance IP away: the lead can be lost
	if s.pl[0].ip != 8 {
		t.Fatalf("ip %d after sharing", s.pl[0].ip)
	}
	s.pl[0].res = [nRes]int{2, 2, 2, 2, 2}
	s.pl[0].ipCard = 6
	s.settle()
	if s.ToAct().Kind == engine.ActorOver {
		t.Fatal("14 IP ended the game")
	}
	must(t, s, 0, act(opBuyIP)) // 8 + 6 + 1 = 15: immediate win
	if s.ToAct().Kind != engine.ActorOver || s.Result().Winners[0] != 0 || s.Result().Scores[0] != 15 {
		t.Fatalf("no immediate win at 15: %+v", s.Result())
	}
}

func TestRoundSixtyEndAndTieBreaks(t *testing.T) {
	s := newTest(t, 3, 0, engine.Option{Name: "rounds", Value: "1"})
	s.pl[1].ipBought, s.pl[2].ipBought = 2, 2
	s.pl[1].res = [nRes]int{1, 0, 0, 0, 0}
	s.pl[2].res = [nRes]int{1, 1, 0, 0, 0}
	s.settle()
	endTurnTo(t, s, 2, 1, 1)
	must(t, s, 2, act(opEnd))
	r := s.Result()
	if s.ToAct().Kind != engine.ActorOver || len(r.Winners) != 1 || r.Winners[0] != 2 {
		t.Fatalf("ties broken by Resources: %+v", r)
	}
	// Equal IP and Resources: the earlier seat.
	s = newTest(t, 3, 0, engine.Option{Name: "rounds", Value: "1"})
	s.pl[1].ipBought, s.pl[2].ipBought = 2, 2
	s.settle()
	endTurnTo(t, s, 2, 1, 1)
	must(t, s, 2, act(opEnd))
	if r := s.Result(); r.Winners[0] != 1 {
		t.Fatalf("ties broken by seat: %+v", r)
	}
	if Game.Options[2].Default != "60" {
		t.Fatal("the game lasts 60 rounds by default")
	}
}

func TestStrokeOfLuckVariant(t *testing.T) {
	es, _ := Game.Setup(2, engine.Options{{Name: "stroke_of_luck", Value: "true"}})
	s := es.(*State)
	s.pl[1].ipBought = 1
	s.settle()
	chance(t, s, rollBeacon(t, 6, 6))
	if s.ph != phDraw || s.drawDk != milDeck {
		t.Fatal("6+6 for the player alone last draws a Military Card")
	}
	chance(t, s, engine.Derive([]byte("x"), "", 0))
	if s.handCount(0, milDeck) != 1 || s.ph != phMain || s.mp != 12 {
		t.Fatal("card not received")
	}
	// Without the variant, or not alone last, nothing.
	es, _ = Game.Setup(2, nil)
	s = es.(*State)
	s.pl[1].ipBought = 1
	s.settle()
	chance(t, s, rollBeacon(t, 1, 1))
	if s.ph != phMain {
		t.Fatal("the variant is off by default")
	}
}

func TestSeatBalancingVariant(t *testing.T) {
	es, _ := Game.Setup(4, engine.Options{{Name: "seat_balancing", Value: "true"}})
	s := es.(*State)
	if s.pl[1].res != [nRes]int{1, 1, 1, 0, 0} || s.pl[2].res != [nRes]int{2, 1, 1, 0, 0} || s.pl[3].res != [nRes]int{2, 2, 1, 0, 0} {
		t.Fatalf("%v %v %v", s.pl[1].res, s.pl[2].res, s.pl[3].res)
	}
}

func TestTradeBetweenPlayersNeedsConsent(t *testing.T) {
	s := newTest(t, 2, 0)
	s.pl[0].res = [nRes]int{3, 0, 0, 0, 0}
	s.pl[1].res = [nRes]int{0, 2, 0, 0, 0}
	must(t, s, 0, act(opTrade, 1))
	must(t, s, 0, act(opOffer, Coin, 2, Weapon))
	if s.ToAct().Seat != 1 {
		t.Fatal("the partner answers")
	}
	must(t, s, 1, act(opAccept))
	if s.pl[0].res != [nRes]int{1, 1, 0, 0, 0} || s.pl[1].res != [nRes]int{2, 1, 0, 0, 0} {
		t.Fatalf("%v %v", s.pl[0].res, s.pl[1].res)
	}
	mustNot(t, s, 0, act(opTrade, 1)) // one offer a turn
	s.pl[0].res[Coin] = 5
	must(t, s, 0, act(opBank, Coin, Fuel))
	mustNot(t, s, 0, act(opBank, Coin, Fuel)) // 3 for 1
}

func TestDropSkipsTheSeat(t *testing.T) {
	s := newTest(t, 3, 0)
	if err := s.Drop(1); err != nil {
		t.Fatal(err)
	}
	must(t, s, 0, act(opEnd))
	chance(t, s, rollBeacon(t, 1, 1))
	if s.cur != 2 {
		t.Fatalf("seat %d to act, want 2", s.cur)
	}
	// A dropped defender answers with no card.
	place(s, 2, northMarket, 2)
	place(s, 1, northMarket, 1)
	must(t, s, 2, act(opAttack, northMarket, 1))
	must(t, s, 2, act(opNoCard))
	if s.ph != phReward {
		t.Fatal("the dropped defender did not answer")
	}
}

// TestAmbushedCardIsNotNarrated: the defender's card that Ambush voids is
// never shown, so no other seat's history line names it (on an open table
// too, whose state holds it); its holder's does. The attacker's Ambush is
// named to everyone.
func TestAmbushedCardIsNotNarrated(t *testing.T) {
	s := newTest(t, 3, 0)
	place(s, 0, northMarket, 2)
	place(s, 1, northMarket, 2)
	give(s, 0, milDeck, milKind(s, kAmbush))
	give(s, 1, milDeck, milKind(s, kBarricade))
	must(t, s, 0, act(opAttack, northMarket, 1))
	prev := s.clone()
	a := milAct(s, 0, milKind(s, kAmbush))
	must(t, s, 0, a)
	for seat := -1; seat < 3; seat++ {
		if w := prev.Narrate(s, engine.SeatActor(0), a, seat).What; w != "Play Ambush" {
			t.Fatalf("seat %d is told %q of the attacker's card", seat+1, w)
		}
	}
	prev = s.clone()
	a = milAct(s, 1, milKind(s, kBarricade))
	must(t, s, 1, a)
	for seat := -1; seat < 3; seat++ {
		w := prev.Narrate(s, engine.SeatActor(1), a, seat).What
		if named := strings.Contains(w, "Barricade"); named != (seat == 1) {
			t.Fatalf("seat %d is told %q of the ambushed defender's card", seat+1, w)
		}
	}
}

// TestNarrationCountsPawns: Recruits puts a free pawn on its player's
// START; the history tells everyone so, with the count the status line
// shows ("+1 pawn (now 4 of 11)"), where it said only "Play Recruits".
func TestNarrationCountsPawns(t *testing.T) {
	s := newTest(t, 3, 0)
	give(s, 0, econDeck, econKind(s, kRecruits))
	before := s.View(0).(*View).Players[0]
	prev := s.clone()
	a := econAct(s, 0, econKind(s, kRecruits))
	must(t, s, 0, a)
	after := s.View(0).(*View).Players[0]
	if after.Active != before.Active+1 {
		t.Fatalf("Recruits took the pawns in play from %d to %d", before.Active, after.Active)
	}
	want := fmt.Sprintf("Seat 1: +1 pawn (now %d of %d)", after.Active, after.Limit)
	for seat := -1; seat < 3; seat++ {
		if o := prev.Narrate(s, engine.SeatActor(0), a, seat).Outcome; !strings.Contains(o, want) {
			t.Errorf("seat %d is told %q, want %q", seat+1, o, want)
		}
	}
}
