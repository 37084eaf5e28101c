package serpentcity

import (
	"fmt"
	"testing"

	"github.com/boardmesh/boardmesh/engine"
)

// playBotGame plays one seeded game of the given bots to its end.
func playBotGame(tb testing.TB, players int, bot string, i int) *State {
	es, err := Game.Setup(players, nil)
	if err != nil {
		tb.Fatal(err)
	}
	spec, err := Game.Bot(bot)
	if err != nil {
		tb.Fatal(err)
	}
	bots := make([]engine.Bot, players)
	for j := range bots {
		bots[j] = spec.New()
	}
	seed := []byte(fmt.Sprint("bench/", players, "/", i))
	if _, err := engine.PlayOut(es, bots, engine.SeededChance{Seed: seed}, engine.NewRand(engine.Derive(seed, "bots", 0)), 1000000, false, nil); err != nil {
		tb.Fatal(err)
	}
	return es.(*State)
}

// BenchmarkFourPlayerBotGames measures whole 4-player games of strategy
// bots on one core; games/s is the figure for docs/performance.md.
func BenchmarkFourPlayerBotGames(b *testing.B) {
	for i := 0; i < b.N; i++ {
		playBotGame(b, 4, "strategy", i)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "games/s")
}

// BenchmarkFourPlayerRandomGames is the same with random bots, whose games
// run to round 60.
func BenchmarkFourPlayerRandomGames(b *testing.B) {
	for i := 0; i < b.N; i++ {
		playBotGame(b, 4, "random", i)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "games/s")
}

// BenchmarkFourPlayerBuilderGames is the same with the older builder bot,
// to weigh what the strategy bot's fighting and trading cost.
func BenchmarkFourPlayerBuilderGames(b *testing.B) {
	for i := 0; i < b.N; i++ {
		playBotGame(b, 4, "builder", i)
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "games/s")
}
