package p2p_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
	"os"
	"regexp"
	"runtime/debug"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/boardmesh/boardmesh/crypto"
	"github.com/boardmesh/boardmesh/engine"
	"github.com/boardmesh/boardmesh/engine/dragonslair"
	"github.com/boardmesh/boardmesh/lockstep"
	"github.com/boardmesh/boardmesh/p2p"
	"github.com/boardmesh/boardmesh/p2p/hostile"
	"github.com/libp2p/go-libp2p/core/peer"
)

// An arena is a table of honest peers on loopback (p2p.NewTable: real
// hosts, gossipsub, the production runner) with a hostile peer connected
// to all of them. The test runs each runner itself, so one peer that
// panics or stops is seen as that peer's outcome, not as the table's.
type arena struct {
	t   *testing.T
	tbl *p2p.Table
	bad *hostile.Peer
	// keys are the members' identities: a test that plays a cheating
	// member signs with one.
	keys []*crypto.Identity

	mu     sync.Mutex
	events [][]lockstep.Event

	errs []error
	done []chan struct{}
	// paused is the status of the peer pause hung, taken as it hung: it
	// may have signed envelopes for that step and round just before, so a
	// cheat in its name must be for a later one (or it is an equivocation).
	paused lockstep.Status
}

type arenaConfig struct {
	names    []string
	botDelay time.Duration
	// dropAfter, if set, makes these peers vote to drop a seat they have
	// waited for this long (ms): the honest side's way on past a cheater
	// that went silent.
	dropAfter map[int]int64
	// noBot leaves these peers' seats without a bot.
	noBot map[int]bool
	// noSpectators closes the catch-up stream to non-members.
	noSpectators bool
	// game is the table's game (Dragon's Lair if nil).
	game *engine.Game
	// secret makes it a secret table (hidden cards by mental poker).
	secret bool
	// tune, if set, adjusts peer i's node configuration after the
	// arena's own settings (a cheating member's modified card layer).
	tune func(i int, lc *lockstep.Config)
	// bot, if set, makes peer i's bot from the game's own (a bot that
	// steers the game where a test needs it).
	bot func(i int, b engine.Bot) engine.Bot
}

func newArena(t *testing.T, ctx context.Context, cfg arenaConfig) *arena {
	t.Helper()
	if cfg.names == nil {
		cfg.names = []string{"ada", "bob", "cy"}
	}
	a := &arena{t: t, events: make([][]lockstep.Event, len(cfg.names))}
	g := dragonslair.Game
	if cfg.game != nil {
		g = cfg.game
	}
	var bots []engine.Bot
	for i := range cfg.names {
		a.keys = append(a.keys, mustIdentity(t))
		if cfg.noBot[i] {
			bots = append(bots, nil)
		} else if cfg.bot != nil {
			bots = append(bots, cfg.bot(i, g.Bots[i%len(g.Bots)].New()))
		} else {
			bots = append(bots, g.Bots[i%len(g.Bots)].New())
		}
	}
	tc := p2p.TableConfig{
		Game: g, Names: cfg.names, Bots: bots, Seed: []byte(t.Name()), Dir: t.TempDir(),
		Keys: a.keys, BotDelay: cfg.botDelay, NoSpectators: cfg.noSpectators, Secret: cfg.secret,
		OnUpdate: func(i int, u p2p.Update) {
			if len(u.Events) == 0 {
				return
			}
			a.mu.Lock()
			a.events[i] = append(a.events[i], u.Events...)
			a.mu.Unlock()
		},
		Tune: func(i int, lc *lockstep.Config) {
			if d, ok := cfg.dropAfter[i]; ok {
				lc.DropAfter = d
			}
			if cfg.tune != nil {
				cfg.tune(i, lc)
			}
		},
	}
	tbl, err := p2p.NewTable(ctx, tc)
	if err != nil {
		t.Fatal(err)
	}
	a.tbl = tbl
	t.Cleanup(tbl.Close)
	var targets []peer.AddrInfo
	var ids []peer.ID
	for _, p := range tbl.Peers {
		targets = append(targets, peer.AddrInfo{ID: p.Host.ID(), Addrs: p.Host.Addrs()})
		ids = append(ids, p.Host.ID())
	}
	if a.bad, err = hostile.New(ctx, tbl.Lobby, targets); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.bad.Close)
	if err := a.bad.WaitTopic(ctx, ids); err != nil {
		t.Fatal(err)
	}
	return a
}

func mustIdentity(t *testing.T) *crypto.Identity {
	t.Helper()
	id, err := crypto.GenerateIdentity(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// start runs every runner on its own goroutine. A panic in a runner is
// caught and becomes that peer's error, so the test reports it as such.
func (a *arena) start(ctx context.Context) {
	n := len(a.tbl.Peers)
	a.errs = make([]error, n)
	a.done = make([]chan struct{}, n)
	// Every runner is gone before the table closes (cleanups run last
	// first, and the test's context is cancelled by then): a runner still
	// writing its log while Close syncs it would be a race of the test's.
	a.t.Cleanup(func() {
		for i := range a.done {
			select {
			case <-a.done[i]:
			case <-time.After(30 * time.Second):
				a.t.Errorf("%s's runner did not return after the test", a.name(i))
			}
		}
	})
	for i, p := range a.tbl.Peers {
		a.done[i] = make(chan struct{})
		go func() {
			defer close(a.done[i])
			defer func() {
				if r := recover(); r != nil {
					a.errs[i] = fmt.Errorf("PANIC: %v\n%s", r, debug.Stack())
				}
			}()
			a.errs[i] = p.Runner.Run(ctx)
		}()
	}
}

// wait waits for the peers' runners to return and returns their errors.
// A runner still running at the deadline is a failure: the peer hung.
func (a *arena) wait(peers []int, d time.Duration) {
	a.t.Helper()
	deadline := time.After(d)
	for _, i := range peers {
		select {
		case <-a.done[i]:
		case <-deadline:
			// A peer that panicked is the cause of the others' waiting.
			a.noPanic(a.all())
			st := a.tbl.Peers[i].Status()
			var others strings.Builder
			for j := range a.tbl.Peers {
				if j != i && a.exited(j) {
					fmt.Fprintf(&others, "\n  %s ended with %v; its events: %s", a.name(j), a.errs[j], a.eventText(j))
				}
			}
			a.t.Fatalf("%s did not finish within %s (phase %s, %d entries, waiting %v); its events: %s%s",
				a.name(i), d, st.Phase, st.Entries, st.Waiting, a.eventText(i), others.String())
		}
	}
}

// exited says whether peer i's runner has returned.
func (a *arena) exited(i int) bool {
	select {
	case <-a.done[i]:
		return true
	default:
		return false
	}
}

func (a *arena) name(i int) string { return a.tbl.Peers[i].Name }

// all lists the arena's peers; but lists them without the one left out.
func (a *arena) all() []int { return a.but(-1) }

func (a *arena) but(left int) []int {
	var out []int
	for i := range a.tbl.Peers {
		if i != left {
			out = append(out, i)
		}
	}
	return out
}

func (a *arena) eventsOf(i int) []lockstep.Event {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]lockstep.Event(nil), a.events[i]...)
}

func (a *arena) eventText(i int) string {
	var b strings.Builder
	for _, e := range a.eventsOf(i) {
		if e.Kind == lockstep.EventTurn {
			continue
		}
		fmt.Fprintf(&b, "\n    %s", e.String())
	}
	return b.String()
}

// noPanic fails if a peer's runner panicked.
func (a *arena) noPanic(peers []int) {
	a.t.Helper()
	for _, i := range peers {
		if a.exited(i) && a.errs[i] != nil && strings.HasPrefix(a.errs[i].Error(), "PANIC") {
			a.t.Fatalf("%s panicked: %v", a.name(i), a.errs[i])
		}
	}
}

// finishedIdentical checks what a player would: each of peers finished
// the game (no error, a result), and all hold the same log.
func (a *arena) finishedIdentical(peers []int) {
	a.t.Helper()
	a.noPanic(peers)
	for _, i := range peers {
		if a.errs[i] != nil {
			a.t.Fatalf("%s ended with %v; its events: %s", a.name(i), a.errs[i], a.eventText(i))
		}
		if a.tbl.Peers[i].Result() == nil {
			a.t.Fatalf("%s saw no result; its events: %s", a.name(i), a.eventText(i))
		}
	}
	a.sameLogs(peers)
}

// sameLogs checks that the peers committed identical logs.
func (a *arena) sameLogs(peers []int) {
	a.t.Helper()
	want := a.tbl.Peers[peers[0]].Entries()
	for _, i := range peers[1:] {
		got := a.tbl.Peers[i].Entries()
		if len(got) != len(want) {
			a.t.Fatalf("%s committed %d entries, %s %d", a.name(i), len(got), a.name(peers[0]), len(want))
		}
		for k := range want {
			if !bytes.Equal(got[k], want[k]) {
				a.t.Fatalf("entry %d differs between %s and %s", k, a.name(i), a.name(peers[0]))
			}
		}
	}
}

// sameLogsUpToEvidence checks the logs of peers that stopped on proof of
// an equivocation: each ends with one evidence entry (each peer signs its
// own) proving the cheater's, and before it the logs do not fork: the
// shorter is a prefix of the longer (a peer may have committed an entry
// more before the second envelope of the pair reached it), except that
// their last entries may be the two halves of the cheater's pair.
func (a *arena) sameLogsUpToEvidence(peers []int, cheater int) {
	a.t.Helper()
	var longest [][]byte
	var longestName string
	logs := map[int][][]byte{}
	for _, i := range peers {
		got := a.tbl.Peers[i].Entries()
		if len(got) == 0 {
			a.t.Fatalf("%s committed nothing", a.name(i))
		}
		last, err := crypto.Unmarshal(got[len(got)-1])
		if err != nil || last.Kind != crypto.KindEvidence {
			a.t.Fatalf("%s's log does not end with evidence", a.name(i))
		}
		who, err := lockstep.CheckEvidence(last)
		if err != nil || who != a.keys[cheater].ID() {
			a.t.Fatalf("%s's evidence does not prove %s cheated: %v", a.name(i), a.name(cheater), err)
		}
		logs[i] = got[:len(got)-1]
		if len(logs[i]) > len(longest) {
			longest, longestName = logs[i], a.name(i)
		}
	}
	for _, i := range peers {
		for k, e := range logs[i] {
			if bytes.Equal(e, longest[k]) {
				continue
			}
			// The one place two honest logs may differ is the equivocated
			// step itself: each peer committed whichever of the cheater's
			// two envelopes reached it first, then stopped on the other.
			last := k == len(logs[i])-1 && k == len(longest)-1
			if !last || !a.twoHalves(e, longest[k], cheater) {
				a.t.Fatalf("the logs fork: entry %d differs between %s and %s", k, a.name(i), longestName)
			}
			a.t.Logf("%s and %s committed different halves of %s's equivocation at entry %d", a.name(i), longestName, a.name(cheater), k)
		}
		if d := len(longest) - len(logs[i]); d > 0 {
			a.t.Logf("%s stopped %d entries before %s", a.name(i), d, longestName)
		}
	}
}

// twoHalves says whether x and y are two different envelopes the cheater
// signed for one step: the pair an equivocation is.
func (a *arena) twoHalves(x, y []byte, cheater int) bool {
	ex, err1 := crypto.Unmarshal(x)
	ey, err2 := crypto.Unmarshal(y)
	if err1 != nil || err2 != nil {
		return false
	}
	id := a.keys[cheater].ID()
	return ex.Author == id && ey.Author == id && ex.Session == ey.Session && ex.Seq == ey.Seq && ex.Kind == ey.Kind
}

// seatWord is how a player reads peer i's seat: "seat N", counted from 1;
// empty before the seat draw.
func (a *arena) seatWord(i int) string {
	st := a.tbl.Peers[0].Status()
	id := a.keys[i].ID()
	for s, mi := range st.Seats {
		if mi < len(st.Members) && st.Members[mi].ID == id {
			return fmt.Sprintf("seat %d", s+1)
		}
	}
	return ""
}

// named checks that every one of peers showed an event naming the cheater
// in plain words: its name, its seat counted from 1 (if the cheat came
// after the seat draw), and what it did (what matches the event's text).
func (a *arena) named(peers []int, cheater int, what *regexp.Regexp) {
	a.t.Helper()
	name, seat := a.name(cheater), a.seatWord(cheater)
	for _, i := range peers {
		ok := false
		for _, e := range a.eventsOf(i) {
			// Before the seat draw (Seat 0) there is no seat to name.
			seatOK := seat == "" || strings.Contains(e.Text, seat) || e.Seat == 0 && !strings.Contains(e.Text, "seat")
			if what.MatchString(e.Text) && strings.Contains(e.Text, name) && seatOK {
				ok = true
				a.t.Logf("%s showed: %s", a.name(i), e)
				if seat0.MatchString(e.Text) {
					a.t.Errorf("%s counts seats from 0 in: %s", a.name(i), e.Text)
				}
				break
			}
		}
		if !ok {
			a.t.Errorf("%s was not told in plain words that %s (%s) did %q; its events: %s", a.name(i), name, seat, what, a.eventText(i))
		}
	}
}

// seat0 finds a seat counted from 0: players count from 1.
var seat0 = regexp.MustCompile(`\bseat 0\b`)

// framesNobody checks that no honest peer was blamed by any of peers: no
// equivocation or desync event and no rejection names one of honest.
func (a *arena) framesNobody(peers, honest []int) {
	a.t.Helper()
	for _, i := range peers {
		for _, e := range a.eventsOf(i) {
			for _, h := range honest {
				id, name := a.keys[h].ID(), a.name(h)
				blamed := false
				switch e.Kind {
				case lockstep.EventCheat, lockstep.EventEquivocation, lockstep.EventRejected:
					blamed = e.Peer == id || e.Who == name
				case lockstep.EventDesync:
					blamed = e.Desync != nil && e.Desync.EntryAuthor == id
				}
				if blamed {
					a.t.Errorf("%s blamed honest %s: %s", a.name(i), name, e)
				}
			}
		}
	}
}

// outsiderLeftNoTrace checks that nothing the outsider signed is in any
// peer's committed log, memory or disk.
func (a *arena) outsiderLeftNoTrace(peers []int, outsider *crypto.Identity) {
	a.t.Helper()
	for _, i := range peers {
		for k, b := range a.tbl.Peers[i].Entries() {
			env, err := crypto.Unmarshal(b)
			if err != nil {
				a.t.Fatalf("%s: entry %d does not parse: %v", a.name(i), k, err)
			}
			if env.Author == outsider.ID() || bytes.Contains(env.Body, []byte(outsider.ID())) {
				a.t.Fatalf("%s committed entry %d (%s) from or about the outsider", a.name(i), k, env.Kind)
			}
		}
		// The file itself, every byte of it: not even a rejected envelope
		// of the outsider's may have been kept.
		raw, err := os.ReadFile(a.tbl.Peers[i].Log.Path())
		if err != nil {
			a.t.Fatal(err)
		}
		if bytes.Contains(raw, []byte(outsider.ID())) {
			a.t.Fatalf("%s's log file holds the outsider's peer id", a.name(i))
		}
	}
}

// view is what one peer's node shows, read on its runner's goroutine.
type view struct {
	st    lockstep.Status
	state engine.State
	hash  crypto.Hash
}

func (a *arena) view(ctx context.Context, i int) (view, error) {
	var v view
	err := a.tbl.Peers[i].Runner.Do(ctx, func(n *lockstep.Node) error {
		v.st = n.Status()
		if s := n.State(); s != nil && v.st.Phase == lockstep.PhasePlaying {
			v.state = s.Clone()
			v.hash = crypto.Hash(engine.Hash(s))
		}
		return nil
	})
	return v, err
}

// pause blocks peer i's runner (as a hung process would be) once it is
// playing, and returns a function that lets it go on.
func (a *arena) pause(ctx context.Context, i int) (release func()) {
	a.t.Helper()
	for {
		got := make(chan bool, 1)
		rel := make(chan struct{})
		errc := make(chan error, 1)
		go func() {
			errc <- a.tbl.Peers[i].Runner.Do(ctx, func(n *lockstep.Node) error {
				if n.Status().Phase != lockstep.PhasePlaying {
					got <- false
					return nil
				}
				a.paused = n.Status()
				got <- true
				select {
				case <-rel:
				case <-ctx.Done():
				}
				return nil
			})
		}()
		select {
		case ok := <-got:
			if ok {
				var once sync.Once
				return func() { once.Do(func() { close(rel) }) }
			}
			<-errc
		case err := <-errc:
			a.t.Fatalf("pause %s: %v", a.name(i), err)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// puppet plays member m's part with its key while its own peer is paused,
// as seen from peer watch: each time watch waits for m, cheat may return
// the envelopes to send instead of m's honest ones (and true once it has
// cheated). It returns when cheat said so.
func (a *arena) puppet(ctx context.Context, watch, m int, cheat func(v view, w lockstep.Wait) ([]*crypto.Envelope, bool)) {
	a.t.Helper()
	key := a.keys[m]
	chain := crypto.NewChain(key.ChainSeed(a.tbl.Lobby, 0), 1024)
	sent := map[string]bool{}
	for ctx.Err() == nil {
		v, err := a.view(ctx, watch)
		if err != nil {
			a.t.Fatalf("puppet: %v", err)
		}
		for _, w := range v.st.Waiting {
			if w.Name != a.name(m) || v.state == nil {
				continue
			}
			later := v.st.Seq > a.paused.Seq
			if w.What == "a reveal" {
				later = v.st.Round > a.paused.Round
			}
			if !later {
				// m's own peer may have signed this slot before it hung:
				// play it honestly (the same bytes, a duplicate at worst).
			} else if envs, done := cheat(v, w); envs != nil {
				for _, e := range envs {
					if err := a.bad.Publish(ctx, e); err != nil {
						a.t.Fatal(err)
					}
				}
				if done {
					return
				}
				continue
			}
			var e *crypto.Envelope
			switch w.What {
			case "an action":
				legal := v.state.Legal(nil)
				e = &crypto.Envelope{Seq: v.st.Seq, Kind: crypto.KindAction, StateHash: v.hash, Body: hostile.ActionBody(legal[0])}
			case "a reveal":
				r, _ := chain.Reveal(int(v.st.Round) + 1)
				e = &crypto.Envelope{Seq: v.st.Round, Kind: crypto.KindReveal, StateHash: v.hash, Body: hostile.HashBody(r)}
			case "a checkpoint":
				e = &crypto.Envelope{Seq: v.st.Seq, Kind: crypto.KindCheckpoint, StateHash: v.hash, Body: hostile.UintBody(uint64(v.state.Turn()))}
			default:
				continue
			}
			e.Session = v.st.Session
			k := fmt.Sprint(e.Kind, e.Seq)
			if sent[k] {
				continue
			}
			sent[k] = true
			if err := a.bad.Publish(ctx, hostile.Signed(key, e)); err != nil {
				a.t.Fatal(err)
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	a.t.Fatalf("puppet: %v before the cheat was sent", ctx.Err())
}

// waitPlaying waits until peer i is playing at step min or later.
func (a *arena) waitPlaying(ctx context.Context, i int, min uint64) view {
	a.t.Helper()
	for {
		v, err := a.view(ctx, i)
		if err != nil {
			a.t.Fatalf("%s: %v", a.name(i), err)
		}
		if v.st.Phase == lockstep.PhasePlaying && v.st.Seq >= min {
			return v
		}
		if v.st.Phase > lockstep.PhasePlaying {
			a.t.Fatalf("%s ended (%s) before step %d; its events: %s", a.name(i), v.st.Phase, min, a.eventText(i))
		}
		select {
		case <-ctx.Done():
			a.t.Fatalf("%s did not reach step %d: %v", a.name(i), min, ctx.Err())
		case <-time.After(10 * time.Millisecond):
		}
	}
}

var errStopped = p2p.ErrStopped

// stoppedNaming checks that each of peers stopped (ErrStopped) without
// panicking.
func (a *arena) stopped(peers []int) {
	a.t.Helper()
	a.noPanic(peers)
	for _, i := range peers {
		if !errors.Is(a.errs[i], errStopped) {
			a.t.Fatalf("%s ended with %v, want the session stopped; its events: %s", a.name(i), a.errs[i], a.eventText(i))
		}
	}
}

func sha256Sum(b []byte) [32]byte { return sha256.Sum256(b) }
