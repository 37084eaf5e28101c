package cli

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/boardmesh/boardmesh/crypto"
	"github.com/boardmesh/boardmesh/engine"
	"github.com/boardmesh/boardmesh/engine/dragonslair"
	"github.com/boardmesh/boardmesh/engine/games"
	"github.com/boardmesh/boardmesh/lockstep"
	"github.com/boardmesh/boardmesh/p2p"
	"github.com/libp2p/go-libp2p/core/peer"
)

func testMembers(t *testing.T, names ...string) []lockstep.Member {
	t.Helper()
	var out []lockstep.Member
	for _, n := range names {
		id, err := crypto.GenerateIdentity(rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, lockstep.Member{ID: id.ID(), Name: n})
	}
	return out
}

// TestEquivocationNamedOverTheNetwork: a member's key signs a second,
// different action for a step it already acted at (as a cheating client
// would), published from another host into a real two-peer game on
// loopback. The honest peer's --json output names the cheat, with the
// cheater's seat counted from 1 and its name, and the game stops.
func TestEquivocationNamedOverTheNetwork(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	g := dragonslair.Game
	keys := []*crypto.Identity{nil, nil}
	for i := range keys {
		id, err := crypto.GenerateIdentity(rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		keys[i] = id
	}
	io, _, out, _ := TestIO()
	rep := &netReporter{io: io, json: true}
	var mu sync.Mutex
	forged := make(chan *crypto.Envelope, 1)
	tbl, err := p2p.NewTable(ctx, p2p.TableConfig{Game: g, Names: []string{"Alice", "Mallory"}, Keys: keys,
		Bots: []engine.Bot{g.Bots[0].New(), g.Bots[0].New()}, Seed: []byte("equivocate"), Dir: t.TempDir(), BotDelay: 20 * time.Millisecond,
		OnUpdate: func(i int, u p2p.Update) {
			if i == 0 {
				mu.Lock()
				rep.update(u)
				mu.Unlock()
			}
		},
		OnPublish: func(i int, e *crypto.Envelope) {
			if i != 1 || e.Kind != crypto.KindAction {
				return
			}
			twin := *e
			twin.StateHash[0] ^= 1
			crypto.Sign(keys[1], &twin)
			select {
			case forged <- &twin:
			default:
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer tbl.Close()
	attacker, err := p2p.NewHost(p2p.HostConfig{NoQUIC: true})
	if err != nil {
		t.Fatal(err)
	}
	defer attacker.Close()
	ps, err := p2p.NewPubSub(ctx, attacker, nil)
	if err != nil {
		t.Fatal(err)
	}
	topic, err := ps.Join(p2p.TopicName(tbl.Lobby.String()))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := topic.Subscribe(); err != nil {
		t.Fatal(err)
	}
	target := tbl.Peers[0].Host
	if err := attacker.Connect(ctx, peer.AddrInfo{ID: target.ID(), Addrs: target.Addrs()}); err != nil {
		t.Fatal(err)
	}
	runErr := make(chan error, 1)
	go func() { runErr <- tbl.Run(ctx) }()
	select {
	case twin := <-forged:
		for len(topic.ListPeers()) == 0 {
			time.Sleep(10 * time.Millisecond)
		}
		if err := topic.Publish(ctx, twin.Marshal()); err != nil {
			t.Fatal(err)
		}
	case err := <-runErr:
		t.Fatalf("the game ended before Mallory acted: %v", err)
	}
	if err := <-runErr; !errors.Is(err, p2p.ErrStopped) {
		t.Fatalf("Run: %v, want the game stopped", err)
	}
	mu.Lock()
	defer mu.Unlock()
	_, seat := memberAndSeat(keys[1].ID(), tbl.Peers[0].Status())
	if seat == 0 || rep.cheat == "" {
		t.Fatalf("no equivocation named (seat %d, cheat %q); output:\n%s", seat, rep.cheat, out.String())
	}
	want := fmt.Sprintf("Mallory (seat %d) signed two different action envelopes", seat)
	if !strings.Contains(rep.cheat, want) || !strings.Contains(out.String(), `"event":"cheat"`) || !strings.Contains(out.String(), fmt.Sprintf(`"seat":%d`, seat)) {
		t.Fatalf("the cheat is not named as %q with seat %d:\n%s", want, seat, out.String())
	}
}

// TestEquivocationStopExitsCheating: an equivocation that stops a live
// game exits with the documented code 4 (a desync is 3), and the output
// names the cheat in plain words, in text and in JSON.
func TestEquivocationStopExitsCheating(t *testing.T) {
	id, err := crypto.GenerateIdentity(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	peerNet, err := p2p.HostLobby(p2p.NetConfig{Identity: id, Name: "Alice", Home: t.TempDir(), NoQUIC: true, Games: games.Lookup}, dragonslair.Game, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer peerNet.Close()
	members := testMembers(t, "Mallory", "Bob")
	st := lockstep.Status{Phase: lockstep.PhaseStopped, Members: members, Seats: []int{1, 0}}
	for _, asJSON := range []bool{false, true} {
		io, _, out, errOut := TestIO()
		rep := &netReporter{io: io, json: asJSON}
		rep.update(p2p.Update{Status: st, Events: []lockstep.Event{{Kind: lockstep.EventEquivocation, Cheat: lockstep.CheatEquivocation, Peer: members[0].ID, Seat: 2,
			Err: lockstep.ErrEquivocation, What: "Mallory (seat 2) signed two different action envelopes for step 4: proof of cheating, kept in the log; the game stops"}}})
		err := printNetSummary(io, asJSON, peerNet, rep, fmt.Errorf("%w: equivocation", p2p.ErrStopped))
		if code := exitCode(err); code != ExitCheating {
			t.Fatalf("json=%v: exit %d (%v), want %d", asJSON, code, err, ExitCheating)
		}
		all := out.String() + errOut.String()
		want := "Mallory (seat 2) signed two different"
		if !strings.Contains(all, want) {
			t.Fatalf("json=%v: the output does not name the cheat (%q):\n%s", asJSON, want, all)
		}
		if asJSON && !strings.Contains(out.String(), `"event":"cheat"`) {
			t.Fatalf("no cheat object in the JSON output:\n%s", out.String())
		}
	}
	var ec *ExitCodeError
	if !errors.As(printNetSummary(&IOStreams{Out: new(strings.Builder), ErrOut: new(strings.Builder)}, false, peerNet, &netReporter{desync: "x"}, p2p.ErrStopped), &ec) || ec.Code != ExitDesync {
		t.Fatal("a desync does not exit 3")
	}
}

// TestCheatsInTheTUILogAndSpectate: the terminal UI's log names a cheat
// as --auto does, and a spectator whose verified log ends with proof of
// an equivocation names the cheater (seat from 1) and exits 4.
func TestCheatsInTheTUILogAndSpectate(t *testing.T) {
	members := testMembers(t, "Alice", "Mallory")
	st := lockstep.Status{Members: members, Seats: []int{1, 0}}
	h, err := p2p.NewHost(p2p.HostConfig{NoQUIC: true})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	v := newTableView("Test", h, true)
	v.update(p2p.Update{Status: st, Events: []lockstep.Event{{Kind: lockstep.EventCheat, Cheat: lockstep.CheatOutOfTurn, Peer: members[1].ID, Seat: 1,
		What: "Mallory (seat 1) sent an action for step 3 out of turn; refused: not your turn"}}})
	var lines []string
	for _, e := range v.snapshot().History {
		lines = append(lines, e.Line())
	}
	if got := strings.Join(lines, "\n"); !strings.Contains(got, "CHEAT: Mallory (seat 1) sent an action for step 3 out of turn") {
		t.Fatalf("the TUI log does not name the cheat:\n%s", got)
	}

	for _, asJSON := range []bool{false, true} {
		io, _, out, _ := TestIO()
		opts := &SpectateOptions{IO: io, Net: NetFlags{JSON: asJSON}}
		rp := &lockstep.Replay{Members: members, Seats: []int{1, 0}, Cheater: members[1].ID, Phase: lockstep.PhaseStopped}
		err := spectateSummary(opts, dragonslair.Game, &p2p.Spectator{}, rp, nil)
		if code := exitCode(err); code != ExitCheating {
			t.Fatalf("json=%v: exit %d (%v), want %d", asJSON, code, err, ExitCheating)
		}
		if !strings.Contains(out.String(), "Mallory (seat 1) signed two different envelopes") {
			t.Fatalf("json=%v: the spectator does not name the cheater:\n%s", asJSON, out.String())
		}
	}
}

// TestTheGameBeginsBeforeItsFirstStep: when the update that draws the
// seats also holds the first deal (the runner reports a Ready's events
// after its entries), the history still says the game began before it
// tells the deal.
func TestTheGameBeginsBeforeItsFirstStep(t *testing.T) {
	_, log := replayTestLog(t)
	h, err := p2p.NewHost(p2p.HostConfig{NoQUIC: true})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	v := newTableView("Test", h, true)
	begun := "seats drawn; the game begins"
	v.update(p2p.Update{Status: lockstep.Status{Phase: lockstep.PhasePlaying, Entries: len(log)}, Entries: log,
		Events: []lockstep.Event{{Kind: lockstep.EventStarted, Text: begun}}})
	var lines []string
	started, first := -1, -1
	for i, e := range v.snapshot().History {
		lines = append(lines, e.Line())
		if strings.Contains(e.Text, begun) && started < 0 {
			started = i
		}
		if e.Kind != "table" && first < 0 {
			first = i
		}
	}
	if started < 0 || first < 0 || started > first {
		t.Fatalf("the game begins at line %d, its first step is line %d:\n%s", started, first, strings.Join(lines, "\n"))
	}
}
