package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/boardmesh/boardmesh/cli/present"
	"github.com/boardmesh/boardmesh/cli/tui"
	"github.com/boardmesh/boardmesh/crypto"
	"github.com/boardmesh/boardmesh/engine"
	"github.com/boardmesh/boardmesh/engine/games"
	"github.com/boardmesh/boardmesh/lockstep"
	"github.com/boardmesh/boardmesh/p2p"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/spf13/cobra"
)

// SpectateOptions are the inputs of `boardmesh spectate`.
type SpectateOptions struct {
	IO  *IOStreams
	Ctx context.Context

	Target string
	Wait   time.Duration
	Net    NetFlags
}

func newCmdSpectate(f *Factory, runF func(*SpectateOptions) error) *cobra.Command {
	opts := &SpectateOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "spectate CODE|MULTIADDR",
		Short: "Follow and verify a game without a seat",
		Long: `Follow a game someone is hosting, without a seat. The spectator fetches the
committed log from the players over the catch-up stream and re-verifies every
entry (signatures, roster, beacon reveals, pre-state hashes, legality of every
move, checkpoints) before it shows the board as a spectator may see it. A peer
that serves a log that does not verify is reported and the spectator stops.
If none of the players answers for 5 seconds (they have left), it says so,
with what it verified until then, and exits with status 1.`,
		Example: `  boardmesh spectate amber-falcon-river
  boardmesh spectate /ip4/192.168.1.5/tcp/4001/p2p/12D3KooW... --auto`,
		Args: usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Target = args[0]
			opts.Ctx = cmd.Context()
			if runF != nil {
				return runF(opts)
			}
			return spectateRun(opts)
		},
	}
	addPeerFlags(cmd, &opts.Net, false)
	cmd.Flags().DurationVar(&opts.Wait, "wait", 4*time.Second, "how long to search the LAN for a join code")
	return cmd
}

func spectateRun(opts *SpectateOptions) error {
	ctx := opts.Ctx
	if ctx == nil {
		ctx = context.Background()
	}
	if !p2p.LooksLikeMultiaddr(opts.Target) {
		if _, err := p2p.ParseJoinCode(opts.Target); err != nil {
			return &UsageError{Err: err}
		}
	}
	opts.Net.Internet.impliedRelay(opts.Target)
	cfg, err := netSetup(opts.IO, &opts.Net)
	if err != nil {
		return err
	}
	h, inet, err := p2p.NewInternetHost(ctx, cfg)
	if err != nil {
		return err
	}
	defer h.Close()
	defer inet.Close()
	info, err := p2p.FindLobbyVia(ctx, h, inet, opts.Target, opts.Wait, cfg.MDNS)
	if err != nil {
		return err
	}
	g, err := games.Lookup(info.Game)
	if err != nil {
		return fmt.Errorf("the host plays %q, which this boardmesh does not have", info.Game)
	}
	if g.Version != info.Version {
		return fmt.Errorf("%w: the host plays %s rules %q, this boardmesh has %q", p2p.ErrRulesVersion, g.Title, info.Version, g.Version)
	}
	sp := &p2p.Spectator{Host: h, Info: info, Games: games.Lookup}
	interactive := !opts.Net.Auto && !opts.Net.JSON && opts.IO.InTTY && opts.IO.OutTTY
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if opts.Net.Web {
		return spectateWeb(ctx, opts, g, h, sp)
	}
	if !interactive {
		if !opts.Net.JSON {
			fmt.Fprintf(opts.IO.ErrOut, "Spectating %s's %s; every entry is verified before it is shown.\n", info.Name, g.Title)
		}
		// Say the table's mode as soon as the verified log shows the
		// game started: what a spectator of a secret table may see.
		told := false
		sp.OnReplay = func(rp *lockstep.Replay, entries int) {
			if told || rp.Mode == "" || rp.Phase < lockstep.PhasePlaying {
				return
			}
			told = true
			text := spectatorModeText(g, rp.Mode)
			if opts.Net.JSON {
				b, _ := json.Marshal(map[string]any{"event": "started", "text": text, "mode": rp.Mode, "game": g.Name})
				fmt.Fprintln(opts.IO.Out, string(b))
			} else {
				fmt.Fprintln(opts.IO.ErrOut, text)
			}
		}
		rp, err := sp.Run(ctx)
		return spectateSummary(opts, g, sp, rp, err)
	}
	var prog *tea.Program
	rec := present.NewRecorder(games.Lookup)
	sp.OnReplay = func(rp *lockstep.Replay, entries int) {
		if prog != nil {
			prog.Send(tui.SnapshotMsg(spectatorSnapshot(g, h, sp.Log(), rec, rp, entries)))
		}
	}
	first := tui.Snapshot{Title: g.Title, Seat: -1, Status: "Fetching the log…"}
	prog = tea.NewProgram(tui.New(first, true, nil, cancel), tea.WithInput(opts.IO.In), tea.WithOutput(opts.IO.Out), tea.WithAltScreen(), tea.WithMouseCellMotion(), tea.WithContext(ctx))
	runErr := make(chan error, 1)
	go func() {
		_, err := sp.Run(ctx)
		if err != nil && ctx.Err() == nil {
			// The spectator cannot go on (the table is gone, or served a
			// forged log): leave the screen so that the reason is said
			// at once, not after the user quits a board that no longer
			// moves.
			prog.Quit()
		}
		runErr <- err
	}()
	if _, err := prog.Run(); err != nil && !errors.Is(err, tea.ErrProgramKilled) && !errors.Is(err, context.Canceled) {
		return fmt.Errorf("terminal UI: %w", err)
	}
	cancel()
	if err := <-runErr; err != nil && !errors.Is(err, context.Canceled) {
		if errors.Is(err, p2p.ErrForgedLog) {
			return &ExitCodeError{Code: ExitCheating, Err: err}
		}
		return err
	}
	return nil
}

// spectatorSnapshot is the spectator's screen: the presentation model of
// the verified log, told to a spectator (rec is fed the entries verified
// since the last call), with the score table at the end.
func spectatorSnapshot(g *engine.Game, h interface {
	Network() network.Network
}, log []*crypto.Envelope, rec *present.Recorder, rp *lockstep.Replay, entries int) tui.Snapshot {
	if n := rec.Len(); n < len(log) && n < entries {
		rec.Feed(log[n:min(entries, len(log))]...)
	}
	rec.SetNames(func(seat int) string {
		if seat >= 0 && seat < len(rp.Seats) && rp.Seats[seat] < len(rp.Members) {
			return rp.Members[rp.Seats[seat]].Name
		}
		return ""
	})
	st := lockstep.Status{Mode: rp.Mode, Phase: rp.Phase, Game: g, Members: rp.Members, Seats: rp.Seats, MySeat: -1, Dropped: rp.Dropped,
		Seq: uint64(len(rp.Steps)), Entries: entries, Result: rp.Result}
	if rp.Phase < lockstep.PhasePlaying && rp.Final == nil {
		st.Phase = lockstep.PhaseLobby
	}
	if rp.Final != nil {
		st.Actor, st.Turn = rp.Final.ToAct(), rp.Final.Turn()
	}
	t := present.Build(rec, st, rp.Final, present.Env{Human: false, Conn: func(id string) string {
		for _, m := range rp.Members {
			if m.ID.String() == id && h.Network().Connectedness(peer.ID(m.ID)) == network.Connected {
				return "connected"
			}
		}
		return "not connected"
	}})
	t.Sync = present.Sync{OK: true, Text: fmt.Sprintf("verified all %d log entries: signatures, beacons, state hashes, checkpoints", entries)}
	if t.Title == "" {
		t.Title = g.Title
	}
	s := snapshotOf(t, rp.Final, false)
	s.Seat = -1
	return s
}

func spectateSummary(opts *SpectateOptions, g *engine.Game, sp *p2p.Spectator, rp *lockstep.Replay, runErr error) error {
	log := sp.Log()
	s := NetSummary{Event: "summary", Lobby: sp.Info.Lobby, Game: g.Name, Entries: len(log), LogHash: logHash(log)}
	if rp != nil {
		s.Mode = rp.Mode
		s.Session = rp.Session.String()
		s.Steps = uint64(len(rp.Steps))
		if rp.Result != nil {
			s.Reason = rp.Result.Reason
			s.Seats = summarySeats(*rp.Result, rp.Members, rp.Seats)
		}
	}
	var cheat string
	if rp != nil && rp.Cheater != "" {
		// The log ends with proof of an equivocation: name the cheater
		// as the players do, seat counted from 1.
		who, seat := memberName(rp, rp.Cheater), 0
		for si, mi := range rp.Seats {
			if mi < len(rp.Members) && rp.Members[mi].ID == rp.Cheater {
				who, seat = fmt.Sprintf("%s (seat %d)", who, si+1), si+1
			}
		}
		cheat = who + " signed two different envelopes for one slot: proof of cheating, kept in the log; the game stopped"
		s.Cheats = append(s.Cheats, Cheat{Event: "cheat", What: lockstep.CheatEquivocation.String(), kind: lockstep.CheatEquivocation,
			Seat: seat, Name: memberName(rp, rp.Cheater), Peer: rp.Cheater.String(), Text: cheat})
	}
	if opts.Net.JSON {
		b, _ := json.Marshal(s)
		fmt.Fprintln(opts.IO.Out, string(b))
	} else if cheat != "" {
		fmt.Fprintf(opts.IO.Out, "CHEATING: %s\n", cheat)
	} else if s.Reason != "" {
		fmt.Fprintf(opts.IO.Out, "%s\n", s.Reason)
		for _, seat := range s.Seats {
			win := ""
			if seat.Winner {
				win = "  winner"
			}
			fmt.Fprintf(opts.IO.Out, "  seat %d  %-18s %4d%s\n", seat.Seat, seat.Name, seat.Score, win)
		}
		if s.Mode != "" {
			fmt.Fprintf(opts.IO.Out, "Table: %s\n", s.Mode)
		}
		fmt.Fprintf(opts.IO.Out, "Verified all %d log entries, sha256 %s\n", s.Entries, s.LogHash[:16])
	}
	if runErr != nil {
		if errors.Is(runErr, p2p.ErrForgedLog) {
			return &ExitCodeError{Code: ExitCheating, Err: runErr}
		}
		return runErr
	}
	if cheat != "" {
		return &ExitCodeError{Code: ExitCheating, Err: errors.New(cheat)}
	}
	return nil
}

// spectatorModeText tells a spectator what the table's mode lets it see.
func spectatorModeText(g *engine.Game, mode string) string {
	switch mode {
	case lockstep.ModeSecret:
		return fmt.Sprintf("%s began at a secret table: you see the public game (the board, the cards shown, how many each holds), never a hidden card", g.Title)
	case lockstep.ModeOpenHands:
		return fmt.Sprintf("%s began with open hands: every peer's engine, yours too, holds every card drawn", g.Title)
	}
	return fmt.Sprintf("%s began (%s)", g.Title, mode)
}
