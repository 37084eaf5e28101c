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

// TestBotsUseOnlyWhatTheirSeatSees: at every decision of seeded 4-player
// games, the strategy and builder bots choose the same action when the
// other players' hidden hands are swapped for different cards of the same
// counts (the counts are public, the cards are not).
func TestBotsUseOnlyWhatTheirSeatSees(t *testing.T) {
	games := 20
	if testing.Short() {
		games = 4
	}
	decisions, changed := 0, 0
	for i := 0; i < games; i++ {
		es, err := Game.Setup(4, nil)
		if err != nil {
			t.Fatal(err)
		}
		s := es.(*State)
		bots := []engine.Bot{&StrategyBot{}, &BuilderBot{}, &StrategyBot{}, &BuilderBot{}}
		seed := []byte(fmt.Sprint("hidden/", i))
		chance := engine.SeededChance{Seed: seed}
		r := engine.NewRand(engine.Derive(seed, "bots", 0))
		var n uint64
		var legal []engine.Action
		for step := 0; s.ToAct().Kind != engine.ActorOver; step++ {
			if step > 200000 {
				t.Fatal("no end")
			}
			who := s.ToAct()
			if who.Kind == engine.ActorChance {
				if err := s.ApplyChance(chance.Beacon(n)); err != nil {
					t.Fatal(err)
				}
				n++
				continue
			}
			legal = s.Legal(legal[:0])
			a := bots[who.Seat].Choose(s, legal, r)
			other := s.clone()
			for q := range other.pl {
				if q == who.Seat {
					continue
				}
				for d := 0; d < 2; d++ {
					h := other.pl[q].hand[d]
					held := 0
					for k := range h {
						held += h[k]
						h[k] = 0
					}
					// The same number of cards, all of another kind.
					h[(step+q+d)%len(h)] = held
					if held > 0 {
						changed++
					}
				}
			}
			if b := bots[who.Seat].Choose(other, legal, r); !b.Equal(a) {
				t.Fatalf("seed %s step %d: seat %d chose %s, but %s once the others' hidden cards changed", seed, step, who.Seat, s.Describe(a), s.Describe(b))
			}
			decisions++
			if err := s.Apply(who.Seat, a); err != nil {
				t.Fatal(err)
			}
		}
	}
	if changed == 0 {
		t.Fatal("no other player ever held a card: the test checked nothing")
	}
	t.Logf("%d decisions, %d hidden hands changed", decisions, changed)
}
