package dragonslair

import "testing"

// The two worked examples of the rules.

func TestExampleMariaEscapesWithEight(t *testing.T) {
	s := table(t, 4)
	draws(t, s, cardNecklace)
	if s.bagValue() != 2 || s.hall != 1 {
		t.Fatalf("after the Necklace: bag %d in hall %d, want 2 in hall 1", s.bagValue(), s.hall)
	}
	draws(t, s, cardCrown)
	if s.bagValue() != 7 || s.hall != 2 {
		t.Fatalf("after the Crown: bag %d in hall %d, want 7 in hall 2", s.bagValue(), s.hall)
	}
	draws(t, s, cardClink)
	if s.phase != phaseCard || s.noises() != 1 || s.hall != 3 {
		t.Fatalf("the first noise should do no harm: phase %d, noises %d, hall %d", s.phase, s.noises(), s.hall)
	}
	do(t, s, opEscape)
	if gold(s, 0) != 8 {
		t.Fatalf("Maria escaped with %d gold, want 2 + 5 + 1 = 8", gold(s, 0))
	}
	if s.hall != 0 || s.cur != 1 || s.dragon != 0 {
		t.Fatalf("after the escape: hall %d, next seat %d, dragon %d; want 0, 1, 0", s.hall, s.cur, s.dragon)
	}
	if s.discard[cardNecklace] != 1 || s.discard[cardCrown] != 1 || s.discard[cardClink] != 1 {
		t.Fatal("the cards of the turn did not go to the discards")
	}
	checkInvariant(t, s)
}

func TestExampleBorisBustsAndTheDragonMoves(t *testing.T) {
	s := table(t, 4)
	s.seats[0].score = 10
	draws(t, s, cardScepter, cardCrunch, cardCrown)
	if s.bagValue() != 9 || s.hall != 3 {
		t.Fatalf("bag %d in hall %d, want 9 in hall 3", s.bagValue(), s.hall)
	}
	draws(t, s, cardSneeze)
	if gold(s, 0) != 10 {
		t.Fatalf("Boris has %d gold, want the 10 he had before the turn", gold(s, 0))
	}
	if s.dragon != 1 {
		t.Fatalf("dragon on %d, want 1", s.dragon)
	}
	if s.hall != 0 || s.cur != 1 || s.phase != phaseStart {
		t.Fatalf("the turn did not pass on: hall %d, seat %d, phase %d", s.hall, s.cur, s.phase)
	}
	for _, c := range []card{cardScepter, cardCrunch, cardCrown, cardSneeze} {
		if s.discard[c] != 1 {
			t.Fatalf("%s not in the discards", c)
		}
	}
	checkInvariant(t, s)
}
