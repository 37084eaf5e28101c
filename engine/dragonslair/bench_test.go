package dragonslair

import (
	"testing"

	"github.com/boardmesh/boardmesh/engine"
)

// BenchmarkGame4Players plays whole 4-player games of the default bots
// with seeded chance, as `boardmesh sim` does, without hashing.
func BenchmarkGame4Players(b *testing.B) {
	bs := make([]engine.Bot, 4)
	for i := range bs {
		bs[i] = bots[0].New()
	}
	botRand := engine.NewRand([]byte("bench bots"))
	steps := 0
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s, err := Game.Setup(4, nil)
		if err != nil {
			b.Fatal(err)
		}
		n, err := engine.PlayOut(s, bs, engine.SeededChance{Seed: []byte{byte(i), byte(i >> 8), byte(i >> 16)}}, botRand, 100000, false, nil)
		if err != nil {
			b.Fatal(err)
		}
		steps += n
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "games/s")
	b.ReportMetric(float64(steps)/float64(b.N), "steps/game")
}

// BenchmarkHash is the cost of one state hash of a mid-game state.
func BenchmarkHash(b *testing.B) {
	s, err := Game.Setup(4, nil)
	if err != nil {
		b.Fatal(err)
	}
	bs := make([]engine.Bot, 4)
	for i := range bs {
		bs[i] = bots[0].New()
	}
	engine.PlayOut(s, bs, engine.SeededChance{Seed: []byte("hash")}, engine.NewRand([]byte("hash")), 150, false, nil)
	e := engine.NewEncoder(nil)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		engine.HashWith(e, s)
	}
	b.ReportMetric(float64(len(engine.Encode(s))), "bytes")
}

// BenchmarkHashFresh is engine.Hash, which sets up its own encoder.
func BenchmarkHashFresh(b *testing.B) {
	s, _ := Game.Setup(4, nil)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		engine.Hash(s)
	}
}

// BenchmarkHashFinal is the state hash of a finished 4-player game, the
// state `boardmesh bench engine` hashes.
func BenchmarkHashFinal(b *testing.B) {
	s, err := Game.Setup(4, nil)
	if err != nil {
		b.Fatal(err)
	}
	bs := make([]engine.Bot, 4)
	for i := range bs {
		bs[i] = bots[0].New()
	}
	if _, err := engine.PlayOut(s, bs, engine.SeededChance{Seed: []byte("hash")}, engine.NewRand([]byte("hash")), 100000, false, nil); err != nil {
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

// BenchmarkClone is the cost of one Clone of a finished game's state.
func BenchmarkClone(b *testing.B) {
	s, err := Game.Setup(4, nil)
	if err != nil {
		b.Fatal(err)
	}
	bs := make([]engine.Bot, 4)
	for i := range bs {
		bs[i] = bots[0].New()
	}
	if _, err := engine.PlayOut(s, bs, engine.SeededChance{Seed: []byte("hash")}, engine.NewRand([]byte("hash")), 100000, false, nil); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		_ = s.Clone()
	}
}
