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

// BenchmarkHashFinal is the state hash (engine.HashWith: the canonical
// encoding and SHA-256) of a finished 2-player Big Money game, the state
// `boardmesh bench engine` hashes.
func BenchmarkHashFinal(b *testing.B) {
	s, _ := newState(2, nil)
	bots := []engine.Bot{&moneyBot{}, &moneyBot{}}
	if _, err := engine.PlayOut(s, bots, engine.SeededChance{Seed: []byte("hash")}, engine.NewRand([]byte("hash")), 10000, false, nil); err != nil {
		b.Fatal(err)
	}
	e := engine.NewEncoder(nil)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		engine.HashWith(e, s)
	}
	b.ReportMetric(float64(len(engine.Encode(s))), "bytes")
}

// BenchmarkClone is the cost of one Clone of a finished game's state
// (lockstep clones the state at every step).
func BenchmarkClone(b *testing.B) {
	s, _ := newState(2, nil)
	bots := []engine.Bot{&moneyBot{}, &moneyBot{}}
	if _, err := engine.PlayOut(s, bots, engine.SeededChance{Seed: []byte("hash")}, engine.NewRand([]byte("hash")), 10000, false, nil); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_ = s.Clone()
	}
}
