package crypto

import "testing"

// TestForSlotSaysWhatSeqCounts: a message about two envelopes for one
// slot says what the slot is in a player's words, for every kind.
func TestForSlotSaysWhatSeqCounts(t *testing.T) {
	for _, c := range []struct {
		k    Kind
		seq  uint64
		want string
	}{
		{KindAction, 4, " for step 4"},
		{KindSettle, 29, " for step 29"},
		{KindDrop, 7, " for step 7"},
		{KindReveal, 3, " for beacon round 3"},
		{KindShuffle, 2, " for shuffle chain 2"},
		{KindShare, 0, " for card batch 0"},
		{KindCardKey, 0, ""},
		{KindPiece, 258, " (seq 258)"},
	} {
		if got := c.k.ForSlot(c.seq); got != c.want {
			t.Errorf("%s at seq %d: %q, want %q", c.k, c.seq, got, c.want)
		}
	}
	for k := KindJoin; k <= LastKind; k++ {
		if k.ForSlot(5) == "" {
			t.Errorf("%s at seq 5 names no slot", k)
		}
	}
}

// TestWithArticleReadsAsEnglish: "an action", never "a action", in the
// messages that name a kind.
func TestWithArticleReadsAsEnglish(t *testing.T) {
	for _, c := range []struct {
		k    Kind
		want string
	}{
		{KindAction, "an action"},
		{KindAccept, "an accept"},
		{KindEscrow, "an escrow"},
		{KindEvidence, "an evidence"},
		{KindShare, "a share"},
		{KindCardKey, "a card-key"},
		{Kind(200), "a kind(200)"},
	} {
		if got := c.k.WithArticle(); got != c.want {
			t.Errorf("%s: %q, want %q", c.k, got, c.want)
		}
	}
}
