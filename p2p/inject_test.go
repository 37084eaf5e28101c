package p2p

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/boardmesh/boardmesh/crypto"
	"github.com/boardmesh/boardmesh/engine"
	"github.com/boardmesh/boardmesh/engine/dragonslair"
	"github.com/boardmesh/boardmesh/lockstep"
)

// TestInjectedDesyncIsReportedAndBundled gives one of three loopback
// peers an engine that goes wrong at one step. The session must stop
// with ErrStopped; an honest peer's report names the first divergent
// entry, its author and the differing fields; and that peer's log file,
// replayed alone, explains the same desync (the bundle).
func TestInjectedDesyncIsReportedAndBundled(t *testing.T) {
	t.Parallel()
	g := dragonslair.Game
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	names := []string{"ada", "bob", "cy"}
	var bots []engine.Bot
	for i := range names {
		bots = append(bots, g.Bots[i%len(g.Bots)].New())
	}
	const at = 6
	tbl, err := NewTable(ctx, TableConfig{Game: g, Names: names, Bots: bots, Seed: []byte("inject"), Dir: t.TempDir(),
		Inject: &Injection{Peer: 2, Seq: at}})
	if err != nil {
		t.Fatal(err)
	}
	defer tbl.Close()
	err = tbl.Run(ctx)
	if !errors.Is(err, ErrStopped) {
		t.Fatalf("Run: %v, want %v", err, ErrStopped)
	}
	rep, p := tbl.Desync()
	if rep == nil {
		t.Fatal("no peer reported the desync")
	}
	if p == tbl.Peers[2] {
		t.Fatalf("only the buggy peer reported: %s", rep)
	}
	if rep.Peer != crypto.PeerID(tbl.Peers[2].Host.ID()) || rep.Entry < at || len(rep.Diff) == 0 || rep.Mine == rep.Theirs {
		t.Fatalf("report does not name the buggy peer, an entry from step %d on, or a differing field:\n%s", at, rep)
	}
	t.Logf("%s reported: %s", p.Name, rep)
	if err := p.Log.Sync(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(p.Log.Path())
	if err != nil {
		t.Fatal(err)
	}
	lf, err := lockstep.ParseLog(data)
	if err != nil || len(lf.States) == 0 {
		t.Fatalf("the log holds no state record: %v", err)
	}
	again, err := lockstep.ExplainDesync(lf.Entries, singleGame(g), lf.States[0])
	if err != nil || again == nil {
		t.Fatalf("the bundle explains nothing: %v", err)
	}
	if again.Entry != rep.Entry || again.EntryAuthor != rep.EntryAuthor || len(again.Diff) == 0 || again.Diff[0].Path != rep.Diff[0].Path {
		t.Fatalf("the bundle's report differs from the live one:\n%s\nlive:\n%s", again, rep)
	}
}
