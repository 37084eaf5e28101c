package p2p

import (
	"bytes"
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/boardmesh/boardmesh/engine"
	"github.com/boardmesh/boardmesh/engine/dragonslair"
	"github.com/boardmesh/boardmesh/lockstep"
)

// spectatedTable is a two-seat bot table of Dragon's Lair whose runners
// run as separate processes' do (each on its own, lingering as it would
// before exiting, not ended together as Table.Run ends a local table),
// over real libp2p on loopback.
type spectatedTable struct {
	tbl *Table
	// over is closed once every player's game is over.
	over chan struct{}
	// done gets each runner's error as it returns.
	done chan error
	// runners are the runners' goroutines, waited for before the table
	// closes: a runner still syncing its log as Close shuts it is a race.
	runners sync.WaitGroup
}

func newSpectatedTable(t *testing.T, ctx context.Context) *spectatedTable {
	t.Helper()
	g := dragonslair.Game
	var mu sync.Mutex
	seen := map[int]bool{}
	s := &spectatedTable{over: make(chan struct{}), done: make(chan error, 2)}
	tbl, err := NewTable(ctx, TableConfig{Game: g, Names: []string{"ada", "bob"}, Bots: []engine.Bot{g.Bots[0].New(), g.Bots[1%len(g.Bots)].New()},
		Seed: []byte("spectate"), Dir: t.TempDir(), BotDelay: 30 * time.Millisecond,
		OnUpdate: func(peer int, u Update) {
			if u.Status.Phase != lockstep.PhaseOver {
				return
			}
			mu.Lock()
			defer mu.Unlock()
			if !seen[peer] {
				seen[peer] = true
				if len(seen) == 2 {
					close(s.over)
				}
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(tbl.Close)
	t.Cleanup(s.runners.Wait) // before tbl.Close: cleanups run last first
	s.tbl = tbl
	return s
}

func (s *spectatedTable) start(ctx context.Context) {
	for _, p := range s.tbl.Peers {
		s.runners.Add(1)
		go func() {
			defer s.runners.Done()
			s.done <- p.Runner.Run(ctx)
		}()
	}
}

// spectator is a spectator on its own host, told of the table's members
// as `boardmesh spectate` is by the lobby.
func (s *spectatedTable) spectator(t *testing.T) *Spectator {
	t.Helper()
	var members []MemberAddr
	for _, p := range s.tbl.Peers {
		members = append(members, MemberAddr{ID: p.Host.ID().String(), Addrs: addrStrings(p.Host.Addrs())})
	}
	return &Spectator{Host: newTestHost(t), Info: LobbyInfo{Members: members}, Games: singleGame(dragonslair.Game)}
}

// TestSpectatorSlowAtTheEndGetsTheEnd: a spectator that falls a few
// seconds behind just as the game ends (a loaded machine, a relayed link:
// longer than the players' usual linger after the end) still gets the
// whole game and its end, as the players saw it. The players' runners,
// each on its own as in separate processes, wait for the spectator they
// served, and still return by themselves.
func TestSpectatorSlowAtTheEndGetsTheEnd(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	st := newSpectatedTable(t, ctx)
	sp := st.spectator(t)
	slowed := false
	sp.OnReplay = func(rp *lockstep.Replay, entries int) {
		if slowed || rp.Phase != lockstep.PhasePlaying {
			return
		}
		// The spectator has followed part of the game; it is slow to
		// ask again until the players have ended it, and then some.
		slowed = true
		select {
		case <-st.over:
		case <-ctx.Done():
		}
		time.Sleep(3 * time.Second)
	}
	st.start(ctx)
	rp, err := sp.Run(ctx)
	if err != nil {
		t.Fatalf("the slow spectator did not get the game's end: %v (it verified %d entries)", err, len(sp.Log()))
	}
	if !slowed {
		t.Fatal("the spectator was never slowed: the test tested nothing")
	}
	if rp == nil || rp.Phase != lockstep.PhaseOver || rp.Result == nil {
		t.Fatalf("the spectator's replay is not of a finished game: %+v", rp)
	}
	for range st.tbl.Peers {
		select {
		case err := <-st.done:
			if err != nil {
				t.Fatalf("a player's runner: %v", err)
			}
		case <-ctx.Done():
			t.Fatal("a player's runner did not return by itself after the game")
		}
	}
	want := st.tbl.Peers[0].Entries()
	got := sp.Log()
	if len(got) != len(want) {
		t.Fatalf("the spectator verified %d entries, the players committed %d", len(got), len(want))
	}
	for i, e := range got {
		if !bytes.Equal(e.Marshal(), want[i]) {
			t.Fatalf("the spectator's entry %d is not the players' entry %d", i, i)
		}
	}
}

// TestSpectatorOfAGoneTableSaysSo: the players of a game under way go
// away (their processes killed). The spectator says at once that nobody
// of the table is left to ask, with what it verified so far, instead of
// waiting for a table that is not there.
func TestSpectatorOfAGoneTableSaysSo(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	st := newSpectatedTable(t, ctx)
	sp := st.spectator(t)
	pctx, kill := context.WithCancel(ctx)
	killed := false
	sp.OnReplay = func(rp *lockstep.Replay, entries int) {
		if killed || rp.Phase != lockstep.PhasePlaying {
			return
		}
		killed = true
		kill()
		for _, p := range st.tbl.Peers {
			p.Host.Close()
		}
	}
	st.start(pctx)
	// The spectator's own deadline is far beyond what "at once" means:
	// reaching it is the failure.
	sctx, scancel := context.WithTimeout(ctx, 40*time.Second)
	defer scancel()
	rp, err := sp.Run(sctx)
	if !killed {
		t.Fatalf("the table was never killed: %v", err)
	}
	if !errors.Is(err, ErrTableGone) {
		t.Fatalf("the spectator of a table that went away returned %v, want ErrTableGone", err)
	}
	if rp == nil || rp.Phase != lockstep.PhasePlaying || len(sp.Log()) == 0 {
		t.Fatalf("the spectator kept nothing of what it verified before the table went: %+v", rp)
	}
}
