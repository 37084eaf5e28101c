package mentalpoker

import (
	"crypto/cipher"
	"errors"
	"fmt"
	"testing"

	"go.dedis.ch/kyber/v4"
	"go.dedis.ch/kyber/v4/proof"
	"go.dedis.ch/kyber/v4/shuffle"
)

// kyberVerify is kyber v4.0.2's own verification of a shuffle proof under
// our transcript and strict decoding: what VerifyShuffle did before it
// had a batch check of its own.
func kyberVerify(ctx Context, seat int, h PublicKey, in, out Deck, prf []byte) error {
	name, err := shuffleTranscript(ctx, seat, h, in, out)
	if err != nil {
		return err
	}
	X, Y := split(in)
	Xbar, Ybar := split(out)
	return proof.HashVerify(verifierSuite, name, shuffle.Verifier(verifierSuite, nil, vartime(h.p.Clone()), X, Y, Xbar, Ybar), prf)
}

// TestBatchShuffleCheckAgreesWithKyber: on honest shuffles both checks
// accept, and on every proof altered in one element (each scalar replaced
// by another canonical scalar, each point by another point of the
// prime-order subgroup, so the strict decoding passes and only the
// equations can refuse it) both refuse.
func TestBatchShuffleCheckAgreesWithKyber(t *testing.T) {
	for _, n := range []int{2, 3, 7} {
		t.Run(fmt.Sprintf("cards=%d", n), func(t *testing.T) {
			rnd := seeded(byte(60 + n))
			tb := newTable(t, 3, rnd)
			in := tb.shuffled(t, n, rnd)
			ctx := testCtx("shuffle", 9)
			out, prf, err := Shuffle(rnd, ctx, 1, tb.joint, in)
			if err != nil {
				t.Fatal(err)
			}
			if err := kyberVerify(ctx, 1, tb.joint, in, out, prf); err != nil {
				t.Fatalf("kyber refuses an honest shuffle: %v", err)
			}
			if err := VerifyShuffle(ctx, 1, tb.joint, in, out, prf); err != nil {
				t.Fatalf("VerifyShuffle refuses an honest shuffle: %v", err)
			}
			// The proof is 9n+3 points then 3n scalars, interleaved in
			// kyber's message order; each 32-byte element is tried as a
			// point first, else as a scalar.
			g := base.Point().Base()
			one := base.Scalar().One()
			altered := 0
			for off := 0; off < len(prf); off += PointLen {
				bad := append([]byte(nil), prf...)
				el := bad[off : off+PointLen]
				if p, err := decodePoint(el, false); err == nil {
					copy(el, pointBytes(base.Point().Add(p, g)))
				} else if s, err := decodeScalar(el); err == nil {
					copy(el, scalarBytes(base.Scalar().Add(s, one)))
				} else {
					t.Fatalf("element at byte %d is neither a point nor a scalar", off)
				}
				altered++
				errK := kyberVerify(ctx, 1, tb.joint, in, out, bad)
				errB := VerifyShuffle(ctx, 1, tb.joint, in, out, bad)
				if errK == nil {
					t.Errorf("kyber accepts the proof altered at byte %d", off)
				}
				if errB == nil {
					t.Errorf("VerifyShuffle accepts the proof altered at byte %d", off)
				}
			}
			if altered != (12*n + 3) {
				t.Fatalf("altered %d elements, want %d", altered, 12*n+3)
			}
		})
	}
}

// linkCheat makes a shuffle proof as kyber's PairShuffle.Prove does (same
// messages, same order, same transcript), except that its inner simple
// shuffle runs on fresh sequences instead of A·B^λ and C·D^λ.
func linkCheat(t *testing.T, rnd cipher.Stream, name string, h kyber.Point, in Deck, pi []int, beta []kyber.Scalar) []byte {
	t.Helper()
	k := len(in)
	X, Y := split(in)
	suite := proverSuite(&stream{r: streamReader{rnd}})
	prover := func(ctx proof.ProverContext) error {
		sc := func() kyber.Scalar { return base.Scalar().Pick(rnd) }
		piinv := make([]int, k)
		for i := range k {
			piinv[pi[i]] = i
		}
		u, w, a := make([]kyber.Scalar, k), make([]kyber.Scalar, k), make([]kyber.Scalar, k)
		for i := range k {
			u[i], w[i], a[i] = sc(), sc(), sc()
		}
		tau0, gamma := sc(), sc()
		m1 := pairMsg1{Gamma: base.Point().Mul(gamma, nil), A: make([]kyber.Point, k), C: make([]kyber.Point, k), U: make([]kyber.Point, k), W: make([]kyber.Point, k)}
		wbetasum := base.Scalar().Set(tau0)
		m1.Lambda1, m1.Lambda2 = base.Point().Null(), base.Point().Null()
		for i := range k {
			m1.A[i] = base.Point().Mul(a[i], nil)
			m1.C[i] = base.Point().Mul(base.Scalar().Mul(gamma, a[pi[i]]), nil)
			m1.U[i] = base.Point().Mul(u[i], nil)
			m1.W[i] = base.Point().Mul(base.Scalar().Mul(gamma, w[i]), nil)
			wbetasum.Add(wbetasum, base.Scalar().Mul(w[i], beta[pi[i]]))
			wu := base.Scalar().Sub(w[piinv[i]], u[i])
			m1.Lambda1.Add(m1.Lambda1, base.Point().Mul(wu, X[i]))
			m1.Lambda2.Add(m1.Lambda2, base.Point().Mul(wu, Y[i]))
		}
		m1.Lambda1.Add(m1.Lambda1, base.Point().Mul(wbetasum, nil))
		m1.Lambda2.Add(m1.Lambda2, base.Point().Mul(wbetasum, h))
		if err := ctx.Put(&m1); err != nil {
			return err
		}
		m2 := pairMsg2{Zrho: make([]kyber.Scalar, k)}
		if err := ctx.PubRand(&m2); err != nil {
			return err
		}
		b := make([]kyber.Scalar, k)
		for i := range k {
			b[i] = base.Scalar().Sub(m2.Zrho[i], u[i])
		}
		m3 := pairMsg3{D: make([]kyber.Point, k)}
		for i := range k {
			m3.D[i] = base.Point().Mul(base.Scalar().Mul(gamma, b[pi[i]]), nil)
		}
		if err := ctx.Put(&m3); err != nil {
			return err
		}
		var m4 pairMsg4
		if err := ctx.PubRand(&m4); err != nil {
			return err
		}
		m5 := pairMsg5{Zsigma: make([]kyber.Scalar, k), Ztau: base.Scalar().Neg(tau0)}
		for i := range k {
			m5.Zsigma[i] = base.Scalar().Add(w[i], b[pi[i]])
			m5.Ztau.Add(m5.Ztau, base.Scalar().Mul(b[i], beta[i]))
		}
		if err := ctx.Put(&m5); err != nil {
			return err
		}
		// The cheat: r is fresh, not a + λ·b; s is still γ·r permuted,
		// so the simple shuffle itself is valid.
		r, s := make([]kyber.Scalar, k), make([]kyber.Scalar, k)
		for i := range k {
			r[i] = sc()
		}
		for i := range k {
			s[i] = base.Scalar().Mul(gamma, r[pi[i]])
		}
		return new(shuffle.SimpleShuffle).Init(suite, k).Prove(nil, gamma, r, s, rnd, ctx)
	}
	prf, err := proof.HashProve(suite, name, prover)
	if err != nil {
		t.Fatal(err)
	}
	return prf
}

type streamReader struct{ s cipher.Stream }

func (r streamReader) Read(b []byte) (int, error) {
	clear(b)
	r.s.XORKeyStream(b, b)
	return len(b), nil
}

// TestBatchShuffleCheckBindsTheSimpleShuffle: a proof whose inner simple
// shuffle is not over the sequences Neff's protocol derives from the
// prover's commitments (A + λ·B, C + λ·D) passes kyber v4.0.2's verifier,
// which never compares them, and is refused by VerifyShuffle.
func TestBatchShuffleCheckBindsTheSimpleShuffle(t *testing.T) {
	rnd := seeded(77)
	tb := newTable(t, 2, rnd)
	in := tb.shuffled(t, 5, rnd)
	ctx := testCtx("shuffle", 3)
	s := &stream{r: rnd}
	pi := permutation(s, len(in))
	beta := make([]kyber.Scalar, len(in))
	for i := range beta {
		beta[i] = randomScalar(s)
	}
	out := make(Deck, len(in))
	for i := range out {
		out[i] = remaskWith(beta[pi[i]], tb.joint, in[pi[i]])
	}
	name, err := shuffleTranscript(ctx, 0, tb.joint, in, out)
	if err != nil {
		t.Fatal(err)
	}
	prf := linkCheat(t, s, name, tb.joint.p, in, pi, beta)
	if len(prf) != ShuffleProofLen(len(in)) {
		t.Fatalf("the proof is %d bytes, want %d", len(prf), ShuffleProofLen(len(in)))
	}
	if err := kyberVerify(ctx, 0, tb.joint, in, out, prf); err != nil {
		t.Fatalf("kyber refuses the unlinked proof (%v): the test no longer shows the gap", err)
	}
	if err := VerifyShuffle(ctx, 0, tb.joint, in, out, prf); !errors.Is(err, ErrInvalidProof) {
		t.Fatalf("VerifyShuffle of a proof whose simple shuffle is unlinked = %v, want ErrInvalidProof", err)
	}
}

// TestDLEQCheckAgreesWithKyber: a decryption share's and a re-masking's
// Chaum–Pedersen proof, honest and altered in each element (a commitment
// moved by G, the response plus one): VerifyShare and VerifyRemask decide
// as kyber's proof framework with the strict decoder does.
func TestDLEQCheckAgreesWithKyber(t *testing.T) {
	rnd := seeded(91)
	tb := newTable(t, 3, rnd)
	deck := tb.shuffled(t, 4, rnd)
	ctx := testCtx("share", 5)
	g := base.Point().Base()
	kyberShare := func(b []byte) error {
		d, err := decodePoint(b[:PointLen], false)
		if err != nil {
			return err
		}
		name, err := shareTranscript(ctx, 1, tb.pks[1], deck[0], d)
		if err != nil {
			return err
		}
		v := dleqPred.Verifier(verifierSuite, map[string]kyber.Point{"A": tb.pks[1].p, "G": g, "B": d, "H": deck[0].c1})
		return proof.HashVerify(verifierSuite, name, v, b[PointLen:])
	}
	sh, err := MakeShare(rnd, ctx, 1, tb.sks[1], deck[0])
	if err != nil {
		t.Fatal(err)
	}
	good := sh.Bytes()
	if err := kyberShare(good); err != nil {
		t.Fatalf("kyber refuses an honest share: %v", err)
	}
	if _, err := VerifyShare(ctx, 1, tb.pks[1], deck[0], good); err != nil {
		t.Fatalf("VerifyShare refuses an honest share: %v", err)
	}
	alter := map[string]func([]byte){
		"V1 + G": func(b []byte) { movePoint(t, b[32:64], g) },
		"V2 + G": func(b []byte) { movePoint(t, b[64:96], g) },
		"r + 1": func(b []byte) {
			s, err := decodeScalar(b[96:128])
			if err != nil {
				t.Fatal(err)
			}
			copy(b[96:128], scalarBytes(base.Scalar().Add(s, base.Scalar().One())))
		},
	}
	for what, f := range alter {
		bad := append([]byte(nil), good...)
		f(bad)
		if kyberShare(bad) == nil {
			t.Errorf("kyber accepts the share with %s", what)
		}
		if _, err := VerifyShare(ctx, 1, tb.pks[1], deck[0], bad); err == nil {
			t.Errorf("VerifyShare accepts the share with %s", what)
		}
	}
	// Re-masking: the same proof shape over other bases.
	rctx := testCtx("remask", 6)
	out, prf, err := RemaskProved(rnd, rctx, 2, tb.joint, deck[1])
	if err != nil {
		t.Fatal(err)
	}
	if err := VerifyRemask(rctx, 2, tb.joint, deck[1], out, prf); err != nil {
		t.Fatalf("VerifyRemask refuses an honest re-masking: %v", err)
	}
	for _, off := range []int{0, 32} {
		bad := append([]byte(nil), prf...)
		movePoint(t, bad[off:off+32], g)
		if err := VerifyRemask(rctx, 2, tb.joint, deck[1], out, bad); err == nil {
			t.Errorf("VerifyRemask accepts a commitment moved by G at byte %d", off)
		}
	}
	if err := VerifyRemask(rctx, 2, tb.joint, deck[1], Ciphertext{out.c1, addPoint(out.c2, g)}, prf); !errors.Is(err, ErrInvalidProof) {
		t.Errorf("VerifyRemask of a re-masking that changes the card = %v, want ErrInvalidProof", err)
	}
}

// movePoint replaces the point encoded in b by itself plus d.
func movePoint(t *testing.T, b []byte, d kyber.Point) {
	t.Helper()
	p := newPoint()
	if err := decodeCanonical(p, b); err != nil {
		t.Fatal(err)
	}
	copy(b, pointBytes(base.Point().Add(p, d)))
}

// TestFirstShufflerCannotForgeTheDeck: the first seat of a setup chain
// shuffles the open deck, whose every point it knows the discrete log of.
// Without the link between the inner simple shuffle and the commitments,
// that seat can "shuffle" the deck into any deck it likes: here one where
// every card is card 1 (a substituted deck, whose cards it also knows).
// The forged proof passes kyber v4.0.2's verifier; VerifyShuffle refuses it.
func TestFirstShufflerCannotForgeTheDeck(t *testing.T) {
	rnd := seeded(5)
	tb := newTable(t, 3, rnd)
	const k = 6
	in, err := OpenDeck(k)
	if err != nil {
		t.Fatal(err)
	}
	s := &stream{r: rnd}
	sc := func() kyber.Scalar { return randomScalar(s) }
	h := tb.joint.p
	// The forged output: (β_i·G, M_0 + β_i·H) for every i.
	beta := make([]kyber.Scalar, k)
	out := make(Deck, k)
	for i := range out {
		beta[i] = sc()
		out[i] = remaskWith(beta[i], tb.joint, Ciphertext{base.Point().Null(), cardPoint(0)})
	}
	ctx := testCtx("shuffle", 1)
	name, err := shuffleTranscript(ctx, 0, tb.joint, in, out)
	if err != nil {
		t.Fatal(err)
	}
	suite := proverSuite(&stream{r: rnd})
	prover := func(pc proof.ProverContext) error {
		gamma, lambda1, lambda2G := sc(), sc(), sc()
		w := make([]kyber.Scalar, k)
		m1 := pairMsg1{Gamma: base.Point().Mul(gamma, nil), A: make([]kyber.Point, k), C: make([]kyber.Point, k), U: make([]kyber.Point, k), W: make([]kyber.Point, k)}
		for i := range k {
			w[i] = sc()
			m1.A[i], m1.C[i], m1.U[i] = base.Point().Mul(sc(), nil), base.Point().Mul(sc(), nil), base.Point().Mul(sc(), nil)
			m1.W[i] = base.Point().Mul(w[i], nil)
		}
		m1.Lambda1 = base.Point().Mul(lambda1, nil)
		m1.Lambda2 = base.Point().Add(base.Point().Mul(lambda2G, nil), base.Point().Mul(lambda1, h))
		if err := pc.Put(&m1); err != nil {
			return err
		}
		m2 := pairMsg2{Zrho: make([]kyber.Scalar, k)}
		if err := pc.PubRand(&m2); err != nil {
			return err
		}
		// Σ σ_i·1 = λ2G + Σ ρ_i·(i+1): the G part of equation (35), as
		// every output card is M_0 = 1·G and input i is M_i = (i+1)·G.
		sigma := make([]kyber.Scalar, k)
		rest := base.Scalar().Set(lambda2G)
		for i := range k {
			rest.Add(rest, base.Scalar().Mul(m2.Zrho[i], base.Scalar().SetInt64(int64(i+1))))
		}
		for i := 1; i < k; i++ {
			sigma[i] = sc()
			rest.Sub(rest, sigma[i])
		}
		sigma[0] = rest
		m3 := pairMsg3{D: make([]kyber.Point, k)}
		for i := range k {
			m3.D[i] = base.Point().Mul(base.Scalar().Sub(base.Scalar().Mul(sigma[i], gamma), w[i]), nil)
		}
		if err := pc.Put(&m3); err != nil {
			return err
		}
		var m4 pairMsg4
		if err := pc.PubRand(&m4); err != nil {
			return err
		}
		m5 := pairMsg5{Zsigma: sigma, Ztau: base.Scalar().Neg(lambda1)}
		for i := range k {
			m5.Ztau.Add(m5.Ztau, base.Scalar().Mul(sigma[i], beta[i]))
		}
		if err := pc.Put(&m5); err != nil {
			return err
		}
		// Any valid simple shuffle of fresh sequences.
		r, ss := make([]kyber.Scalar, k), make([]kyber.Scalar, k)
		for i := range k {
			r[i] = sc()
		}
		for i := range k {
			ss[i] = base.Scalar().Mul(gamma, r[(i+1)%k])
		}
		return new(shuffle.SimpleShuffle).Init(suite, k).Prove(nil, gamma, r, ss, s, pc)
	}
	prf, err := proof.HashProve(suite, name, prover)
	if err != nil {
		t.Fatal(err)
	}
	if err := kyberVerify(ctx, 0, tb.joint, in, out, prf); err != nil {
		t.Fatalf("kyber refuses the forged deck (%v): the test no longer shows the forgery", err)
	}
	if err := VerifyShuffle(ctx, 0, tb.joint, in, out, prf); !errors.Is(err, ErrInvalidProof) {
		t.Fatalf("VerifyShuffle of a deck of six card 1s = %v, want ErrInvalidProof", err)
	}
	// What the forgery would have dealt: every card opens to card 1.
	for i, c := range out {
		shares := tb.sharesFor(t, testCtx("share", uint64(20+i)), c, -1, rnd)
		if card, err := OpenPublic(c, shares, 3, k); err != nil || card != 0 {
			t.Fatalf("forged card %d opens to %d, %v", i, card, err)
		}
	}
}
