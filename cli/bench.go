package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/boardmesh/boardmesh/engine/games"
	"github.com/boardmesh/boardmesh/p2p"
	"github.com/spf13/cobra"
)

// newCmdBench is the parent of the benchmark commands.
func newCmdBench(f *Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "bench <command>",
		Short: "Measure boardmesh's performance (figures for docs/performance.md)",
		Long: `Measure boardmesh's performance: 'bench net' times committed actions
between real peers on loopback against the raw gossipsub floor, 'bench engine'
times the rules engines and the protocol core in this process, 'bench verify'
checks a game's log against the single-signature ceiling, 'bench secret'
times the hidden cards (setup, a private draw, a game secret against
open). The figures
are what docs/performance.md reports, with the commands that reproduce them.`,
		Example: `  boardmesh bench net --peers 2,4,6,8
  boardmesh bench engine
  boardmesh bench engine --json
  boardmesh bench verify
  boardmesh bench secret`,
		Args: usageArgs(cobra.NoArgs),
	}
	cmd.AddCommand(newCmdBenchNet(f, nil), newCmdBenchEngine(f, nil), newCmdBenchVerify(f, nil), newCmdBenchSecret(f, nil))
	return cmd
}

// BenchNetOptions are the inputs of `boardmesh bench net`.
type BenchNetOptions struct {
	IO  *IOStreams
	Ctx context.Context

	Peers      []int
	Game       string
	Broadcasts int
	Think      time.Duration
	Seed       string
	JSON       bool
	ModelGames int
}

func newCmdBenchNet(f *Factory, runF func(*BenchNetOptions) error) *cobra.Command {
	opts := &BenchNetOptions{IO: f.IO}
	var peers string
	cmd := &cobra.Command{
		Use:   "net",
		Short: "Per-action commit latency against the raw gossipsub floor, on loopback",
		Long: `For each table size, start that many real libp2p peers on loopback in this
process, first time raw gossipsub broadcasts between them (publish until every
other peer has the message: the floor), then play a full bot game and time
every action from the moment its author publishes it until the last peer has
committed it (signature, seq, pre-state hash and legality checked, applied,
logged). Prints p50 and p99 of both and the ratio of the p50s; and, last,
where that time goes: for each stage of a receiving peer (its topic
validator has the action, has checked it, the runner has read it, the node
has stepped it, the log has it, the screen is told), the p50 time from
publishing until the first and until the last other peer reached it.

Then, on a fresh table of the same size, one more bot game whose bots move at
once: its wall time from the start of the runners until the last peer has seen
the game end, against its floor (the game's critical path in broadcast rounds:
the longest chain of envelopes of its log each of which its author could sign
only once it had the one before it, times the gossip p50 above) and against
the CPU time of this process over it (every peer together), the median time of
an fsync here (each peer pays one before each envelope it signs leaves; the
floor leaves it out), and the time from the start of its runners to the first
move. Then the start over the lobby protocol: a host that starts when the
table is full and joiners that join one after the other, timed from the moment
the last one starts to join until every peer has the first move.

Last, --model-games bot games modelled as on separate machines: lockstep nodes
(no libp2p), a core per peer, every step run for real and timed by its
thread's CPU, a broadcast taking the gossip p50 above and an fsync before what
a peer signs leaves, each network message received (an envelope, or a bundle
of what a peer sends at once) costing its receiver the CPU the floor spent per
copy delivered; their wall against their floor and their commit p50 against
the gossip p50 (what a table with a core per peer would show).

Every peer shares this machine's CPUs, so the measured figures include the
other peers' signature checks and state hashing. Each bot pauses --think
before it moves, so an action is not also queued behind the step before it,
and the floor's broadcasts are paced the same way, so both are timed from an
idle table (a paced message pays for waking the receiving threads;
back-to-back ones find them awake).`,
		Example: `  boardmesh bench net --peers 2,4,6,8
  boardmesh bench net --peers 4 --json`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			for _, p := range strings.Split(peers, ",") {
				n, err := strconv.Atoi(strings.TrimSpace(p))
				if err != nil || n < 2 {
					return usageErrorf("--peers %q: want table sizes of 2 or more, comma-separated", peers)
				}
				opts.Peers = append(opts.Peers, n)
			}
			opts.Ctx = cmd.Context()
			if runF != nil {
				return runF(opts)
			}
			return benchNetRun(opts)
		},
	}
	cmd.Flags().StringVar(&peers, "peers", "2,4,6,8", "table sizes, comma-separated")
	cmd.Flags().StringVar(&opts.Game, "game", "dragonslair", "game whose bot games are timed")
	cmd.Flags().IntVar(&opts.Broadcasts, "broadcasts", 300, "raw gossipsub broadcasts per table size")
	cmd.Flags().DurationVar(&opts.Think, "think", 20*time.Millisecond, "pause before each bot move and between floor broadcasts (0: back to back, which times queueing too)")
	cmd.Flags().StringVar(&opts.Seed, "seed", "bench", "seed of the bots' choices")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the results as JSON")
	cmd.Flags().IntVar(&opts.ModelGames, "model-games", 5, "bot games modelled as on separate machines, per table size (their sums are compared)")
	return cmd
}

func benchNetRun(opts *BenchNetOptions) error {
	ctx := opts.Ctx
	if ctx == nil {
		ctx = context.Background()
	}
	g, err := games.Lookup(opts.Game)
	if err != nil {
		return &UsageError{Err: err}
	}
	for _, n := range opts.Peers {
		if n < g.MinPlayers || n > g.MaxPlayers {
			return usageErrorf("--peers %d: %s is for %d to %d players", n, g.Title, g.MinPlayers, g.MaxPlayers)
		}
	}
	if opts.ModelGames < 1 {
		return usageErrorf("--model-games must be at least 1")
	}
	var results []p2p.NetBench
	if !opts.JSON {
		fmt.Fprintf(opts.IO.Out, "%s bot games, libp2p peers on loopback in one process\n", g.Title)
		fmt.Fprintf(opts.IO.Out, "%5s %8s %11s %11s %11s %11s %10s\n", "peers", "actions", "commit p50", "commit p99", "gossip p50", "gossip p99", "ratio p50")
	}
	for _, n := range opts.Peers {
		if !opts.JSON {
			fmt.Fprintf(opts.IO.ErrOut, "measuring %d peers…\n", n)
		}
		r, err := p2p.BenchNet(ctx, g, n, []byte(opts.Seed), opts.Broadcasts, opts.Think, opts.ModelGames)
		if err != nil {
			return fmt.Errorf("%d peers: %w", n, err)
		}
		results = append(results, r)
		if !opts.JSON {
			fmt.Fprintf(opts.IO.Out, "%5d %8d %11s %11s %11s %11s %10.2f\n", r.Peers, r.Actions, ms(r.CommitP50), ms(r.CommitP99), ms(r.GossipP50), ms(r.GossipP99), r.Ratio)
		}
	}
	if opts.JSON {
		enc := json.NewEncoder(opts.IO.Out)
		enc.SetIndent("", "  ")
		return enc.Encode(results)
	}
	fmt.Fprintf(opts.IO.Out, "\nA whole game with no think time (a fresh table; floor = rounds × gossip p50 above)\n")
	fmt.Fprintf(opts.IO.Out, "%5s %6s %7s %10s %10s %10s %10s %9s %13s %13s\n", "peers", "steps", "rounds", "wall", "floor", "wall/floor", "CPU", "wall/CPU", "start→move", "join→move")
	for _, r := range results {
		x := r.Game
		cpu, perCPU := "n/a", "n/a"
		if x.CPU > 0 {
			cpu, perCPU = ms(x.CPU), fmt.Sprintf("%.2f", float64(x.Wall)/float64(x.CPU))
		}
		fmt.Fprintf(opts.IO.Out, "%5d %6d %7d %10s %10s %10.2f %10s %9s %13s %13s\n", r.Peers, x.Steps, x.Rounds, ms(x.Wall), ms(x.Floor), x.WallPerFloor,
			cpu, perCPU, ms(x.StartToMove), ms(x.JoinToMove))
	}
	printLeast(opts.IO.Out, results)
	printStages(opts.IO.Out, results)
	fmt.Fprintf(opts.IO.Out, "\nBot games modelled as on separate machines: lockstep nodes, a core per peer, every step run for real; a broadcast = the gossip p50 above,\n")
	fmt.Fprintf(opts.IO.Out, "an fsync before what a peer signs leaves, each network message received (an envelope, or a bundle of what a peer sends at once) costing the floor's CPU per copy delivered\n(floor = their rounds × the gossip p50; sums over the games)\n")
	fmt.Fprintf(opts.IO.Out, "%5s %12s %6s %6s %7s %10s %9s %10s %10s %10s %10s %11s %13s\n", "peers", "delivery CPU", "games", "steps", "rounds", "envelopes", "messages", "wall", "floor", "wall/floor", "seat CPU", "commit p50", "commit/gossip")
	for _, r := range results {
		m := r.Model
		fmt.Fprintf(opts.IO.Out, "%5d %12s %6d %6d %7d %10d %9d %10s %10s %10.2f %10s %11s %13.2f\n", r.Peers, us(r.DeliveryCPU), m.Games, m.Steps, m.Rounds, m.Envelopes, m.Messages, ms(m.Wall), ms(m.Floor), m.WallPerFloor, ms(m.SeatCPU), ms(m.CommitP50), r.ModelCommitRatio)
	}
	return nil
}

// printLeast prints, for the game above, the least wall/floor that two
// things leave room for, beside the one measured: the work every round
// needs on top of its hop (a sign and an fsync before an envelope leaves,
// a verify before it is answered), and the cores every peer of this
// process shares with the CPU the game took (GameBench.LeastByWork,
// LeastByCores).
func printLeast(w io.Writer, results []p2p.NetBench) {
	cores := 0
	if len(results) > 0 {
		cores = results[0].Game.Cores
	}
	fmt.Fprintf(w, "\nWhat that floor leaves room for: each round is a hop, a sign and an fsync before it leaves and a verify before it is answered;\n")
	fmt.Fprintf(w, "least by work = 1 + (sign + verify + fsync) / gossip p50, with every hop the gossip p50 (as modelled below);\n")
	fmt.Fprintf(w, "every peer shares this process's %d cores: least by cores = CPU / cores / floor\n", cores)
	fmt.Fprintf(w, "%5s %10s %11s %10s %10s %14s %15s %11s\n", "peers", "sign p50", "verify p50", "fsync p50", "gossip p50", "least by work", "least by cores", "wall/floor")
	for _, r := range results {
		x := r.Game
		byCores := "n/a"
		if x.LeastByCores > 0 {
			byCores = fmt.Sprintf("%.2f", x.LeastByCores)
		}
		fmt.Fprintf(w, "%5d %10s %11s %10s %10s %14.2f %15s %11.2f\n", r.Peers, us(x.SignP50), us(x.VerifyP50), ms(x.FsyncP50), ms(r.GossipP50), x.LeastByWork, byCores, x.WallPerFloor)
	}
}

// printStages prints where each table size's commit latency goes: for
// each stage of a receiving peer, the p50 time from publishing an action
// until the first and the last receiver reached it (NetBench.Stages).
func printStages(w io.Writer, results []p2p.NetBench) {
	fmt.Fprintf(w, "\nWhere an action's commit time goes: ms from publishing until the first / the last other peer reached each stage (p50 over the actions)\n")
	fmt.Fprintf(w, "%5s", "peers")
	if len(results) > 0 {
		for _, s := range results[0].Stages {
			fmt.Fprintf(w, " %13s", s.Stage)
		}
	}
	fmt.Fprintln(w)
	for _, r := range results {
		fmt.Fprintf(w, "%5d", r.Peers)
		for _, s := range r.Stages {
			cell := "n/a"
			if s.LastP50 > 0 {
				cell = fmt.Sprintf("%.2f / %.2f", float64(s.FirstP50)/float64(time.Millisecond), float64(s.LastP50)/float64(time.Millisecond))
			}
			fmt.Fprintf(w, " %13s", cell)
		}
		fmt.Fprintln(w)
	}
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d)/float64(time.Millisecond)) }

func us(d time.Duration) string { return fmt.Sprintf("%.1f µs", float64(d)/float64(time.Microsecond)) }
