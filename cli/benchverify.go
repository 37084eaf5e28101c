package cli

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"fmt"
	"os"
	"time"

	"github.com/boardmesh/boardmesh/crypto"
	"github.com/boardmesh/boardmesh/engine"
	"github.com/boardmesh/boardmesh/engine/games"
	"github.com/boardmesh/boardmesh/lockstep"
	"github.com/boardmesh/boardmesh/p2p"
	"github.com/spf13/cobra"
)

// BenchVerifyOptions are the inputs of `boardmesh bench verify`.
type BenchVerifyOptions struct {
	IO  *IOStreams
	Ctx context.Context

	Game     string
	Players  int
	Duration time.Duration
	JSON     bool
}

func newCmdBenchVerify(f *Factory, runF func(*BenchVerifyOptions) error) *cobra.Command {
	opts := &BenchVerifyOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "verify",
		Short: "Log verification against the single-signature ceiling, on one goroutine",
		Long: `Play one bot game between real peers on loopback, then check its log over
and over for --duration, alternating two passes so that both see the same
machine load: the single-verify ceiling (every entry's signature checked
one at a time, and nothing else) and a whole log verification as 'replay'
and a restarting peer do it (every signature, checked in batches, and
every join, accept, reveal, beacon, action and checkpoint replayed through
the engine). Prints both in entries per second and their ratio; the
ceiling of Go's crypto/ed25519 is printed for comparison.`,
		Example: `  boardmesh bench verify
  boardmesh bench verify --game dominion --players 2 --duration 5s --json`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Ctx = cmd.Context()
			if runF != nil {
				return runF(opts)
			}
			return benchVerifyRun(opts)
		},
	}
	cmd.Flags().StringVar(&opts.Game, "game", "dragonslair", "game whose log is verified")
	cmd.Flags().IntVar(&opts.Players, "players", 4, "number of players of the game played")
	cmd.Flags().DurationVar(&opts.Duration, "duration", 3*time.Second, "how long to measure")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the figures as JSON")
	return cmd
}

// BenchVerifyResult is what `bench verify` measured.
type BenchVerifyResult struct {
	Game    string `json:"game"`
	Players int    `json:"players"`
	Entries int    `json:"entries_per_log"`
	Passes  int    `json:"passes"`
	// Ceiling is the single-verify ceiling (crypto.Verify one entry at a
	// time, ZIP-215), Stdlib the same with Go's crypto/ed25519, Verify
	// the whole log verification (lockstep.VerifyFast); entries/s.
	Ceiling float64 `json:"single_verify_entries_per_second"`
	Stdlib  float64 `json:"stdlib_single_verify_entries_per_second"`
	Verify  float64 `json:"log_verify_entries_per_second"`
	// Ratio is Verify / Ceiling.
	Ratio float64 `json:"ratio"`
}

func benchVerifyRun(opts *BenchVerifyOptions) error {
	ctx := opts.Ctx
	if ctx == nil {
		ctx = context.Background()
	}
	g, err := games.Lookup(opts.Game)
	if err != nil {
		return &UsageError{Err: err}
	}
	if opts.Players < g.MinPlayers || opts.Players > g.MaxPlayers {
		return usageErrorf("--players %d: %s is for %d to %d players", opts.Players, g.Title, g.MinPlayers, g.MaxPlayers)
	}
	if opts.Duration <= 0 {
		return usageErrorf("--duration must be positive")
	}
	if !opts.JSON {
		fmt.Fprintf(opts.IO.ErrOut, "playing one %s game between %d peers on loopback…\n", g.Title, opts.Players)
	}
	log, err := playLog(ctx, g, opts.Players)
	if err != nil {
		return err
	}
	if _, err := lockstep.VerifyFast(log, games.Lookup); err != nil {
		return fmt.Errorf("the game's log does not verify: %w", err)
	}
	if !opts.JSON {
		fmt.Fprintf(opts.IO.ErrOut, "measuring %d log entries for %s…\n", len(log), opts.Duration)
	}
	res := BenchVerifyResult{Game: g.Name, Players: opts.Players, Entries: len(log)}
	scratch := make([]byte, 0, 1024)
	var ceil, std, ver time.Duration
	for start := time.Now(); time.Since(start) < opts.Duration || res.Passes == 0; res.Passes++ {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		t := time.Now()
		for _, e := range log {
			if err := crypto.VerifyBuf(e, scratch); err != nil {
				return err
			}
		}
		ceil += time.Since(t)
		t = time.Now()
		if _, err := lockstep.VerifyFast(log, games.Lookup); err != nil {
			return err
		}
		ver += time.Since(t)
		t = time.Now()
		for i, e := range log {
			pub, _ := crypto.PublicKey(e.Author)
			scratch = e.AppendSigned(scratch[:0])
			if !ed25519.Verify(pub, scratch, e.Sig) {
				return fmt.Errorf("entry %d: crypto/ed25519 refuses its signature", i)
			}
		}
		std += time.Since(t)
	}
	per := func(d time.Duration) float64 { return float64(res.Entries*res.Passes) / d.Seconds() }
	res.Ceiling, res.Stdlib, res.Verify = per(ceil), per(std), per(ver)
	res.Ratio = res.Verify / res.Ceiling
	if opts.JSON {
		enc := json.NewEncoder(opts.IO.Out)
		enc.SetIndent("", "  ")
		return enc.Encode(res)
	}
	fmt.Fprintf(opts.IO.Out, "%s, %d players: %d log entries, %d passes of each\n", g.Title, res.Players, res.Entries, res.Passes)
	fmt.Fprintf(opts.IO.Out, "  single-verify ceiling (ZIP-215, one at a time)  %9.0f entries/s\n", res.Ceiling)
	fmt.Fprintf(opts.IO.Out, "  same with Go's crypto/ed25519                   %9.0f entries/s\n", res.Stdlib)
	fmt.Fprintf(opts.IO.Out, "  log verification (batched, with replay)         %9.0f entries/s  %.2f× the ceiling\n", res.Verify, res.Ratio)
	return nil
}

// playLog plays one bot game of g between n peers on loopback and returns
// the first peer's log.
func playLog(ctx context.Context, g *engine.Game, n int) ([]*crypto.Envelope, error) {
	dir, err := os.MkdirTemp("", "boardmesh-bench-verify-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	names := make([]string, n)
	bots := make([]engine.Bot, n)
	for i := range n {
		names[i] = fmt.Sprintf("bot%d", i+1)
		bots[i] = g.Bots[i%len(g.Bots)].New()
	}
	t, err := p2p.NewTable(ctx, p2p.TableConfig{Game: g, Names: names, Bots: bots, Seed: []byte("bench verify"), Dir: dir})
	if err != nil {
		return nil, err
	}
	defer t.Close()
	if err := t.Run(ctx); err != nil {
		return nil, err
	}
	var log []*crypto.Envelope
	for _, b := range t.Peers[0].Entries() {
		e, err := crypto.Unmarshal(b)
		if err != nil {
			return nil, err
		}
		log = append(log, e)
	}
	return log, nil
}
