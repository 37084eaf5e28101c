package cli

import (
	"context"
	"fmt"
	"time"

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
func openPage(io *IOStreams, game string, act func(engine.Action), start func()) (*web.Page, error) {
	page, err := web.NewPage(game, act, start)
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

// playWeb runs `play --web`: the local seat is played from the page, the
// terminal prints the URL, the events and, at the end, the summary.
func playWeb(ctx context.Context, opts *PlayOptions, g *engine.Game, table *p2p.Table, view *tableView, humans int, start time.Time, page **web.Page) error {
	me := table.Peers[0]
	act := func(a engine.Action) { me.Runner.Act(ctx, a) }
	if humans == 0 {
		act = nil
	}
	p, err := openPage(opts.IO, g.Name, act, nil)
	if err != nil {
		return err
	}
	defer p.Close()
	p.Show(view.snapshot())
	*page = p
	err = table.Run(ctx)
	if ctxErr := opts.Ctx; ctxErr != nil && ctxErr.Err() != nil {
		return ctxErr.Err()
	}
	return printSummary(opts.IO, false, g, table, humans, time.Since(start), err)
}

// openWeb gives a host, join or resume peer its page: the seat's moves
// come from it (unless a bot plays the seat), and the host starts the
// game from it.
func (r *netReporter) openWeb(ctx context.Context, peer *p2p.NetPeer, canStart bool) error {
	title := peer.Meta.Game
	if g, err := games.Lookup(peer.Meta.Game); err == nil {
		title = g.Title
	}
	r.view = newTableView(title, peer.Host, peer.Meta.Bot == "")
	r.view.canStart = canStart
	var act func(engine.Action)
	if peer.Meta.Bot == "" {
		act = func(a engine.Action) { peer.Runner.Act(ctx, a) }
	}
	var start func()
	if canStart {
		start = func() { peer.Runner.Do(ctx, func(n *lockstep.Node) error { return n.Propose() }) }
	}
	page, err := openPage(r.io, peer.Meta.Game, act, start)
	if err != nil {
		return err
	}
	r.page = page
	page.Show(r.view.snapshot())
	return nil
}

// spectateWeb follows the game on a page that only watches.
func spectateWeb(ctx context.Context, opts *SpectateOptions, g *engine.Game, h host.Host, sp *p2p.Spectator) error {
	page, err := openPage(opts.IO, g.Name, nil, nil)
	if err != nil {
		return err
	}
	defer page.Close()
	page.Show(tui.Snapshot{Title: g.Title, Seat: -1, Status: "Fetching the log…"})
	sp.OnReplay = func(rp *lockstep.Replay, entries int) {
		page.Show(spectatorSnapshot(g, h, sp, rp, entries))
	}
	rp, err := sp.Run(ctx)
	return spectateSummary(opts, g, sp, rp, err)
}
