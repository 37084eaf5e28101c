package infinitecity

import (
	"fmt"
	"testing"

	"github.com/boardmesh/boardmesh/engine"
)

// BenchmarkBotGames plays whole 4-player games, chance steps included, and
// reports games per second on one core:
//
//	go test -run '^$' -bench BotGames -cpu 1 ./engine/infinitecity/
func BenchmarkBotGames(b *testing.B) {
	for _, kind := range []string{"greedy", "random"} {
		b.Run(kind, func(b *testing.B) {
			spec, _ := Game.Bot(kind)
			bots := make([]engine.Bot, 4)
			for i := range bots {
				bots[i] = spec.New()
			}
			steps := 0
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				s, err := Game.Setup(4, nil)
				if err != nil {
					b.Fatal(err)
				}
				seed := []byte(fmt.Sprint(i))
				n, err := engine.PlayOut(s, bots, engine.SeededChance{Seed: seed}, engine.NewRand(seed), 100000, false, nil)
				if err != nil {
					b.Fatal(err)
				}
				steps += n
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "games/s")
			b.ReportMetric(float64(steps)/float64(b.N), "steps/game")
		})
	}
}

// BenchmarkScore120 scores a table of all 120 tiles for 4 players.
func BenchmarkScore120(b *testing.B) {
	s := fullCity(b)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if sc := s.Scores(); sc[0].Total == 0 {
			b.Fatal("no points")
		}
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/1000, "µs/score")
}
