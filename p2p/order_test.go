package p2p

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/boardmesh/boardmesh/crypto"
	"github.com/boardmesh/boardmesh/engine"
	"github.com/boardmesh/boardmesh/engine/dragonslair"
	"github.com/boardmesh/boardmesh/lockstep"
)

// TestEnvelopesOnDiskBeforeSent checks lockstep's ordering rule at the
// runner: every envelope a peer publishes is already in its log file when
// it goes out, so a crash right after sending can never make the peer sign
// a different envelope for the same slot after a restart.
func TestEnvelopesOnDiskBeforeSent(t *testing.T) {
	t.Parallel()
	g := dragonslair.Game
	dir := t.TempDir()
	var mu sync.Mutex
	checked, missing := 0, 0
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	var bots []engine.Bot
	for range 3 {
		bots = append(bots, g.Bots[0].New())
	}
	tbl, err := NewTable(ctx, TableConfig{Game: g, Names: []string{"a", "b", "c"}, Bots: bots, Seed: []byte("order"), Dir: dir,
		OnPublish: func(peer int, e *crypto.Envelope) {
			mu.Lock()
			defer mu.Unlock()
			if peer != 1 || checked >= 60 {
				return
			}
			checked++
			raw, err := os.ReadFile(filepath.Join(dir, "peer1.log"))
			if err != nil {
				missing++
				return
			}
			lf, _ := lockstep.ParseLog(raw)
			want := e.Marshal()
			for _, list := range [][]*crypto.Envelope{lf.Sent, lf.Entries} {
				for _, x := range list {
					if bytes.Equal(x.Marshal(), want) {
						return
					}
				}
			}
			missing++
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer tbl.Close()
	if err := tbl.Run(ctx); err != nil {
		t.Fatal(err)
	}
	if checked < 20 || missing != 0 {
		t.Fatalf("%d of %d published envelopes were not on disk when sent", missing, checked)
	}
}
