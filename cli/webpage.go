package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/boardmesh/boardmesh/cli/present"
	"github.com/boardmesh/boardmesh/cli/tui"
	"github.com/boardmesh/boardmesh/cli/web"
	"github.com/boardmesh/boardmesh/engine"
	"github.com/boardmesh/boardmesh/engine/games"
	"github.com/boardmesh/boardmesh/lockstep"
	"github.com/boardmesh/boardmesh/p2p"
	"github.com/libp2p/go-libp2p/core/host"
)

// webFlagHelp is the help of --web on every command that has it.
const webFlagHelp = "show your seat in a browser on this machine instead of the terminal UI (a page on 127.0.0.1 with a secret URL)"

// openPage serves a seat's page and tells the player where it is: the URL
// on stderr (stdout may be JSON lines) and, when a desktop browser is
// available, the page opened in it.
func openPage(io *IOStreams, ctl web.Controls) (*web.Page, error) {
	page, err := web.NewPage(ctl)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(io.ErrOut, "Your seat in the browser: %s\n", page.URL())
	fmt.Fprintf(io.ErrOut, "  (only this machine can open it; the address is this session's key, keep it to yourself)\n")
	if web.OpenBrowser(page.URL()) {
		fmt.Fprintf(io.ErrOut, "  opened in your browser\n")
	}
	return page, nil
}

// runnerControls are what a page may make a runner do: play the seat
// (unless a bot plays it) and claim its win at a paused table of two,
// start the game (the host) and vote drops.
func runnerControls(ctx context.Context, r *p2p.Runner, human, canStart bool) web.Controls {
	ctl := web.Controls{Drop: func(seats []int) {
		r.Do(ctx, func(n *lockstep.Node) error { return n.VoteDrop(seats) })
	}}
	if human {
		ctl.Claim = func() error {
			if err := r.Do(ctx, func(n *lockstep.Node) error { return n.Claim() }); err != nil && ctx.Err() == nil {
				return err
			}
			return nil
		}
		ctl.Act = func(a engine.Action) error {
			if err := r.Act(ctx, a); err != nil && ctx.Err() == nil {
				return err
			}
			return nil
		}
	}
	if canStart {
		ctl.Start = func() { r.Do(ctx, func(n *lockstep.Node) error { return n.Propose() }) }
	}
	return ctl
}

// playWeb runs `play --web`: the local seat is played from the page, the
// terminal prints the URL, the events and, at the end, the summary.
func playWeb(ctx context.Context, opts *PlayOptions, g *engine.Game, table *p2p.Table, view *tableView, humans int, start time.Time, page **web.Page) error {
	p, err := openPage(opts.IO, runnerControls(ctx, table.Peers[0].Runner, humans == 1, false))
	if err != nil {
		return err
	}
	defer p.Close()
	p.Show(view.table())
	*page = p
	err = table.Run(ctx)
	if ctxErr := opts.Ctx; ctxErr != nil && ctxErr.Err() != nil {
		return ctxErr.Err()
	}
	return printSummary(opts.IO, false, g, table, humans, time.Since(start), err)
}

// openWeb gives a host, join or resume peer its page; a drop may be
// proposed from it once a seat has kept the table waiting dropAfter.
func (r *netReporter) openWeb(ctx context.Context, peer *p2p.NetPeer, canStart bool, dropAfter time.Duration) error {
	title := peer.Meta.Game
	if g, err := games.Lookup(peer.Meta.Game); err == nil {
		title = g.Title
	}
	r.view = newTableView(title, peer.Host, peer.Meta.Bot == "")
	r.view.canStart = canStart
	r.view.dropAfter = dropAfter.Milliseconds()
	// A resumed peer's page tells the game from its log, as the terminal
	// does: the history before the restart and where the table stands
	// (the page showed only what came after, and no seat).
	r.view.earlier = peer.Node.Log()
	r.view.status = peer.Node.Status()
	if st := peer.Node.State(); st != nil {
		r.view.state = st.Clone()
	}
	r.view.prime()
	page, err := openPage(r.io, runnerControls(ctx, peer.Runner, peer.Meta.Bot == "", canStart))
	if err != nil {
		return err
	}
	r.page = page
	page.Show(r.view.table())
	return nil
}

// spectateWeb follows the game on a page that only watches.
func spectateWeb(ctx context.Context, opts *SpectateOptions, g *engine.Game, h host.Host, sp *p2p.Spectator) error {
	page, err := openPage(opts.IO, web.Controls{})
	if err != nil {
		return err
	}
	defer page.Close()
	page.Show(present.Table{Game: g.Name, Title: g.Title, Phase: "lobby", Status: "Fetching the log…"})
	rec := present.NewRecorder(games.Lookup)
	sp.OnReplay = func(rp *lockstep.Replay, entries int) {
		page.Show(spectatorTable(g, spectatorSnapshot(g, h, sp.Log(), rec, rp, entries)))
	}
	rp, err := sp.Run(ctx)
	return spectateSummary(opts, g, sp, rp, err)
}

// spectatorTable is the spectator's snapshot as a presentation model: the
// model it was made from, when it has one.
func spectatorTable(g *engine.Game, s tui.Snapshot) present.Table {
	if s.Table != nil {
		return *s.Table
	}
	t := present.Table{Game: g.Name, Title: g.Title, Rules: g.Version, Phase: "playing", Status: s.Status, Step: s.Step,
		Sync: present.Sync{OK: !s.Desync, Text: s.Sync}}
	if s.Over {
		t.Phase = "over"
	}
	if s.State != nil {
		t.View = s.State.View(-1)
		if a := s.State.ToAct(); a.Kind == engine.ActorSeat {
			t.ToAct = a.Seat + 1
		}
		if s.Over {
			r := s.State.Result()
			t.Result = &present.Result{Reason: r.Reason}
			for _, w := range r.Winners {
				t.Result.Winners = append(t.Result.Winners, w+1)
			}
		}
	}
	for _, p := range s.Peers {
		t.Peers = append(t.Peers, present.Peer{Name: p.Name, Seat: p.Seat + 1, Conn: p.Conn})
		if p.Seat >= 0 {
			for len(t.Seats) <= p.Seat {
				n := len(t.Seats) + 1
				t.Seats = append(t.Seats, present.Seat{Number: n, Color: present.SeatColor(n)})
			}
			t.Seats[p.Seat].Name = p.Name
		}
	}
	for _, l := range s.Log {
		t.History = append(t.History, present.Entry{Kind: "table", Text: l})
	}
	return t
}
