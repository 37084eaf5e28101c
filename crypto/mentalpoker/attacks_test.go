package mentalpoker

import (
	"bytes"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"testing"

	"go.dedis.ch/kyber/v4"
	"go.dedis.ch/kyber/v4/group/edwards25519"
	"go.dedis.ch/kyber/v4/proof"
	"go.dedis.ch/kyber/v4/shuffle"
)

// edwardsTorsion are the encodings of edwards25519 points of order 2, 4
// and 8 (RFC 8032 encodings): the tags of pitfall 2 in the group this
// package used before ristretto255.
var edwardsTorsion = map[string]string{
	"order 2": "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
	"order 4": "0000000000000000000000000000000000000000000000000000000000000000",
	"order 8": "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a",
}

// kyberTorsion is the edwards25519 point of kyber's own group with the
// given encoding, checked to be of exactly that order.
func kyberTorsion(t *testing.T, hexEnc string, order int64) kyber.Point {
	t.Helper()
	p := kyberCurve.Point()
	if err := p.UnmarshalBinary(mustHex(hexEnc)); err != nil {
		t.Fatalf("kyber refuses the torsion point %s: %v", hexEnc, err)
	}
	id := kyberCurve.Point().Null()
	if !kyberCurve.Point().Mul(kyberCurve.Scalar().SetInt64(order), p).Equal(id) ||
		kyberCurve.Point().Mul(kyberCurve.Scalar().SetInt64(order/2), p).Equal(id) {
		t.Fatalf("%s is not of order %d", hexEnc, order)
	}
	return p
}

func addPoint(a, b kyber.Point) kyber.Point { return base.Point().Add(a, b) }

// The invalid encodings of RFC 9496, appendix A.2 (the same as
// draft-irtf-cfrg-ristretto255-decaf448's test vectors).
var ristrettoBadEncodings = map[string][]string{
	"a non-canonical field element": {
		"00ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
		"ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
		"f3ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
		"edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
	},
	"a negative field element": {
		"0100000000000000000000000000000000000000000000000000000000000000",
		"01ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
		"ed57ffd8c914fb201471d1c3d245ce3c746fcbe63a3679d51b6a516ebebe0e20",
		"c34c4e1826e5d403b78e246e88aa051c36ccf0aafebffe137d148a2bf9104562",
		"c940e5a4404157cfb1628b108db051a8d439e1a421394ec4ebccb9ec92a8ac78",
		"47cfc5497c53dc8e61c91d17fd626ffb1c49e2bca94eed052281b510b1117a24",
		"f1c6165d33367351b0da8f6e4511010c68174a03b6581212c71c0e1d026c3c72",
		"87260f7a2f12495118360f02c26a470f450dadf34a413d21042b43b9d93e1309",
	},
	"a non-square x²": {
		"26948d35ca62e643e26a83177332e6b6afeb9d08e4268b650f1f5bbd8d81d371",
		"4eac077a713c57b4f4397629a4145982c661f48044dd3f96427d40b147d9742f",
		"de6a7b00deadc788eb6b6c8d20c0ae96c2f2019078fa604fee5b87d6e989ad7b",
		"bcab477be20861e01e4a0e295284146a510150d9817763caf1a6f4b422d67042",
		"2a292df7e32cababbd9de088d1d1abec9fc0440f637ed2fba145094dc14bea08",
		"f4a9e534fc0d216c44b218fa0c42d99635a0127ee2e53c712f70609649fdff22",
		"8268436f8c4126196cf64b3c7ddbda90746a378625f9813dd9b8457077256731",
		"2810e5cbc2cc4d4eece54f61c6f69758e289aa7ab440b3cbeaa21995c2f4232b",
	},
	"a negative xy": {
		"3eb858e78f5a7254d8c9731174a94f76755fd3941c0ac93735c07ba14579630e",
		"a45fdc55c76448c049a1ab33f17023edfb2be3581e9c7aade8a6125215e04220",
		"d483fe813c6ba647ebbfd3ec41adca1c6130c2beeee9d9bf065c8d151c5f396e",
		"8a2e1d30050198c65a54483123960ccc38aef6848e1ec8f5f780e8523769ba32",
		"32888462f8b486c68ad7dd9610be5192bbeaf3b443951ac1a8118419d9fa097b",
		"227142501b9d4355ccba290404bde41575b037693cef1f438c47f8fbf35d1165",
		"5c37cc491da847cfeb9281d407efc41e15144c876e0170b499a96a22ed31e01e",
		"445425117cb8c90edcbc7c1cc0e74f747f2c1efa5630a967c64f287792a48a4b",
	},
	"s = -1, which gives y = 0": {
		"ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
	},
}

// TestNoSmallSubgroupEncodings is pitfall 2 over ristretto255. Over
// edwards25519 a point could carry a small-order tag that survived
// re-masking (TestKyberShuffleAcceptsTaggedOutput reproduces it in kyber's
// own group), so every received point needed a subgroup check.
// ristretto255 has no such points to send: it is a group of prime order
// whose encoding gives each element one 32-byte string, so a tagged point
// has no encoding distinct from its untagged one, and every other string
// is refused. What a peer can try instead is a string that is no valid
// encoding: every one of RFC 9496's invalid encodings, and the old
// torsion tags' bytes (order 2 is s = -1; order 8 is a negative s; order
// 4's bytes are the identity's), is refused wherever a point is received:
// a key, either half of a ciphertext, a share, and a point inside a key
// proof, a share proof and a shuffle proof.
func TestNoSmallSubgroupEncodings(t *testing.T) {
	rnd := seeded(2)
	tb := newTable(t, 3, rnd)
	deck := tb.shuffled(t, 8, rnd)
	ct := deck[0]
	share, err := MakeShare(rnd, testCtx("draw", 5), 1, tb.sks[1], ct)
	if err != nil {
		t.Fatal(err)
	}
	kctx := testCtx("setup", 1)
	kp, err := ProveKey(rnd, kctx, 0, tb.sks[0])
	if err != nil {
		t.Fatal(err)
	}
	sctx := testCtx("shuffle", 9)
	out, sp, err := Shuffle(rnd, sctx, 2, tb.joint, deck)
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string][]byte{}
	for why, list := range ristrettoBadEncodings {
		for i, h := range list {
			cases[fmt.Sprintf("%s #%d", why, i+1)] = mustHex(h)
		}
	}
	for order, h := range edwardsTorsion {
		if order != "order 4" { // the identity's bytes: refused where no identity may be, below
			cases["the edwards25519 point of "+order] = mustHex(h)
		}
	}
	put := func(b []byte, at int, p []byte) []byte {
		c := append([]byte(nil), b...)
		copy(c[at:], p)
		return c
	}
	for what, p := range cases {
		if _, err := ParsePublicKey(p); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s accepted as a public key: %v", what, err)
		}
		for _, at := range []int{0, PointLen} {
			if _, err := ParseCiphertext(put(ct.Bytes(), at, p)); !errors.Is(err, ErrMalformed) {
				t.Errorf("%s accepted in a ciphertext at byte %d: %v", what, at, err)
			}
		}
		if _, err := ParseDeck(put(out.Bytes(), 3*CiphertextLen+PointLen, p), len(out)); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s accepted in a deck: %v", what, err)
		}
		for _, at := range []int{0, PointLen, 2 * PointLen} { // D, V1, V2
			if _, err := VerifyShare(testCtx("draw", 5), 1, tb.pks[1], ct, put(share.Bytes(), at, p)); !errors.Is(err, ErrMalformed) {
				t.Errorf("%s accepted in a share at byte %d: %v", what, at, err)
			}
		}
		if err := VerifyKey(kctx, 0, tb.pks[0], put(kp, 0, p)); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s accepted in a key proof: %v", what, err)
		}
		if err := VerifyShuffle(sctx, 2, tb.joint, deck, out, put(sp, 5*PointLen, p)); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s accepted in a shuffle proof: %v", what, err)
		}
	}
	id := mustHex(edwardsTorsion["order 4"])
	if !bytes.Equal(id, identityBytes) {
		t.Fatalf("the order-4 point's bytes are not ristretto255's identity")
	}
	if _, err := ParsePublicKey(id); !errors.Is(err, ErrMalformed) {
		t.Errorf("the identity accepted as a public key: %v", err)
	}
	if _, err := VerifyShare(testCtx("draw", 5), 1, tb.pks[1], ct, put(share.Bytes(), 0, id)); !errors.Is(err, ErrMalformed) {
		t.Errorf("the identity accepted as a share: %v", err)
	}
}

// TestRistrettoEncoding: the points are RFC 9496's ristretto255: k·G for
// k = 0…15 encodes as its appendix A.1 says, and each of those strings
// decodes to k·G; a random element's encoding decodes back to it and is
// the one string that does (re-encoding the decoded element gives the same
// bytes, for random elements and for every random 32-byte string the
// decoder accepts).
func TestRistrettoEncoding(t *testing.T) {
	multiples := []string{
		"0000000000000000000000000000000000000000000000000000000000000000",
		"e2f2ae0a6abc4e71a884a961c500515f58e30b6aa582dd8db6a65945e08d2d76",
		"6a493210f7499cd17fecb510ae0cea23a110e8d5b901f8acadd3095c73a3b919",
		"94741f5d5d52755ece4f23f044ee27d5d1ea1e2bd196b462166b16152a9d0259",
		"da80862773358b466ffadfe0b3293ab3d9fd53c5ea6c955358f568322daf6a57",
		"e882b131016b52c1d3337080187cf768423efccbb517bb495ab812c4160ff44e",
		"f64746d3c92b13050ed8d80236a7f0007c3b3f962f5ba793d19a601ebb1df403",
		"44f53520926ec81fbd5a387845beb7df85a96a24ece18738bdcfa6a7822a176d",
		"903293d8f2287ebe10e2374dc1a53e0bc887e592699f02d077d5263cdd55601c",
		"02622ace8f7303a31cafc63f8fc48fdc16e1c8c8d234b2f0d6685282a9076031",
		"20706fd788b2720a1ed2a5dad4952b01f413bcf0e7564de8cdc816689e2db95f",
		"bce83f8ba5dd2fa572864c24ba1810f9522bc6004afe95877ac73241cafdab42",
		"e4549ee16b9aa03099ca208c67adafcafa4c3f3e4e5303de6026e3ca8ff84460",
		"aa52e000df2e16f55fb1032fc33bc42742dad6bd5a8fc0be0167436c5948501f",
		"46376b80f409b29dc2b5f6f0c52591990896e5716f41477cd30085ab7f10301e",
		"e0c418f7c8d9c4cdd7395b93ea124f3ad99021bb681dfc3302a9d99a2e53e64e",
	}
	for k, h := range multiples {
		kG := base.Point().Mul(base.Scalar().SetInt64(int64(k)), nil)
		if got := hex.EncodeToString(pointBytes(kG)); got != h {
			t.Errorf("%d·G encodes as %s, RFC 9496 says %s", k, got, h)
		}
		p, err := decodePoint(mustHex(h), true)
		if err != nil || !p.Equal(kG) {
			t.Errorf("RFC 9496's %d·G does not decode to it: %v", k, err)
		}
	}
	rnd := seeded(12)
	s := &stream{r: rnd}
	accepted := 0
	for range 400 {
		p := base.Point().Pick(s)
		b := pointBytes(p)
		q, err := decodePoint(b, false)
		if err != nil || !q.Equal(p) {
			t.Fatalf("a random element's encoding %x does not decode to it: %v", b, err)
		}
		var r [PointLen]byte
		s.XORKeyStream(r[:], r[:])
		if q, err := decodePoint(r[:], true); err == nil {
			accepted++
			fresh := newPoint()
			fresh.p = our(q).p // the element, without the kept encoding
			if !bytes.Equal(fresh.bytes(), r[:]) {
				t.Errorf("%x decodes, but its element encodes as %x", r, fresh.bytes())
			}
		}
	}
	if accepted < 10 {
		t.Fatalf("only %d of 400 random strings decode: the test checks too little", accepted)
	}
}

// TestKyberShuffleAcceptsTaggedOutput reproduces pitfall 2 end to end in
// kyber's own edwards25519 group (the group this package used before
// ristretto255): an honest kyber shuffle, then an order-2 tag on one
// output card's C2, and kyber's verifier with kyber's fixed protocol name
// still says yes for a card whose response happens to be even. Over
// ristretto255 such a tag has no encoding (TestNoSmallSubgroupEncodings).
func TestKyberShuffleAcceptsTaggedOutput(t *testing.T) {
	rnd := seeded(3)
	s := &stream{r: rnd}
	suite := edwards25519.NewBlakeSHA256Ed25519WithRand(s)
	const k = 16
	H := kyberCurve.Point().Mul(kyberCurve.Scalar().Pick(s), nil)
	G := kyberCurve.Point().Base()
	X, Y := make([]kyber.Point, k), make([]kyber.Point, k)
	for i := range X {
		r := kyberCurve.Scalar().Pick(s)
		X[i] = kyberCurve.Point().Mul(r, nil)
		Y[i] = kyberCurve.Point().Add(kyberCurve.Point().Mul(r, H), kyberCurve.Point().Mul(kyberCurve.Scalar().SetInt64(int64(i+1)), nil))
	}
	Xbar, Ybar, prover := shuffle.Shuffle(suite, G, H, X, Y, s)
	prf, err := proof.HashProve(suite, "PairShuffle", prover)
	if err != nil {
		t.Fatal(err)
	}
	if err := proof.HashVerify(suite, "PairShuffle", shuffle.Verifier(suite, G, H, X, Y, Xbar, Ybar), prf); err != nil {
		t.Fatalf("kyber refuses its own honest shuffle: %v", err)
	}
	T := kyberTorsion(t, edwardsTorsion["order 2"], 2)
	passed := -1
	for i := range Ybar {
		tagged := append([]kyber.Point(nil), Ybar...)
		tagged[i] = kyberCurve.Point().Add(Ybar[i], T)
		v := shuffle.Verifier(suite, G, H, X, Y, Xbar, tagged)
		if proof.HashVerify(suite, "PairShuffle", v, prf) == nil {
			passed = i
			break
		}
	}
	if passed < 0 {
		t.Fatal("kyber rejected every tagged output: the pitfall did not reproduce")
	}
	// Each kind of tag passes kyber's own decoder (the premise of pitfall 2).
	for order, h := range edwardsTorsion {
		var n int64
		fmt.Sscanf(order, "order %d", &n)
		kyberTorsion(t, h, n)
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
