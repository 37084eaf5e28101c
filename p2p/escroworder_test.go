package p2p

import (
	"context"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/boardmesh/boardmesh/crypto"
	"github.com/boardmesh/boardmesh/engine"
	"github.com/boardmesh/boardmesh/engine/serpentcity"
	"github.com/boardmesh/boardmesh/lockstep"
)

// TestSerpentCityEscrowBeforeFirstMove: at a secret Serpent City table of
// four (real libp2p peers on loopback, bots that move at once), every
// seat's key escrow goes out before that seat's first move, so a seat that
// drops at any point of its play can be rebuilt from the pieces the
// others hold. Checked where a user would look: every seat published its
// escrow before its first move, and its log file has them in that order.
// (Another peer's log may still take a seat's escrow after that seat's
// move, when that peer lacked a key itself as the move came: the escrow
// waits in its card layer meanwhile, which is all a rebuild needs.)
func TestSerpentCityEscrowBeforeFirstMove(t *testing.T) {
	t.Parallel()
	g := serpentcity.Game
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	names := []string{"ann", "bob", "cy", "dee"}
	var bots []engine.Bot
	for range names {
		bots = append(bots, g.Bots[0].New())
	}
	var mu sync.Mutex
	// published[i] is the kinds peer i published, in order.
	published := make([][]crypto.Kind, len(names))
	moved := map[crypto.PeerID]bool{}
	var tbl *Table
	tbl, err := NewTable(ctx, TableConfig{Game: g, Names: names, Bots: bots, Seed: []byte("escrow first"), Dir: t.TempDir(), Secret: true,
		OnPublish: func(i int, e *crypto.Envelope) {
			if e.Kind == crypto.KindCardKey {
				// The seats not to move first are slow to send their card
				// keys (a loaded machine): the escrows, which need every
				// key, come late, and the first mover must wait for its
				// own. (OnPublish runs on the runner's goroutine, where
				// the node may be asked.)
				if st := tbl.Peers[i].Node.Status(); st.Actor.Kind != engine.ActorSeat || st.Actor.Seat != st.MySeat {
					time.Sleep(time.Second)
				}
			}
			mu.Lock()
			defer mu.Unlock()
			published[i] = append(published[i], e.Kind)
		},
		OnUpdate: func(_ int, u Update) {
			mu.Lock()
			defer mu.Unlock()
			for _, e := range u.Entries {
				if e.Kind == crypto.KindAction {
					moved[e.Author] = true
				}
			}
			if len(moved) == len(names) {
				// Every seat has moved at least twice over by the time
				// the table stops: enough to see the first moves.
				go func() {
					time.Sleep(500 * time.Millisecond)
					cancel()
				}()
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer tbl.Close()
	if err := tbl.Run(ctx); err != nil && ctx.Err() == nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(moved) < len(names) {
		t.Fatalf("only %d of %d seats moved before the deadline", len(moved), len(names))
	}
	for i, p := range tbl.Peers {
		escrow, action := -1, -1
		for k, kind := range published[i] {
			if kind == crypto.KindEscrow && escrow < 0 {
				escrow = k
			}
			if kind == crypto.KindAction && action < 0 {
				action = k
			}
		}
		if action >= 0 && (escrow < 0 || escrow > action) {
			t.Errorf("%s published its first move (message %d) before its escrow (message %d)", p.Name, action, escrow)
		}
		// Its own log file: the escrow it signed is on disk before the
		// first move it signed.
		data, err := os.ReadFile(p.Log.Path())
		if err != nil {
			t.Fatal(err)
		}
		lf, _ := lockstep.ParseLog(data)
		escrowAt, actionAt := -1, -1
		for k, r := range lf.Records {
			if r.Env.Author != p.Identity.ID() {
				continue
			}
			if r.Env.Kind == crypto.KindEscrow && escrowAt < 0 {
				escrowAt = k
			}
			if r.Env.Kind == crypto.KindAction && actionAt < 0 {
				actionAt = k
			}
		}
		if actionAt < 0 {
			t.Errorf("%s's log file has no move of its own, though it moved", p.Name)
		} else if escrowAt < 0 || escrowAt > actionAt {
			t.Errorf("%s's log file has its first move (record %d) before its escrow (record %d)", p.Name, actionAt, escrowAt)
		}
	}
}
