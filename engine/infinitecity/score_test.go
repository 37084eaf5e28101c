package infinitecity

import (
	"testing"
)

// TestSeedScoringExample builds the scoring example of the rules: Paulina
// (red, seat 0) has groups of 5 and 3 tiles, Maciej (blue, seat 1) one of
// 3, and they share a Police HQ. Paulina: 8 from groups, 1 bonus for the
// Police HQ, and one ring tile (her Construction Site). Maciej: 3 from his
// group, 1 bonus for each of his two Power Stations and 1 for the Police
// HQ, and two ring tiles (the Power Stations), so the ring bonus of 2.
// Paulina wins 9 to 8.
func TestSeedScoringExample(t *testing.T) {
	s := table(t, 2)
	// Paulina's group of five.
	s.put(t, 0, 0, "Factory", 1, 0)
	s.put(t, 1, 0, "Housing", 1, 0)
	s.put(t, 2, 0, "Factory", 1, 0)
	s.put(t, 3, 0, "Housing", 1, 0)
	s.put(t, 4, 0, "Construction Site", 1, 0)
	// An uncontrolled tile joins the two rows of the city.
	s.put(t, 0, 1, "Factory")
	// Paulina's group of three, with the shared Police HQ.
	s.put(t, 0, 2, "Police HQ", 1, 1)
	s.put(t, 1, 2, "Factory", 1, 0)
	s.put(t, 2, 2, "Housing", 1, 0)
	// Maciej's group of three: Police HQ and two Power Stations.
	s.put(t, -1, 2, "Power Station", 0, 1)
	s.put(t, 0, 3, "Power Station", 0, 1)
	valid(t, s)

	sc := s.Scores()
	p, m := sc[0], sc[1]
	if p.Groups != 8 || m.Groups != 3 {
		t.Fatalf("group points: Paulina %d, Maciej %d; want 8 and 3", p.Groups, m.Groups)
	}
	if p.Bonus != 1 || m.Bonus != 3 {
		t.Fatalf("bonus points: Paulina %d, Maciej %d; want 1 and 3", p.Bonus, m.Bonus)
	}
	if p.Rings != 1 || m.Rings != 2 || p.RingBonus != 0 || m.RingBonus != 2 {
		t.Fatalf("rings: Paulina %d (+%d), Maciej %d (+%d); want 1 (+0) and 2 (+2)", p.Rings, p.RingBonus, m.Rings, m.RingBonus)
	}
	if p.Total != 9 || m.Total != 8 {
		t.Fatalf("totals: Paulina %d, Maciej %d; want 9 and 8", p.Total, m.Total)
	}
	r := s.Result()
	if len(r.Winners) != 1 || r.Winners[0] != 0 || r.Scores[0] != 9 || r.Scores[1] != 8 {
		t.Fatalf("result %+v, want Paulina (seat 0) winning 9 to 8", r)
	}
}

func TestGroupsOfTwoDoNotScoreAndExtraMarkersCountOnce(t *testing.T) {
	s := table(t, 2)
	s.put(t, 0, 0, "Factory", 3, 0) // three markers of one player: still one tile
	s.put(t, 1, 0, "Factory", 1, 0)
	s.put(t, 2, 0, "Factory")
	s.put(t, 3, 0, "Factory", 0, 1)
	s.put(t, 4, 0, "Factory", 0, 1)
	s.put(t, 5, 0, "Factory", 0, 1)
	valid(t, s)
	sc := s.Scores()
	if sc[0].Groups != 0 || sc[0].Largest != 2 || sc[1].Groups != 3 {
		t.Fatalf("groups: seat 0 %d (largest %d), seat 1 %d; want 0 (2) and 3", sc[0].Groups, sc[0].Largest, sc[1].Groups)
	}
}

func TestRingBonusTiesAllScore(t *testing.T) {
	s := table(t, 3)
	s.put(t, 0, 0, "Temple", 1, 0, 0)
	s.put(t, 1, 0, "Hotel", 0, 1, 0)
	s.put(t, 2, 0, "Factory", 0, 0, 1)
	valid(t, s)
	sc := s.Scores()
	if sc[0].RingBonus != 1 || sc[1].RingBonus != 1 || sc[2].RingBonus != 0 {
		t.Fatalf("ring bonus %d %d %d, want 1 1 0", sc[0].RingBonus, sc[1].RingBonus, sc[2].RingBonus)
	}
}

func TestTieGoesToTheLargestGroupThenIsShared(t *testing.T) {
	s := table(t, 2)
	// Seat 0: a group of 4, 4 points. Seat 1: a group of 3 with an
	// Arboretum (+1), also 4 points; seat 0's larger group wins.
	s.put(t, 0, 0, "Factory", 1, 0)
	s.put(t, 1, 0, "Factory", 1, 0)
	s.put(t, 2, 0, "Factory", 1, 0)
	s.put(t, 3, 0, "Factory", 1, 0)
	s.put(t, 0, 1, "Factory", 0, 1)
	s.put(t, 1, 1, "Factory", 0, 1)
	s.put(t, 2, 1, "Arboretum", 0, 1)
	valid(t, s)
	r := s.Result()
	if r.Scores[0] != 4 || r.Scores[1] != 4 || len(r.Winners) != 1 || r.Winners[0] != 0 {
		t.Fatalf("result %+v: want 4 to 4 won by seat 0's group of 4", r)
	}
	// Equal groups too: a shared win.
	s = table(t, 2)
	s.put(t, 0, 0, "Factory", 1, 0)
	s.put(t, 1, 0, "Factory", 1, 0)
	s.put(t, 2, 0, "Factory", 1, 0)
	s.put(t, 0, 1, "Factory", 0, 1)
	s.put(t, 1, 1, "Factory", 0, 1)
	s.put(t, 2, 1, "Factory", 0, 1)
	r = s.Result()
	if len(r.Winners) != 2 {
		t.Fatalf("result %+v: want a shared win", r)
	}
}

func TestFaceDownTilesWithMarkersCountInGroups(t *testing.T) {
	// A face-down tile only carries a marker while it waits to be turned
	// over, or when its player left in that moment; it still belongs to
	// the group, with no bonus.
	s := table(t, 2)
	s.put(t, 0, 0, "Factory", 1, 0)
	s.put(t, 1, 0, "", 1, 0)
	s.put(t, 2, 0, "Factory", 1, 0)
	if sc := s.Scores(); sc[0].Groups != 3 {
		t.Fatalf("group of 3 with a face-down tile scores %d", sc[0].Groups)
	}
}
