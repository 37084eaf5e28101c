package mentalpoker

import (
	"bytes"
	"errors"
	"testing"
)

// TestPreparedShuffleIsTheShuffle: a shuffle prepared before its deck is
// known, with other randomness drawn from the same reader in between (a
// seat makes shares while it waits), is a valid shuffle; and every product
// prepared for kyber's prover is the one it asks for, so the preparation
// takes the work it promises off the proof (a prover asking in another
// order would still be right, only as slow as before).
func TestPreparedShuffleIsTheShuffle(t *testing.T) {
	rnd := seeded(61)
	tb := newTable(t, 3, rnd)
	in := tb.shuffled(t, 12, rnd)
	prep, err := PrepareShuffle(rnd, tb.joint, len(in))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := MakeShare(rnd, testCtx("draw", 3), 0, tb.sks[0], in[0]); err != nil {
		t.Fatal(err)
	}
	ctx := testCtx("shuffle", 20)
	out, prf, err := prep.Shuffle(ctx, 1, in)
	if err != nil {
		t.Fatal(err)
	}
	if err := VerifyShuffle(ctx, 1, tb.joint, in, out, prf); err != nil {
		t.Fatalf("a prepared shuffle does not verify: %v", err)
	}
	if got, want := prep.memo.next, len(prep.memo.items); got != want {
		t.Errorf("kyber's prover took %d of the %d prepared products", got, want)
	}
	if want := 4*len(in) + 3; len(prep.memo.items) != want {
		t.Errorf("%d products prepared for %d cards, want %d", len(prep.memo.items), len(in), want)
	}
}

// TestPreparedShuffleSameBytes: for the same reader, preparing first and
// shuffling later gives the bytes Shuffle gives (the golden vectors' path).
func TestPreparedShuffleSameBytes(t *testing.T) {
	tb := newTable(t, 2, seeded(62))
	in := tb.shuffled(t, 9, seeded(63))
	ctx := testCtx("shuffle", 21)
	out1, prf1, err := Shuffle(seeded(64), ctx, 0, tb.joint, in)
	if err != nil {
		t.Fatal(err)
	}
	prep, err := PrepareShuffle(seeded(64), tb.joint, len(in))
	if err != nil {
		t.Fatal(err)
	}
	out2, prf2, err := prep.Shuffle(ctx, 0, in)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out1.Bytes(), out2.Bytes()) || !bytes.Equal(prf1, prf2) {
		t.Error("a prepared shuffle differs from Shuffle's with the same randomness")
	}
}

// TestPreparedShuffleUsedOnce: its masks and nonces are secrets of one
// proof (two proofs with the same nonces give the permutation away), so
// a second use is refused; so is a deck of another size, and For tells
// the caller which key and size it was made for.
func TestPreparedShuffleUsedOnce(t *testing.T) {
	rnd := seeded(65)
	tb := newTable(t, 2, rnd)
	other := newTable(t, 2, rnd)
	in := tb.shuffled(t, 6, rnd)
	prep, err := PrepareShuffle(rnd, tb.joint, len(in))
	if err != nil {
		t.Fatal(err)
	}
	if !prep.For(tb.joint, 6) || prep.For(tb.joint, 7) || prep.For(other.joint, 6) {
		t.Error("For does not tell the key and size a shuffle was prepared for")
	}
	if _, _, err := prep.Shuffle(testCtx("shuffle", 1), 0, in[:5]); !errors.Is(err, ErrBadInput) {
		t.Errorf("a deck of 5 cards for a shuffle prepared for 6: %v", err)
	}
	if _, _, err := prep.Shuffle(testCtx("shuffle", 1), 0, in); err != nil {
		t.Fatal(err)
	}
	if _, _, err := prep.Shuffle(testCtx("shuffle", 2), 0, in); !errors.Is(err, ErrBadInput) {
		t.Errorf("a prepared shuffle used twice: %v", err)
	}
	if prep.For(tb.joint, 6) {
		t.Error("For still offers a used preparation")
	}
	if _, err := PrepareShuffle(rnd, tb.joint, 1); !errors.Is(err, ErrBadInput) {
		t.Errorf("a shuffle prepared for one card: %v", err)
	}
}
