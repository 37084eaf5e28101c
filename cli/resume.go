package cli

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/boardmesh/boardmesh/engine/games"
	"github.com/boardmesh/boardmesh/lockstep"
	"github.com/boardmesh/boardmesh/p2p"
	"github.com/spf13/cobra"
)

// ResumeOptions are the inputs of `boardmesh resume`.
type ResumeOptions struct {
	IO  *IOStreams
	Ctx context.Context

	Session string
	Net     NetFlags
}

func newCmdResume(f *Factory, runF func(*ResumeOptions) error) *cobra.Command {
	opts := &ResumeOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "resume [SESSION]",
		Short: "Rejoin a game after a crash or Ctrl-C, from the on-disk log",
		Long: `Rejoin a game you were playing (as host or joiner). boardmesh reads the
session's log from the boardmesh home, cuts a torn tail left by a crash back to
the last whole record (and says so), replays and re-verifies every entry,
reconnects to the other players and fetches what it missed from any of them.

A log damaged in the middle (a flipped bit, a bad disk) is not cut: the
damaged file is kept as log.corrupt-N, the damaged record is named with its
byte offset, and the game resumes from the good records before it; what
follows is fetched again from the other players. Every envelope you signed
anywhere in the file still binds, so you never sign two for one move.

resume needs the boardmesh home the game was played from; it never makes a
new one (a mistyped --home is an error that names the nearest home).

SESSION is the lobby id printed when the game began, or any unique prefix of
it; with no argument the most recent session is resumed. A session whose
game had ended already is not played again: resume says how it ended,
prints its result and replay line, stays a moment for any player still
catching up from this peer, and exits 0.`,
		Example: `  boardmesh resume
  boardmesh resume 3fa9c2
  boardmesh resume 3fa9c2 --bot cautious --auto`,
		Args: usageArgs(cobra.MaximumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.Session = args[0]
			}
			opts.Ctx = cmd.Context()
			if runF != nil {
				return runF(opts)
			}
			return resumeRun(opts)
		},
	}
	addNetFlags(cmd, &opts.Net, false)
	return cmd
}

func resumeRun(opts *ResumeOptions) error {
	ctx := opts.Ctx
	if ctx == nil {
		ctx = context.Background()
	}
	opts.Net.needHome = true // a typo in --home must not make a new identity
	cfg, err := netSetup(opts.IO, &opts.Net)
	if err != nil {
		return err
	}
	dir, meta, err := p2p.FindSession(cfg.Home, opts.Session)
	if err != nil {
		return err
	}
	g, err := games.Lookup(meta.Game)
	if err != nil {
		return err
	}
	if g.Version != meta.Version {
		return fmt.Errorf("session %s was played with %s rules %q; this boardmesh has %q", meta.Lobby[:12], g.Title, meta.Version, g.Version)
	}
	bot := opts.Net.Bot
	if bot == "" {
		bot = meta.Bot
	}
	if err := attachBot(&cfg, g, bot); err != nil {
		return err
	}
	cfg.Name = meta.Name
	cfg.LAN = meta.LAN && !opts.Net.Loopback
	cfg.MDNS = false
	peer, err := p2p.ResumeSession(ctx, cfg, dir, meta)
	if err != nil {
		return err
	}
	defer peer.Close()
	msg := fmt.Sprintf("Resuming session %s (%s) from %d log records.", meta.Lobby[:12], g.Title, peer.Log.Len())
	secret := peer.Node.Secret()
	if secret {
		msg += fmt.Sprintf(" A secret table: this seat's hidden-card key and the %d card envelopes of the others it had are taken up again.", peer.CardRecords)
	}
	// A log whose game had ended already: nothing to play, said at once;
	// the peer stays only its linger, for a player still catching up from
	// it (the whole table restarted after its last move, say).
	ended := ""
	switch st := peer.Node.Status(); {
	case st.Phase == lockstep.PhaseOver && st.Result != nil:
		ended = fmt.Sprintf("This game had ended already (%s): there is nothing to play. This peer stays a moment for any player still catching up from it.", st.Result.Reason)
	case st.Phase == lockstep.PhaseOver:
		ended = "This game had ended already: there is nothing to play. This peer stays a moment for any player still catching up from it."
	case st.Phase == lockstep.PhaseStopped:
		ended = fmt.Sprintf("This game had stopped already (a desync or a cheat; see it with: boardmesh replay %s). This peer stays a moment for any player still catching up from it.", shellQuote(peer.Log.Path()))
	}
	if ended != "" {
		msg += " " + ended
	}
	if opts.Net.JSON {
		m := map[string]any{"event": "resumed", "lobby": meta.Lobby, "records": peer.Log.Len(), "secret": secret, "ended": ended != ""}
		if secret {
			m["card_envelopes"] = peer.CardRecords
		}
		if rp := peer.Repair; rp != nil {
			m["repair"] = rp.String()
			if len(rp.Damaged) > 0 {
				d := rp.Damaged[0]
				m["corrupt"] = map[string]any{"record": d.Record, "offset": d.Offset, "places": len(rp.Damaged), "set_aside": rp.SetAside, "later_entries": rp.Later}
			}
			if rp.Torn != nil {
				m["torn"] = map[string]any{"offset": rp.Torn.Offset, "cut": rp.Torn.Length}
			}
		}
		if peer.PortNote != "" {
			m["port_note"] = peer.PortNote
		}
		b, _ := json.Marshal(m)
		fmt.Fprintln(opts.IO.Out, string(b))
	} else {
		fmt.Fprintln(opts.IO.ErrOut, msg)
		if peer.Repair != nil {
			fmt.Fprintln(opts.IO.ErrOut, peer.Repair.String())
		}
		if peer.PortNote != "" {
			fmt.Fprintln(opts.IO.ErrOut, peer.PortNote)
		}
	}
	return runNetPeer(ctx, opts.IO, &opts.Net, peer, false)
}
