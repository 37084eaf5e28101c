package serpentcity

import (
	"testing"

	"github.com/boardmesh/boardmesh/engine"
)

func TestPriceListIsPaidPerPawn(t *testing.T) {
	s := newTest(t, 2, 12)
	s.pl[0].res = [nRes]int{5, 5, 5, 5, 2}
	s.pl[0].start = 0
	s.pl[0].road[1] = 2
	must(t, s, 0, act(opEnter, northMarket))
	must(t, s, 0, act(opEnter, northMarket))
	if s.mp != 10 || s.pl[0].res[Coin] != 3 {
		t.Fatalf("two entries cost %d MP and %d Coin", 12-s.mp, 5-s.pl[0].res[Coin])
	}
	place(s, 0, southMarket, 1)
	must(t, s, 0, act(opLeave, southMarket))
	if s.mp != 9 || s.pl[0].res[Fuel] != 4 {
		t.Fatalf("a return cost %d MP and %d Fuel", 10-s.mp, 5-s.pl[0].res[Fuel])
	}
	place(s, 0, southMarket, 1)
	s.pl[0].res = [nRes]int{3, 3, 3, 3, 1}
	must(t, s, 0, act(opPromote, southMarket))
	if s.mp != 7 || s.pl[0].res != [nRes]int{} {
		t.Fatalf("promotion left %d MP and %v", s.mp, s.pl[0].res)
	}
}

func TestPurchasesMayBeRepeatedInATurn(t *testing.T) {
	s := newTest(t, 2, 0)
	s.pl[0].res = [nRes]int{9, 9, 9, 9, 0}
	s.pl[0].start = 1
	must(t, s, 0, act(opBuyPawn))
	must(t, s, 0, act(opBuyPawn))
	must(t, s, 0, act(opBuyPawn))
	mustNot(t, s, 0, act(opBuyPawn)) // START slots full
	for i := 0; i < 2; i++ {
		must(t, s, 0, act(opBuyCard, milDeck))
		chance(t, s, engine.Derive([]byte("buy"), "", uint64(i)))
	}
	if s.pl[0].start != 4 || s.handCount(0, milDeck) != 2 || s.ph != phMain {
		t.Fatalf("START %d, %d cards", s.pl[0].start, s.handCount(0, milDeck))
	}
}

func TestTunnelsAndConvoyOnTerritories(t *testing.T) {
	// Tunnels: 2 pawns here + 2 on the twin Market = 4 against level III's 3+1.
	s := newTest(t, 2, 0)
	s.pl[0].start = 5
	place(s, 0, northMarket, 2)
	place(s, 0, southMarket, 2)
	place(s, 1, northMarket, 3)
	give(s, 0, milDeck, milKind(s, kTunnels))
	if w := fight(t, s, 0, 1, northMarket, milKind(s, kTunnels), -1); w != 1 {
		t.Fatal("4 : 4 is the defender's")
	}
	s = newTest(t, 2, 0)
	s.pl[0].start = 5
	place(s, 0, northMarket, 2)
	place(s, 0, southMarket, 3)
	place(s, 1, northMarket, 3)
	give(s, 0, milDeck, milKind(s, kTunnels))
	if w := fight(t, s, 0, 1, northMarket, milKind(s, kTunnels), -1); w != 0 {
		t.Fatal("5 : 4 with Tunnels should win")
	}
	// Convoy: +2.
	s = newTest(t, 2, 0)
	place(s, 0, northMarket, 1)
	place(s, 1, northMarket, 2)
	give(s, 0, milDeck, milKind(s, kConvoy))
	if w := fight(t, s, 0, 1, northMarket, milKind(s, kConvoy), -1); w != 0 {
		t.Fatal("1+2 : 2 with Convoy should win")
	}
}

func TestEconomicCardEffects(t *testing.T) {
	s := newTest(t, 3, 3)
	play := func(key string, args ...int32) {
		t.Helper()
		k := econKind(s, key)
		give(s, 0, econDeck, k)
		s.econPlayed = false
		must(t, s, 0, econAct(s, 0, k, args...))
	}
	play(kPatronage)
	if s.pl[0].ip != 1 || s.pl[0].src[srcCards] != 1 {
		t.Fatal("Patronage gives 1 IP")
	}
	play(kExpress)
	if s.mp != 7 {
		t.Fatalf("Express: %d MP", s.mp)
	}
	s.pl[1].res = [nRes]int{0, 3, 1, 0, 5}
	s.pl[2].res = [nRes]int{2, 2, 0, 0, 0}
	before := s.pl[0].res
	play(kLevy)
	if s.pl[1].res[Weapon] != 2 || s.pl[2].res[Coin] != 1 || s.pl[0].res[Weapon] != before[Weapon]+1 || s.pl[0].res[Coin] != before[Coin]+1 {
		t.Fatalf("Levy: %v %v %v", s.pl[0].res, s.pl[1].res, s.pl[2].res)
	}
	place(s, 1, southMarket, 2)
	play(kEviction, southMarket, 1)
	if s.pl[1].terr[southMarket] != 1 || s.pl[1].road[s.cfg.troad[southMarket]] != 1 {
		t.Fatal("Eviction sends one pawn to the Road")
	}
	s.pl[0].start = 3
	play(kRecruits)
	if s.pl[0].start != 4 {
		t.Fatal("Recruits adds a pawn on START")
	}
	k := econKind(s, kRecruits)
	give(s, 0, econDeck, k)
	s.econPlayed = false
	mustNot(t, s, 0, econAct(s, 0, k)) // START full
	play(kArchitect)
	if !s.pl[0].architect {
		t.Fatal("Architect")
	}
}
