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

// TestReviewOutsiderMakesSpectatorSayTableGone (review of a639d9d /
// 5c281ee, Spectator.GoneAfter): a two-seat table plays on, its players'
// runners up and answering. An outsider with a few throwaway peer IDs
// (no member, no spectator it means to be) holds the players' spectator
// pool (watchTotal: 4 streams at once, each kept for queryTimeout by a
// query that never ends) at each player. Every fetch of the honest
// spectator is then reset; after GoneAfter (5 s) of that it returns
// ErrTableGone and `boardmesh spectate` exits 1 saying the players have
// left, while they are still playing. Before GoneAfter the spectator
// would have kept polling and got through once the outsider stopped.
// This test FAILS on main (c4c8c6a): a demonstration, nothing is fixed.
func TestReviewOutsiderMakesSpectatorSayTableGone(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	g := dragonslair.Game
	over := make(chan struct{})
	var once sync.Once
	tbl, err := NewTable(ctx, TableConfig{Game: g, Names: []string{"ada", "bob"}, Bots: []engine.Bot{g.Bots[0].New(), g.Bots[1%len(g.Bots)].New()},
		Seed: []byte("review spectate pool"), Dir: t.TempDir(), BotDelay: 400 * time.Millisecond,
		OnUpdate: func(peer int, u Update) {
			if u.Status.Phase >= lockstep.PhaseOver {
				once.Do(func() { close(over) })
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tbl.Close)
	var members []MemberAddr
	for _, p := range tbl.Peers {
		members = append(members, MemberAddr{ID: p.Host.ID().String(), Addrs: addrStrings(p.Host.Addrs())})
	}
	sp := &Spectator{Host: newTestHost(t), Info: LobbyInfo{Members: members}, Games: singleGame(g)}
	var outsiders []host.Host
	for range reviewOutsiders {
		outsiders = append(outsiders, newTestHost(t))
	}
	actx, stop := context.WithCancel(ctx)
	defer stop()
	started := false
	var attackAt time.Time
	sp.OnReplay = func(rp *lockstep.Replay, entries int) {
		if started || rp.Phase != lockstep.PhasePlaying {
			return
		}
		started, attackAt = true, time.Now()
		for _, o := range outsiders {
			for _, p := range tbl.Peers {
				if err := o.Connect(actx, peer.AddrInfo{ID: p.Host.ID(), Addrs: p.Host.Addrs()}); err != nil {
					t.Errorf("outsider connect: %v", err)
					continue
				}
				go holdWatchPool(actx, o, p.Host.ID())
			}
		}
	}
	done := make(chan error, len(tbl.Peers))
	for _, p := range tbl.Peers {
		go func() { done <- p.Runner.Run(ctx) }()
	}
	_, err = sp.Run(ctx)
	stop()
	if !started {
		t.Fatalf("the spectator never saw the game under way: %v", err)
	}
	if errors.Is(err, ErrTableGone) {
		select {
		case <-over:
			t.Logf("the game was over when the spectator gave up (%v): inconclusive", err)
		default:
			t.Fatalf("an outsider made the honest spectator give up on a table still playing, %s after it began "+
				"(%d entries verified, the players had not ended the game): %v",
				time.Since(attackAt).Round(100*time.Millisecond), len(sp.Log()), err)
		}
	} else if err != nil {
		t.Fatalf("spectator: %v", err)
	}
}

// reviewOutsiders is how many throwaway peer IDs the outsider uses.
var reviewOutsiders = 6
