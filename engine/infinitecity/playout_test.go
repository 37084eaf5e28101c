package infinitecity

import (
	"fmt"
	"testing"

	"github.com/boardmesh/boardmesh/engine"
	"github.com/boardmesh/boardmesh/engine/enginetest"
)

// invariant is checked after every step of the random playouts: every
// tile of the set is in exactly one place, every player's markers add up,
// the city is one connected piece, and a decoded copy agrees.
func invariant(es engine.State) error {
	s := es.(*State)
	if err := s.checkTiles(); err != nil {
		return err
	}
	if err := s.checkMarkers(); err != nil {
		return err
	}
	total := len(s.pile) + len(s.peek)
	if s.cards.Mode() != engine.CardsOpen {
		return fmt.Errorf("a playout runs on a secret table")
	}
	for _, h := range s.hands {
		total += len(h)
	}
	total += len(s.board)
	if total != s.set.Total {
		return fmt.Errorf("%d tiles in the pile, hands, Library and on the table; the set has %d", total, s.set.Total)
	}
	for p, n := range s.supply {
		if n < 0 || n > s.markers {
			return fmt.Errorf("seat %d has %d markers in supply", p, n)
		}
	}
	if !s.connected() {
		return fmt.Errorf("the tiles on the table are not all connected")
	}
	if s.reason == endNone && len(s.stack) == 0 {
		return fmt.Errorf("nobody is to act in a running game")
	}
	return nil
}

func TestPlayouts(t *testing.T) {
	games := 400
	if testing.Short() {
		games = 40
	}
	enginetest.Playouts(t, Game, enginetest.Config{Games: games, Invariant: invariant})
}

func enginetestHashes(seed string) ([][32]byte, error) {
	return enginetest.HashSequence(Game, 4, nil, seed, 100000)
}

// TestPlayoutsWithOptions covers the other options: few markers, big
// hands, and a custom tile set without Power Stations.
func TestPlayoutsWithOptions(t *testing.T) {
	opts := []engine.Options{
		{{Name: "markers", Value: "3"}},
		{{Name: "hand", Value: "8"}, {Name: "markers", Value: "30"}},
		{{Name: "tiles", Value: "20 Housing: mark-adjacent; 10 Port: move-marker; 10 Transit Station: swap-tiles; 10 Salvage Yard: recycle; 10 Embassy: swap-hands; 10 Library: library; 10 Plaza: plaza"}},
	}
	games := 60
	if testing.Short() {
		games = 9
	}
	enginetest.Playouts(t, Game, enginetest.Config{Games: games, Players: []int{2, 4, 6},
		Options: func(i int) engine.Options { return opts[i%len(opts)] }, Invariant: invariant})
}

// TestPlayoutsWithDrops drops players at random moments of random games:
// after every drop the state keeps its accounts, has exactly one actor,
// survives encoding, and the game still ends.
func TestPlayoutsWithDrops(t *testing.T) {
	games := 300
	if testing.Short() {
		games = 30
	}
	for g := 0; g < games; g++ {
		n := 2 + g%5
		es, err := Game.Setup(n, nil)
		if err != nil {
			t.Fatal(err)
		}
		s := es.(*State)
		seed := []byte(fmt.Sprint("drops", g))
		r := engine.NewRand(seed)
		chance := engine.SeededChance{Seed: seed}
		bots := make([]engine.Bot, n)
		for i := range bots {
			bots[i] = Game.Bots[(i+g)%2].New()
		}
		var beacon uint64
		for step := 0; s.ToAct().Kind != engine.ActorOver; step++ {
			if step > 20000 {
				t.Fatalf("game %d did not end", g)
			}
			if r.Intn(40) == 0 {
				seat := r.Intn(n)
				before := engine.Encode(s)
				err := s.Drop(seat)
				if err != nil && string(before) != string(engine.Encode(s)) {
					t.Fatalf("game %d: refused drop of seat %d changed the state", g, seat)
				}
				if err == nil {
					if err := enginetest.CheckState(Game, s, invariant); err != nil {
						t.Fatalf("game %d, step %d, after seat %d left: %v", g, step, seat, err)
					}
					if err := enginetest.SyncTest(Game, nil, s, nil); err != nil {
						t.Fatalf("game %d after a drop: %v", g, err)
					}
				}
				continue
			}
			who := s.ToAct()
			if who.Kind == engine.ActorChance {
				if err := s.ApplyChance(chance.Beacon(beacon)); err != nil {
					t.Fatal(err)
				}
				beacon++
			} else {
				if s.dropped[who.Seat] {
					t.Fatalf("game %d: seat %d left but is asked to act", g, who.Seat)
				}
				legal := s.Legal(nil)
				if err := s.Apply(who.Seat, bots[who.Seat].Choose(s, legal, r)); err != nil {
					t.Fatal(err)
				}
			}
			if err := enginetest.CheckState(Game, s, invariant); err != nil {
				t.Fatalf("game %d, step %d: %v", g, step, err)
			}
		}
	}
}
