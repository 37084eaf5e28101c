package mentalpoker

import (
	"fmt"
	"runtime"
	"testing"
)

// measure runs f under b.Loop and also reports the CPU time of the
// benchmark's thread per operation (cpu-ms/op), which other jobs on a
// shared machine disturb far less than the wall time in ns/op.
func measure(b *testing.B, f func()) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	n, t0 := 0, threadCPU()
	for b.Loop() {
		f()
		n++
	}
	if t0 >= 0 && n > 0 {
		b.ReportMetric(float64(threadCPU()-t0)/float64(n)/1e6, "cpu-ms/op")
	}
}

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
			measure(b, func() {
				var err error
				if _, prf, err = Shuffle(rnd, ctx, 0, tb.joint, in); err != nil {
					b.Fatal(err)
				}
			})
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
			measure(b, func() {
				if err := VerifyShuffle(ctx, 0, tb.joint, in, out, prf); err != nil {
					b.Fatal(err)
				}
			})
		})
	}
}

// setupTable makes the keys, proofs and escrows of a table of peers, and
// the shuffle chain of a cards-card deck: everything setup publishes.
type setupTable struct {
	ctx      Context
	sks      []*SecretKey
	pks      []PublicKey
	proofs   [][]byte
	escrows  [][]byte
	joint    PublicKey
	decks    []Deck // decks[s] is the input of seat s's shuffle; decks[n] the result
	shuffles [][]byte
}

func makeSetup(b *testing.B, peers, cards int, verify bool) *setupTable {
	rnd := seeded(42)
	st := &setupTable{ctx: testCtx("setup", 1)}
	for s := 0; s < peers; s++ {
		sk, err := GenerateKey(rnd)
		if err != nil {
			b.Fatal(err)
		}
		prf, err := ProveKey(rnd, st.ctx, s, sk)
		if err != nil {
			b.Fatal(err)
		}
		if verify {
			if err := VerifyKey(st.ctx, s, sk.Public(), prf); err != nil {
				b.Fatal(err)
			}
		}
		st.sks, st.pks, st.proofs = append(st.sks, sk), append(st.pks, sk.Public()), append(st.proofs, prf)
	}
	var err error
	if st.joint, err = JointKey(st.pks); err != nil {
		b.Fatal(err)
	}
	if peers >= 3 {
		for d := range st.sks {
			esc, err := MakeEscrow(rnd, st.ctx, d, st.sks[d], st.pks)
			if err != nil {
				b.Fatal(err)
			}
			if verify {
				e, err := ParseEscrow(st.ctx, d, st.pks, esc)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := e.Open((d+1)%peers, st.sks[(d+1)%peers]); err != nil {
					b.Fatal(err)
				}
			}
			st.escrows = append(st.escrows, esc)
		}
	}
	deck, _ := OpenDeck(cards)
	st.decks = append(st.decks, deck)
	for s := range st.sks {
		out, prf, err := Shuffle(rnd, st.shuffleCtx(s), s, st.joint, deck)
		if err != nil {
			b.Fatal(err)
		}
		if verify {
			if err := VerifyShuffle(st.shuffleCtx(s), s, st.joint, deck, out, prf); err != nil {
				b.Fatal(err)
			}
		}
		st.decks, st.shuffles = append(st.decks, out), append(st.shuffles, prf)
		deck = out
	}
	return st
}

func (st *setupTable) shuffleCtx(seat int) Context {
	c := st.ctx
	c.Seq = uint64(2 + seat)
	return c
}

// BenchmarkSetup measures a table's setup with a 120-card deck, network
// aside, two ways:
//
//   - sequential: the whole table on one core, each seat checking the
//     previous seat's shuffle before shuffling (every key, escrow and
//     shuffle made once and checked once): the setup's critical path if
//     every seat waits for its own check before it shuffles.
//   - one-peer: what one peer computes when the chain is pipelined (each
//     seat shuffles what it receives at once and checks the others' proofs
//     as they come; no card is drawn before every proof checked): check
//     every key and escrow, open its pieces, make its own shuffle, check the
//     n-1 others. With one core per peer the table is ready after about this
//     long (it exceeds the chain of n shuffles at these sizes).
func BenchmarkSetup(b *testing.B) {
	const cards = 120
	for _, peers := range []int{2, 4, 8} {
		b.Run(fmt.Sprintf("peers=%d/sequential", peers), func(b *testing.B) {
			measure(b, func() {
				makeSetup(b, peers, cards, true)
			})
		})
		b.Run(fmt.Sprintf("peers=%d/one-peer", peers), func(b *testing.B) {
			st := makeSetup(b, peers, cards, false)
			me := peers - 1
			rnd := seeded(43)
			measure(b, func() {
				for s := range st.pks {
					if err := VerifyKey(st.ctx, s, st.pks[s], st.proofs[s]); err != nil {
						b.Fatal(err)
					}
				}
				for d, esc := range st.escrows {
					e, err := ParseEscrow(st.ctx, d, st.pks, esc)
					if err != nil {
						b.Fatal(err)
					}
					if d != me {
						if _, err := e.Open(me, st.sks[me]); err != nil {
							b.Fatal(err)
						}
					}
				}
				for s := range st.sks {
					if s == me {
						if _, _, err := Shuffle(rnd, st.shuffleCtx(s), s, st.joint, st.decks[s]); err != nil {
							b.Fatal(err)
						}
						continue
					}
					if err := VerifyShuffle(st.shuffleCtx(s), s, st.joint, st.decks[s], st.decks[s+1], st.shuffles[s]); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}

func BenchmarkKeyProof(b *testing.B) {
	rnd := seeded(43)
	sk, _ := GenerateKey(rnd)
	ctx := testCtx("setup", 1)
	prf, _ := ProveKey(rnd, ctx, 0, sk)
	b.Run("prove", func(b *testing.B) {
		measure(b, func() {
			if _, err := ProveKey(rnd, ctx, 0, sk); err != nil {
				b.Fatal(err)
			}
		})
		b.ReportMetric(float64(len(prf)), "proof-bytes")
	})
	b.Run("verify", func(b *testing.B) {
		measure(b, func() {
			if err := VerifyKey(ctx, 0, sk.Public(), prf); err != nil {
				b.Fatal(err)
			}
		})
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
		measure(b, func() {
			if _, err := MakeShare(rnd, ctx, 1, tb.sks[1], deck[0]); err != nil {
				b.Fatal(err)
			}
		})
		b.ReportMetric(float64(len(sh.Bytes())), "share-bytes")
	})
	b.Run("share-verify", func(b *testing.B) {
		measure(b, func() {
			if _, err := VerifyShare(ctx, 1, tb.pks[1], deck[0], sh.Bytes()); err != nil {
				b.Fatal(err)
			}
		})
	})
	// One share envelope's worth (VerifyShares, as deal checks them): one
	// share, and five (a Dominion hand); cpu-ms/op is per envelope.
	for _, k := range []int{1, 5} {
		var checks []ShareCheck
		for i := range k {
			c := ctx
			c.Slot = uint32(i)
			s, _ := MakeShare(rnd, c, 1, tb.sks[1], deck[i])
			checks = append(checks, ShareCheck{Ctx: c, CT: deck[i], Share: s.Bytes()})
		}
		b.Run(fmt.Sprintf("shares-verify-batch=%d", k), func(b *testing.B) {
			measure(b, func() {
				if _, _, err := VerifyShares(1, tb.pks[1], checks); err != nil {
					b.Fatal(err)
				}
			})
		})
	}
	others := tb.sharesFor(b, ctx, deck[0], 0, rnd)
	cardTable() // built once per process; not part of a draw
	b.Run("open-private", func(b *testing.B) {
		measure(b, func() {
			if _, err := OpenPrivate(tb.sks[0], 0, deck[0], others, 4, 120); err != nil {
				b.Fatal(err)
			}
		})
	})
}

// BenchmarkShufflePrepared splits a shuffle proof in its two halves: what
// PrepareShuffle computes before the deck is known (a seat waiting for
// the seat before it in a chain), and what is left once it is handed the
// deck, which is what lies on the chain's critical path.
func BenchmarkShufflePrepared(b *testing.B) {
	for _, n := range benchDecks {
		rnd := seeded(42)
		tb := newTable(b, 2, rnd)
		in := tb.shuffled(b, n, rnd)
		b.Run(fmt.Sprintf("cards=%d/prepare", n), func(b *testing.B) {
			measure(b, func() {
				if _, err := PrepareShuffle(rnd, tb.joint, n); err != nil {
					b.Fatal(err)
				}
			})
		})
		b.Run(fmt.Sprintf("cards=%d/online", n), func(b *testing.B) {
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			ctx := testCtx("shuffle", 1)
			var spent int64
			for b.Loop() {
				b.StopTimer()
				prep, err := PrepareShuffle(rnd, tb.joint, n)
				if err != nil {
					b.Fatal(err)
				}
				b.StartTimer()
				t0 := threadCPU()
				if _, _, err := prep.Shuffle(ctx, 0, in); err != nil {
					b.Fatal(err)
				}
				spent += threadCPU() - t0
			}
			b.ReportMetric(float64(spent)/float64(b.N)/1e6, "cpu-ms/op")
		})
	}
}
