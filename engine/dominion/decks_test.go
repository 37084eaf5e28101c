package dominion

import (
	"testing"

	"github.com/boardmesh/boardmesh/engine"
)

// The declared decks fit the contract's limits for every player count, the
// Supply deck lies face up with each pile where gainHandle looks for it, and
// every pile can hold what a game of that size puts in the Supply.
func TestDeclaredDecks(t *testing.T) {
	for n := 2; n <= 6; n++ {
		ds := declaredDecks(n)
		cs, err := engine.NewDecks(ds)
		if err != nil {
			t.Fatalf("%d players: %v", n, err)
		}
		if len(ds) != n+1 || !cs.OpenDeck(supplyDeck) || len(ds[supplyDeck].Cards) > engine.MaxDeckSize {
			t.Fatalf("%d players: %d decks, Supply open %v, %d cards", n, len(ds), cs.OpenDeck(supplyDeck), len(ds[supplyDeck].Cards))
		}
		for i := 0; i < n; i++ {
			var z counts
			for _, c := range ds[startDeck(i)].Cards {
				z[c]++
			}
			if cs.OpenDeck(int(startDeck(i))) || z != zone(Copper, Copper, Copper, Copper, Copper, Copper, Copper, Estate, Estate, Estate) {
				t.Fatalf("%d players, seat %d: starting deck %v", n, i+1, z)
			}
		}
		// Every copy a game's Supply holds has its own face-up handle.
		s, err := newState(n, nil)
		if err != nil {
			t.Fatal(err)
		}
		for c := 0; c < NumCards; c++ {
			if s.supply[c] > pileSizes(n)[c] {
				t.Fatalf("%d players: the Supply has %d %s, the deck declares %d", n, s.supply[c], cards[c].name, pileSizes(n)[c])
			}
			seen := map[engine.Handle]bool{}
			for left := int(pileSizes(n)[c]); left >= 1; left-- {
				h := gainHandle(n, c, left)
				v, ok := cs.Public(h)
				if !ok || int(v) != c || seen[h] {
					t.Fatalf("%d players: gaining %s with %d left takes %s = %d (public %v, twice %v)", n, cards[c].name, left, h, v, ok, seen[h])
				}
				seen[h] = true
			}
		}
	}
}
