package dominion

import (
	"fmt"
	"testing"

	"github.com/boardmesh/boardmesh/engine"
	"github.com/boardmesh/boardmesh/engine/enginetest"
)

// invariant checks card conservation (every card in exactly one place, so
// the counts over all places equal the set-up's totals), that no count is
// negative, and that a choice is asked only with a card being played.
func invariant(st engine.State) error {
	s := st.(*State)
	want := s.initialTotals()
	var got counts
	add := func(where string, z *counts) error {
		for c, v := range z {
			if v < 0 {
				return fmt.Errorf("%s has %d %s", where, v, cards[c].name)
			}
			got[c] += v
		}
		return nil
	}
	if err := add("supply", &s.supply); err != nil {
		return err
	}
	if err := add("trash", &s.trash); err != nil {
		return err
	}
	// What each seat owns (public counts) holds every card outside the
	// Supply and the trash; its zones hold exactly that many handles, each
	// once (checkZones); and on an open table the cards each seat has seen
	// in its zones are among what it owns.
	for i := range s.p {
		p := &s.p[i]
		if err := add(fmt.Sprintf("seat %d", i+1), &p.own); err != nil {
			return err
		}
		n := len(p.hand) + len(p.deck) + len(p.disc) + len(p.play)
		seen := s.zc(i, append(append(append(append([]engine.Handle(nil), p.hand...), p.deck...), p.disc...), p.play...))
		if s.asideOwner == i {
			n += len(s.aside)
		}
		if n != p.own.total() {
			return fmt.Errorf("seat %d has %d cards in its zones and owns %d", i+1, n, p.own.total())
		}
		for c := range seen {
			if seen[c] > p.own[c] {
				return fmt.Errorf("seat %d has %d %s in its zones and owns %d", i+1, seen[c], cards[c].name, p.own[c])
			}
		}
	}
	if err := s.checkZones(); err != nil {
		return err
	}
	if got != want {
		for c := range got {
			if got[c] != want[c] {
				return fmt.Errorf("%d %s in the game, want %d", got[c], cards[c].name, want[c])
			}
		}
	}
	if s.actions < 0 || s.buys < 0 || s.coins < 0 {
		return fmt.Errorf("negative actions/buys/coins %d/%d/%d", s.actions, s.buys, s.coins)
	}
	if s.ask > askMain && len(s.stack) == 0 {
		return fmt.Errorf("choice %d asked with no card being played", s.ask)
	}
	if s.phase != phaseOver && s.req == reqNone && s.ask == askNone && !s.waiting() {
		return fmt.Errorf("nobody to act")
	}
	return nil
}

func randomKingdom(i int) engine.Options {
	return engine.Options{{Name: optRandom, Value: "true"}}
}

func TestPlayoutsRandomKingdoms(t *testing.T) {
	games := 500
	if testing.Short() {
		games = 40
	}
	enginetest.Playouts(t, Game, enginetest.Config{
		Games:     games,
		Players:   []int{2, 3, 4},
		Options:   randomKingdom,
		Invariant: invariant,
		SyncEvery: 3,
	})
}

func TestPlayoutsManyPlayers(t *testing.T) {
	games := 100
	if testing.Short() {
		games = 6
	}
	enginetest.Playouts(t, Game, enginetest.Config{
		Games:     games,
		Players:   []int{5, 6},
		Options:   randomKingdom,
		Invariant: invariant,
		SyncEvery: 5,
	})
}

// TestPlayoutsWithDrops plays seeded games in which seats leave at random
// moments: exactly one actor must remain, cards stay conserved, and every
// view renders.
func TestPlayoutsWithDrops(t *testing.T) {
	games := 300
	if testing.Short() {
		games = 20
	}
	for i := 0; i < games; i++ {
		n := 2 + i%5
		seed := []byte(fmt.Sprintf("drops/%d", i))
		st, err := Game.Setup(n, randomKingdom(i))
		if err != nil {
			t.Fatal(err)
		}
		s := st.(*State)
		r := engine.NewRand(seed)
		chance := engine.SeededChance{Seed: seed}
		var legal []engine.Action
		for step := 0; s.ToAct().Kind != engine.ActorOver; step++ {
			if step > 100000 {
				t.Fatalf("game %d did not end", i)
			}
			if r.Intn(300) == 0 {
				seat := r.Intn(n)
				if err := s.Drop(seat); err != nil && !s.isDropped(seat) {
					t.Fatalf("game %d: drop seat %d: %v", i, seat, err)
				}
				if err := enginetest.CheckState(Game, s, invariant); err != nil {
					t.Fatalf("game %d step %d after a drop: %v", i, step, err)
				}
				continue
			}
			if step%50 == 0 {
				for seat := -1; seat < n; seat++ {
					if out := s.View(seat).Render(80, seat%2 == 0); out == "" {
						t.Fatal("empty render")
					}
				}
			}
			who := s.ToAct()
			if who.Kind == engine.ActorChance {
				if err := s.ApplyChance(chance.Beacon(uint64(step))); err != nil {
					t.Fatal(err)
				}
			} else {
				if s.isDropped(who.Seat) {
					t.Fatalf("game %d: dropped seat %d asked to act: %s", i, who.Seat, s.prompt())
				}
				legal = s.Legal(legal[:0])
				a := explorer{}.Choose(s, legal, r)
				if err := s.Apply(who.Seat, a); err != nil {
					t.Fatalf("game %d: %v", i, err)
				}
			}
			if err := enginetest.CheckState(Game, s, invariant); err != nil {
				t.Fatalf("game %d step %d: %v", i, step, err)
			}
		}
	}
}
