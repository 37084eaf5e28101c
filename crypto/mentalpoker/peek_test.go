package mentalpoker

import "testing"

// opensWithPosted reports whether the posted shares of every seat together
// open ct: what a third seat, holding nothing but the public record, can do.
func opensWithPosted(ct Ciphertext, posted []Share, nCards int) bool {
	sum := base.Point().Null()
	for _, s := range posted {
		sum.Add(sum, s.d)
	}
	_, err := cardOf(base.Point().Sub(ct.c2, sum), nCards)
	return err == nil
}

// sharesOf indexes shares by seat.
func sharesOf(shares []Share) map[int]Share {
	m := map[int]Share{}
	for _, s := range shares {
		m[s.seat] = s
	}
	return m
}

// TestPeekAndPassNeedRemask shows why a peek works on a proved re-masking
// and why a card changing hands is re-masked first: without it, the shares
// posted for the first look and those posted for the second together open
// the card for every seat; with it, they open nothing.
func TestPeekAndPassNeedRemask(t *testing.T) {
	const seats, cards = 3, 10
	rnd := seeded(50)
	tb := newTable(t, seats, rnd)
	deck := tb.shuffled(t, cards, rnd)

	// Naive peek: seat 1 peeks at deck[0] directly (seats 2, 3 post), then
	// seat 2 draws it (seats 1, 3 post). The public record now holds a
	// share from every seat for the same ciphertext.
	peek := tb.sharesFor(t, testCtx("peek", 1), deck[0], 0, rnd)
	draw := tb.sharesFor(t, testCtx("draw", 2), deck[0], 1, rnd)
	record := append(append([]Share(nil), draw...), sharesOf(peek)[1])
	if !opensWithPosted(deck[0], record, cards) {
		t.Fatal("the naive peek did not leak: the premise of the test is wrong")
	}

	// The protocol's peek: seat 1 re-masks a copy with proof and the others
	// post shares of the copy. Seat 2's later draw of the original and the
	// peek's shares together open neither the original nor the copy.
	ctx := testCtx("peek", 3)
	cp, prf, err := RemaskProved(rnd, ctx, 0, tb.joint, deck[1])
	if err != nil {
		t.Fatal(err)
	}
	if err := VerifyRemask(ctx, 0, tb.joint, deck[1], cp, prf); err != nil {
		t.Fatal(err)
	}
	peek = tb.sharesFor(t, ctx, cp, 0, rnd)
	draw = tb.sharesFor(t, testCtx("draw", 4), deck[1], 1, rnd)
	if opensWithPosted(deck[1], append(append([]Share(nil), draw...), sharesOf(peek)[1]), cards) {
		t.Error("the original opens from the public record after a proper peek")
	}
	if opensWithPosted(cp, append(append([]Share(nil), peek...), sharesOf(draw)[0]), cards) {
		t.Error("the peeked copy opens from the public record")
	}

	// Passing a card: seat 1 drew deck[2] (seats 2, 3 posted), then gives
	// it to seat 2. Re-masked first, seat 2's draw shares (seats 1, 3) and
	// the earlier ones open nothing for seat 3; seat 2 can open it.
	first := tb.sharesFor(t, testCtx("draw", 5), deck[2], 0, rnd)
	pctx := testCtx("pass", 6)
	passed, pprf, err := RemaskProved(rnd, pctx, 0, tb.joint, deck[2])
	if err != nil {
		t.Fatal(err)
	}
	if err := VerifyRemask(pctx, 0, tb.joint, deck[2], passed, pprf); err != nil {
		t.Fatal(err)
	}
	second := tb.sharesFor(t, testCtx("draw", 7), passed, 1, rnd)
	if opensWithPosted(passed, append(append([]Share(nil), second...), sharesOf(first)[1]), cards) {
		t.Error("the passed card opens from the public record")
	}
	got, err := OpenPrivate(tb.sks[1], 1, passed, second, seats, cards)
	want, _ := OpenPrivate(tb.sks[0], 0, deck[2], first, seats, cards)
	if err != nil || got != want {
		t.Errorf("seat 2 opens the passed card as %d (%v), seat 1 had %d", got, err, want)
	}
}
