package mentalpoker

import (
	"go.dedis.ch/kyber/v4"
	"io"
	"math/rand/v2"
	"testing"
)

// seeded is a reproducible randomness source for tests.
func seeded(seed byte) io.Reader {
	var s [32]byte
	for i := range s {
		s[i] = seed
	}
	return rand.NewChaCha8(s)
}

func testCtx(kind string, seq uint64) Context {
	var c Context
	for i := range c.Session {
		c.Session[i] = 0x5e
	}
	c.Seq, c.Kind = seq, kind
	return c
}

// table is n seats with verified keys and the joint key.
type table struct {
	sks   []*SecretKey
	pks   []PublicKey
	joint PublicKey
}

func newTable(t testing.TB, n int, rnd io.Reader) *table {
	t.Helper()
	tb := &table{}
	ctx := testCtx("setup", 1)
	for seat := 0; seat < n; seat++ {
		sk, err := GenerateKey(rnd)
		if err != nil {
			t.Fatal(err)
		}
		prf, err := ProveKey(rnd, ctx, seat, sk)
		if err != nil {
			t.Fatal(err)
		}
		if err := VerifyKey(ctx, seat, sk.Public(), prf); err != nil {
			t.Fatalf("seat %d's own key proof: %v", seat+1, err)
		}
		tb.sks = append(tb.sks, sk)
		tb.pks = append(tb.pks, sk.Public())
	}
	j, err := JointKey(tb.pks)
	if err != nil {
		t.Fatal(err)
	}
	tb.joint = j
	return tb
}

// shuffled is the open deck of n cards after every seat's verified shuffle.
func (tb *table) shuffled(t testing.TB, n int, rnd io.Reader) Deck {
	t.Helper()
	d, err := OpenDeck(n)
	if err != nil {
		t.Fatal(err)
	}
	for seat := range tb.sks {
		ctx := testCtx("shuffle", uint64(10+seat))
		out, prf, err := Shuffle(rnd, ctx, seat, tb.joint, d)
		if err != nil {
			t.Fatal(err)
		}
		if err := VerifyShuffle(ctx, seat, tb.joint, d, out, prf); err != nil {
			t.Fatalf("seat %d's honest shuffle: %v", seat+1, err)
		}
		d = out
	}
	return d
}

// sharesFor has every seat but skip post a verified share of ct in ctx.
func (tb *table) sharesFor(t testing.TB, ctx Context, ct Ciphertext, skip int, rnd io.Reader) []Share {
	t.Helper()
	var out []Share
	for seat, sk := range tb.sks {
		if seat == skip {
			continue
		}
		s, err := MakeShare(rnd, ctx, seat, sk, ct)
		if err != nil {
			t.Fatal(err)
		}
		v, err := VerifyShare(ctx, seat, tb.pks[seat], ct, s.Bytes())
		if err != nil {
			t.Fatalf("seat %d's honest share: %v", seat+1, err)
		}
		out = append(out, v)
	}
	return out
}

func sumShares(shares []Share) kyber.Point {
	sum := base.Point().Null()
	for _, s := range shares {
		sum.Add(sum, s.d)
	}
	return sum
}
