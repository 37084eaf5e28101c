package enginetest

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/boardmesh/boardmesh/engine"
)

// Config says what a playout run covers.
type Config struct {
	// Games is the number of games per player count.
	Games int
	// Players lists the player counts; empty means MinPlayers..MaxPlayers.
	Players []int
	// Options, if set, returns the options of game i (to vary variants).
	Options func(i int) engine.Options
	// Bots, if set, returns the bot names of game i for n players; by
	// default every seat plays the game's bots in turn.
	Bots func(i, n int) []string
	// MaxSteps bounds one game; default 100000.
	MaxSteps int
	// IllegalTries is how many illegal actions are tried per step (default 2).
	IllegalTries int
	// SyncEvery runs the sync test every k-th step (default 1: every step).
	SyncEvery int
	// Invariant, if set, is checked after every step.
	Invariant func(s engine.State) error
}

// Playouts plays cfg.Games seeded games per player count and fails t at
// the first broken contract rule or invariant, naming the game, seed and
// step so the failure can be replayed.
func Playouts(t *testing.T, g *engine.Game, cfg Config) {
	t.Helper()
	if cfg.MaxSteps == 0 {
		cfg.MaxSteps = 100000
	}
	if cfg.IllegalTries == 0 {
		cfg.IllegalTries = 2
	}
	if cfg.SyncEvery == 0 {
		cfg.SyncEvery = 1
	}
	players := cfg.Players
	if len(players) == 0 {
		for n := g.MinPlayers; n <= g.MaxPlayers; n++ {
			players = append(players, n)
		}
	}
	for _, n := range players {
		for i := 0; i < cfg.Games; i++ {
			if err := playout(g, cfg, n, i); err != nil {
				t.Fatalf("%s, %d players, game %d: %v", g.Name, n, i, err)
			}
		}
	}
}

func playout(g *engine.Game, cfg Config, players, i int) error {
	var opts engine.Options
	if cfg.Options != nil {
		opts = cfg.Options(i)
	}
	s, err := g.Setup(players, opts)
	if err != nil {
		return fmt.Errorf("setup: %w", err)
	}
	seed := []byte(fmt.Sprintf("playout/%s/%d/%d", g.Name, players, i))
	bots := make([]engine.Bot, players)
	for seat := range bots {
		var name string
		if cfg.Bots != nil {
			name = cfg.Bots(i, players)[seat]
		} else {
			name = g.Bots[(seat+i)%len(g.Bots)].Name
		}
		spec, err := g.Bot(name)
		if err != nil {
			return err
		}
		bots[seat] = spec.New()
	}
	chance := engine.SeededChance{Seed: seed}
	botRand := engine.NewRand(engine.Derive(seed, "bots", 0))
	fuzz := engine.NewRand(engine.Derive(seed, "fuzz", 0))
	if err := CheckState(g, s, cfg.Invariant); err != nil {
		return fmt.Errorf("seed %q: initial state: %w", seed, err)
	}
	var legal []engine.Action
	var chanceN uint64
	for step := 1; ; step++ {
		if step > cfg.MaxSteps {
			return fmt.Errorf("seed %q: game did not end within %d steps", seed, cfg.MaxSteps)
		}
		who := s.ToAct()
		if who.Kind == engine.ActorOver {
			return nil
		}
		legal = s.Legal(legal[:0])
		if err := TryIllegal(s, legal, fuzz, cfg.IllegalTries); err != nil {
			return fmt.Errorf("seed %q: before step %d: %w", seed, step, err)
		}
		var apply func(engine.State) error
		if who.Kind == engine.ActorChance {
			beacon := chance.Beacon(chanceN)
			chanceN++
			apply = func(x engine.State) error { return x.ApplyChance(beacon) }
		} else {
			a := bots[who.Seat].Choose(s, legal, botRand)
			seat := who.Seat
			apply = func(x engine.State) error { return x.Apply(seat, a) }
		}
		sync := step%cfg.SyncEvery == 0
		var twin engine.State
		if sync {
			twin = s.Clone()
		}
		if err := apply(s); err != nil {
			return fmt.Errorf("seed %q: step %d (%s): %w", seed, step, who, err)
		}
		if err := CheckState(g, s, cfg.Invariant); err != nil {
			return fmt.Errorf("seed %q: after step %d (%s): %w", seed, step, who, err)
		}
		if sync {
			if err := SyncTest(g, twin, s, apply); err != nil {
				return fmt.Errorf("seed %q: step %d (%s): %w", seed, step, who, err)
			}
		}
	}
}

// CheckState checks the contract rules that hold in every state: one valid
// actor, legal actions exactly when a seat acts, a result when over, and
// the game's own invariant.
func CheckState(g *engine.Game, s engine.State, inv func(engine.State) error) error {
	who := s.ToAct()
	legal := s.Legal(nil)
	switch who.Kind {
	case engine.ActorSeat:
		if who.Seat < 0 || who.Seat >= s.Players() {
			return fmt.Errorf("actor seat %d out of range", who.Seat)
		}
		if len(legal) == 0 {
			return fmt.Errorf("seat %d is to act but has no legal action", who.Seat)
		}
		for _, a := range legal {
			if d := s.Describe(a); d == "" {
				return fmt.Errorf("legal action %s has no description", a)
			}
		}
	case engine.ActorChance, engine.ActorOver:
		if len(legal) != 0 {
			return fmt.Errorf("%s is to act but Legal lists %d actions", who, len(legal))
		}
		if who.Kind == engine.ActorOver {
			r := s.Result()
			if len(r.Scores) != s.Players() || len(r.Winners) == 0 || r.Reason == "" {
				return fmt.Errorf("game over with incomplete result %+v", r)
			}
		}
	default:
		return fmt.Errorf("unknown actor kind %d", who.Kind)
	}
	if inv != nil {
		return inv(s)
	}
	return nil
}

// SyncTest is GGPO's SyncTest for one step: the state after the step must
// survive encode → decode → encode unchanged, and applying the same step to
// twin (a copy of the state before it) must give the same bytes. Any
// difference is a serialization or determinism bug, reported with the
// differing fields.
func SyncTest(g *engine.Game, twin, next engine.State, apply func(engine.State) error) error {
	enc := engine.Encode(next)
	dec, err := g.Decode(enc)
	if err != nil {
		return fmt.Errorf("decode of own encoding: %w", err)
	}
	if re := engine.Encode(dec); !bytes.Equal(enc, re) {
		return fmt.Errorf("encode/decode/encode differs: %v", engine.Diff(next, dec))
	}
	if twin == nil {
		return nil
	}
	if err := apply(twin); err != nil {
		return fmt.Errorf("the same step failed on a copy: %w", err)
	}
	if re := engine.Encode(twin); !bytes.Equal(enc, re) {
		return fmt.Errorf("the same step on a copy gave another state: %v", engine.Diff(next, twin))
	}
	// A clone shares nothing mutable: the step on the copy left the
	// original as it was.
	if re := engine.Encode(next); !bytes.Equal(enc, re) {
		return fmt.Errorf("a step on a copy changed the original: %v", engine.Diff(next, twin))
	}
	return nil
}

// TryIllegal applies up to tries actions that are not in legal (made by
// perturbing legal ones, inventing ops, or acting from the wrong seat) to
// clones of s and checks each is refused with the state unchanged. It also
// checks s itself refuses them atomically.
func TryIllegal(s engine.State, legal []engine.Action, r *engine.Rand, tries int) error {
	before := engine.Encode(s)
	who := s.ToAct()
	for k := 0; k < tries; k++ {
		var a engine.Action
		seat := who.Seat
		switch r.Intn(3) {
		case 0: // a perturbed legal action
			if len(legal) == 0 {
				a = engine.Action{Op: uint16(r.Intn(8))}
				break
			}
			base := legal[r.Intn(len(legal))]
			a = engine.Action{Op: base.Op, Args: append([]int32(nil), base.Args...)}
			if len(a.Args) > 0 && r.Intn(2) == 0 {
				a.Args[r.Intn(len(a.Args))] += int32(r.Intn(7)) - 3
			} else {
				a.Args = append(a.Args, int32(r.Intn(100))-50)
			}
		case 1: // an invented op
			a = engine.Action{Op: uint16(r.Intn(70)), Args: []int32{int32(r.Intn(200)) - 100}}
		default: // a legal action from the wrong seat
			if len(legal) == 0 || s.Players() < 2 {
				continue
			}
			a = legal[r.Intn(len(legal))]
			seat = (who.Seat + 1 + r.Intn(s.Players()-1)) % s.Players()
			if who.Kind != engine.ActorSeat {
				seat = r.Intn(s.Players())
			}
		}
		if who.Kind == engine.ActorSeat && seat == who.Seat && contains(legal, a) {
			continue
		}
		err := s.Apply(seat, a)
		if err == nil {
			return fmt.Errorf("illegal action %s by seat %d (%s to act) was accepted", a, seat, who)
		}
		if after := engine.Encode(s); !bytes.Equal(before, after) {
			return fmt.Errorf("refused action %s by seat %d changed the state: %v", a, seat, err)
		}
	}
	if who.Kind != engine.ActorChance {
		if err := s.ApplyChance(make([]byte, 32)); err == nil {
			return fmt.Errorf("chance bytes accepted while %s is to act", who)
		}
		if after := engine.Encode(s); !bytes.Equal(before, after) {
			return fmt.Errorf("refused chance step changed the state")
		}
	}
	return nil
}

func contains(legal []engine.Action, a engine.Action) bool {
	for _, l := range legal {
		if l.Equal(a) {
			return true
		}
	}
	return false
}

// HashSequence plays one seeded game and returns the state hash after every
// step: the determinism fingerprint of a game.
func HashSequence(g *engine.Game, players int, opts engine.Options, seed string, maxSteps int) ([][32]byte, error) {
	s, err := g.Setup(players, opts)
	if err != nil {
		return nil, err
	}
	bots := make([]engine.Bot, players)
	for i := range bots {
		bots[i] = g.Bots[i%len(g.Bots)].New()
	}
	hashes := [][32]byte{engine.Hash(s)}
	_, err = engine.PlayOut(s, bots, engine.SeededChance{Seed: []byte(seed)},
		engine.NewRand(engine.Derive([]byte(seed), "bots", 0)), maxSteps, false,
		func(_, next engine.State, _ engine.Step) { hashes = append(hashes, engine.Hash(next)) })
	return hashes, err
}
