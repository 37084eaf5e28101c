package dragonslair

import "testing"

// TestElfTrackerWordsCount: the Elf Tracker's choice and its history line
// say how many noises went under the deck in words ("no noise", "the
// noise", "2 noises"), where they said "0 noise(s)"; a raven or a hideout
// that finds no gold says so, where it said "took 0 gold".
func TestElfTrackerWordsCount(t *testing.T) {
	st, err := Game.Setup(3, nil)
	if err != nil {
		t.Fatal(err)
	}
	s := st.(*State)
	for mask, want := range map[int]string{
		0:      "Send no noise under the deck",
		0b0100: "Send the noise among the cards you saw under the deck",
		0b0101: "Send the 2 noises among the cards you saw under the deck",
	} {
		if got := s.Describe(actArg(opElfUnder, mask)); got != want {
			t.Errorf("mask %04b: %q, want %q", mask, got, want)
		}
	}
	for n, want := range map[int32]string{
		0: "seat 2's Elf Tracker sent no noise under the deck",
		1: "seat 2's Elf Tracker sent 1 noise under the deck",
		3: "seat 2's Elf Tracker sent 3 noises under the deck",
	} {
		if got := s.eventText(last{ev: evElf, seat: 1, amount: n}); got != want {
			t.Errorf("%d noises: %q, want %q", n, got, want)
		}
	}
	for ev, want := range map[event]string{
		evRaven:   "seat 2's raven found no gold on seat 3",
		evHideout: "seat 2 had no gold to hide in the hideout",
	} {
		if got := s.eventText(last{ev: ev, seat: 1, other: 2}); got != want {
			t.Errorf("%q, want %q", got, want)
		}
	}
}
