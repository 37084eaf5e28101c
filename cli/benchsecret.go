package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/boardmesh/boardmesh/engine"
	"github.com/boardmesh/boardmesh/engine/games"
	"github.com/boardmesh/boardmesh/p2p"
	"github.com/spf13/cobra"
)

// BenchSecretOptions are the inputs of `boardmesh bench secret`.
type BenchSecretOptions struct {
	IO  *IOStreams
	Ctx context.Context

	Games      []string // empty: every game with hidden cards
	Setup      []int
	Peers      int // 0: each game's usual table
	Broadcasts int
	Think      time.Duration
	Seed       string
	JSON       bool
	ModelGames int
}

func newCmdBenchSecret(f *Factory, runF func(*BenchSecretOptions) error) *cobra.Command {
	opts := &BenchSecretOptions{IO: f.IO}
	var gameList, setup string
	cmd := &cobra.Command{
		Use:   "secret",
		Short: "Hidden cards: setup, a private draw against the gossip floor, bytes, a game secret against open",
		Long: `For each game with hidden cards, in one run:

  - setup: the hidden-card setup (card keys, every shuffle chain of the
    game's decks, the key escrows at 3+ seats) at each --setup table size
    the game allows, in the pure protocol (lockstep/deal) scheduled as on
    separate machines: each seat has a core of its own, every proof is
    made and checked for real and its CPU time counted, and a broadcast
    takes the gossip p50 measured below;
  - on a table of --peers real libp2p peers on loopback in this process:
    the raw gossipsub floor (as 'bench net'), then one full bot game on a
    secret table and one on an open-hands table, same bot seed, bots
    moving at once: wall time, CPU, bytes published, and each wait for
    cards timed at every peer (a private draw: every opening private;
    a reveal: one public; from the first peer waiting until any peer
    publishes an envelope of a later step), against the gossip p50;
  - --model-games bot games of each kind modelled as on separate machines, as
    the setup is: lockstep nodes (no libp2p), a core per seat, every step,
    proof and check run for real, a broadcast taking the gossip p50 and an
    fsync before what a seat signs leaves and each message received costing
    the CPU the floor spent per copy delivered.

Every peer shares this machine's CPUs, so the measured game figures
include the other peers' proofs; the setup and modelled figures do not.`,
		Example: `  boardmesh bench secret
  boardmesh bench secret --game dominion --setup 2,4
  boardmesh bench secret --json`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			for _, p := range strings.Split(setup, ",") {
				n, err := strconv.Atoi(strings.TrimSpace(p))
				if err != nil || n < 2 {
					return usageErrorf("--setup %q: want table sizes of 2 or more, comma-separated", setup)
				}
				opts.Setup = append(opts.Setup, n)
			}
			if gameList != "" {
				opts.Games = strings.Split(gameList, ",")
			}
			opts.Ctx = cmd.Context()
			if runF != nil {
				return runF(opts)
			}
			return benchSecretRun(opts)
		},
	}
	cmd.Flags().StringVar(&gameList, "game", "", "games to measure, comma-separated (default: every game with hidden cards)")
	cmd.Flags().StringVar(&setup, "setup", "2,4,8", "table sizes of the setup figure, comma-separated (each game's own limits apply)")
	cmd.Flags().IntVar(&opts.Peers, "peers", 0, "table size of the bot games (default: each game's usual table)")
	cmd.Flags().IntVar(&opts.Broadcasts, "broadcasts", 200, "raw gossipsub broadcasts of the floor")
	cmd.Flags().DurationVar(&opts.Think, "think", 20*time.Millisecond, "pause between the floor's broadcasts, so each is timed from an idle table")
	cmd.Flags().StringVar(&opts.Seed, "seed", "bench", "seed of the bots' choices")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the results as JSON")
	cmd.Flags().IntVar(&opts.ModelGames, "model-games", 5, "bot games of each kind modelled as on separate machines (their sums are compared)")
	return cmd
}

// BenchSecretResult is what `bench secret --json` prints.
type BenchSecretResult struct {
	Games []p2p.SecretBench `json:"games"`
	// Aim is the setup of one 120-card deck at 8 peers (the aim:
	// under 2 s), latency the first game's gossip p50.
	Aim p2p.SetupBench `json:"setup_8_peers_120_cards"`
}

// hasHiddenCards says whether g's state has hidden cards (a secret table
// differs from an open one).
func hasHiddenCards(g *engine.Game) bool {
	st, err := g.Setup(g.MinPlayers, nil)
	if err != nil {
		return false
	}
	_, ok := st.(engine.CardState)
	return ok
}

func benchSecretRun(opts *BenchSecretOptions) error {
	ctx := opts.Ctx
	if ctx == nil {
		ctx = context.Background()
	}
	var list []*engine.Game
	if len(opts.Games) == 0 {
		for _, g := range games.All() {
			if hasHiddenCards(g) {
				list = append(list, g)
			}
		}
	}
	for _, name := range opts.Games {
		g, err := games.Lookup(strings.TrimSpace(name))
		if err != nil {
			return &UsageError{Err: err}
		}
		if !hasHiddenCards(g) {
			return usageErrorf("--game %s: %s has no hidden cards", name, g.Title)
		}
		if opts.Peers != 0 && (opts.Peers < g.MinPlayers || opts.Peers > g.MaxPlayers) {
			return usageErrorf("--peers %d: %s is for %d to %d players", opts.Peers, g.Title, g.MinPlayers, g.MaxPlayers)
		}
		list = append(list, g)
	}
	if opts.Broadcasts < 1 {
		return usageErrorf("--broadcasts must be at least 1")
	}
	if opts.ModelGames < 1 {
		return usageErrorf("--model-games must be at least 1")
	}
	var results []p2p.SecretBench
	var gossip time.Duration
	for _, g := range list {
		peers := opts.Peers
		if peers == 0 || peers < g.MinPlayers || peers > g.MaxPlayers {
			peers = g.DefaultPlayers
		}
		if !opts.JSON {
			fmt.Fprintf(opts.IO.ErrOut, "measuring %s (%d peers; setup at %v)…\n", g.Title, peers, opts.Setup)
		}
		r, err := p2p.BenchSecret(ctx, g, opts.Setup, peers, []byte(opts.Seed), opts.Broadcasts, opts.Think, opts.ModelGames)
		if err != nil {
			return fmt.Errorf("%s: %w", g.Title, err)
		}
		results = append(results, r)
		if gossip == 0 {
			gossip = r.GossipP50
		}
	}
	// The aim: 120 tiles at 8 peers, whatever the games allow.
	aim, err := p2p.BenchSetupCards(120, 8, gossip)
	if err != nil {
		return fmt.Errorf("setup of 120 cards at 8 peers: %w", err)
	}
	if opts.JSON {
		enc := json.NewEncoder(opts.IO.Out)
		enc.SetIndent("", "  ")
		return enc.Encode(BenchSecretResult{Games: results, Aim: aim})
	}
	out := opts.IO.Out
	fmt.Fprintln(out, "Setup: keys, shuffle chains, escrows; pure protocol, a core per seat, a broadcast = the gossip p50 below")
	fmt.Fprintf(out, "%-14s %5s %5s %6s %11s %11s %11s %10s %9s\n", "game", "peers", "decks", "cards", "critical", "seat CPU", "all CPU", "bytes", "envelopes")
	for _, r := range results {
		for _, s := range r.Setup {
			fmt.Fprintf(out, "%-14s %5d %5d %6d %11s %11s %11s %10d %9d\n", r.Game, s.Peers, s.Decks, s.Cards, ms(s.Critical), ms(s.SeatCPU), ms(s.TotalCPU), s.Bytes, s.Envelopes)
		}
	}
	fmt.Fprintf(out, "%-14s %5d %5d %6d %11s %11s %11s %10d %9d   (aim: under 2 s)\n", "120 cards", aim.Peers, aim.Decks, aim.Cards, ms(aim.Critical), ms(aim.SeatCPU), ms(aim.TotalCPU), aim.Bytes, aim.Envelopes)
	fmt.Fprintln(out, "\nA private draw (a wait for cards, all openings private: from its start until any peer publishes the next step) against the gossip floor, same table")
	fmt.Fprintf(out, "%-14s %5s %11s %6s %11s %11s %10s %8s %11s %9s %9s\n", "game", "peers", "gossip p50", "draws", "draw p50", "draw p99", "draw/gossip", "reveals", "reveal p50", "1-round", "2-round")
	for _, r := range results {
		s := r.Secret
		fmt.Fprintf(out, "%-14s %5d %11s %6d %11s %11s %10.2f %8d %11s %9d %9d\n", r.Game, r.Peers, ms(r.GossipP50), s.Draws, ms(s.DrawP50), ms(s.DrawP99), r.DrawPerGossip, s.Reveals, ms(s.RevealP50), s.Batches1, s.Batches2)
	}
	fmt.Fprintln(out, "\nA full bot game, bots moving at once, same seed: secret table against open hands")
	fmt.Fprintf(out, "%-14s %5s %-12s %6s %11s %11s %10s %13s %10s %10s %10s\n", "game", "peers", "mode", "steps", "wall", "CPU", "CPU/step", "start→move", "bytes", "card bytes", "envelopes")
	for _, r := range results {
		for _, s := range []p2p.SecretGame{r.Secret, r.Open} {
			fmt.Fprintf(out, "%-14s %5d %-12s %6d %11s %11s %10s %13s %10d %10d %10d\n", r.Game, r.Peers, s.Mode, s.Steps, ms(s.Wall), ms(s.CPU), ms(s.CPUPerStep), ms(s.StartToMove), s.Bytes, s.CardBytes, s.Envelopes)
		}
		cpuRatio := 0.0
		if r.Open.CPUPerStep > 0 {
			cpuRatio = float64(r.Secret.CPUPerStep) / float64(r.Open.CPUPerStep)
		}
		fmt.Fprintf(out, "%-14s %5s secret/open: wall %.2f×, CPU per step %.2f× (aim: wall within 2×)\n", r.Game, "", r.WallRatio, cpuRatio)
	}
	fmt.Fprintln(out, "\nBot games modelled as on separate machines: lockstep nodes, a core per seat, every step, proof and check run for real;")
	fmt.Fprintln(out, "a broadcast = the gossip p50 above, an fsync before what a seat signs leaves, each network message received (an envelope or a bundle) costing the floor's CPU per copy delivered; sums over the games")
	fmt.Fprintf(out, "%-14s %5s %-12s %5s %6s %11s %11s %11s %13s %10s %12s %10s\n", "game", "peers", "mode", "games", "steps", "wall", "seat CPU", "all CPU", "start→move", "fsync p50", "delivery CPU", "envelopes")
	for _, r := range results {
		for _, m := range []p2p.ModelGame{r.ModelSecret, r.ModelOpen} {
			fmt.Fprintf(out, "%-14s %5d %-12s %5d %6d %11s %11s %11s %13s %10s %12s %10d\n", r.Game, r.Peers, m.Mode, m.Games, m.Steps, ms(m.Wall), ms(m.SeatCPU), ms(m.TotalCPU), ms(m.StartToMove), ms(r.FsyncP50), us(r.DeliveryCPU), m.Envelopes)
		}
		perStep := 0.0
		if r.ModelSecret.Steps > 0 && r.ModelOpen.Steps > 0 && r.ModelOpen.Wall > 0 {
			perStep = float64(r.ModelSecret.Wall) / float64(r.ModelSecret.Steps) / (float64(r.ModelOpen.Wall) / float64(r.ModelOpen.Steps))
		}
		fmt.Fprintf(out, "%-14s %5s secret/open, modelled: wall %.2f×, wall per step %.2f× (aim: wall within 2×)\n", r.Game, "", r.ModelRatio, perStep)
	}
	return nil
}
