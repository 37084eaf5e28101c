package serpentcity

import (
	"fmt"
	"testing"

	"github.com/boardmesh/boardmesh/engine"
)

// duel plays games seeded 4-player games with bots a and b in alternate
// seats (the seating swaps every game) and returns a's wins.
func duel(t *testing.T, games int, a, b func() engine.Bot) int {
	t.Helper()
	wins := 0
	for i := 0; i < games; i++ {
		es, err := Game.Setup(4, nil)
		if err != nil {
			t.Fatal(err)
		}
		bots := make([]engine.Bot, 4)
		for j := range bots {
			if (i+j)%2 == 0 {
				bots[j] = a()
			} else {
				bots[j] = b()
			}
		}
		seed := []byte(fmt.Sprint("duel4/", i))
		if _, err := engine.PlayOut(es, bots, engine.SeededChance{Seed: seed}, engine.NewRand(engine.Derive(seed, "bots", 0)), 1000000, false, nil); err != nil {
			t.Fatal(err)
		}
		for _, w := range es.Result().Winners {
			if (i+w)%2 == 0 {
				wins++
			}
		}
	}
	return wins
}

// TestStrategyBotBeatsRandomInFourPlayerGames: two strategy bots against
// two random bots win nearly every game.
func TestStrategyBotBeatsRandomInFourPlayerGames(t *testing.T) {
	const games = 60
	wins := duel(t, games, func() engine.Bot { return &StrategyBot{} }, func() engine.Bot { return engine.RandomBot{} })
	if wins < games*95/100 {
		t.Fatalf("strategy bots won %d of %d games against random bots", wins, games)
	}
}

// TestStrategyBotHoldsItsOwnAgainstBuilder: two strategy bots against two
// of the older BuilderBot, which never trades nor forces a conflict, win at
// least their fair half of 200 seeded games, less a margin for chance.
func TestStrategyBotHoldsItsOwnAgainstBuilder(t *testing.T) {
	games := 200
	if testing.Short() {
		games = 40
	}
	wins := duel(t, games, func() engine.Bot { return &StrategyBot{} }, func() engine.Bot { return &BuilderBot{} })
	t.Logf("strategy bots won %d of %d games against builder bots", wins, games)
	if wins < games*45/100 {
		t.Fatalf("strategy bots won %d of %d games against builder bots", wins, games)
	}
}
