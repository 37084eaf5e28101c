package cli

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/boardmesh/boardmesh/engine"
	"github.com/boardmesh/boardmesh/engine/games"
	"github.com/spf13/cobra"
)

// SimOptions are the inputs of `boardmesh sim`.
type SimOptions struct {
	IO  *IOStreams
	Ctx context.Context

	Game    string
	Players int
	Games   int
	Bots    []string
	Seed    string
	Options gameOptionFlags
	JSON    bool
}

func newCmdSim(f *Factory, runF func(*SimOptions) error) *cobra.Command {
	opts := &SimOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "sim GAME",
		Short: "Play many bot-vs-bot games in this process and report statistics",
		Long: `Play bot-vs-bot games in this process, with no network, and report win rates
per bot and per seat (with 95% confidence intervals), mean scores, game length,
and the game's own figures.

Bots are seated in the order given, repeated to fill the table, and the seating
rotates by one seat every game, so every bot plays every seat equally often.
The same seed gives the same output, byte for byte.`,
		Example: `  boardmesh sim dragonslair --players 4 --games 10000
  boardmesh sim dragonslair --bots cautious,random --seed 42 --json
  boardmesh sim dominion --players 2 --bots bigmoney,smithy \
    --options \
    kingdom=Smithy+Village+Market+Mine+Moat+Cellar+Militia+Remodel+Workshop+Merchant`,
		Args: usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Game = args[0]
			opts.Ctx = cmd.Context()
			if runF != nil {
				return runF(opts)
			}
			return simRun(opts)
		},
	}
	cmd.Flags().IntVar(&opts.Players, "players", 0, "number of players (default: the game's usual count)")
	cmd.Flags().IntVar(&opts.Games, "games", 1000, "number of games to play")
	cmd.Flags().StringSliceVar(&opts.Bots, "bots", nil, "bot kinds to seat, comma-separated (default: the game's bots; see 'boardmesh games')")
	cmd.Flags().StringVar(&opts.Seed, "seed", "boardmesh", "seed of all dice, draws and bot choices")
	opts.Options.register(cmd.Flags())
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the report as JSON")
	return cmd
}

// SimReport is the result of a simulation; it is printed as text or JSON.
type SimReport struct {
	Game         string          `json:"game"`
	Version      string          `json:"version"`
	Players      int             `json:"players"`
	Games        int             `json:"games"`
	Seed         string          `json:"seed"`
	Options      string          `json:"options"`
	Seating      []string        `json:"seating"`
	Bots         []SimRow        `json:"bots"`
	Seats        []SimRow        `json:"seats"`
	SharedWins   int             `json:"shared_wins"`
	MeanTurns    float64         `json:"mean_turns"`
	MeanSteps    float64         `json:"mean_steps"`
	EndReasons   []SimEndReason  `json:"end_reasons"`
	GameFigures  []engine.Metric `json:"game_figures,omitempty"`
	GamesPlayed  int             `json:"-"`
	elapsedNanos int64
}

// SimRow is the record of one bot kind or one seat.
type SimRow struct {
	Name      string  `json:"name"`
	Played    int     `json:"played"`
	Wins      int     `json:"wins"`
	WinRate   float64 `json:"win_rate"`
	CILow     float64 `json:"ci95_low"`
	CIHigh    float64 `json:"ci95_high"`
	MeanScore float64 `json:"mean_score"`
	scoreSum  int64
}

// SimEndReason counts how games ended.
type SimEndReason struct {
	Reason string `json:"reason"`
	Games  int    `json:"games"`
}

func simRun(opts *SimOptions) error {
	g, err := games.Lookup(opts.Game)
	if err != nil {
		return &UsageError{Err: err}
	}
	if opts.Players == 0 {
		opts.Players = g.DefaultPlayers
	}
	if opts.Games < 1 {
		return usageErrorf("--games must be at least 1, not %d", opts.Games)
	}
	// A bad player count or option fails before any work, with the check
	// play and host make too.
	resolved, err := opts.Options.setup(opts.Ctx, g, opts.Players)
	if err != nil {
		return err
	}
	names := opts.Bots
	if len(names) == 0 {
		for _, b := range g.Bots {
			names = append(names, b.Name)
		}
	}
	specs := make([]engine.BotSpec, len(names))
	for i, n := range names {
		if specs[i], err = g.Bot(strings.TrimSpace(n)); err != nil {
			return &UsageError{Err: err}
		}
	}
	seating := make([]int, opts.Players) // seat -> index into specs, before rotation
	for i := range seating {
		seating[i] = i % len(specs)
	}
	rep := &SimReport{Game: g.Name, Version: g.Version, Players: opts.Players, Games: opts.Games, Seed: opts.Seed, Options: displayOptions(resolved)}
	for _, i := range seating {
		rep.Seating = append(rep.Seating, specs[i].Name)
	}
	botRow := map[string]*SimRow{} // lookup only; rows are reported in first-seated order
	var botOrder []string
	for _, s := range specs {
		if botRow[s.Name] == nil {
			botRow[s.Name] = &SimRow{Name: s.Name}
			botOrder = append(botOrder, s.Name)
		}
	}
	seatRows := make([]SimRow, opts.Players)
	for i := range seatRows {
		seatRows[i].Name = fmt.Sprintf("seat %d", i+1)
	}
	var stats engine.Stats
	if g.NewStats != nil {
		stats = g.NewStats()
	}
	var turns, steps int64
	endCount := map[string]int{}
	var endOrder []string
	progress := newProgress(opts.IO, opts.Games, !opts.JSON || opts.IO.ErrTTY)
	start := time.Now()
	for n := 0; n < opts.Games; n++ {
		if opts.Ctx != nil && opts.Ctx.Err() != nil {
			progress.done()
			return fmt.Errorf("simulation interrupted after %d of %d games: %w", n, opts.Games, opts.Ctx.Err())
		}
		s, err := g.Setup(opts.Players, resolved)
		if err != nil {
			return err
		}
		seed := engine.Derive([]byte(opts.Seed), "sim/game", uint64(n))
		bots := make([]engine.Bot, opts.Players)
		seatBot := make([]string, opts.Players)
		for seat := range bots {
			spec := specs[seating[(seat+n)%opts.Players]]
			bots[seat] = spec.New()
			seatBot[seat] = spec.Name
		}
		var observe func(prev, next engine.State, st engine.Step)
		if stats != nil {
			observe = func(prev, next engine.State, st engine.Step) { stats.Observe(prev, next, st.Who, st.Action) }
		}
		k, err := engine.PlayOut(s, bots, engine.SeededChance{Seed: seed}, engine.NewRand(engine.Derive(seed, "bots", 0)), 1_000_000, stats != nil, observe)
		if err != nil {
			progress.done()
			return fmt.Errorf("game %d (seed %q): %w — this is a bug in the %s engine or its bots", n, opts.Seed, err, g.Name)
		}
		if stats != nil {
			stats.Finish(s)
		}
		steps += int64(k)
		turns += int64(s.Turn())
		res := s.Result()
		if len(res.Winners) > 1 {
			rep.SharedWins++
		}
		if _, ok := endCount[res.Reason]; !ok {
			endOrder = append(endOrder, res.Reason)
		}
		endCount[res.Reason]++
		for seat := 0; seat < opts.Players; seat++ {
			won := false
			for _, w := range res.Winners {
				won = won || w == seat
			}
			for _, row := range []*SimRow{botRow[seatBot[seat]], &seatRows[seat]} {
				row.Played++
				if won {
					row.Wins++
				}
				if seat < len(res.Scores) {
					row.scoreSum += int64(res.Scores[seat])
				}
			}
		}
		progress.step(n + 1)
	}
	progress.done()
	rep.elapsedNanos = time.Since(start).Nanoseconds()
	for _, name := range botOrder {
		rep.Bots = append(rep.Bots, finishRow(*botRow[name]))
	}
	for _, r := range seatRows {
		rep.Seats = append(rep.Seats, finishRow(r))
	}
	rep.MeanTurns = float64(turns) / float64(opts.Games)
	rep.MeanSteps = float64(steps) / float64(opts.Games)
	for _, r := range endOrder {
		rep.EndReasons = append(rep.EndReasons, SimEndReason{Reason: r, Games: endCount[r]})
	}
	if stats != nil {
		rep.GameFigures = stats.Report()
	}
	if opts.IO.ErrTTY {
		secs := float64(rep.elapsedNanos) / 1e9
		fmt.Fprintf(opts.IO.ErrOut, "%d games in %.1f s (%.0f games/s)\n", opts.Games, secs, float64(opts.Games)/secs)
	}
	if opts.JSON {
		enc := json.NewEncoder(opts.IO.Out)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	printSimReport(opts.IO.Out, g, rep)
	return nil
}

func finishRow(r SimRow) SimRow {
	if r.Played > 0 {
		r.WinRate = float64(r.Wins) / float64(r.Played)
		r.MeanScore = float64(r.scoreSum) / float64(r.Played)
	}
	r.CILow, r.CIHigh = wilson(r.Wins, r.Played)
	return r
}

// wilson returns the 95% Wilson score interval of k successes in n trials;
// unlike the normal approximation it stays inside [0, 1] for rare events.
func wilson(k, n int) (float64, float64) {
	if n == 0 {
		return 0, 0
	}
	const z = 1.959963984540054
	p := float64(k) / float64(n)
	nn := float64(n)
	den := 1 + z*z/nn
	mid := (p + z*z/(2*nn)) / den
	half := z * math.Sqrt(p*(1-p)/nn+z*z/(4*nn*nn)) / den
	return math.Max(0, mid-half), math.Min(1, mid+half)
}

func printSimReport(w io.Writer, g *engine.Game, r *SimReport) {
	fmt.Fprintf(w, "%s: %d games, %d players, seed %q\n", g.Title, r.Games, r.Players, r.Seed)
	if r.Options != "" {
		fmt.Fprintf(w, "options: %s\n", r.Options)
	}
	fmt.Fprintf(w, "seating: %s (rotated one seat each game)\n\n", strings.Join(r.Seating, ", "))
	table := func(title string, rows []SimRow) {
		fmt.Fprintf(w, "%-14s %8s %8s %9s  %-17s %10s\n", title, "played", "wins", "win rate", "95% interval", "mean score")
		for _, row := range rows {
			fmt.Fprintf(w, "%-14s %8d %8d %8.1f%%  %5.1f%% – %5.1f%%  %10.2f\n", row.Name, row.Played, row.Wins,
				100*row.WinRate, 100*row.CILow, 100*row.CIHigh, row.MeanScore)
		}
		fmt.Fprintln(w)
	}
	table("bot", r.Bots)
	table("seat", r.Seats)
	fmt.Fprintf(w, "mean game length: %.1f turns, %.1f steps\n", r.MeanTurns, r.MeanSteps)
	fmt.Fprintf(w, "shared wins: %d of %d games\n", r.SharedWins, r.Games)
	fmt.Fprintln(w, "how games ended:")
	for _, e := range r.EndReasons {
		fmt.Fprintf(w, "  %6d  %5.1f%%  %s\n", e.Games, 100*float64(e.Games)/float64(r.Games), e.Reason)
	}
	if len(r.GameFigures) > 0 {
		fmt.Fprintf(w, "\n%s figures:\n", g.Title)
		for _, m := range r.GameFigures {
			line := fmt.Sprintf("  %-40s %12.4f", m.Name, m.Value)
			if m.Count > 0 {
				line += fmt.Sprintf("  (n=%d)", m.Count)
			}
			if m.Help != "" {
				line += "  " + m.Help
			}
			fmt.Fprintln(w, line)
		}
	}
}

// displayOptions shows options as name=value, with long values (a rules
// table read from a file) shortened to their size and hash prefix.
func displayOptions(opts engine.Options) string {
	parts := make([]string, len(opts))
	for i, o := range opts {
		v := o.Value
		if len(v) > 40 || strings.ContainsAny(v, "\n,") {
			sum := sha256.Sum256([]byte(v))
			v = fmt.Sprintf("<%d bytes, sha256 %x…>", len(v), sum[:4])
		}
		parts[i] = o.Name + "=" + v
	}
	return strings.Join(parts, ",")
}
