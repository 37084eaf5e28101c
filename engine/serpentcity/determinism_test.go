package serpentcity

import (
	"encoding/hex"
	"testing"

	"github.com/boardmesh/boardmesh/engine"
	"github.com/boardmesh/boardmesh/engine/enginetest"
)

// The golden vectors of serpentcity/2. They must be the same on every
// platform (the CI also runs this test with GOARCH=386); a change of the
// rules, the encoding or the open card source's draws changes them, and
// then Version must change too. goldenOpenHash is the state hash at the
// end of the seeded open-table game below (strategy, builder and random
// bots; every card drawn by the open card source from its beacon);
// goldenSecretHash the shared state's hash at the end of a seeded secret
// table (enginetest.SecretTable, its dealer's decks from the seed), the
// same on every peer; goldenSecretSteps its number of steps.
const (
	goldenOpenHash    = "e97a8666ed908b2d4e5ce70a2077d32c9b9ab64317eb00f41947a18cc0b42e4c"
	goldenSecretHash  = "c4f4d2820abdaa990b2fc6d111b39460a68e1a5c613c31b8f00a24b590300adc"
	goldenSecretSteps = 829
)

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
	if got := hex.EncodeToString(a[len(a)-1][:]); got != goldenOpenHash {
		t.Errorf("final hash of the seeded open game = %s, want %s", got, goldenOpenHash)
	}
	c, err := enginetest.HashSequence(Game, 4, nil, "another seed", 100000)
	if err != nil {
		t.Fatal(err)
	}
	if c[len(c)-1] == a[len(a)-1] {
		t.Error("two seeds ended in the same state")
	}
}

// secretGame plays a seeded 4-seat bot game on a secret table for at most
// steps steps.
func secretGame(t *testing.T, seed string, steps int) (*enginetest.SecretTable, int) {
	t.Helper()
	tab, err := enginetest.NewSecretTable(Game, 4, nil, nil, []byte(seed))
	if err != nil {
		t.Fatal(err)
	}
	bots := []engine.Bot{&StrategyBot{}, &BuilderBot{}, &StrategyBot{}, &BuilderBot{}}
	r := engine.NewRand([]byte(seed))
	n := 0
	for ; n < steps && tab.ToAct().Kind != engine.ActorOver; n++ {
		if _, _, err := tab.Replay(n, nil, bots, r); err != nil {
			t.Fatal(err)
		}
	}
	return tab, n
}

func TestDeterminismSecretTable(t *testing.T) {
	tab, n := secretGame(t, "determinism", 100000)
	if tab.ToAct().Kind != engine.ActorOver {
		t.Fatal("the secret game did not end")
	}
	h := engine.Hash(tab.Peers[0])
	for i, p := range tab.Peers[1:] {
		if engine.Hash(p) != h {
			t.Fatalf("peer %d ends in another state", i+2)
		}
	}
	if got := hex.EncodeToString(h[:]); got != goldenSecretHash || n != goldenSecretSteps {
		t.Errorf("final hash of the seeded secret game = %s after %d steps, want %s after %d", got, n, goldenSecretHash, goldenSecretSteps)
	}
}

// TestEncodingRoundTripsAndRejectsDamage checks Decode against every prefix
// of mid-game encodings, open and secret (hands, piles and spent cards of
// handles, the card bookkeeping): it must fail cleanly, never panic, and
// whatever damage still decodes must be playable.
func TestEncodingRoundTripsAndRejectsDamage(t *testing.T) {
	st, err := Game.Setup(4, nil)
	if err != nil {
		t.Fatal(err)
	}
	bs := []engine.Bot{&StrategyBot{}, &BuilderBot{}, &StrategyBot{}, &BuilderBot{}}
	engine.PlayOut(st, bs, engine.SeededChance{Seed: []byte("roundtrip")}, engine.NewRand([]byte("roundtrip")), 500, false, nil)
	tab, _ := secretGame(t, "roundtrip", 500)
	for _, s := range []engine.State{st, tab.Peers[2]} {
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
			if d, err := Game.Decode(bad); err == nil {
				d.View(0).Render(80, false)
				for _, a := range d.Legal(nil) {
					d.Clone().Apply(d.ToAct().Seat, a)
				}
				d.Clone().ApplyChance(make([]byte, 32))
				if cs, ok := d.(engine.CardState); ok {
					for _, o := range cs.Openings(nil) {
						cs.Clone().(engine.CardState).Open(o, 0)
					}
				}
			}
		}
	}
}
