package dragonslair

import (
	"encoding/hex"
	"testing"

	"github.com/boardmesh/boardmesh/engine"
	"github.com/boardmesh/boardmesh/engine/enginetest"
)

// goldenFinalHash is the state hash at the end of the seeded game below.
// It must be the same on every platform (the CI also runs this test with
// GOARCH=386); a change of the rules or the encoding changes it, and then
// Game.Version must change too (regenerated for dragonslair/2: the pile
// holds card handles and the encoding ends with the card bookkeeping;
// regenerated again when engine.Cards stopped writing a reshuffled
// position's value beside the source it took, and wrote a source as
// deck and position apart: the same game, a shorter encoding; and for
// dragonslair/3, when engine.Cards wrote a deck's positions column by
// column with the flags as runs: the same game again).
const goldenFinalHash = "c536acf85f99facfdc593ca210d968c1dca5d9eaa8ac43b4b73cd1dfcfa10c4d"

func TestDeterminismSameSeedSameHashes(t *testing.T) {
	a, err := enginetest.HashSequence(Game, 4, nil, "determinism", 100000)
	if err != nil {
		t.Fatal(err)
	}
	b, err := enginetest.HashSequence(Game, 4, nil, "determinism", 100000)
	if err != nil {
		t.Fatal(err)
	}
	if len(a) != len(b) {
		t.Fatalf("same seed, %d and %d steps", len(a), len(b))
	}
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("same seed, hashes differ at step %d", i)
		}
	}
	if len(a) < 100 {
		t.Fatalf("the game took only %d steps", len(a))
	}
	if got := hex.EncodeToString(a[len(a)-1][:]); got != goldenFinalHash {
		t.Errorf("final hash of the seeded game = %s, want %s", got, goldenFinalHash)
	}
	c, err := enginetest.HashSequence(Game, 4, nil, "another seed", 100000)
	if err != nil {
		t.Fatal(err)
	}
	if c[len(c)-1] == a[len(a)-1] {
		t.Error("two seeds ended in the same state")
	}
}

func TestDeterminismEveryVariantReplays(t *testing.T) {
	for i, opts := range variantOptions {
		for _, n := range []int{2, 5, 8} {
			a, err := enginetest.HashSequence(Game, n, opts, "variants", 100000)
			if err != nil {
				t.Fatalf("variant %d (%s), %d players: %v", i, opts, n, err)
			}
			b, _ := enginetest.HashSequence(Game, n, opts, "variants", 100000)
			if len(a) != len(b) || a[len(a)-1] != b[len(b)-1] {
				t.Fatalf("variant %d (%s), %d players: replay differs", i, opts, n)
			}
		}
	}
}

// TestEncodingRoundTripsAndRejectsDamage checks Decode against every
// prefix of a mid-game encoding: it must fail cleanly, never panic.
func TestEncodingRoundTripsAndRejectsDamage(t *testing.T) {
	s := midGame(t, 5, "roundtrip", 120)
	enc := engine.Encode(s)
	back, err := engine.DecodeState(Game, enc)
	if err != nil {
		t.Fatal(err)
	}
	if engine.Hash(back) != engine.Hash(s) {
		t.Fatal("decoded state hashes differently")
	}
	for i := 0; i < len(enc); i++ {
		if _, err := Game.Decode(enc[:i]); err == nil {
			t.Fatalf("a %d-byte prefix of a %d-byte state decoded", i, len(enc))
		}
	}
	for i := 0; i < len(enc); i++ {
		bad := append([]byte(nil), enc...)
		bad[i] ^= 0x5a
		// Damage may still decode into another valid state; it must not panic,
		// and whatever decodes must be playable.
		if st, err := Game.Decode(bad); err == nil {
			st.View(0).Render(80, false)
			for _, a := range st.Legal(nil) {
				st.Clone().Apply(st.ToAct().Seat, a)
			}
			st.Clone().ApplyChance(make([]byte, 32))
		}
	}
}

// midGame plays a seeded cautious game for steps steps.
func midGame(t *testing.T, players int, seed string, steps int) *State {
	t.Helper()
	st, err := Game.Setup(players, nil)
	if err != nil {
		t.Fatal(err)
	}
	bs := make([]engine.Bot, players)
	for i := range bs {
		bs[i] = bots[0].New()
	}
	engine.PlayOut(st, bs, engine.SeededChance{Seed: []byte(seed)}, engine.NewRand([]byte(seed)), steps, false, nil)
	return st.(*State)
}
