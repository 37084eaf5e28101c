package mentalpoker

import (
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"go.dedis.ch/kyber/v4"
	"go.dedis.ch/kyber/v4/proof"
	"go.dedis.ch/kyber/v4/shuffle"
)

// torsion returns the small-order point with the given encoding and checks
// its order is exactly order.
func torsion(t *testing.T, hexEnc string, order int64) kyber.Point {
	t.Helper()
	b, _ := hex.DecodeString(hexEnc)
	p := base.Point()
	if err := p.UnmarshalBinary(b); err != nil {
		t.Fatalf("kyber refuses the torsion point %s: %v", hexEnc, err)
	}
	id := base.Point().Null()
	if !base.Point().Mul(base.Scalar().SetInt64(order), p).Equal(id) ||
		base.Point().Mul(base.Scalar().SetInt64(order/2), p).Equal(id) {
		t.Fatalf("%s is not of order %d", hexEnc, order)
	}
	return p
}

func torsionPoints(t *testing.T) map[string]kyber.Point {
	return map[string]kyber.Point{
		"order 2": torsion(t, "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f", 2),
		"order 4": torsion(t, "0000000000000000000000000000000000000000000000000000000000000000", 4),
		"order 8": torsion(t, "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a", 8),
	}
}

func addPoint(a, b kyber.Point) kyber.Point { return base.Point().Add(a, b) }

// TestTorsionTagRejected is pitfall 2: kyber's decoder accepts a point with
// a small-order component, such a tag survives re-masking (so a shuffler
// could follow a card through the others' shuffles), and kyber's own
// shuffle verifier accepts a tagged output whenever the tagged card's
// response is even. Every decoder here refuses it.
func TestTorsionTagRejected(t *testing.T) {
	rnd := seeded(2)
	tb := newTable(t, 3, rnd)
	deck := tb.shuffled(t, 8, rnd)
	ct := deck[0]
	share, err := MakeShare(rnd, testCtx("draw", 5), 1, tb.sks[1], ct)
	if err != nil {
		t.Fatal(err)
	}
	for name, T := range torsionPoints(t) {
		// kyber alone takes the tagged key; we do not.
		tagged := pointBytes(addPoint(tb.pks[0].p, T))
		if err := base.Point().UnmarshalBinary(tagged); err != nil {
			t.Fatalf("%s: kyber rejects it itself (%v); the test shows nothing", name, err)
		}
		if _, err := ParsePublicKey(tagged); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: tagged public key accepted: %v", name, err)
		}
		// A tagged card keeps its tag through a re-masking.
		tc := Ciphertext{ct.c1, addPoint(ct.c2, T)}
		re, err := Remask(rnd, tb.joint, tc)
		if err != nil {
			t.Fatal(err)
		}
		if inPrimeOrderSubgroup(re.c2) {
			t.Errorf("%s: the tag did not survive re-masking; the attack premise is wrong", name)
		}
		for i, b := range [][]byte{tc.Bytes(), append(pointBytes(addPoint(ct.c1, T)), pointBytes(ct.c2)...), re.Bytes()} {
			if _, err := ParseCiphertext(b); !errors.Is(err, ErrMalformed) {
				t.Errorf("%s: tagged ciphertext %d accepted: %v", name, i, err)
			}
		}
		// A tagged share point.
		sb := share.Bytes()
		copy(sb, pointBytes(addPoint(share.d, T)))
		if _, err := VerifyShare(testCtx("draw", 5), 1, tb.pks[1], ct, sb); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: tagged share accepted: %v", name, err)
		}
		// A tagged escrow commitment.
		esc, err := MakeEscrow(rnd, testCtx("escrow", 1), 0, tb.sks[0], tb.pks)
		if err != nil {
			t.Fatal(err)
		}
		s0, _ := decodePoint(esc[:PointLen], false)
		copy(esc, pointBytes(addPoint(s0, T)))
		if _, err := ParseEscrow(testCtx("escrow", 1), 0, tb.pks, esc); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: tagged escrow accepted: %v", name, err)
		}
		// Torsion inside a proof: the Schnorr commitment and a point deep in
		// a shuffle proof. The verifier's decoder must refuse both (kyber's
		// equations alone might not notice, e.g. an order-2 tag times an
		// even response vanishes).
		kctx := testCtx("setup", 1)
		kp, _ := ProveKey(rnd, kctx, 0, tb.sks[0])
		v, _ := decodePoint(kp[:PointLen], false)
		copy(kp, pointBytes(addPoint(v, T)))
		if err := VerifyKey(kctx, 0, tb.pks[0], kp); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: tagged key proof accepted: %v", name, err)
		}
		sctx := testCtx("shuffle", 9)
		out, sp, err := Shuffle(rnd, sctx, 2, tb.joint, deck)
		if err != nil {
			t.Fatal(err)
		}
		at := 5 * PointLen // A[4] in kyber's first message
		g, _ := decodePoint(sp[at:at+PointLen], true)
		copy(sp[at:], pointBytes(addPoint(g, T)))
		if err := VerifyShuffle(sctx, 2, tb.joint, deck, out, sp); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: tagged shuffle proof accepted: %v", name, err)
		}
	}
}

// TestKyberShuffleAcceptsTaggedOutput reproduces pitfall 2 end to end
// against kyber alone: an honest kyber shuffle, then an order-2 tag on one
// output card's C2, and kyber's verifier with kyber's fixed protocol name
// still says yes for a card whose response happens to be even. Our
// VerifyShuffle and ParseCiphertext both say no.
func TestKyberShuffleAcceptsTaggedOutput(t *testing.T) {
	rnd := seeded(3)
	tb := newTable(t, 2, rnd)
	in := tb.shuffled(t, 16, rnd)
	s := &stream{r: rnd}
	suite := proverSuite(s)
	X, Y := split(in)
	G := base.Point().Base()
	Xbar, Ybar, prover := shuffle.Shuffle(suite, G, tb.joint.p, X, Y, s)
	prf, err := proof.HashProve(suite, "PairShuffle", prover)
	if err != nil {
		t.Fatal(err)
	}
	T := torsionPoints(t)["order 2"]
	passed := -1
	for i := range Ybar {
		tagged := append([]kyber.Point(nil), Ybar...)
		tagged[i] = addPoint(Ybar[i], T)
		v := shuffle.Verifier(suite, G, tb.joint.p, X, Y, Xbar, tagged)
		if proof.HashVerify(suite, "PairShuffle", v, prf) == nil {
			passed = i
			out := make(Deck, len(in))
			for j := range out {
				out[j] = Ciphertext{Xbar[j], tagged[j]}
			}
			if _, err := ParseDeck(out.Bytes(), len(out)); !errors.Is(err, ErrMalformed) {
				t.Errorf("the tagged deck decodes: %v", err)
			}
			if err := VerifyShuffle(testCtx("shuffle", 1), 0, tb.joint, in, out, prf); err == nil {
				t.Error("VerifyShuffle accepts the tagged deck")
			}
			break
		}
	}
	if passed < 0 {
		t.Fatal("kyber rejected every tagged output: the pitfall did not reproduce")
	}
}

// kyberChallenges replays kyber v4.0.2's Fiat–Shamir for a pair shuffle
// proof of k cards under protocol name: the ρ vector that follows the
// first message, and the first message's Λ1, Λ2, and σ, τ from the fifth.
func kyberChallenges(name string, prf []byte, k int) (rho, sigma []kyber.Scalar, tau kyber.Scalar, l1, l2 kyber.Point) {
	p1 := (4*k + 3) * PointLen
	xof := base.XOF([]byte(name))
	xof.Reseed()
	xof.Write(prf[:p1])
	rho = make([]kyber.Scalar, k)
	for i := range rho {
		rho[i] = base.Scalar().Pick(xof)
	}
	l1, l2 = base.Point(), base.Point()
	l1.UnmarshalBinary(prf[p1-2*PointLen : p1-PointLen])
	l2.UnmarshalBinary(prf[p1-PointLen : p1])
	off := p1 + k*PointLen // after D
	sigma = make([]kyber.Scalar, k)
	for i := range sigma {
		sigma[i] = base.Scalar()
		sigma[i].UnmarshalBinary(prf[off : off+ScalarLen])
		off += ScalarLen
	}
	tau = base.Scalar()
	tau.UnmarshalBinary(prf[off : off+ScalarLen])
	return
}

// forge fits an output deck to a fixed proof: every card but the last is
// chosen freely (here: all the same card, a stacked deck) and the last one
// is solved for, so that Neff's final checks (31)–(35) hold.
func forge(t *testing.T, name string, prf []byte, h PublicKey, in Deck, card int) Deck {
	k := len(in)
	rho, sigma, tau, l1, l2 := kyberChallenges(name, prf, k)
	out := make(Deck, k)
	rnd := seeded(99)
	for i := 0; i < k-1; i++ {
		c, err := Mask(rnd, h, card)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = c
	}
	// σ_k·X̄_k = Λ1 + τ·G + Σ ρ_i X_i − Σ_{i<k} σ_i X̄_i, likewise for Y with H.
	x := base.Point().Add(l1, base.Point().Mul(tau, nil))
	y := base.Point().Add(l2, base.Point().Mul(tau, h.p))
	for i := 0; i < k; i++ {
		x.Add(x, base.Point().Mul(rho[i], in[i].c1))
		y.Add(y, base.Point().Mul(rho[i], in[i].c2))
	}
	for i := 0; i < k-1; i++ {
		x.Sub(x, base.Point().Mul(sigma[i], out[i].c1))
		y.Sub(y, base.Point().Mul(sigma[i], out[i].c2))
	}
	inv := base.Scalar().Inv(sigma[k-1])
	out[k-1] = Ciphertext{base.Point().Mul(inv, x), base.Point().Mul(inv, y)}
	return out
}

// TestShuffleOutputsBound is pitfall 1: with kyber's own transcript (a
// fixed protocol name) an attacker fits a stacked deck to an honest proof
// and kyber accepts it; with ours the proof binds the output deck, the
// input deck, the key, the seat and the context.
func TestShuffleOutputsBound(t *testing.T) {
	rnd := seeded(4)
	tb := newTable(t, 2, rnd)
	in := tb.shuffled(t, 10, rnd)
	const ace = 0

	// The attack against kyber alone works.
	s := &stream{r: rnd}
	suite := proverSuite(s)
	X, Y := split(in)
	G := base.Point().Base()
	_, _, prover := shuffle.Shuffle(suite, G, tb.joint.p, X, Y, s)
	kprf, err := proof.HashProve(suite, "PairShuffle", prover)
	if err != nil {
		t.Fatal(err)
	}
	stacked := forge(t, "PairShuffle", kprf, tb.joint, in, ace)
	Xb, Yb := split(stacked)
	if err := proof.HashVerify(suite, "PairShuffle", shuffle.Verifier(suite, G, tb.joint.p, X, Y, Xb, Yb), kprf); err != nil {
		t.Fatalf("the forgery does not pass kyber alone (%v): the pitfall did not reproduce", err)
	}

	// Against ours, the same forgery (fitted to our proof's challenges) fails.
	ctx := testCtx("shuffle", 7)
	out, prf, err := Shuffle(rnd, ctx, 1, tb.joint, in)
	if err != nil {
		t.Fatal(err)
	}
	name, _ := shuffleTranscript(ctx, 1, tb.joint, in, out)
	forged := forge(t, name, prf, tb.joint, in, ace)
	if err := VerifyShuffle(ctx, 1, tb.joint, in, forged, prf); !errors.Is(err, ErrInvalidProof) || !contains(err, "seat 2's shuffle") {
		t.Fatalf("a stacked deck fitted to our proof (the error must name seat 2): %v", err)
	}

	// The honest proof verifies only where it was made.
	if err := VerifyShuffle(ctx, 1, tb.joint, in, out, prf); err != nil {
		t.Fatal(err)
	}
	other, _, _ := Shuffle(rnd, ctx, 1, tb.joint, in)
	cases := map[string]func() error{
		"another output set": func() error { return VerifyShuffle(ctx, 1, tb.joint, in, other, prf) },
		"two cards swapped": func() error {
			sw := append(Deck(nil), out...)
			sw[0], sw[1] = sw[1], sw[0]
			return VerifyShuffle(ctx, 1, tb.joint, in, sw, prf)
		},
		"a substituted card": func() error {
			sub := append(Deck(nil), out...)
			c, _ := Mask(rnd, tb.joint, ace)
			sub[3] = c
			return VerifyShuffle(ctx, 1, tb.joint, in, sub, prf)
		},
		"a re-masked card": func() error {
			sub := append(Deck(nil), out...)
			sub[3], _ = Remask(rnd, tb.joint, sub[3])
			return VerifyShuffle(ctx, 1, tb.joint, in, sub, prf)
		},
		"another input deck": func() error {
			in2 := append(Deck(nil), in...)
			in2[0], _ = Remask(rnd, tb.joint, in2[0])
			return VerifyShuffle(ctx, 1, tb.joint, in2, out, prf)
		},
		"another session": func() error {
			c := ctx
			c.Session[0] ^= 1
			return VerifyShuffle(c, 1, tb.joint, in, out, prf)
		},
		"another seq":  func() error { c := ctx; c.Seq++; return VerifyShuffle(c, 1, tb.joint, in, out, prf) },
		"another slot": func() error { c := ctx; c.Slot++; return VerifyShuffle(c, 1, tb.joint, in, out, prf) },
		"another kind": func() error { c := ctx; c.Kind = "reshuffle"; return VerifyShuffle(c, 1, tb.joint, in, out, prf) },
		"another seat": func() error { return VerifyShuffle(ctx, 0, tb.joint, in, out, prf) },
		"another key":  func() error { return VerifyShuffle(ctx, 1, tb.pks[0], in, out, prf) },
		"kyber's fixed name": func() error {
			Xo, Yo := split(out)
			return proof.HashVerify(verifierSuite, "PairShuffle", shuffle.Verifier(verifierSuite, G, tb.joint.p, X, Y, Xo, Yo), prf)
		},
	}
	for what, f := range cases {
		if err := f(); err == nil {
			t.Errorf("the shuffle proof verifies for %s", what)
		}
	}
}

// TestShareBoundToContext is pitfall 3: a decryption share's proof names
// both bases, the ciphertext, the seat and the context, so it is refused
// when replayed anywhere else.
func TestShareBoundToContext(t *testing.T) {
	rnd := seeded(5)
	tb := newTable(t, 3, rnd)
	deck := tb.shuffled(t, 6, rnd)
	ctx := testCtx("draw", 40)
	ctx.Slot = 3
	sh, err := MakeShare(rnd, ctx, 1, tb.sks[1], deck[0])
	if err != nil {
		t.Fatal(err)
	}
	b := sh.Bytes()
	if _, err := VerifyShare(ctx, 1, tb.pks[1], deck[0], b); err != nil {
		t.Fatal(err)
	}
	mod := func(f func(*Context)) Context { c := ctx; f(&c); return c }
	replays := map[string]func() error{
		"another session": func() error {
			_, err := VerifyShare(mod(func(c *Context) { c.Session[31] ^= 1 }), 1, tb.pks[1], deck[0], b)
			return err
		},
		"another seq": func() error {
			_, err := VerifyShare(mod(func(c *Context) { c.Seq = 41 }), 1, tb.pks[1], deck[0], b)
			return err
		},
		"another slot": func() error {
			_, err := VerifyShare(mod(func(c *Context) { c.Slot = 4 }), 1, tb.pks[1], deck[0], b)
			return err
		},
		"another kind": func() error {
			_, err := VerifyShare(mod(func(c *Context) { c.Kind = "reveal" }), 1, tb.pks[1], deck[0], b)
			return err
		},
		"another seat": func() error { _, err := VerifyShare(ctx, 2, tb.pks[1], deck[0], b); return err },
		"another card": func() error { _, err := VerifyShare(ctx, 1, tb.pks[1], deck[1], b); return err },
		"the same C1, another C2": func() error {
			_, err := VerifyShare(ctx, 1, tb.pks[1], Ciphertext{deck[0].c1, deck[1].c2}, b)
			return err
		},
	}
	for what, f := range replays {
		if err := f(); !errors.Is(err, ErrInvalidProof) {
			t.Errorf("a share replayed into %s: %v", what, err)
		}
	}
}

// TestWrongShares: a share computed with the wrong key, a share point
// nudged by G, a proof from another share, all refused; so are proofs of
// the wrong length or with a scalar at or above the group order.
func TestWrongShares(t *testing.T) {
	rnd := seeded(6)
	tb := newTable(t, 3, rnd)
	deck := tb.shuffled(t, 4, rnd)
	ctx := testCtx("draw", 50)
	good, _ := MakeShare(rnd, ctx, 1, tb.sks[1], deck[0])
	wrongKey, _ := MakeShare(rnd, ctx, 1, tb.sks[2], deck[0]) // seat 3's key posing as seat 2
	if _, err := VerifyShare(ctx, 1, tb.pks[1], deck[0], wrongKey.Bytes()); !errors.Is(err, ErrInvalidProof) {
		t.Errorf("a share made with another seat's key: %v", err)
	}
	nudged := good.Bytes()
	copy(nudged, pointBytes(addPoint(good.d, base.Point().Base())))
	if _, err := VerifyShare(ctx, 1, tb.pks[1], deck[0], nudged); !errors.Is(err, ErrInvalidProof) {
		t.Errorf("a share point nudged by G: %v", err)
	}
	other, _ := MakeShare(rnd, ctx, 1, tb.sks[1], deck[1])
	mixed := append(good.Bytes()[:PointLen], other.Bytes()[PointLen:]...)
	if _, err := VerifyShare(ctx, 1, tb.pks[1], deck[0], mixed); !errors.Is(err, ErrInvalidProof) {
		t.Errorf("a share with another share's proof: %v", err)
	}
	for _, n := range []int{0, ShareLen - 1, ShareLen + 1} {
		b := append(good.Bytes(), make([]byte, 8)...)[:n]
		if _, err := VerifyShare(ctx, 1, tb.pks[1], deck[0], b); !errors.Is(err, ErrMalformed) {
			t.Errorf("a %d-byte share: %v", n, err)
		}
	}
	// The response scalar plus L: the same value mod L, a second encoding.
	b := good.Bytes()
	addL(b[ShareLen-ScalarLen:])
	if _, err := VerifyShare(ctx, 1, tb.pks[1], deck[0], b); !errors.Is(err, ErrMalformed) {
		t.Errorf("a response scalar ≥ L: %v", err)
	}
	// Every single bit flip is refused.
	for i := 0; i < ShareLen*8; i++ {
		b := good.Bytes()
		b[i/8] ^= 1 << (i % 8)
		if _, err := VerifyShare(ctx, 1, tb.pks[1], deck[0], b); err == nil {
			t.Fatalf("flipping bit %d of a share went unnoticed", i)
		}
	}
}

// addL adds the group order L to a 32-byte little-endian scalar in place
// (it stays below 2^256 for any reduced scalar).
func addL(s []byte) {
	l, _ := hex.DecodeString("edd3f55c1a631258d69cf7a2def9de1400000000000000000000000000000010")
	carry := 0
	for i := 0; i < 32; i++ {
		v := int(s[i]) + int(l[i]) + carry
		s[i], carry = byte(v), v>>8
	}
}

// TestMissingAndStrayShares: an opener names the seat whose share is
// missing, and refuses duplicates, its own share in a private draw, and a
// share of another card.
func TestMissingAndStrayShares(t *testing.T) {
	rnd := seeded(7)
	tb := newTable(t, 4, rnd)
	deck := tb.shuffled(t, 5, rnd)
	ctx := testCtx("draw", 60)
	shares := tb.sharesFor(t, ctx, deck[0], 0, rnd) // seats 2, 3, 4
	if _, err := OpenPrivate(tb.sks[0], 0, deck[0], shares[:2], 4, 5); !errors.Is(err, ErrBadInput) || !contains(err, "no decryption share from seat 4") {
		t.Errorf("a missing share: %v", err)
	}
	if _, err := OpenPrivate(tb.sks[0], 0, deck[0], append(append([]Share(nil), shares...), shares[1]), 4, 5); !contains(err, "two shares from seat 3") {
		t.Errorf("a duplicate share: %v", err)
	}
	own, _ := MakeShare(rnd, ctx, 0, tb.sks[0], deck[0])
	if _, err := OpenPrivate(tb.sks[0], 0, deck[0], append(append([]Share(nil), shares...), own), 4, 5); !contains(err, "unexpected share from seat 1") {
		t.Errorf("the drawer's own share: %v", err)
	}
	if _, err := OpenPublic(deck[0], shares, 4, 5); !contains(err, "no decryption share from seat 1") {
		t.Errorf("a public reveal without the holder's share: %v", err)
	}
	elsewhere := tb.sharesFor(t, ctx, deck[1], 0, rnd)
	stray := append(append([]Share(nil), shares[:2]...), elsewhere[2])
	if _, err := OpenPrivate(tb.sks[0], 0, deck[0], stray, 4, 5); !contains(err, "another card") {
		t.Errorf("a share of another card: %v", err)
	}
	if c, err := OpenPrivate(tb.sks[0], 0, deck[0], shares, 4, 5); err != nil || c < 0 || c >= 5 {
		t.Errorf("the honest draw: %d, %v", c, err)
	}
}

// TestRevealMismatchAndSubstitutedCard: a reveal that claims another card
// than its ciphertext holds is named with both cards, and a ciphertext that
// holds no card of the deck (a substitution outside the shuffle proofs) is
// refused at opening.
func TestRevealMismatchAndSubstitutedCard(t *testing.T) {
	rnd := seeded(8)
	tb := newTable(t, 3, rnd)
	deck := tb.shuffled(t, 12, rnd)
	ctx := testCtx("reveal", 70)
	all := tb.sharesFor(t, ctx, deck[4], -1, rnd)
	card, err := OpenPublic(deck[4], all, 3, 12)
	if err != nil {
		t.Fatal(err)
	}
	if err := VerifyReveal(deck[4], all, 3, 12, card); err != nil {
		t.Fatal(err)
	}
	lie := (card + 1) % 12
	err = VerifyReveal(deck[4], all, 3, 12, lie)
	if !errors.Is(err, ErrInvalidProof) || !contains(err, "claims card") {
		t.Errorf("a false reveal: %v", err)
	}
	// Card 40 does not exist in a 12-card deck.
	sub, _ := Mask(rnd, tb.joint, 40)
	subShares := tb.sharesFor(t, ctx, sub, -1, rnd)
	if _, err := OpenPublic(sub, subShares, 3, 12); !errors.Is(err, ErrInvalidProof) {
		t.Errorf("a card from outside the deck: %v", err)
	}
	// A ciphertext from the deck with C2 swapped in from another one opens
	// to no card.
	mixed := Ciphertext{deck[4].c1, deck[5].c2}
	mixedShares := tb.sharesFor(t, ctx, mixed, -1, rnd)
	if c, err := OpenPublic(mixed, mixedShares, 3, 12); err == nil {
		t.Errorf("a spliced ciphertext opened as card %d", c)
	}
}

func contains(err error, s string) bool { return err != nil && strings.Contains(err.Error(), s) }

// TestIdentityInProofsRefused: the identity in place of Γ (the shuffle's
// first point) or of a Schnorr commitment is refused by the decoder.
func TestIdentityInProofsRefused(t *testing.T) {
	rnd := seeded(9)
	tb := newTable(t, 2, rnd)
	deck := tb.shuffled(t, 4, rnd)
	ctx := testCtx("shuffle", 3)
	out, prf, err := Shuffle(rnd, ctx, 0, tb.joint, deck)
	if err != nil {
		t.Fatal(err)
	}
	id := pointBytes(base.Point().Null())
	copy(prf, id)
	if err := VerifyShuffle(ctx, 0, tb.joint, deck, out, prf); !errors.Is(err, ErrMalformed) {
		t.Errorf("a shuffle proof with Γ = identity: %v", err)
	}
	kctx := testCtx("setup", 1)
	kp, _ := ProveKey(rnd, kctx, 0, tb.sks[0])
	copy(kp, id)
	if err := VerifyKey(kctx, 0, tb.pks[0], kp); !errors.Is(err, ErrMalformed) {
		t.Errorf("a key proof with an identity commitment: %v", err)
	}
}
