package dragonslair

import (
	"bytes"
	"testing"

	"github.com/boardmesh/boardmesh/engine"
)

// FuzzDecode feeds arbitrary bytes to Decode. Whatever decodes must
// re-encode to the same bytes, keep every card accounted for, and survive
// every legal action and a chance step without panicking. Run it longer
// with: go test -fuzz FuzzDecode ./engine/dragonslair/
func FuzzDecode(f *testing.F) {
	for _, seed := range []string{"a", "b", "c"} {
		for _, steps := range []int{0, 3, 40, 200} {
			s, _ := Game.Setup(2+len(seed)%7, nil)
			bs := make([]engine.Bot, s.Players())
			for i := range bs {
				bs[i] = bots[i%len(bots)].New()
			}
			engine.PlayOut(s, bs, engine.SeededChance{Seed: []byte(seed)}, engine.NewRand([]byte(seed)), steps, false, nil)
			f.Add(engine.Encode(s))
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		st, err := Game.Decode(b)
		if err != nil {
			return
		}
		if re := engine.Encode(st); !bytes.Equal(re, b) && len(re) <= len(b) {
			// Non-canonical input may decode; DecodeState rejects it.
			if _, err := engine.DecodeState(Game, b); err == nil {
				t.Fatal("non-canonical bytes accepted by DecodeState")
			}
		}
		if err := st.(*State).conservation(); err != nil {
			t.Fatalf("decoded a state that loses cards: %v", err)
		}
		st.View(0).Render(80, true)
		for _, a := range st.Legal(nil) {
			c := st.Clone()
			if err := c.Apply(st.ToAct().Seat, a); err != nil {
				t.Fatalf("legal %s refused: %v", st.Describe(a), err)
			}
		}
		if st.ToAct().Kind == engine.ActorChance {
			if err := st.Clone().ApplyChance(make([]byte, 32)); err != nil {
				t.Fatal(err)
			}
		}
	})
}
