package cli

import (
	"bytes"
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/boardmesh/boardmesh/crypto"
	"github.com/boardmesh/boardmesh/engine"
	"github.com/boardmesh/boardmesh/engine/dominion"
	"github.com/boardmesh/boardmesh/engine/games"
	"github.com/boardmesh/boardmesh/lockstep"
	"github.com/boardmesh/boardmesh/p2p"
)

// TestReplaySeatNamesItsOwnCards: after a secret Dominion table of two
// real peers, replay --seat N of a seat's own log names that seat's hands
// as its screen did, and exactly what the seat knew when the game ended:
// the knowledge rebuilt from the log, the card key and the identity equals
// the live peer's. A spectator's replay names none of them; another seat
// number, or a log without its card key, says why the cards stay unnamed.
func TestReplaySeatNamesItsOwnCards(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	g := dominion.Game
	dir := t.TempDir()
	tbl, err := p2p.NewTable(ctx, p2p.TableConfig{Game: g, Names: []string{"Ada", "Bob"}, Secret: true,
		Bots: []engine.Bot{g.Bots[0].New(), g.Bots[1%len(g.Bots)].New()}, Seed: []byte(t.Name()), Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if err := tbl.Run(ctx); err != nil {
		tbl.Close()
		t.Fatal(err)
	}
	var live [][]byte
	for _, p := range tbl.Peers {
		cs, ok := p.Node.State().(engine.CardState)
		if !ok || cs.Cards().Knowledge() == nil {
			tbl.Close()
			t.Fatalf("%s's live state holds no knowledge of its cards", p.Name)
		}
		live = append(live, encodeKnowledge(cs.Cards().Knowledge()))
	}
	tbl.Close()

	for i, p := range tbl.Peers {
		log := p2p.PeerLogPath(dir, i)
		lf, r, seat := ownLog(ctx, t, log, p)
		st, why := seatKnowledge(&ReplayOptions{File: log, Seat: seat + 1, Games: games.Lookup}, lf, r)
		if st == nil || why != "" {
			t.Fatalf("%s's log, seat %d: no knowledge rebuilt (%s)", p.Name, seat+1, why)
		}
		if got := encodeKnowledge(st.(engine.CardState).Cards().Knowledge()); !bytes.Equal(got, live[i]) {
			t.Fatalf("%s: the knowledge rebuilt from the log differs from the live peer's", p.Name)
		}

		n := strconv.Itoa(seat + 1)
		out, errOut, code := run(t, "replay", "--seat", n, log)
		if code != 0 || errOut != "" {
			t.Fatalf("replay --seat %s %s: exit %d\n%s", n, log, code, errOut)
		}
		if c := strings.Count(out, "your new hand: "); c < 3 {
			t.Fatalf("replay --seat %s names %d of %s's hands:\n%s", n, c, p.Name, out)
		}
		spec, _, _ := run(t, "replay", log)
		if strings.Contains(spec, "your new hand") || strings.Contains(spec, "Copper,") {
			t.Fatalf("a spectator's replay names a hand:\n%s", spec)
		}
		other := strconv.Itoa(2 - seat)
		out, errOut, _ = run(t, "replay", "--seat", other, log)
		if !strings.Contains(errOut, "a seat opens only its own cards") || !strings.Contains(errOut, "--seat "+n+" tells its cards") {
			t.Fatalf("replay --seat %s of %s's log says: %q", other, p.Name, errOut)
		}
		if strings.Contains(out, "your new hand") {
			t.Fatalf("replay --seat %s of %s's log names the other seat's hands", other, p.Name)
		}
	}

	log := p2p.PeerLogPath(dir, 0)
	if err := os.WriteFile(p2p.CardKeyPath(log), []byte("not a key"), 0o600); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := run(t, "replay", "--seat", "1", log)
	if code != 0 || strings.Contains(out, "your new hand") {
		t.Fatalf("replay with a damaged card key: exit %d, or names the hands:\n%s", code, out)
	}
	if !strings.Contains(errOut, "stay unnamed: the hidden-card key file is damaged") || strings.Contains(errOut, "deal on") {
		t.Fatalf("replay with a damaged card key says: %q", errOut)
	}
	if err := os.Remove(p2p.CardKeyPath(log)); err != nil {
		t.Fatal(err)
	}
	out, errOut, code = run(t, "replay", "--seat", "1", log)
	if code != 0 {
		t.Fatalf("replay without the card key: exit %d\n%s", code, errOut)
	}
	if strings.Contains(out, "your new hand") {
		t.Fatal("a log without its card key still names the seat's hands")
	}
	if !strings.Contains(errOut, "its hidden-card key is not beside the log") {
		t.Fatalf("replay without the card key says: %q", errOut)
	}
}

// TestReplaySeatNamesTheFirstHand: a seat that leaves a secret table at
// its first move, its first hand on the screen, has a log that ends before
// any action, and so before the entry that passes the table's wait for the
// first deal. replay --seat N names that hand all the same, as the seat's
// screen did: the seat's own state, rebuilt, passed the wait.
func TestReplaySeatNamesTheFirstHand(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	dir := t.TempDir()
	// No bots: both seats are people who never move, so the table waits
	// at the first move with every hand dealt.
	tbl, err := p2p.NewTable(ctx, p2p.TableConfig{Game: dominion.Game, Names: []string{"Ada", "Bob"}, Secret: true,
		Bots: []engine.Bot{nil, nil}, Seed: []byte(t.Name()), Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	defer tbl.Close()
	runCtx, stop := context.WithCancel(ctx)
	ran := make(chan error, 1)
	go func() { ran <- tbl.Run(runCtx) }()
	for dealt := 0; dealt < len(tbl.Peers); {
		select {
		case <-ctx.Done():
			t.Fatalf("the seats never saw their first hands (%d of %d did)", dealt, len(tbl.Peers))
		case err := <-ran:
			t.Fatalf("the table stopped before the first move: %v", err)
		case <-time.After(50 * time.Millisecond):
		}
		dealt = 0
		for _, p := range tbl.Peers {
			var known int
			err := p.Runner.Do(ctx, func(n *lockstep.Node) error {
				if cs, ok := n.State().(engine.CardState); ok && cs.Cards().Knowledge() != nil {
					known = cs.Cards().Knowledge().Len()
				}
				return nil
			})
			if err == nil && known >= 5 {
				dealt++
			}
		}
	}
	stop()
	<-ran
	tbl.Close()

	for i, p := range tbl.Peers {
		log := p2p.PeerLogPath(dir, i)
		lf, _, seat := ownLog(ctx, t, log, p)
		seat++
		for _, e := range lf.Entries {
			if e.Kind == crypto.KindAction {
				t.Fatalf("%s's log holds an action, where nobody moved", p.Name)
			}
		}
		n := strconv.Itoa(seat)
		out, errOut, code := run(t, "replay", "--seat", n, log)
		if code != 0 || errOut != "" {
			t.Fatalf("replay --seat %s %s: exit %d\n%s", n, log, code, errOut)
		}
		if c := strings.Count(out, "your new hand: "); c != 1 {
			t.Fatalf("replay --seat %s of %s's log, left at the first move, names %d hands, not its first:\n%s", n, p.Name, c, out)
		}
	}
}

// ownLog reads, parses and verifies peer p's log and finds p's seat in it
// (0-based).
func ownLog(ctx context.Context, t *testing.T, log string, p *p2p.TablePeer) (*lockstep.LogFile, *lockstep.Replay, int) {
	t.Helper()
	data, err := readLogFile(ctx, log)
	if err != nil {
		t.Fatal(err)
	}
	lf, err := lockstep.ParseLog(data)
	if err != nil {
		t.Fatal(err)
	}
	r, err := lockstep.Verify(lf.Entries, games.Lookup)
	if err != nil {
		t.Fatal(err)
	}
	for s, m := range r.Seats {
		if r.Members[m].ID == p.Identity.ID() {
			return lf, r, s
		}
	}
	t.Fatalf("%s holds no seat in its own log", p.Name)
	return nil, nil, 0
}

func encodeKnowledge(k *engine.Knowledge) []byte {
	e := engine.NewEncoder(nil)
	k.Encode(e)
	return e.Bytes()
}

// TestReplayCommandPastes: the replay line printed at the end of a game
// pastes into a shell as it is, even from macOS's default home, whose path
// has a space ("Application Support").
func TestReplayCommandPastes(t *testing.T) {
	log := "/Users/ada/Library/Application Support/boardmesh/plays/20261203-101500.000-a1b2c3/peer0.log"
	for _, c := range []struct {
		mode string
		seat int
		want string
	}{
		{"secret table", 1, "boardmesh replay --seat 2 '" + log + "'   # with your own cards"},
		{"open hands", 1, "boardmesh replay '" + log + "'"},
		{"secret table", -1, "boardmesh replay '" + log + "'"},
	} {
		if got := replayCommand(log, c.mode, c.seat); got != c.want {
			t.Errorf("replayCommand(%s, seat %d) = %s, want %s", c.mode, c.seat, got, c.want)
		}
	}
	if got := replayCommand("/home/ada/.config/boardmesh/plays/x/peer0.log", "open hands", 0); got != "boardmesh replay /home/ada/.config/boardmesh/plays/x/peer0.log" {
		t.Errorf("a plain path is quoted: %s", got)
	}
}
