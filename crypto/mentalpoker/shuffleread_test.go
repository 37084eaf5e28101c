package mentalpoker

import (
	"errors"
	"testing"
)

// TestShuffleProofElementsStrict: every message of a shuffle proof is read
// strictly: the identity in place of a proof point (Γ, a Λ, a D, a Θ) and
// a second encoding (plus L) of a response scalar (a Zsigma, Ztau, the
// last Zalpha) are malformed, wherever they sit.
func TestShuffleProofElementsStrict(t *testing.T) {
	rnd := seeded(23)
	tb := newTable(t, 2, rnd)
	deck := tb.shuffled(t, 3, rnd)
	ctx := testCtx("shuffle", 78)
	out, prf, err := Shuffle(rnd, ctx, 0, tb.joint, deck)
	if err != nil {
		t.Fatal(err)
	}
	if err := VerifyShuffle(ctx, 0, tb.joint, deck, out, prf); err != nil {
		t.Fatal(err)
	}
	k := len(deck)
	// Offsets in elements of 32 bytes, kyber's message order: Γ, A, C, U,
	// W, Λ1, Λ2; D; Zsigma, Ztau; X, Y; Θ; Zalpha.
	p3 := 4*k + 3
	p5 := p3 + k
	s0 := p5 + k + 1
	s2 := s0 + 2*k
	s4 := s2 + 2*k
	for _, tc := range []struct {
		name   string
		at     int
		scalar bool
	}{
		{"Γ", 0, false}, {"Λ2", p3 - 1, false}, {"the first D", p3, false}, {"the last Θ", s4 - 1, false},
		{"the first Zsigma", p5, true}, {"Ztau", s0 - 1, true}, {"the last Zalpha", s4 + 2*k - 2, true},
	} {
		b := append([]byte(nil), prf...)
		e := b[tc.at*32 : (tc.at+1)*32]
		if tc.scalar {
			addL(e)
		} else {
			clear(e)
		}
		if err := VerifyShuffle(ctx, 0, tb.joint, deck, out, b); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s spoiled: %v", tc.name, err)
		}
	}
	if s4+2*k-1 != len(prf)/32 {
		t.Fatalf("the layout above is %d elements, the proof %d", s4+2*k-1, len(prf)/32)
	}
}
