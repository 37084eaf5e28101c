package p2p

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/boardmesh/boardmesh/crypto"
	"github.com/boardmesh/boardmesh/engine"
	"github.com/boardmesh/boardmesh/lockstep"
)

// TestInjectedDesyncAtSecretTables is the developer's desync story at a
// secret table, for every game with hidden cards: three loopback peers,
// the last with an engine that goes wrong at step 6. What a developer
// checks, every run:
//   - the session stops, and an honest peer reports the desync (the
//     first report stops the table, so not always both), with the buggy
//     peer's seat; so does every honest report there is;
//   - the report's two states are the peers' states at the report's step
//     (ours hashes to what we had there; theirs to what they signed) and
//     its fields are exactly the ones that differ between them;
//   - no honest peer calls anything a cheat: the buggy peer's moves were
//     legal, its state diverged (the moves it signed for its wrong state
//     are refused, and said to be for another state);
//   - the honest peer's log file alone (the bundle) explains the same
//     desync: same entry, same author, same fields.
//
// Run it under load (go test -count=10 with busy cores beside it): the
// orders it pins were those that went wrong there.
//
// A libp2p table's game is not the same from run to run (its identities,
// lobby and beacons are fresh), so the steps right before a shuffle or a
// private draw, where the card layers disagree before any state hash is
// compared, are pinned by lockstep/cardsource's
// TestInjectedDesyncBeforeShuffles, whose seeded in-process games replay
// exactly and whose steps it chooses from an honest game's log.
func TestInjectedDesyncAtSecretTables(t *testing.T) {
	t.Parallel()
	for _, g := range secretGames(t) {
		t.Run(g.Name, func(t *testing.T) { desyncAtSecretTable(t, g) })
	}
}

func desyncAtSecretTable(t *testing.T, g *engine.Game) {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	names := []string{"ada", "bob", "cy"}
	const bad, at = 2, 6
	var bots []engine.Bot
	for i := range names {
		bots = append(bots, g.Bots[i%len(g.Bots)].New())
	}
	var mu sync.Mutex
	events := make([][]lockstep.Event, len(names))
	tbl, err := NewTable(ctx, TableConfig{Game: g, Names: names, Bots: bots, Seed: []byte("secret desync " + g.Name), Dir: t.TempDir(),
		Secret: true, Inject: &Injection{Peer: bad, Seq: at},
		OnUpdate: func(i int, u Update) {
			mu.Lock()
			events[i] = append(events[i], u.Events...)
			mu.Unlock()
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer tbl.Close()
	err = tbl.Run(ctx)
	mu.Lock()
	defer mu.Unlock()
	if !errors.Is(err, ErrStopped) {
		t.Fatalf("Run: %v, want %v; events:\n%s", err, ErrStopped, eventLines(events))
	}
	buggy := crypto.PeerID(tbl.Peers[bad].Host.ID())
	seat := tbl.Peers[bad].Status().MySeat + 1
	var first *lockstep.DesyncReport
	for i, p := range tbl.Peers[:bad] {
		for _, ev := range events[i] {
			if ev.Kind == lockstep.EventCheat || ev.Kind == lockstep.EventEquivocation {
				t.Errorf("%s calls a cheat: %s", p.Name, ev.Text)
			}
			if ev.Kind == lockstep.EventDesync && (ev.Peer != buggy || ev.Seat != seat) {
				t.Errorf("%s's desync names peer %s seat %d, not the buggy peer (seat %d): %s", p.Name, ev.Peer, ev.Seat, seat, ev.Text)
			}
		}
		reps := p.Node.Reports()
		if len(reps) == 0 {
			// The first report stops its peer, and the table with it
			// (Table.Run): another honest peer may not have had the
			// buggy peer's state yet.
			continue
		}
		rep := reps[0]
		if rep.Peer != buggy || rep.Mine == rep.Theirs || len(rep.Diff) == 0 {
			t.Fatalf("%s's report does not name the buggy peer or a differing field:\n%s", p.Name, rep)
		}
		mine, err1 := engine.DecodeState(g, rep.MyState)
		theirs, err2 := engine.DecodeState(g, rep.TheirState)
		if err1 != nil || err2 != nil {
			t.Fatalf("%s's report: states do not decode: %v, %v", p.Name, err1, err2)
		}
		if crypto.Hash(engine.Hash(mine)) != p.Node.Hashes()[rep.Seq] {
			t.Fatalf("%s's report takes its own state from another step than step %d:\n%s", p.Name, rep.Seq, rep)
		}
		if crypto.Hash(engine.Hash(theirs)) != rep.Evidence.StateHash {
			t.Fatalf("%s's report holds a state of the buggy peer that is not the one it signed for step %d:\n%s", p.Name, rep.Seq, rep)
		}
		if want := engine.Diff(mine, theirs); fmt.Sprint(want) != fmt.Sprint(rep.Diff) {
			t.Fatalf("%s's report names fields %v; the states differ in %v", p.Name, rep.Diff, want)
		}
		if first == nil {
			first = rep
			checkBundle(t, g, p, rep)
		}
	}
	if first == nil {
		t.Fatalf("no honest peer reported the desync; events:\n%s", eventLines(events))
	}
	if rep, p := tbl.Desync(); rep != first {
		t.Fatalf("the table shows %s's report, not the first honest one:\n%s", p.Name, rep)
	}
	t.Logf("%s", first)
}

// checkBundle checks that p's log file alone explains rep again.
func checkBundle(t *testing.T, g *engine.Game, p *TablePeer, rep *lockstep.DesyncReport) {
	t.Helper()
	if err := p.Log.Sync(); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(p.Log.Path())
	if err != nil {
		t.Fatal(err)
	}
	lf, err := lockstep.ParseLog(data)
	if err != nil || len(lf.States) == 0 {
		t.Fatalf("%s's log holds no state record: %v", p.Name, err)
	}
	var own []*crypto.Envelope
	for _, e := range lf.Sent {
		if e.Kind == crypto.KindState {
			own = append(own, e)
		}
	}
	again, err := lockstep.ExplainDesync(lf.Entries, singleGame(g), lf.States[0], own...)
	if err != nil || again == nil {
		t.Fatalf("%s's bundle explains nothing: %v\nlive:\n%s", p.Name, err, rep)
	}
	if again.Entry != rep.Entry || again.EntryAuthor != rep.EntryAuthor || fmt.Sprint(again.Diff) != fmt.Sprint(rep.Diff) {
		t.Fatalf("%s's bundle explains another desync:\n%s\nlive:\n%s", p.Name, again, rep)
	}
}

func eventLines(events [][]lockstep.Event) string {
	s := ""
	for i, evs := range events {
		for _, ev := range evs {
			if ev.Kind != lockstep.EventTurn && ev.Kind != lockstep.EventJoined {
				s += fmt.Sprintf("  peer %d: %s\n", i+1, ev)
			}
		}
	}
	return s
}
