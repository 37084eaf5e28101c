package cardsource_test

import (
	"fmt"
	"testing"

	"github.com/boardmesh/boardmesh/engine"
	"github.com/boardmesh/boardmesh/engine/serpentcity"
)

// TestSerpentCityEndToEnd plays whole Serpent City games with real mental
// poker and the strategy bots: the decks are dealt and reshuffled by the
// deck protocol, every draw is opened to its drawer alone, every card
// played is shown with its holder's reveal; the game ends, every peer's
// shared state is identical at every step, nobody is named a cheat, and
// every peer knows privately only cards opened to it, each the card it
// later showed.
func TestSerpentCityEndToEnd(t *testing.T) {
	for _, n := range []int{2, 3} {
		t.Run(fmt.Sprintf("%d seats", n), func(t *testing.T) {
			tb := newGameTable(t, serpentcity.Game, n, fmt.Sprintf("serpent e2e %d", n))
			r := engine.NewRand([]byte(tb.seed))
			bot := serpentcity.Game.Bots[0].New()
			for steps := 0; !tb.step(bot, r); steps++ {
				if steps > 5000 {
					t.Fatal("the game does not end")
				}
				for i, p := range tb.peers {
					if len(p.cheats) > 0 {
						t.Fatalf("peer %d names a cheat at an honest table: %v", i+1, p.cheats)
					}
				}
			}
			st0 := tb.peers[0].src.State()
			c := st0.Cards()
			public, private := 0, 0
			for d := 0; d < c.NumDecks(); d++ {
				for pos := 0; ; pos++ {
					h := engine.Handle{Deck: uint8(d), Pos: uint16(pos)}
					if !c.Valid(h) {
						break
					}
					pub, isPub := c.Public(h)
					if isPub {
						public++
					}
					for i, p := range tb.peers {
						v, known := p.src.State().Cards().Knowledge().Card(h)
						if known {
							private++
						}
						if known && !p.src.State().Cards().Seen(h, i) {
							t.Fatalf("seat %d knows %s, which was never opened to it", i+1, h)
						}
						if known && isPub && v != pub {
							t.Fatalf("seat %d drew %s as card %d; it turned out card %d", i+1, h, v, pub)
						}
					}
				}
			}
			if public == 0 || private == 0 {
				t.Fatalf("%d cards played, %d drawn in a whole game", public, private)
			}
			t.Logf("%d decks, %d cards drawn, %d shown", c.NumDecks(), private, public)
		})
	}
}
