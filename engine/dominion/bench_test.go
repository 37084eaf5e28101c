package dominion

import (
	"testing"

	"github.com/boardmesh/boardmesh/engine"
)

// BenchmarkBigMoneyMirror plays 2-player Big Money mirror games on the
// First Game Kingdom, chance from a seeded source, as PlayOut runs them in
// `boardmesh sim`.
func BenchmarkBigMoneyMirror(b *testing.B) {
	bots := []engine.Bot{&moneyBot{}, &moneyBot{}}
	botRand := engine.NewRand([]byte("bench"))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		s, _ := newState(2, nil)
		if _, err := engine.PlayOut(s, bots, engine.SeededChance{Seed: []byte{byte(i), byte(i >> 8), byte(i >> 16)}}, botRand, 10000, false, nil); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "games/s")
}
