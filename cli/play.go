package cli

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"sync"
	"time"

	"github.com/boardmesh/boardmesh/cli/tui"
	"github.com/boardmesh/boardmesh/cli/web"
	"github.com/boardmesh/boardmesh/engine"
	"github.com/boardmesh/boardmesh/engine/games"
	"github.com/boardmesh/boardmesh/lockstep"
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
	// OpenHands: --open-hands, an open table for a game with hidden cards.
	OpenHands bool
	Auto      bool
	JSON      bool
	Seed      string
	Options   gameOptionFlags
	Delay     time.Duration
	Home      string
	Web       bool
	// InjectDesync, 0 or more, makes the last bot's engine go wrong at
	// that step (a developer's flag); -1 plays honestly.
	InjectDesync int64
}

// keepPlays is how many play sessions' logs are kept under the home.
const keepPlays = 20

func newCmdPlay(f *Factory, runF func(*PlayOptions) error) *cobra.Command {
	opts := &PlayOptions{IO: f.IO, InjectDesync: -1}
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

With --web your seat is a page in your browser instead: boardmesh prints its
address (127.0.0.1 only, with a secret token) and opens it when it can; the
board is drawn and every move is a click.

With --auto, or when there is no terminal, your seat is played by a bot too,
the game runs to the end, and a summary is printed. --watch seats only bots
and shows the game as a spectator.

Every peer's session log is kept under the boardmesh home, in
plays/<time>-<id>/peerN.log (peer0 is your seat); the summary prints the path
to give to 'boardmesh replay'. The logs of the last ` + fmt.Sprint(keepPlays) + ` play sessions are
kept, older ones are removed.

For developers, --inject-desync SEQ gives the last bot a buggy copy of the
rules engine whose state goes wrong at step SEQ (or the first step after it
where a wrong outcome keeps the game going; a game that ends first ends
honestly). The other peers detect the desync, the game stops, and boardmesh
prints the report (the first divergent entry, its author, both state hashes,
the differing fields) and the path of the desync bundle (an honest peer's log
file with the buggy peer's state), then exits with code 3.
'boardmesh replay BUNDLE' shows the same report.`,
		Example: `  boardmesh play
  boardmesh play dragonslair --bots 2
  boardmesh play --watch
  boardmesh play --auto --json
  boardmesh play dominion --web   # play in your browser
  boardmesh play --auto --inject-desync 10   # a desync detected and reported`,
		Args: usageArgs(cobra.MaximumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.Game = args[0]
			}
			if opts.InjectDesync < -1 {
				return usageErrorf("--inject-desync %d: want a step number, 0 or more", opts.InjectDesync)
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
	cmd.Flags().BoolVar(&opts.OpenHands, "open-hands", false, openHandsHelp)
	cmd.Flags().BoolVar(&opts.Auto, "auto", false, "no terminal UI: your seat is a bot too; print a summary at the end")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the summary as JSON (implies --auto)")
	cmd.Flags().StringVar(&opts.Seed, "seed", "", "seed of the bots' choices (default: random)")
	opts.Options.register(cmd.Flags())
	cmd.Flags().DurationVar(&opts.Delay, "delay", 400*time.Millisecond, "pause before each bot move in the terminal UI")
	cmd.Flags().StringVar(&opts.Home, "home", "", "boardmesh home: where the session logs are kept (default $"+HomeEnv+" or the user config dir)")
	cmd.Flags().BoolVar(&opts.Web, "web", false, webFlagHelp)
	cmd.Flags().Int64Var(&opts.InjectDesync, "inject-desync", -1, "developers: make the last bot's engine state go wrong at step SEQ, to see desync detection work")
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
	// The options are checked as sim checks them, before any peer starts:
	// a bad one would otherwise stall every peer at the seat draw.
	gameOpts, err := opts.Options.setup(ctx, g, players)
	if err != nil {
		return err
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
	auto := opts.Auto || opts.JSON || (!opts.Web && (!opts.IO.InTTY || !opts.IO.OutTTY))
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
	home, err := resolveHome(opts.Home)
	if err != nil {
		return err
	}
	dir, err := newPlayDir(home, time.Now())
	if err != nil {
		return err
	}

	var delay time.Duration
	if !auto {
		delay = opts.Delay
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var prog *tea.Program
	var view *tableView
	var page *web.Page
	cfg := p2p.TableConfig{Game: g, Options: gameOpts, Names: names, Bots: botList, Seed: seed, Dir: dir, BotDelay: delay, Secret: !opts.OpenHands}
	if opts.InjectDesync >= 0 {
		cfg.Inject = &p2p.Injection{Peer: players - 1, Seq: uint64(opts.InjectDesync)}
	}
	if !auto {
		cfg.WantState = true
		cfg.OnUpdate = func(i int, u p2p.Update) {
			if i != 0 || view == nil {
				return
			}
			view.update(u)
			if page != nil {
				page.Show(view.table())
			}
			if prog != nil {
				prog.Send(tui.SnapshotMsg(view.snapshot()))
			}
		}
	}
	// Every cheat the first peer (yours) detects is named once, in --auto
	// lines (stderr) and in the summary: what it saw, as host and join
	// show each player its own peer's view. (With --inject-desync another
	// peer's buggy engine sees honest moves as "wrong hash"; that is its
	// bug, not their cheat.)
	var cheatMu sync.Mutex
	var cheats []Cheat
	seenCheat := map[string]bool{}
	ui := cfg.OnUpdate
	cfg.OnUpdate = func(i int, u p2p.Update) {
		for _, ev := range u.Events {
			if c, ok := cheatOf(ev, u.Status); ok && i == 0 {
				cheatMu.Lock()
				if !seenCheat[c.Text] {
					seenCheat[c.Text] = true
					cheats = append(cheats, c)
					if auto && !opts.JSON {
						fmt.Fprintln(opts.IO.ErrOut, "CHEAT: "+c.Text)
					}
				}
				cheatMu.Unlock()
			}
		}
		if ui != nil {
			ui(i, u)
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
		cheatMu.Lock()
		defer cheatMu.Unlock()
		return printSummary(opts.IO, opts.JSON, g, table, humans, time.Since(start), runErr, cheats...)
	}

	me := table.Peers[0]
	view = newTableView(g.Title, me.Host, humans == 1)
	for _, p := range table.Peers[humans:] {
		view.bots[p.Host.ID().String()] = true
	}
	if opts.Web {
		return playWeb(ctx, opts, g, table, view, humans, start, &page)
	}
	quit := false
	model := tui.New(view.snapshot(), true, func(a engine.Action) {
		go actAndTell(ctx, prog, me.Runner, a)
	}, func() { quit = true; cancel() })
	model.OnDrop(func(seats []int) {
		go me.Runner.Do(ctx, func(n *lockstep.Node) error { return n.VoteDrop(seats) })
	})
	model.OnClaim(func() {
		go me.Runner.Do(ctx, func(n *lockstep.Node) error { return n.Claim() })
	})
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
		if rep, _ := table.Desync(); rep != nil {
			return printSummary(opts.IO, false, g, table, humans, time.Since(start), p2p.ErrStopped, cheats...)
		}
		if r := me.Result(); r != nil {
			return printSummary(opts.IO, false, g, table, humans, time.Since(start), nil)
		}
		// A play table is gone with this process (its bots ran in it), so
		// there is nothing to resume; its log is kept for replay.
		fmt.Fprintf(opts.IO.ErrOut, "You left the game. Its log is kept (a play table cannot be resumed: its bots ran inside this program):\n  %s\n", replayCommand(me.Log.Path(), me.Status().Mode, me.Status().MySeat))
		return nil
	}
	if ctxErr := opts.Ctx; ctxErr != nil && ctxErr.Err() != nil {
		return ctxErr.Err()
	}
	return printSummary(opts.IO, false, g, table, humans, time.Since(start), err, cheats...)
}

// playsDir is the folder of the boardmesh home that keeps the play
// sessions' logs.
const playsDir = "plays"

// newPlayDir makes the directory of a new play session's logs under
// home/plays, named so that names sort by start time, and removes the
// oldest sessions beyond keepPlays.
func newPlayDir(home string, now time.Time) (string, error) {
	root := filepath.Join(home, playsDir)
	if err := os.MkdirAll(root, 0o700); err != nil {
		return "", fmt.Errorf("keep the play logs: %w", err)
	}
	var id [3]byte
	if _, err := rand.Read(id[:]); err != nil {
		return "", err
	}
	dir := filepath.Join(root, now.UTC().Format("20060102-150405.000")+"-"+hex.EncodeToString(id[:]))
	if err := os.Mkdir(dir, 0o700); err != nil {
		return "", fmt.Errorf("keep the play logs: %w", err)
	}
	prunePlays(root, keepPlays)
	return dir, nil
}

// prunePlays removes all but the newest keep session directories of root.
// A directory it cannot remove stays; the next play tries again.
func prunePlays(root string, keep int) {
	ents, err := os.ReadDir(root)
	if err != nil {
		return
	}
	var dirs []string
	for _, e := range ents {
		if e.IsDir() {
			dirs = append(dirs, e.Name())
		}
	}
	sort.Strings(dirs)
	for len(dirs) > keep {
		os.RemoveAll(filepath.Join(root, dirs[0]))
		dirs = dirs[1:]
	}
}
