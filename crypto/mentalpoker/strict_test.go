package mentalpoker

import (
	"encoding/hex"
	"errors"
	"math/rand/v2"
	"testing"
)

func mustHex(s string) []byte {
	b, err := hex.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}

// TestPointDecodingStrict: only valid ristretto255 encodings, which are
// canonical (RFC 9496, section 4.3.1), and the identity only where allowed.
func TestPointDecodingStrict(t *testing.T) {
	g := pointBytes(base.Point().Base())
	if p, err := decodePoint(g, false); err != nil || !p.Equal(base.Point().Base()) {
		t.Fatalf("the base point: %v", err)
	}
	bad := map[string][]byte{
		"the identity":                 identityBytes,
		"the identity, s = p":          mustHex("edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f"),
		"the identity, s = 2^255":      mustHex("0000000000000000000000000000000000000000000000000000000000000080"),
		"a negative s (s = 1)":         mustHex("0100000000000000000000000000000000000000000000000000000000000000"),
		"s = -1 (y = 0)":               mustHex("ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f"),
		"no element (a non-square x²)": mustHex("26948d35ca62e643e26a83177332e6b6afeb9d08e4268b650f1f5bbd8d81d371"),
		"31 bytes":                     g[:31],
		"33 bytes":                     append(append([]byte(nil), g...), 0),
	}
	for what, b := range bad {
		if _, err := decodePoint(b, false); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s accepted: %v", what, err)
		}
		if _, err := ParsePublicKey(b); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s accepted as a public key: %v", what, err)
		}
	}
	// The identity is a valid half of a ciphertext (the open deck's C1),
	// but only in its canonical encoding.
	open, _ := OpenDeck(3)
	if _, err := ParseCiphertext(open[0].Bytes()); err != nil {
		t.Errorf("the open deck's first card: %v", err)
	}
	nc := append(append([]byte(nil), bad["the identity, s = p"]...), open[0].Bytes()[PointLen:]...)
	if _, err := ParseCiphertext(nc); !errors.Is(err, ErrMalformed) {
		t.Errorf("a non-canonical identity in C1: %v", err)
	}
}

// TestScalarDecodingStrict: a secret key at or above L is refused, as is
// the zero key.
func TestScalarDecodingStrict(t *testing.T) {
	sk, _ := GenerateKey(seeded(20))
	b := sk.Bytes()
	back, err := ParseSecretKey(b)
	if err != nil || !back.Public().Equal(sk.Public()) {
		t.Fatalf("round trip: %v", err)
	}
	addL(b)
	if _, err := ParseSecretKey(b); !errors.Is(err, ErrMalformed) {
		t.Errorf("x + L accepted: %v", err)
	}
	if _, err := ParseSecretKey(make([]byte, 32)); !errors.Is(err, ErrMalformed) {
		t.Errorf("the zero key accepted: %v", err)
	}
}

// TestKeyProofs: a key proof verifies for its seat, key and context only,
// and a copied key with its copied proof fails under the copier's seat.
func TestKeyProofs(t *testing.T) {
	rnd := seeded(21)
	ctx := testCtx("setup", 1)
	sk, _ := GenerateKey(rnd)
	other, _ := GenerateKey(rnd)
	prf, err := ProveKey(rnd, ctx, 2, sk)
	if err != nil {
		t.Fatal(err)
	}
	if err := VerifyKey(ctx, 2, sk.Public(), prf); err != nil {
		t.Fatal(err)
	}
	c2 := ctx
	c2.Session[0] ^= 0xff
	for what, err := range map[string]error{
		"another seat (a copied key)": VerifyKey(ctx, 3, sk.Public(), prf),
		"another key":                 VerifyKey(ctx, 2, other.Public(), prf),
		"another session":             VerifyKey(c2, 2, sk.Public(), prf),
		"a truncated proof":           VerifyKey(ctx, 2, sk.Public(), prf[:63]),
	} {
		if err == nil {
			t.Errorf("the key proof verifies for %s", what)
		}
	}
	// A rogue key X = Y - X_1 cannot come with a proof; a proof made with
	// some other secret does not verify for it.
	rogue := PublicKey{base.Point().Sub(other.Public().p, sk.Public().p)}
	fake, _ := ProveKey(rnd, ctx, 1, other)
	if VerifyKey(ctx, 1, rogue, fake) == nil {
		t.Error("a rogue key verifies with a proof for another secret")
	}
}

// TestHostileBytesNeverPanicNorPass throws random and bit-flipped bytes at
// every decoder and verifier: each returns an error, none panics.
func TestHostileBytesNeverPanicNorPass(t *testing.T) {
	rnd := seeded(22)
	tb := newTable(t, 3, rnd)
	deck := tb.shuffled(t, 3, rnd)
	ctx := testCtx("shuffle", 77)
	out, prf, err := Shuffle(rnd, ctx, 0, tb.joint, deck)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < len(prf)*8; i += 7 {
		b := append([]byte(nil), prf...)
		b[i/8] ^= 1 << (i % 8)
		if VerifyShuffle(ctx, 0, tb.joint, deck, out, b) == nil {
			t.Fatalf("flipping bit %d of a shuffle proof went unnoticed", i)
		}
	}
	r := rand.New(rand.NewPCG(1, 2))
	junk := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(r.Uint32())
		}
		return b
	}
	esc, _ := MakeEscrow(rnd, ctx, 0, tb.sks[0], tb.pks)
	e, err := ParseEscrow(ctx, 0, tb.pks, esc)
	if err != nil {
		t.Fatal(err)
	}
	for trial := 0; trial < 200; trial++ {
		n := []int{0, 1, 31, 32, 64, 96, 128, 192, ShuffleProofLen(3)}[trial%9]
		b := junk(n)
		_, _ = ParsePublicKey(b)
		_, _ = ParseSecretKey(b)
		_, _ = ParseCiphertext(b)
		_, _ = ParseDeck(b, 3)
		if VerifyKey(ctx, 0, tb.pks[0], b) == nil {
			t.Fatal("junk verified as a key proof")
		}
		if _, err := VerifyShare(ctx, 0, tb.pks[0], deck[0], b); err == nil {
			t.Fatal("junk verified as a share")
		}
		if VerifyShuffle(ctx, 0, tb.joint, deck, out, b) == nil {
			t.Fatal("junk verified as a shuffle proof")
		}
		if VerifyRemask(ctx, 0, tb.joint, deck[0], out[0], b) == nil {
			t.Fatal("junk verified as a re-masking proof")
		}
		if _, err := ParseEscrow(ctx, 0, tb.pks, b); err == nil {
			t.Fatal("junk parsed as an escrow")
		}
		if _, err := e.VerifyPiece(1, b); err == nil {
			t.Fatal("junk verified as an escrow piece")
		}
		if e.VerifyAccusation(1, b) == nil {
			t.Fatal("junk verified as an accusation")
		}
	}
	// Sizes out of range are refused, not allocated.
	if _, err := ParseDeck(nil, MaxDeck+1); !errors.Is(err, ErrBadInput) {
		t.Errorf("a deck above MaxDeck: %v", err)
	}
	if err := VerifyShuffle(ctx, 0, tb.joint, deck[:1], out[:1], nil); !errors.Is(err, ErrBadInput) {
		t.Errorf("a one-card shuffle: %v", err)
	}
	if err := VerifyShuffle(ctx, 0, tb.joint, deck, out[:2], prf); err == nil {
		t.Error("a shuffle that loses a card")
	}
}

// TestRemask: a proved re-masking keeps the card and verifies only for its
// own input, output, key and context; a "re-masking" that changes the card
// cannot be proved.
func TestRemask(t *testing.T) {
	rnd := seeded(23)
	tb := newTable(t, 3, rnd)
	deck := tb.shuffled(t, 4, rnd)
	ctx := testCtx("pass", 3)
	out, prf, err := RemaskProved(rnd, ctx, 1, tb.joint, deck[2])
	if err != nil {
		t.Fatal(err)
	}
	if err := VerifyRemask(ctx, 1, tb.joint, deck[2], out, prf); err != nil {
		t.Fatal(err)
	}
	before, _ := OpenPublic(deck[2], tb.sharesFor(t, ctx, deck[2], -1, rnd), 3, 4)
	after, _ := OpenPublic(out, tb.sharesFor(t, ctx, out, -1, rnd), 3, 4)
	if before != after {
		t.Fatalf("re-masking changed card %d into %d", before, after)
	}
	swapped := Ciphertext{out.c1, base.Point().Add(out.c2, base.Point().Base())} // card + 1
	c2 := ctx
	c2.Seq++
	for what, err := range map[string]error{
		"a changed card":  VerifyRemask(ctx, 1, tb.joint, deck[2], swapped, prf),
		"another input":   VerifyRemask(ctx, 1, tb.joint, deck[3], out, prf),
		"another seat":    VerifyRemask(ctx, 2, tb.joint, deck[2], out, prf),
		"another context": VerifyRemask(c2, 1, tb.joint, deck[2], out, prf),
	} {
		if err == nil {
			t.Errorf("the re-masking proof verifies for %s", what)
		}
	}
}

// TestCardPoints: card k opens as k for every k of the largest deck, and
// the table refuses points beyond the deck in use.
func TestCardPoints(t *testing.T) {
	for k := 0; k < MaxDeck; k++ {
		got, err := cardOf(cardPoint(k), MaxDeck)
		if err != nil || got != k {
			t.Fatalf("card %d opens as %d (%v)", k, got, err)
		}
	}
	if _, err := cardOf(cardPoint(52), 52); !errors.Is(err, ErrInvalidProof) {
		t.Errorf("card 52 in a 52-card deck: %v", err)
	}
	if _, err := cardOf(base.Point().Null(), 52); err == nil {
		t.Error("the identity opened as a card")
	}
}

// TestZeroValuesRefused: zero-valued keys, ciphertexts and shares from a
// careless caller give ErrBadInput, not a panic.
func TestZeroValuesRefused(t *testing.T) {
	rnd := seeded(24)
	sk, _ := GenerateKey(rnd)
	h := sk.Public()
	ct, _ := Mask(rnd, h, 3)
	ctx := testCtx("x", 1)
	checks := map[string]error{}
	_, checks["Remask, no key"] = Remask(rnd, PublicKey{}, ct)
	_, checks["Remask, no card"] = Remask(rnd, h, Ciphertext{})
	_, _, checks["RemaskProved, no key"] = RemaskProved(rnd, ctx, 0, PublicKey{}, ct)
	checks["VerifyRemask, no card"] = VerifyRemask(ctx, 0, h, Ciphertext{}, ct, make([]byte, RemaskProofLen))
	_, checks["MakeShare, no card"] = MakeShare(rnd, ctx, 0, sk, Ciphertext{})
	_, checks["VerifyShare, no card"] = VerifyShare(ctx, 0, h, Ciphertext{}, make([]byte, ShareLen))
	_, checks["OpenPublic, no card"] = OpenPublic(Ciphertext{}, nil, 2, 5)
	_, checks["OpenPublic, empty shares"] = OpenPublic(ct, []Share{{}, {}}, 2, 5)
	_, checks["JointKey, empty key"] = JointKey([]PublicKey{h, {}})
	_, _, checks["Shuffle, empty card"] = Shuffle(rnd, ctx, 0, h, Deck{ct, {}})
	checks["VerifyShuffle, empty card"] = VerifyShuffle(ctx, 0, h, Deck{ct, ct}, Deck{ct, {}}, make([]byte, ShuffleProofLen(2)))
	for what, err := range checks {
		if !errors.Is(err, ErrBadInput) {
			t.Errorf("%s: %v", what, err)
		}
	}
}

// TestPermutationUniform: the shuffler's Fisher–Yates with rejection
// sampling gives each of the 24 orders of 4 cards about equally often
// (60,000 draws, 2,500 expected each, σ ≈ 49; the bound is 6σ).
func TestPermutationUniform(t *testing.T) {
	s := &stream{r: seeded(25)}
	counts := map[[4]int]int{}
	for i := 0; i < 60000; i++ {
		counts[[4]int(permutation(s, 4))]++
	}
	if len(counts) != 24 {
		t.Fatalf("%d distinct orders of 4 cards, want 24", len(counts))
	}
	for p, c := range counts {
		if c < 2500-300 || c > 2500+300 {
			t.Errorf("order %v drawn %d times of 60000", p, c)
		}
	}
}

// TestShuffleChainPermutes: after the chain, opening every card gives each
// card exactly once, in an order other than the starting one.
func TestShuffleChainPermutes(t *testing.T) {
	rnd := seeded(26)
	tb := newTable(t, 3, rnd)
	const n = 10
	deck := tb.shuffled(t, n, rnd)
	seen := make([]bool, n)
	moved := false
	for i, ct := range deck {
		c, err := OpenPublic(ct, tb.sharesFor(t, testCtx("reveal", uint64(i)), ct, -1, rnd), 3, n)
		if err != nil {
			t.Fatal(err)
		}
		if seen[c] {
			t.Fatalf("card %d appears twice", c)
		}
		seen[c] = true
		moved = moved || c != i
	}
	if !moved {
		t.Error("the shuffle chain left every card in place")
	}
}
