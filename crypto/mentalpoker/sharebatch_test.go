package mentalpoker

import (
	"errors"
	"testing"
)

// shareChecks makes seat's honest shares of the first n cards of deck,
// one context slot per card, as one share envelope holds them.
func shareChecks(t *testing.T, tb *table, seat int, deck Deck, n int) []ShareCheck {
	t.Helper()
	rnd := seeded(byte(40 + seat))
	var cs []ShareCheck
	for i := range n {
		ctx := testCtx("share", 70)
		ctx.Slot = uint32(i)
		sh, err := MakeShare(rnd, ctx, seat, tb.sks[seat], deck[i])
		if err != nil {
			t.Fatal(err)
		}
		cs = append(cs, ShareCheck{Ctx: ctx, CT: deck[i], Share: sh.Bytes()})
	}
	return cs
}

// TestVerifySharesHonest: a batch of honest shares checks, and gives the
// shares VerifyShare gives one by one (they open the card).
func TestVerifySharesHonest(t *testing.T) {
	tb := newTable(t, 2, seeded(31))
	deck := tb.shuffled(t, 6, seeded(32))
	cs := shareChecks(t, tb, 1, deck, 5)
	got, bad, err := VerifyShares(1, tb.pks[1], cs)
	if err != nil || bad != -1 || len(got) != 5 {
		t.Fatalf("honest shares: %d shares, bad %d, %v", len(got), bad, err)
	}
	for i, c := range cs {
		one, err := VerifyShare(c.Ctx, 1, tb.pks[1], c.CT, c.Share)
		if err != nil {
			t.Fatal(err)
		}
		if got[i].Seat() != 1 || string(got[i].Bytes()) != string(one.Bytes()) || !got[i].d.Equal(one.d) || !got[i].ct.Equal(c.CT) {
			t.Errorf("share %d of the batch differs from VerifyShare's", i)
		}
		if _, err := OpenPrivate(tb.sks[0], 0, c.CT, []Share{got[i]}, 2, 6); err != nil {
			t.Errorf("card %d does not open with its batch-checked share: %v", i, err)
		}
	}
}

// TestVerifySharesNamesTheFirstBad: a batch with wrong shares in it is
// refused, naming the first wrong one with VerifyShare's own error.
func TestVerifySharesNamesTheFirstBad(t *testing.T) {
	tb := newTable(t, 3, seeded(33))
	deck := tb.shuffled(t, 6, seeded(34))
	for _, tc := range []struct {
		name   string
		spoil  func(cs []ShareCheck)
		first  int
		target error
	}{
		{"another seat's share", func(cs []ShareCheck) { cs[2].Share = shareChecks(t, tb, 2, deck, 5)[2].Share }, 2, ErrInvalidProof},
		{"a share point nudged by G", func(cs []ShareCheck) {
			d, _ := decodePoint(cs[3].Share[:PointLen], false)
			copy(cs[3].Share, pointBytes(addPoint(d, base.Point().Base())))
		}, 3, ErrInvalidProof},
		{"two swapped proofs", func(cs []ShareCheck) {
			p1 := append([]byte(nil), cs[1].Share[PointLen:]...)
			copy(cs[1].Share[PointLen:], cs[4].Share[PointLen:])
			copy(cs[4].Share[PointLen:], p1)
		}, 1, ErrInvalidProof},
		{"a truncated share", func(cs []ShareCheck) { cs[4].Share = cs[4].Share[:ShareLen-1] }, 4, ErrMalformed},
		{"a response scalar ≥ L", func(cs []ShareCheck) { addL(cs[0].Share[ShareLen-ScalarLen:]) }, 0, ErrMalformed},
		{"the wrong card", func(cs []ShareCheck) { cs[2].CT = deck[5] }, 2, ErrInvalidProof},
	} {
		cs := shareChecks(t, tb, 1, deck, 5)
		tc.spoil(cs)
		_, bad, err := VerifyShares(1, tb.pks[1], cs)
		_, want := VerifyShare(cs[tc.first].Ctx, 1, tb.pks[1], cs[tc.first].CT, cs[tc.first].Share)
		if bad != tc.first || !errors.Is(err, tc.target) || want == nil || err.Error() != want.Error() {
			t.Errorf("%s: bad %d (want %d), %v (want %v)", tc.name, bad, tc.first, err, want)
		}
	}
}

// TestVerifySharesErrorsDoNotCancel: two shares of one card whose
// responses are moved by +1 and −1 fail their equations by G and C1, and
// by −G and −C1, which a plain sum of the equations would cancel; the
// weighted batch does not.
func TestVerifySharesErrorsDoNotCancel(t *testing.T) {
	tb := newTable(t, 2, seeded(35))
	deck := tb.shuffled(t, 4, seeded(36))
	cs := shareChecks(t, tb, 1, deck, 2)
	sh, err := MakeShare(seeded(37), cs[1].Ctx, 1, tb.sks[1], deck[0])
	if err != nil {
		t.Fatal(err)
	}
	cs[1].CT, cs[1].Share = deck[0], sh.Bytes()
	one := base.Scalar().One()
	for i, d := range []int{+1, -1} {
		rb := cs[i].Share[ShareLen-ScalarLen:]
		r, err := decodeScalar(rb)
		if err != nil {
			t.Fatal(err)
		}
		if d > 0 {
			r.Add(r, one)
		} else {
			r.Sub(r, one)
		}
		copy(rb, scalarBytes(r))
	}
	if _, bad, err := VerifyShares(1, tb.pks[1], cs); bad != 0 || !errors.Is(err, ErrInvalidProof) {
		t.Fatalf("responses moved by +1 and −1: bad %d, %v", bad, err)
	}
}
