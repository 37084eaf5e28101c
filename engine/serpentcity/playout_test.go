package serpentcity

import (
	"fmt"
	"testing"

	"github.com/boardmesh/boardmesh/engine"
	"github.com/boardmesh/boardmesh/engine/enginetest"
)

// invariant checks what must hold after every step of every game.
func invariant(es engine.State) error {
	s := es.(*State)
	c := s.cfg
	if who := s.ToAct(); who.Kind == engine.ActorSeat && s.pl[who.Seat].dropped {
		return fmt.Errorf("seat %d left but is asked to act", who.Seat)
	}
	capital := 0
	for p := range s.pl {
		pl := &s.pl[p]
		for r, x := range pl.res {
			if x < 0 || x > resourceCap {
				return fmt.Errorf("player %d holds %d %s", p, x, resNames[r])
			}
		}
		if a := s.active(p); a > pawnLimit(s.n) {
			return fmt.Errorf("player %d has %d active pawns, limit %d", p, a, pawnLimit(s.n))
		}
		if pl.start < 0 || pl.start > c.r.StartSlots {
			return fmt.Errorf("player %d has %d pawns on START (%d slots)", p, pl.start, c.r.StartSlots)
		}
		for t := range pl.terr {
			if pl.terr[t] < 0 || pl.fresh[t] < 0 || pl.fresh[t] > pl.terr[t] {
				return fmt.Errorf("player %d: bad pawn counts on territory %d", p, t)
			}
		}
		for i := range pl.road {
			if pl.road[i] < 0 || pl.frozen[i] < 0 {
				return fmt.Errorf("player %d: negative road pawns", p)
			}
		}
		capital += pl.capital
		src := s.ipSources(p)
		sum := 0
		for _, x := range src {
			sum += x
		}
		if s.ph != phOver && (sum != pl.ip || src != pl.src) {
			return fmt.Errorf("player %d has %d IP but the sources add to %d", p, pl.ip, sum)
		}
		if s.ph != phOver && pl.ip >= s.winIP {
			return fmt.Errorf("player %d has %d IP and the game goes on", p, pl.ip)
		}
	}
	if capital > c.r.CapitalSlots {
		return fmt.Errorf("%d pawns in the Capital, %d places", capital, c.r.CapitalSlots)
	}
	for t := 0; t < c.T; t++ {
		if s.occupancy(t) > c.r.OccupationSlots {
			return fmt.Errorf("territory %d over its slots", t)
		}
		if len(s.bld[t]) > maxBuildings || c.isMine(t) && len(s.bld[t]) > 0 {
			return fmt.Errorf("territory %d has %d buildings", t, len(s.bld[t]))
		}
	}
	// Every card is in one place: a pile, a hand, the spent cards, or (the
	// Economic deck's Investors and Architects played) in front of a player; a hand card is
	// known to its holder (but the one being drawn), a spent one to all.
	for d := 0; d < 2; d++ {
		n := len(s.pile[d]) + len(s.disc[d])
		for _, h := range s.disc[d] {
			if _, ok := s.cards.Public(h); !ok {
				return fmt.Errorf("spent card %s is not public", h)
			}
		}
		for p := range s.pl {
			n += len(s.pl[p].hand[d])
			for _, h := range s.pl[p].hand[d] {
				if !s.cards.Seen(h, p) && !(s.ph == phDraw && h.Arg() == s.lastDrw) {
					return fmt.Errorf("seat %d holds %s unseen", p+1, h)
				}
			}
		}
		if d == milDeck && n != len(s.cards.Decks()[d]) || d == econDeck && n > len(s.cards.Decks()[d]) {
			return fmt.Errorf("%s deck: %d cards in play, %d printed", deckNames[d], n, len(s.cards.Decks()[d]))
		}
	}
	if err := s.saneCards(); err != nil {
		return err
	}
	return nil
}

func TestRandomPlayouts(t *testing.T) {
	games := 100
	if testing.Short() {
		games = 10
	}
	enginetest.Playouts(t, Game, enginetest.Config{
		Games:        games,
		Invariant:    invariant,
		SyncEvery:    29,
		IllegalTries: 1,
		Options: func(i int) engine.Options {
			return engine.Options{
				{Name: "pass_twice", Value: fmt.Sprint(i%5 == 4)},
				{Name: "seat_balancing", Value: fmt.Sprint(i%3 == 1)},
				{Name: "stroke_of_luck", Value: fmt.Sprint(i%2 == 1)},
			}
		},
	})
}

// TestThousandsOfSeededGamesKeepInvariants plays 2,000 more games (400 per
// player count, random and strategy bots mixed) with the invariant after
// every step and an illegal action tried every few steps, which must be
// refused without changing a byte; in one game of ten, players leave. It
// skips the harness's per-step re-encoding to cover many more games in the
// same time.
func TestThousandsOfSeededGamesKeepInvariants(t *testing.T) {
	games := 400
	if testing.Short() {
		games = 40
	}
	var legal []engine.Action
	for players := 2; players <= 6; players++ {
		for i := 0; i < games; i++ {
			es, err := Game.Setup(players, engine.Options{{Name: "stroke_of_luck", Value: fmt.Sprint(i%2 == 0)}})
			if err != nil {
				t.Fatal(err)
			}
			s := es.(*State)
			seed := []byte(fmt.Sprint("many/", players, "/", i))
			bots := make([]engine.Bot, players)
			for j := range bots {
				if (i+j)%3 == 0 {
					bots[j] = &StrategyBot{}
				} else {
					bots[j] = engine.RandomBot{}
				}
			}
			chance := engine.SeededChance{Seed: seed}
			r := engine.NewRand(engine.Derive(seed, "bots", 0))
			var n uint64
			for step := 0; s.ToAct().Kind != engine.ActorOver; step++ {
				if step > 200000 {
					t.Fatalf("seed %s: no end", seed)
				}
				if i%10 == 3 && (step == 40 || step == 400) {
					// A player leaves for good; the rules play on without them.
					if err := s.Drop((i + step/400) % players); err != nil {
						t.Fatalf("seed %s: drop: %v", seed, err)
					}
					if err := invariant(s); err != nil {
						t.Fatalf("seed %s after a drop: %v", seed, err)
					}
					if s.ToAct().Kind == engine.ActorOver {
						break // everyone left
					}
				}
				who := s.ToAct()
				if who.Kind == engine.ActorChance {
					if err := s.ApplyChance(chance.Beacon(n)); err != nil {
						t.Fatal(err)
					}
					n++
				} else {
					legal = s.Legal(legal[:0])
					if step%5 == 0 {
						bad := legal[r.Intn(len(legal))]
						bad = engine.Action{Op: bad.Op, Args: append(append([]int32(nil), bad.Args...), int32(r.Intn(9)))}
						before := engine.Encode(s)
						if err := s.Apply(who.Seat, bad); err == nil {
							t.Fatalf("seed %s step %d: %v with an extra argument accepted", seed, step, bad)
						}
						if string(before) != string(engine.Encode(s)) {
							t.Fatalf("seed %s step %d: refused action changed the state", seed, step)
						}
					}
					a := bots[who.Seat].Choose(s, legal, r)
					if err := s.Apply(who.Seat, a); err != nil {
						t.Fatalf("seed %s step %d: %v", seed, step, err)
					}
				}
				if err := invariant(s); err != nil {
					t.Fatalf("seed %s step %d: %v", seed, step, err)
				}
			}
		}
	}
}

// TestPlayoutsWithOtherTables runs the contract harness on a table's own
// rules file: another board (one Territory without a twin, so Tunnels has
// nothing to count), a small Capital, tight START slots, and a one-face
// Reward Roll.
func TestPlayoutsWithOtherTables(t *testing.T) {
	r := DefaultRules()
	r.RoadSpaces = 13
	r.StartSlots = 3
	r.CapitalSlots = 2
	r.OccupationSlots = 3
	r.Territories = []TerritorySpec{
		{Name: "Docks", Type: "coin", Road: 0},
		{Name: "Barracks", Type: "weapon", Road: 3},
		{Name: "Mint", Type: "coin", Road: 5},
		{Name: "Well", Type: "diamond", Road: 12},
	}
	r.Reward = []RewardSpec{{Card: true}}
	r.Military[0].Count = 0
	opt := RulesOption(r)
	games := 30
	if testing.Short() {
		games = 5
	}
	enginetest.Playouts(t, Game, enginetest.Config{
		Games:     games,
		Players:   []int{2, 4, 6},
		Invariant: invariant,
		SyncEvery: 11,
		Options:   func(int) engine.Options { return engine.Options{opt} },
	})
}
