package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/boardmesh/boardmesh/engine"
	"github.com/boardmesh/boardmesh/engine/games"
	"github.com/spf13/cobra"
)

// BenchEngineOptions are the inputs of `boardmesh bench engine`.
type BenchEngineOptions struct {
	IO  *IOStreams
	Ctx context.Context

	Game     string // empty: every game
	Players  int    // 0: each game's usual count
	Duration time.Duration
	JSON     bool
}

func newCmdBenchEngine(f *Factory, runF func(*BenchEngineOptions) error) *cobra.Command {
	opts := &BenchEngineOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "engine",
		Short: "Bot games per second and the cost of a state hash, on one core",
		Long: `Play whole games between each game's default bot in this process, on one
goroutine and with no hashing per step, for --duration per game; then time the
state hash (canonical encoding and SHA-256) of a finished game's state. These
are the engine's ceilings: the network and the protocol add to them.`,
		Example: `  boardmesh bench engine
  boardmesh bench engine --game dominion --players 2 --duration 5s --json`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Ctx = cmd.Context()
			if runF != nil {
				return runF(opts)
			}
			return benchEngineRun(opts)
		},
	}
	cmd.Flags().StringVar(&opts.Game, "game", "", "one game to measure (default: every game)")
	cmd.Flags().IntVar(&opts.Players, "players", 0, "number of players (default: each game's usual count)")
	cmd.Flags().DurationVar(&opts.Duration, "duration", 2*time.Second, "how long to play each game")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the figures as JSON")
	return cmd
}

// BenchEngineResult is the figure set of one game.
type BenchEngineResult struct {
	Game        string  `json:"game"`
	Players     int     `json:"players"`
	Bot         string  `json:"bot"`
	Games       int     `json:"games"`
	GamesPerSec float64 `json:"games_per_second"`
	StepsPerSec float64 `json:"steps_per_second"`
	StepsPer    float64 `json:"steps_per_game"`
	StateBytes  int     `json:"state_bytes"`
	HashNanos   float64 `json:"hash_ns"`
}

func benchEngineRun(opts *BenchEngineOptions) error {
	list := games.All()
	if opts.Game != "" {
		g, err := games.Lookup(opts.Game)
		if err != nil {
			return &UsageError{Err: err}
		}
		list = []*engine.Game{g}
	}
	if opts.Duration <= 0 {
		return usageErrorf("--duration must be positive")
	}
	var results []BenchEngineResult
	for _, g := range list {
		players := opts.Players
		if players == 0 {
			players = g.DefaultPlayers
		}
		if players < g.MinPlayers || players > g.MaxPlayers {
			return usageErrorf("%s is for %d to %d players, not %d", g.Title, g.MinPlayers, g.MaxPlayers, players)
		}
		if !opts.JSON {
			fmt.Fprintf(opts.IO.ErrOut, "measuring %s for %s…\n", g.Name, opts.Duration)
		}
		r, err := benchOneGame(opts.Ctx, g, players, opts.Duration)
		if err != nil {
			return err
		}
		results = append(results, r)
	}
	if opts.JSON {
		enc := json.NewEncoder(opts.IO.Out)
		enc.SetIndent("", "  ")
		return enc.Encode(results)
	}
	fmt.Fprintf(opts.IO.Out, "%-14s %7s %-10s %12s %12s %10s %11s %9s\n", "game", "players", "bot", "games/s", "steps/s", "steps/game", "state bytes", "hash")
	for _, r := range results {
		fmt.Fprintf(opts.IO.Out, "%-14s %7d %-10s %12.0f %12.0f %10.1f %11d %7.2f µs\n", r.Game, r.Players, r.Bot,
			r.GamesPerSec, r.StepsPerSec, r.StepsPer, r.StateBytes, r.HashNanos/1000)
	}
	return nil
}

func benchOneGame(ctx context.Context, g *engine.Game, players int, d time.Duration) (BenchEngineResult, error) {
	res := BenchEngineResult{Game: g.Name, Players: players, Bot: g.Bots[0].Name}
	bots := make([]engine.Bot, players)
	for i := range bots {
		bots[i] = g.Bots[0].New()
	}
	var steps int
	var final engine.State
	start := time.Now()
	for n := 0; time.Since(start) < d; n++ {
		if ctx != nil && ctx.Err() != nil {
			return res, ctx.Err()
		}
		s, err := g.Setup(players, nil)
		if err != nil {
			return res, err
		}
		seed := engine.Derive([]byte("bench"), g.Name, uint64(n))
		k, err := engine.PlayOut(s, bots, engine.SeededChance{Seed: seed}, engine.NewRand(seed), 1_000_000, false, nil)
		if err != nil {
			return res, fmt.Errorf("%s game %d: %w", g.Name, n, err)
		}
		steps += k
		res.Games++
		final = s
	}
	secs := time.Since(start).Seconds()
	res.GamesPerSec = float64(res.Games) / secs
	res.StepsPerSec = float64(steps) / secs
	res.StepsPer = float64(steps) / float64(res.Games)
	enc := engine.NewEncoder(nil)
	final.Encode(enc)
	res.StateBytes = len(enc.Bytes())
	const hashes = 20000
	t := time.Now()
	for i := 0; i < hashes; i++ {
		engine.HashWith(enc, final)
	}
	res.HashNanos = float64(time.Since(t).Nanoseconds()) / hashes
	return res, nil
}
