package p2p

import (
	"bytes"
	"context"
	"os"
	"testing"
	"time"

	"github.com/boardmesh/boardmesh/engine"
	"github.com/boardmesh/boardmesh/engine/dragonslair"
	"github.com/boardmesh/boardmesh/lockstep"
)

// TestTableFourPeersPlayDragonsLair plays full Dragon's Lair bot games
// between four real libp2p peers on loopback and checks what a player
// would: every peer committed the same log, saw the same result, and has
// the same log on disk as in memory.
func TestTableFourPeersPlayDragonsLair(t *testing.T) {
	t.Parallel()
	games := 2
	if testing.Short() {
		games = 1
	}
	for n := range games {
		g := dragonslair.Game
		dir := t.TempDir()
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		names := []string{"ada", "bob", "cy", "dee"}
		var bots []engine.Bot
		for i := range names {
			bots = append(bots, g.Bots[i%len(g.Bots)].New())
		}
		tbl, err := NewTable(ctx, TableConfig{Game: g, Names: names, Bots: bots, Seed: []byte{byte(n)}, Dir: dir})
		if err != nil {
			cancel()
			t.Fatal(err)
		}
		err = tbl.Run(ctx)
		cancel()
		if err != nil {
			tbl.Close()
			t.Fatalf("game %d: %v", n, err)
		}
		first := tbl.Peers[0]
		if first.Result() == nil {
			t.Fatalf("game %d: %s saw no result", n, first.Name)
		}
		if st := first.Final(); st == nil || st.ToAct().Kind != engine.ActorOver {
			t.Fatalf("game %d: final state is not over", n)
		}
		want := first.Entries()
		if len(want) < 10 {
			t.Fatalf("game %d: only %d log entries", n, len(want))
		}
		for _, p := range tbl.Peers[1:] {
			got := p.Entries()
			if len(got) != len(want) {
				t.Fatalf("game %d: %s has %d entries, %s has %d", n, p.Name, len(got), first.Name, len(want))
			}
			for i := range want {
				if !bytes.Equal(got[i], want[i]) {
					t.Fatalf("game %d: entry %d differs between %s and %s", n, i, first.Name, p.Name)
				}
			}
			if r := p.Result(); r == nil || r.Reason != first.Result().Reason || !equalInts(r.Scores, first.Result().Scores) {
				t.Fatalf("game %d: %s's result %+v differs from %+v", n, p.Name, r, first.Result())
			}
			if engine.Hash(p.Final()) != engine.Hash(first.Final()) {
				t.Fatalf("game %d: final state hashes differ", n)
			}
		}
		tbl.Close()
		for i, p := range tbl.Peers {
			_, disk, rep, err := OpenLog(p.Log.Path())
			if err != nil || rep != nil {
				t.Fatalf("peer %d log: %v %v", i, err, rep)
			}
			entries, sent := disk.Entries, disk.Sent
			if len(entries) != len(want) || len(sent) == 0 {
				t.Fatalf("peer %d: disk log has %d entries (want %d) and %d own envelopes", i, len(entries), len(want), len(sent))
			}
			for j, e := range entries {
				if !bytes.Equal(e.Marshal(), want[j]) {
					t.Fatalf("peer %d: disk entry %d differs from the committed one", i, j)
				}
			}
			// The file is in lockstep's log format: replay reads it and
			// Verify accepts the whole game.
			raw, _ := os.ReadFile(p.Log.Path())
			lf, err := lockstep.ParseLog(raw)
			if err != nil || len(lf.Entries) != len(want) {
				t.Fatalf("peer %d: lockstep.ParseLog: %v, %d entries", i, err, len(lf.Entries))
			}
			rp, err := lockstep.VerifyFast(lf.Entries, func(string) (*engine.Game, error) { return g, nil })
			if err != nil || rp.Phase != lockstep.PhaseOver {
				t.Fatalf("peer %d: lockstep.VerifyFast: %v (phase %v)", i, err, rp)
			}
		}
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
