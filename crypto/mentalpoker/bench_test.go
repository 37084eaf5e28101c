package mentalpoker

import (
	"fmt"
	"testing"
)

// Run on one core: go test -run XXX -bench . -cpu 1 ./crypto/mentalpoker/

var benchDecks = []int{10, 52, 72, 120}

func BenchmarkShuffleProve(b *testing.B) {
	for _, n := range benchDecks {
		b.Run(fmt.Sprintf("cards=%d", n), func(b *testing.B) {
			rnd := seeded(40)
			tb := newTable(b, 2, rnd)
			in := tb.shuffled(b, n, rnd)
			ctx := testCtx("shuffle", 1)
			var prf []byte
			b.ResetTimer()
			for b.Loop() {
				var err error
				if _, prf, err = Shuffle(rnd, ctx, 0, tb.joint, in); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(prf)), "proof-bytes")
			b.ReportMetric(float64(len(prf)+n*CiphertextLen), "deck+proof-bytes")
		})
	}
}

func BenchmarkShuffleVerify(b *testing.B) {
	for _, n := range benchDecks {
		b.Run(fmt.Sprintf("cards=%d", n), func(b *testing.B) {
			rnd := seeded(41)
			tb := newTable(b, 2, rnd)
			in := tb.shuffled(b, n, rnd)
			ctx := testCtx("shuffle", 1)
			out, prf, err := Shuffle(rnd, ctx, 0, tb.joint, in)
			if err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for b.Loop() {
				if err := VerifyShuffle(ctx, 0, tb.joint, in, out, prf); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSetup is the critical path of a table's setup with a 120-card
// deck, as if every peer had its own core and the network were free: every
// seat's key and Schnorr proof (each verified once, as every peer verifies
// in parallel), every escrow made and checked, then the shuffle chain, each
// seat shuffling after checking the previous seat's proof.
func BenchmarkSetup(b *testing.B) {
	const cards = 120
	for _, peers := range []int{2, 4, 8} {
		b.Run(fmt.Sprintf("peers=%d", peers), func(b *testing.B) {
			rnd := seeded(42)
			for b.Loop() {
				ctx := testCtx("setup", 1)
				sks := make([]*SecretKey, peers)
				pks := make([]PublicKey, peers)
				for s := range sks {
					sk, err := GenerateKey(rnd)
					if err != nil {
						b.Fatal(err)
					}
					prf, err := ProveKey(rnd, ctx, s, sk)
					if err != nil {
						b.Fatal(err)
					}
					if err := VerifyKey(ctx, s, sk.Public(), prf); err != nil {
						b.Fatal(err)
					}
					sks[s], pks[s] = sk, sk.Public()
				}
				joint, err := JointKey(pks)
				if err != nil {
					b.Fatal(err)
				}
				if peers >= 3 {
					for d := range sks {
						esc, err := MakeEscrow(rnd, ctx, d, sks[d], pks)
						if err != nil {
							b.Fatal(err)
						}
						e, err := ParseEscrow(ctx, d, pks, esc)
						if err != nil {
							b.Fatal(err)
						}
						if _, err := e.Open((d+1)%peers, sks[(d+1)%peers]); err != nil {
							b.Fatal(err)
						}
					}
				}
				deck, _ := OpenDeck(cards)
				for s := range sks {
					sctx := ctx
					sctx.Seq = uint64(2 + s)
					out, prf, err := Shuffle(rnd, sctx, s, joint, deck)
					if err != nil {
						b.Fatal(err)
					}
					if err := VerifyShuffle(sctx, s, joint, deck, out, prf); err != nil {
						b.Fatal(err)
					}
					deck = out
				}
			}
		})
	}
}

func BenchmarkKeyProof(b *testing.B) {
	rnd := seeded(43)
	sk, _ := GenerateKey(rnd)
	ctx := testCtx("setup", 1)
	prf, _ := ProveKey(rnd, ctx, 0, sk)
	b.Run("prove", func(b *testing.B) {
		for b.Loop() {
			if _, err := ProveKey(rnd, ctx, 0, sk); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(len(prf)), "proof-bytes")
	})
	b.Run("verify", func(b *testing.B) {
		for b.Loop() {
			if err := VerifyKey(ctx, 0, sk.Public(), prf); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkDraw: one decryption share made and checked, and the drawer's
// private opening at a 4-seat table with a 120-card deck.
func BenchmarkDraw(b *testing.B) {
	rnd := seeded(44)
	tb := newTable(b, 4, rnd)
	deck := tb.shuffled(b, 120, rnd)
	ctx := testCtx("draw", 1)
	sh, _ := MakeShare(rnd, ctx, 1, tb.sks[1], deck[0])
	b.Run("share-make", func(b *testing.B) {
		for b.Loop() {
			if _, err := MakeShare(rnd, ctx, 1, tb.sks[1], deck[0]); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(len(sh.Bytes())), "share-bytes")
	})
	b.Run("share-verify", func(b *testing.B) {
		for b.Loop() {
			if _, err := VerifyShare(ctx, 1, tb.pks[1], deck[0], sh.Bytes()); err != nil {
				b.Fatal(err)
			}
		}
	})
	others := tb.sharesFor(b, ctx, deck[0], 0, rnd)
	b.Run("open-private", func(b *testing.B) {
		for b.Loop() {
			if _, err := OpenPrivate(tb.sks[0], 0, deck[0], others, 4, 120); err != nil {
				b.Fatal(err)
			}
		}
	})
}
