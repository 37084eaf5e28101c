package p2p

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/boardmesh/boardmesh/engine"
	"github.com/boardmesh/boardmesh/engine/dragonslair"
	"github.com/boardmesh/boardmesh/lockstep"
	"github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/core/peer"
)

// holdWatchPool keeps one catch-up stream of h to p open and silent (one
// byte of a query's length, never the rest) for as long as the server
// lets it, then opens the next, until ctx ends: what any peer outside the
// roster may do, as a spectator may.
func holdWatchPool(ctx context.Context, h host.Host, p peer.ID) {
	for ctx.Err() == nil {
		s, err := h.NewStream(ctx, p, CatchupProtocol)
		if err != nil {
			time.Sleep(50 * time.Millisecond)
			continue
		}
		if _, err := s.Write([]byte{0x80}); err == nil {
			var b [1]byte
			_, _ = s.Read(b[:]) // until the server resets it (queryTimeout)
		}
		s.Reset()
		time.Sleep(20 * time.Millisecond)
	}
}

// floodedTable is a two-seat bot table whose runners run as separate
// processes' do, a spectator of it, and outsiders (throwaway peer IDs,
// neither members nor spectators they mean to be) that, once the
// spectator has seen the game under way, each hold one silent catch-up
// stream at each player for as long as the server lets them.
type floodedTable struct {
	tbl       *Table
	sp        *Spectator
	outsiders []host.Host
	// attacking is closed once every outsider holds its streams.
	attacking chan struct{}
	// over is closed once a player's game is over.
	over chan struct{}
	// done gets each runner's error; mu/returned say when all had.
	done     chan error
	runners  sync.WaitGroup // the runners' goroutines, waited for before the table closes
	mu       sync.Mutex
	returned time.Time
}

func newFloodedTable(t *testing.T, ctx, actx context.Context, outsiders int, botDelay time.Duration) *floodedTable {
	t.Helper()
	g := dragonslair.Game
	f := &floodedTable{attacking: make(chan struct{}), over: make(chan struct{}), done: make(chan error, 2)}
	var once sync.Once
	tbl, err := NewTable(ctx, TableConfig{Game: g, Names: []string{"ada", "bob"}, Bots: []engine.Bot{g.Bots[0].New(), g.Bots[1%len(g.Bots)].New()},
		Seed: []byte("spectate flood"), Dir: t.TempDir(), BotDelay: botDelay,
		OnUpdate: func(peer int, u Update) {
			if u.Status.Phase >= lockstep.PhaseOver {
				once.Do(func() { close(f.over) })
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tbl.Close)
	// Runs before tbl.Close (cleanups run last first): the runners stop
	// with the test's context and must be out before their logs close.
	t.Cleanup(f.runners.Wait)
	f.tbl = tbl
	var members []MemberAddr
	for _, p := range tbl.Peers {
		members = append(members, MemberAddr{ID: p.Host.ID().String(), Addrs: addrStrings(p.Host.Addrs())})
	}
	f.sp = &Spectator{Host: newTestHost(t), Info: LobbyInfo{Members: members}, Games: singleGame(g)}
	for range outsiders {
		f.outsiders = append(f.outsiders, newTestHost(t))
	}
	started := false
	f.sp.OnReplay = func(rp *lockstep.Replay, entries int) {
		if started || rp.Phase != lockstep.PhasePlaying {
			return
		}
		started = true
		for _, o := range f.outsiders {
			for _, p := range tbl.Peers {
				if err := o.Connect(actx, peer.AddrInfo{ID: p.Host.ID(), Addrs: p.Host.Addrs()}); err != nil {
					t.Errorf("outsider connect: %v", err)
					continue
				}
				go holdWatchPool(actx, o, p.Host.ID())
			}
		}
		close(f.attacking)
	}
	return f
}

// start runs the players' runners, each on its own.
func (f *floodedTable) start(ctx context.Context) {
	var n sync.WaitGroup
	for _, p := range f.tbl.Peers {
		n.Add(1)
		f.runners.Add(1)
		go func() {
			defer f.runners.Done()
			err := p.Runner.Run(ctx)
			n.Done()
			f.done <- err
		}()
	}
	go func() {
		n.Wait()
		f.mu.Lock()
		f.returned = time.Now()
		f.mu.Unlock()
	}()
}

// runnersReturned says whether every runner had returned by then.
func (f *floodedTable) runnersReturned(at time.Time) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return !f.returned.IsZero() && !f.returned.After(at)
}

// TestOutsidersCannotMakeASpectatorGiveUp: a two-seat table plays on, its
// players' runners up and answering. An outsider with a few throwaway
// peer IDs (more than the players' places for spectators' answers) opens
// catch-up streams at each player and never finishes their queries. The
// honest spectator still follows the game to its end, as the players saw
// it, and does not say the table is gone while it plays (before the fix
// every fetch of it was reset and, after GoneAfter, `boardmesh spectate`
// exited 1 saying the players had left).
func TestOutsidersCannotMakeASpectatorGiveUp(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	actx, stop := context.WithCancel(ctx)
	defer stop()
	f := newFloodedTable(t, ctx, actx, watchTotal+2, 200*time.Millisecond)
	f.start(ctx)
	rp, err := f.sp.Run(ctx)
	stop()
	select {
	case <-f.attacking:
	default:
		t.Fatalf("the spectator never saw the game under way: %v", err)
	}
	if errors.Is(err, ErrTableGone) && !f.runnersReturned(time.Now()) {
		t.Fatalf("outsiders made the honest spectator give up on a table still playing (%d entries verified): %v", len(f.sp.Log()), err)
	}
	if err != nil {
		t.Fatalf("the spectator did not follow the game to its end under the outsiders' streams: %v (%d entries verified)", err, len(f.sp.Log()))
	}
	if rp == nil || rp.Phase != lockstep.PhaseOver || rp.Result == nil {
		t.Fatalf("the spectator's replay is not of a finished game: %+v", rp)
	}
	if got, want := len(f.sp.Log()), len(f.tbl.Peers[0].Entries()); got != want {
		t.Fatalf("the spectator verified %d entries, the players committed %d", got, want)
	}
}

// TestSpectatorToldBusyWaitsForTheTable: outsiders, one throwaway peer ID
// per place and more, hold every place a player has for spectators'
// streams, silent. A player then answers an asking spectator that it is
// busy, and the spectator, told so, does not say the table is gone while
// the players play. Then the players' runners stop, their hosts still up
// and the outsiders still holding every place (a player's process that
// has left its game but not yet exited): the players say busy no more,
// and the spectator says at once that the table is gone, with what it
// verified.
func TestSpectatorToldBusyWaitsForTheTable(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	actx, stop := context.WithCancel(ctx)
	defer stop()
	f := newFloodedTable(t, ctx, actx, watchReading+2, 200*time.Millisecond)
	asker := newTestHost(t)
	pctx, kill := context.WithCancel(ctx)
	defer kill()
	f.start(pctx)
	told := make(chan error, 1)
	var killedAt time.Time
	var killedMu sync.Mutex
	go func() {
		defer func() {
			// The spectator has been told busy (or the test fails):
			// the table plays on a while longer, then its runners stop.
			select {
			case <-time.After(6 * time.Second):
			case <-ctx.Done():
			}
			killedMu.Lock()
			killedAt = time.Now()
			killedMu.Unlock()
			kill()
		}()
		select {
		case <-f.attacking:
		case <-ctx.Done():
			told <- ctx.Err()
			return
		}
		// A spectator's fetch, while the outsiders hold the places and
		// the game is still under way.
		p := f.tbl.Peers[0].Host
		if err := asker.Connect(ctx, peer.AddrInfo{ID: p.ID(), Addrs: p.Addrs()}); err != nil {
			told <- err
			return
		}
		deadline := time.Now().Add(10 * time.Second)
		for {
			_, err := Fetch(ctx, asker, p.ID(), CommittedQuery(0))
			if errors.Is(err, ErrCatchupBusy) || time.Now().After(deadline) {
				told <- err
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
	}()
	rp, err := f.sp.Run(ctx)
	gaveUp := time.Now()
	stop()
	if terr := <-told; !errors.Is(terr, ErrCatchupBusy) {
		t.Fatalf("a player whose spectators' places outsiders held did not answer busy: %v", terr)
	}
	killedMu.Lock()
	killed := killedAt
	killedMu.Unlock()
	if killed.IsZero() || gaveUp.Before(killed) {
		select {
		case <-f.over:
			t.Fatalf("the game ended before the runners were stopped (make it longer): %v", err)
		default:
		}
		t.Fatalf("the spectator told busy returned while the table was still playing (%d entries verified): %v", len(f.sp.Log()), err)
	}
	if !errors.Is(err, ErrTableGone) {
		t.Fatalf("the spectator of a table whose runners had stopped returned %v, want ErrTableGone", err)
	}
	if rp == nil || rp.Phase != lockstep.PhasePlaying || len(f.sp.Log()) == 0 {
		t.Fatalf("the spectator kept nothing of what it verified before the table went: %+v", rp)
	}
}
