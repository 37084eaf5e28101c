package cli

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/boardmesh/boardmesh/cli/tui"
	"github.com/boardmesh/boardmesh/cli/web"
	"github.com/boardmesh/boardmesh/crypto"
	"github.com/boardmesh/boardmesh/engine"
	"github.com/boardmesh/boardmesh/engine/games"
	"github.com/boardmesh/boardmesh/lockstep"
	"github.com/boardmesh/boardmesh/p2p"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/spf13/cobra"
)

// NetFlags are the flags host, join and resume share.
type NetFlags struct {
	Home      string
	Name      string
	Port      int
	Loopback  bool
	NoMDNS    bool
	NoQUIC    bool
	Bot       string
	Auto      bool
	JSON      bool
	BotDelay  time.Duration
	DropAfter time.Duration
	Web       bool
	// InjectDesync, 0 or more, makes this peer's engine go wrong at that
	// step (a developer's flag); -1 plays honestly.
	InjectDesync int64
	// Internet: --relay, --bootstrap, --no-dht (internet.go).
	Internet InternetFlags
	// OpenHands: --open-hands (host, join): an open table for a game with
	// hidden cards.
	OpenHands bool
	// needHome is set by commands that need an existing home (resume):
	// netSetup then creates nothing and names the home it did not find.
	needHome bool
}

func addNetFlags(cmd *cobra.Command, nf *NetFlags, withName bool) {
	addPeerFlags(cmd, nf, withName)
	addSeatFlags(cmd, nf)
}

// addPeerFlags registers the flags of every networked command, the
// spectator's too.
func addPeerFlags(cmd *cobra.Command, nf *NetFlags, withName bool) {
	cmd.Flags().StringVar(&nf.Home, "home", "", "boardmesh home: identity and session logs (default $"+HomeEnv+" or the user config dir)")
	if withName {
		cmd.Flags().StringVar(&nf.Name, "name", "", "your name at the table (default: peer- and the last 4 characters of your peer id)")
	}
	cmd.Flags().IntVar(&nf.Port, "port", 0, "TCP and UDP port to listen on (default: any free port)")
	cmd.Flags().BoolVar(&nf.Loopback, "loopback", false, "listen on 127.0.0.1 only (a table on this machine; no mDNS)")
	cmd.Flags().BoolVar(&nf.NoMDNS, "no-mdns", false, "do not use mDNS on the LAN")
	cmd.Flags().BoolVar(&nf.NoQUIC, "no-quic", false, "TCP only")
	cmd.Flags().BoolVar(&nf.Auto, "auto", false, "no terminal UI: print progress lines and a summary")
	cmd.Flags().BoolVar(&nf.JSON, "json", false, "machine-readable output: one JSON object per line (implies --auto)")
	cmd.Flags().BoolVar(&nf.Web, "web", false, webFlagHelp)
	nf.InjectDesync = -1
	addInternetFlags(cmd, &nf.Internet)
}

// addSeatFlags registers the flags of a peer with a seat: who plays it,
// when to drop an absent player, the developers' desync.
func addSeatFlags(cmd *cobra.Command, nf *NetFlags) {
	cmd.Flags().StringVar(&nf.Bot, "bot", "", "let a bot of this kind play your seat (see 'boardmesh games')")
	cmd.Flags().DurationVar(&nf.BotDelay, "bot-delay", 0, "pause before each of the bot's moves")
	cmd.Flags().DurationVar(&nf.DropAfter, "drop-after", defaultDropAfter, "after this long waiting for a player, you may vote to drop them (d on the game screen; without it this peer votes by itself); 0: wait for them forever. At a table of two, also how long you must have kept the other player waiting before this peer takes their claim of the win (0: 60s)")
	cmd.Flags().Int64Var(&nf.InjectDesync, "inject-desync", -1, "developers: make this peer's engine state go wrong at step SEQ, so the others report a desync (see 'boardmesh play --help')")
}

// netSetup loads the identity and builds the common peer configuration.
func netSetup(io *IOStreams, nf *NetFlags) (p2p.NetConfig, error) {
	// A wrong flag first, before anything is made or reached.
	if nf.Port < 0 || nf.Port > 65535 {
		return p2p.NetConfig{}, usageErrorf("--port %d: want 0 to 65535", nf.Port)
	}
	if nf.InjectDesync < -1 {
		return p2p.NetConfig{}, usageErrorf("--inject-desync %d: want a step number, 0 or more", nf.InjectDesync)
	}
	// Then the home: a resume from a home that is not one stops before
	// it says it is reaching the internet.
	var home string
	var err error
	if nf.needHome {
		home, err = existingHome(nf.Home)
	} else {
		home, err = resolveHome(nf.Home)
	}
	if err != nil {
		return p2p.NetConfig{}, err
	}
	inet, err := nf.Internet.config(io, nf)
	if err != nil {
		return p2p.NetConfig{}, err
	}
	ident, err := loadIdentity(home, !nf.needHome, io.ErrOut)
	if err != nil {
		return p2p.NetConfig{}, err
	}
	id, err := p2p.SigningIdentity(ident.Key)
	if err != nil {
		return p2p.NetConfig{}, err
	}
	name := nf.Name
	if name == "" {
		name = defaultName(id)
	}
	seed := sha256.Sum256([]byte(time.Now().String() + id.ID().String()))
	// On the game screen the player decides to vote a drop (d), on the
	// page with a button; without either the peer votes by itself after
	// --drop-after.
	nodeDrop := nf.DropAfter
	if netInteractive(io, nf) || nf.Web && nf.Bot == "" {
		nodeDrop = 0
	}
	// The other player of a table of two may claim the win once this
	// peer has kept it waiting --drop-after, the period it is offered
	// the claim by its own screen (0, "wait forever", keeps the default:
	// a player who waits forever may still think for a minute).
	claimAfter := nf.DropAfter
	if claimAfter <= 0 {
		claimAfter = defaultDropAfter
	}
	return p2p.NetConfig{Identity: id, Name: name, Home: home, LAN: !nf.Loopback, Port: nf.Port, NoQUIC: nf.NoQUIC,
		MDNS: !nf.Loopback && !nf.NoMDNS, Games: lookupGames(nf), BotName: nf.Bot, BotRand: engine.NewRand(seed[:]), BotDelay: nf.BotDelay, DropAfter: nodeDrop, ClaimAfter: claimAfter,
		Internet: inet, OpenHands: nf.OpenHands}, nil
}

// openHandsHelp is the help of --open-hands.
const openHandsHelp = "a trusted table: every peer's engine holds every card drawn (default for games with hidden cards: a secret table, where no peer can learn a card it may not see; the host chooses, and a joiner sits only at the table it asked for)"

// addModeFlag registers --open-hands on host and join.
func addModeFlag(cmd *cobra.Command, nf *NetFlags) {
	cmd.Flags().BoolVar(&nf.OpenHands, "open-hands", false, openHandsHelp)
}

// netInteractive says whether a person plays at the game screen.
func netInteractive(io *IOStreams, nf *NetFlags) bool {
	return !nf.Auto && !nf.JSON && nf.Bot == "" && io.InTTY && io.OutTTY && !nf.Web
}

// lookupGames is games.Lookup, or with --inject-desync a lookup of games
// whose states go wrong at that step.
func lookupGames(nf *NetFlags) func(string) (*engine.Game, error) {
	if nf.InjectDesync < 0 {
		return games.Lookup
	}
	return func(name string) (*engine.Game, error) {
		g, err := games.Lookup(name)
		if err != nil {
			return nil, err
		}
		return p2p.InjectDesync(g, uint64(nf.InjectDesync)), nil
	}
}

func defaultName(id *crypto.Identity) string {
	s := id.ID().String()
	return "peer-" + s[len(s)-4:]
}

// attachBot resolves --bot for game g.
func attachBot(cfg *p2p.NetConfig, g *engine.Game, kind string) error {
	if kind == "" {
		return nil
	}
	spec, err := g.Bot(kind)
	if err != nil {
		return &UsageError{Err: err}
	}
	cfg.Bot, cfg.BotName = spec.New(), spec.Name
	return nil
}

// actAndTell plays a for the local seat and, if the node refuses it,
// tells the UI why, so the menu takes a choice again.
func actAndTell(ctx context.Context, prog *tea.Program, r *p2p.Runner, a engine.Action) {
	if err := r.Act(ctx, a); err != nil && ctx.Err() == nil && prog != nil {
		prog.Send(tui.RefusedMsg(err.Error()))
	}
}

// netReporter prints progress lines (or JSON lines) for a peer without a
// terminal UI. It runs on the runner's goroutine.
type netReporter struct {
	io     *IOStreams
	json   bool
	result *engine.Result
	status lockstep.Status
	desync string
	// cheat is the first equivocation seen: it stops the game, exit 4.
	cheat   string
	cheats  []Cheat
	drops   p2p.Drops
	dropsAt time.Time
	view    *tableView
	prog    *tea.Program
	// refused is why this peer cannot play the host's roster (its game,
	// version or options); leave cancels the run then, so the peer leaves
	// the lobby instead of waiting for a game that cannot start.
	refused string
	leave   func()
	page    *web.Page
}

func (r *netReporter) line(kind string, text string, extra map[string]any) {
	if r.json {
		m := map[string]any{"event": kind, "text": text}
		for k, v := range extra {
			m[k] = v
		}
		b, _ := json.Marshal(m)
		fmt.Fprintln(r.io.Out, string(b))
		return
	}
	fmt.Fprintln(r.io.ErrOut, text)
}

func (r *netReporter) update(u p2p.Update) {
	r.status = u.Status
	for _, ev := range u.Events {
		if c, ok := cheatOf(ev, u.Status); ok {
			r.cheats = append(r.cheats, c)
			if c.kind == lockstep.CheatEquivocation && r.cheat == "" {
				r.cheat = c.Text
			}
			if r.prog == nil {
				r.line("cheat", "CHEAT: "+c.Text, map[string]any{"what": c.What, "seat": c.Seat, "name": c.Name, "peer": c.Peer, "step": c.Step, "text": c.Text})
			}
			continue
		}
		switch ev.Kind {
		case lockstep.EventJoined:
			if r.prog == nil {
				text := ev.Text
				for _, m := range u.Joined {
					if m.ID == ev.Peer && m.Name != "" {
						text = fmt.Sprintf("%s joined (%d in the lobby)", m.Name, len(u.Joined))
					}
				}
				r.line(ev.Kind.String(), text, nil)
			}
		case lockstep.EventRefused:
			if r.prog == nil {
				r.line(ev.Kind.String(), ev.Text, nil)
			}
			if errors.Is(ev.Err, lockstep.ErrRefused) && r.refused == "" && r.status.Phase < lockstep.PhasePlaying {
				r.refused = ev.Text
				if r.leave != nil {
					r.leave()
				}
			}
		case lockstep.EventRoster, lockstep.EventStarted, lockstep.EventDropped,
			lockstep.EventWaiting, lockstep.EventResumed, lockstep.EventCards:
			if r.prog == nil {
				r.line(ev.Kind.String(), ev.Text, nil)
			}
		case lockstep.EventRejected:
			// A state hash that differs from ours is not called a cheat
			// (lockstep.CheatWrongHash): the report, or a lie named,
			// follows. It is news all the same.
			if (ev.Cheat == lockstep.CheatWrongHash || ev.Cheat == lockstep.CheatWrongCheckpoint) && r.prog == nil {
				name, seat := memberAndSeat(ev.Peer, u.Status)
				r.line("diverged", capitalize(ev.Text), map[string]any{"seat": seat, "name": name, "peer": ev.Peer.String(), "step": ev.Seq})
			}
		case lockstep.EventDesync:
			text := ev.Text
			if ev.Desync != nil {
				text = ev.Desync.String()
			}
			if r.desync == "" {
				r.desync = text // the first report is the one to show
			}
			if r.prog == nil {
				r.line("desync", text, nil)
			}
		case lockstep.EventGameOver:
			if ev.Result != nil {
				res := *ev.Result
				r.result = &res
			}
		}
	}
	for _, note := range u.Notes {
		if r.prog == nil {
			r.line("note", note, nil)
		}
	}
	if t := dropsText(u.Drops, r.drops); t != "" && r.prog == nil && time.Since(r.dropsAt) >= dropsEvery {
		r.line("dropped", t, map[string]any{"drops": u.Drops})
		r.drops, r.dropsAt = u.Drops, time.Now()
	}
	if r.view != nil {
		r.view.update(u)
		if r.page != nil {
			r.page.Show(r.view.table())
		}
		if r.prog != nil {
			r.prog.Send(tui.SnapshotMsg(r.view.snapshot()))
		}
	}
}

// logHash is p2p.LogHash of a session log, the figure players compare at
// the end (play's summary gives the same of its table's logs).
func logHash(log []*crypto.Envelope) string {
	entries := make([][]byte, len(log))
	for i, env := range log {
		entries[i] = env.Marshal()
	}
	return p2p.LogHash(entries).String()
}

// NetSummary is what host, join and resume print at the end.
type NetSummary struct {
	Event   string `json:"event"`
	Session string `json:"session"`
	Lobby   string `json:"lobby"`
	Game    string `json:"game"`
	// Mode is the table's card mode every member agreed to in the roster:
	// "secret table", "open hands" or "open (no hidden cards)".
	Mode    string        `json:"mode,omitempty"`
	Reason  string        `json:"reason"`
	Seats   []SummarySeat `json:"seats"`
	Steps   uint64        `json:"steps"`
	Entries int           `json:"log_entries"`
	LogHash string        `json:"log_hash"`
	Desync  string        `json:"desync,omitempty"`
	// Cheats names every cheat this peer detected, seats from 1.
	Cheats []Cheat `json:"cheats,omitempty"`
	// Dropped counts what the topic validator turned away.
	Dropped p2p.Drops `json:"dropped"`
	// Log is this peer's session log; with a desync it is the bundle.
	Log string `json:"log,omitempty"`
	// Connections says how each peer was connected at the end (direct,
	// punched, relayed) and what failed; only beyond the LAN.
	Connections []p2p.Link `json:"connections,omitempty"`
}

// runNetPeer plays the session: with a terminal UI when a person plays in
// a terminal, else with progress lines; then prints the summary.
func runNetPeer(ctx context.Context, io *IOStreams, nf *NetFlags, peer *p2p.NetPeer, canStart bool) error {
	rep := &netReporter{io: io, json: nf.JSON}
	interactive := netInteractive(io, nf) && peer.Meta.Bot == ""
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	rep.leave = cancel
	var quit bool
	if nf.Web {
		if err := rep.openWeb(ctx, peer, canStart, nf.DropAfter); err != nil {
			return err
		}
		defer rep.page.Close()
	}
	if interactive {
		title := peer.Meta.Game
		if g, err := games.Lookup(peer.Meta.Game); err == nil {
			title = g.Title
		}
		rep.view = newTableView(title, peer.Host, true)
		rep.view.canStart = canStart
		rep.view.dropAfter = nf.DropAfter.Milliseconds()
		rep.view.earlier = peer.Node.Log()
		rep.view.lobby = lobbyOf(peer, nf)
		// A resumed peer knows the table from its log: the first frame
		// says so, not "in the lobby".
		rep.view.status = peer.Node.Status()
		if st := peer.Node.State(); st != nil {
			rep.view.state = st.Clone()
		}
		rep.view.prime()
		if peer.Net != nil {
			rep.view.reach = peer.Net.Reach
		}
		snap := rep.view.snapshot()
		model := tui.New(snap, true, func(a engine.Action) { go actAndTell(ctx, rep.prog, peer.Runner, a) }, func() { quit = true; cancel() })
		model.OnDrop(func(seats []int) {
			go peer.Runner.Do(ctx, func(n *lockstep.Node) error { return n.VoteDrop(seats) })
		})
		model.OnClaim(func() {
			go peer.Runner.Do(ctx, func(n *lockstep.Node) error { return n.Claim() })
		})
		if canStart {
			model.OnStart(func() {
				go peer.Runner.Do(ctx, func(n *lockstep.Node) error { return n.Propose() })
			})
		}
		rep.prog = tea.NewProgram(model, tea.WithInput(io.In), tea.WithOutput(io.Out), tea.WithAltScreen(), tea.WithMouseCellMotion(), tea.WithContext(ctx))
	} else if canStart && !nf.Web {
		// Without a terminal UI the host starts on a line from stdin.
		go func() {
			sc := bufio.NewScanner(io.In)
			for sc.Scan() {
				err := peer.Runner.Do(ctx, func(n *lockstep.Node) error { return n.Propose() })
				if err == nil {
					return
				}
				if errors.Is(err, p2p.ErrRunnerDone) || ctx.Err() != nil {
					return
				}
				rep.line("error", "cannot start yet: "+err.Error(), nil)
			}
		}()
	}
	peer.OnUpdate(rep.update)
	watchReach(rep, peer)
	runErr := make(chan error, 1)
	go func() { runErr <- peer.Run(ctx) }()
	var err error
	if rep.prog != nil {
		if _, perr := rep.prog.Run(); perr != nil && !errors.Is(perr, tea.ErrProgramKilled) && !errors.Is(perr, context.Canceled) {
			cancel()
			<-runErr
			return fmt.Errorf("terminal UI: %w", perr)
		}
		if quit {
			cancel()
		}
		err = <-runErr
	} else {
		err = <-runErr
	}
	if (rep.desync != "" || rep.cheat != "") && rep.result == nil {
		if err == nil || !errors.Is(err, p2p.ErrStopped) {
			err = p2p.ErrStopped
		}
		return printNetSummary(io, nf.JSON, peer, rep, err)
	}
	if rep.refused != "" {
		return fmt.Errorf("cannot play the host's game here, so this peer left the lobby: %s", strings.TrimPrefix(rep.refused, "lockstep: refused: "))
	}
	// A lobby left before the seats were drawn has nothing to rejoin:
	// resume would say so (p2p.ErrNeverStarted), so it is not offered.
	left, rejoin := "You left the game.", "Rejoin with: "+resumeCommand(nf, peer.Meta.Lobby[:12])
	if len(peer.Node.Log()) == 0 {
		left = "You left the lobby."
		rejoin = "The game had not begun, so there is nothing to rejoin; open a new table with 'boardmesh host " + peer.Meta.Game + "' (or join one)."
	}
	if quit && rep.result == nil {
		fmt.Fprintf(io.ErrOut, "%s %s\n", left, rejoin)
		return nil
	}
	if err != nil && ctx.Err() != nil && rep.result == nil {
		fmt.Fprintf(io.ErrOut, "Stopped. %s\n", rejoin)
		return err
	}
	return printNetSummary(io, nf.JSON, peer, rep, err)
}

func printNetSummary(io *IOStreams, asJSON bool, peer *p2p.NetPeer, rep *netReporter, runErr error) error {
	if rep.result == nil {
		// A game that had ended before this run (resume of a finished
		// session) reports no game-over event: its node holds the result.
		if r := peer.Node.Status().Result; r != nil {
			res := *r
			rep.result = &res
		}
	}
	st := rep.status
	s := NetSummary{Event: "summary", Session: st.Session.String(), Lobby: peer.Meta.Lobby, Game: peer.Meta.Game, Mode: st.Mode,
		Steps: st.Seq, Desync: rep.desync, Cheats: rep.cheats, Dropped: rep.drops}
	if peer.Runner != nil {
		s.Dropped = peer.Runner.Drops()
	}
	if peer.Log != nil {
		s.Log = peer.Log.Path()
	}
	s.Connections = peer.Links()
	// The node's log, not the entries the updates brought: it holds those
	// replayed from disk on resume too, and keeping a copy of each entry
	// here for the end would double what a long game holds in memory.
	log := peer.Node.Log()
	s.Entries, s.LogHash = len(log), logHash(log)
	if rep.result != nil {
		s.Reason = rep.result.Reason
		s.Seats = summarySeats(*rep.result, st.Members, st.Seats)
	}
	if asJSON {
		b, _ := json.Marshal(s)
		fmt.Fprintln(io.Out, string(b))
	} else if rep.result != nil {
		fmt.Fprintf(io.Out, "%s\n", s.Reason)
		for _, seat := range s.Seats {
			win := ""
			if seat.Winner {
				win = "  winner"
			}
			fmt.Fprintf(io.Out, "  seat %d  %-18s %4d%s\n", seat.Seat, seat.Name, seat.Score, win)
		}
		if s.Mode != "" {
			fmt.Fprintf(io.Out, "Table: %s\n", s.Mode)
		}
		fmt.Fprintf(io.Out, "Log: %d entries, sha256 %s (compare with the other players')\n", s.Entries, s.LogHash[:16])
		fmt.Fprintf(io.Out, "  %s\n", replayCommand(s.Log, s.Mode, st.MySeat))
	} else if rep.cheat != "" {
		fmt.Fprintf(io.Out, "CHEATING: the game stopped. %s\nThe proof is in the log: %s\n  boardmesh replay %s\n", rep.cheat, s.Log, shellQuote(s.Log))
	} else if rep.desync != "" {
		printDesync(io, rep.desync, s.Log)
	}
	if runErr != nil {
		if errors.Is(runErr, p2p.ErrStopped) {
			if peer.Log != nil {
				peer.Log.Sync()
			}
			switch {
			case rep.cheat != "":
				return &ExitCodeError{Code: ExitCheating, Err: fmt.Errorf("a player was caught cheating: %s; log %s", rep.cheat, s.Log)}
			case rep.desync != "":
				return &ExitCodeError{Code: ExitDesync, Err: fmt.Errorf("the peers' states diverged; desync bundle %s", s.Log)}
			case errors.Is(runErr, p2p.ErrStoppedInLobby):
				return fmt.Errorf("%s; nothing was played, start a new lobby", plainErr(runErr))
			}
			return &ExitCodeError{Code: ExitDesync, Err: fmt.Errorf("%s; log %s", plainErr(runErr), s.Log)}
		}
		return runErr
	}
	if rep.result == nil {
		return errors.New("the game did not finish")
	}
	return nil
}
