package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/boardmesh/boardmesh/cli/tui"
	"github.com/boardmesh/boardmesh/engine"
	"github.com/boardmesh/boardmesh/engine/games"
	"github.com/boardmesh/boardmesh/p2p"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/spf13/cobra"
)

// PlayOptions are the inputs of `boardmesh play`.
type PlayOptions struct {
	IO  *IOStreams
	Ctx context.Context

	Game     string
	Bots     int
	BotKinds []string
	Watch    bool
	Auto     bool
	JSON     bool
	Seed     string
	Options  gameOptionFlags
	Delay    time.Duration
}

func newCmdPlay(f *Factory, runF func(*PlayOptions) error) *cobra.Command {
	opts := &PlayOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "play [GAME]",
		Short: "Play against bots on this machine, each bot a real libp2p peer",
		Long: `Play a game against bots on this machine. You and every bot are separate libp2p
peers on loopback in this process, running the whole protocol: signed moves
over gossipsub, dice from the commit-reveal beacon, state hashes checked
every turn. GAME defaults to The Sleeping Dragon's Lair.

In a terminal you get the game screen: the board as your seat sees it, your
legal moves, what happened, the peers, and whether every peer's state hash
agrees. The screen fits the terminal: title and status stay at the top, your
moves, the sync line and the keys at the bottom, the board scrolls between.

` + tui.HelpText + `
The mouse wheel needs the mouse, so to select text hold Shift (most terminals).

With --auto, or when there is no terminal, your seat is played by a bot too,
the game runs to the end, and a summary is printed. --watch seats only bots
and shows the game as a spectator.`,
		Example: `  boardmesh play
  boardmesh play dragonslair --bots 2
  boardmesh play --watch
  boardmesh play --auto --json`,
		Args: usageArgs(cobra.MaximumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.Game = args[0]
			}
			opts.Ctx = cmd.Context()
			if runF != nil {
				return runF(opts)
			}
			return playRun(opts)
		},
	}
	cmd.Flags().IntVar(&opts.Bots, "bots", -1, "number of bots (default: fill the game's usual table)")
	cmd.Flags().StringSliceVar(&opts.BotKinds, "bot", nil, "bot kinds, comma-separated, repeated to fill the table (default: the game's bots in turn)")
	cmd.Flags().BoolVar(&opts.Watch, "watch", false, "seat only bots and watch")
	cmd.Flags().BoolVar(&opts.Auto, "auto", false, "no terminal UI: your seat is a bot too; print a summary at the end")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the summary as JSON (implies --auto)")
	cmd.Flags().StringVar(&opts.Seed, "seed", "", "seed of the bots' choices (default: random)")
	opts.Options.register(cmd.Flags())
	cmd.Flags().DurationVar(&opts.Delay, "delay", 400*time.Millisecond, "pause before each bot move in the terminal UI")
	return cmd
}

func playRun(opts *PlayOptions) error {
	ctx := opts.Ctx
	if ctx == nil {
		ctx = context.Background()
	}
	g := games.Default()
	if opts.Game != "" {
		var err error
		if g, err = games.Lookup(opts.Game); err != nil {
			return &UsageError{Err: err}
		}
	}
	gameOpts, err := opts.Options.resolve(g)
	if err != nil {
		return err
	}
	humans := 1
	if opts.Watch {
		humans = 0
	}
	bots := opts.Bots
	if bots < 0 {
		bots = g.DefaultPlayers - humans
	}
	players := bots + humans
	if players < g.MinPlayers || players > g.MaxPlayers {
		return usageErrorf("%s is for %d to %d players; --bots %d makes %d", g.Title, g.MinPlayers, g.MaxPlayers, bots, players)
	}
	kinds := opts.BotKinds
	if len(kinds) == 0 {
		for _, b := range g.Bots {
			kinds = append(kinds, b.Name)
		}
	}
	specs := make([]engine.BotSpec, len(kinds))
	for i, k := range kinds {
		if specs[i], err = g.Bot(k); err != nil {
			return &UsageError{Err: err}
		}
	}
	auto := opts.Auto || opts.JSON || !opts.IO.InTTY || !opts.IO.OutTTY
	names := make([]string, players)
	botList := make([]engine.Bot, players)
	for i := range players {
		spec := specs[i%len(specs)]
		if i < humans && !auto {
			names[i] = "you"
		} else if i < humans {
			names[i] = "you-" + spec.Name // your seat, played by a bot
		} else {
			names[i] = fmt.Sprintf("bot%d-%s", i+1-humans, spec.Name)
		}
		if i >= humans || auto {
			botList[i] = spec.New()
		}
	}
	seed := []byte(opts.Seed)
	if opts.Seed == "" {
		seed = []byte(time.Now().String())
	}
	dir, err := os.MkdirTemp("", "boardmesh-play-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)

	var delay time.Duration
	if !auto {
		delay = opts.Delay
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var prog *tea.Program
	var view *tableView
	cfg := p2p.TableConfig{Game: g, Options: gameOpts, Names: names, Bots: botList, Seed: seed, Dir: dir, BotDelay: delay}
	if !auto {
		cfg.WantState = true
		cfg.OnUpdate = func(i int, u p2p.Update) {
			if i != 0 || view == nil {
				return
			}
			view.update(u)
			if prog != nil {
				prog.Send(tui.SnapshotMsg(view.snapshot()))
			}
		}
	}
	start := time.Now()
	table, err := p2p.NewTable(ctx, cfg)
	if err != nil {
		return fmt.Errorf("set up the table: %w", err)
	}
	defer table.Close()
	if auto {
		runErr := table.Run(ctx)
		return printSummary(opts.IO, opts.JSON, g, table, humans, time.Since(start), runErr)
	}

	me := table.Peers[0]
	view = newTableView(g.Title, me.Host, humans == 1)
	for _, p := range table.Peers[humans:] {
		view.bots[p.Host.ID()] = true
	}
	quit := false
	model := tui.New(view.snapshot(), true, func(a engine.Action) {
		go me.Runner.Act(ctx, a)
	}, func() { quit = true; cancel() })
	prog = tea.NewProgram(model, tea.WithInput(opts.IO.In), tea.WithOutput(opts.IO.Out), tea.WithAltScreen(), tea.WithMouseCellMotion(), tea.WithContext(ctx))
	runErr := make(chan error, 1)
	go func() { runErr <- table.Run(ctx) }()
	if _, err := prog.Run(); err != nil && !errors.Is(err, tea.ErrProgramKilled) && !errors.Is(err, context.Canceled) {
		cancel()
		<-runErr
		return fmt.Errorf("terminal UI: %w", err)
	}
	cancel()
	err = <-runErr
	if quit {
		if r := me.Result(); r != nil {
			return printSummary(opts.IO, false, g, table, humans, time.Since(start), nil)
		}
		fmt.Fprintln(opts.IO.ErrOut, "You left the game.")
		return nil
	}
	if ctxErr := opts.Ctx; ctxErr != nil && ctxErr.Err() != nil {
		return ctxErr.Err()
	}
	return printSummary(opts.IO, false, g, table, humans, time.Since(start), err)
}
