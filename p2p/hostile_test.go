package p2p

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/boardmesh/boardmesh/crypto"
	"github.com/boardmesh/boardmesh/engine"
	"github.com/boardmesh/boardmesh/engine/dragonslair"
	"github.com/boardmesh/boardmesh/engine/games"
	"github.com/boardmesh/boardmesh/lockstep"
	pubsub "github.com/libp2p/go-libp2p-pubsub"
	"github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/core/peer"
)

// outsider is a peer that is not at the table: a real libp2p host with
// gossipsub, subscribed to a session topic without any validator of its
// own, so it publishes whatever bytes it likes.
type outsider struct {
	id    *crypto.Identity
	h     host.Host
	topic *pubsub.Topic
	sub   *pubsub.Subscription
}

func newOutsider(t *testing.T, ctx context.Context, target host.Host, lobby crypto.Hash) *outsider {
	t.Helper()
	id, err := crypto.GenerateIdentity(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	key, err := HostKey(id)
	if err != nil {
		t.Fatal(err)
	}
	h, err := NewHost(HostConfig{Key: key, NoQUIC: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	ps, err := NewPubSub(ctx, h, nil)
	if err != nil {
		t.Fatal(err)
	}
	tp, err := ps.Join(TopicName(lobby.String()))
	if err != nil {
		t.Fatal(err)
	}
	sub, err := tp.Subscribe()
	if err != nil {
		t.Fatal(err)
	}
	connect(t, h, target)
	o := &outsider{id: id, h: h, topic: tp, sub: sub}
	deadline := time.Now().Add(10 * time.Second)
	for !containsPeer(tp.ListPeers(), target.ID()) {
		if time.Now().After(deadline) {
			t.Fatal("the outsider never saw the target on the topic")
		}
		time.Sleep(20 * time.Millisecond)
	}
	return o
}

func containsPeer[T comparable](list []T, x T) bool {
	for _, y := range list {
		if y == x {
			return true
		}
	}
	return false
}

func (o *outsider) publish(t *testing.T, ctx context.Context, b []byte) {
	t.Helper()
	if err := o.topic.Publish(ctx, b); err != nil {
		t.Fatalf("outsider publish: %v", err)
	}
}

// joinEnvelope is the join a node with identity id and name would send.
func joinEnvelope(t *testing.T, id *crypto.Identity, name string, lobby crypto.Hash) *crypto.Envelope {
	t.Helper()
	n, err := lockstep.New(lockstep.Config{Identity: id, Name: name, Games: games.Lookup})
	if err != nil {
		t.Fatal(err)
	}
	if err := n.Join(lobby); err != nil {
		t.Fatal(err)
	}
	for _, m := range n.Ready().Messages {
		if m.Kind == crypto.KindJoin {
			return m
		}
	}
	t.Fatal("the node sent no join")
	return nil
}

// runUntilCleanup runs p in the background until the test ends, and
// makes sure Run has returned before p is closed (cleanups run last
// first, so call it after the peer's constructor registered Close).
func runUntilCleanup(t *testing.T, ctx context.Context, p *NetPeer) <-chan error {
	t.Helper()
	ctx, cancel := context.WithCancel(ctx)
	out := make(chan error, 1)
	done := make(chan struct{})
	go func() {
		err := p.Run(ctx)
		close(done)
		out <- err
	}()
	t.Cleanup(func() { cancel(); <-done })
	return out
}

// hostLobby opens a real lobby (as `boardmesh host` does) on loopback.
func hostLobby(t *testing.T, startWhen int) *NetPeer {
	t.Helper()
	return hostLobbyOf(t, NetConfig{StartWhen: startWhen})
}

// hostLobbyOf is hostLobby with cfg's settings (its identity, name, home,
// transport and games are the helper's).
func hostLobbyOf(t *testing.T, cfg NetConfig) *NetPeer {
	t.Helper()
	id, err := crypto.GenerateIdentity(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Identity, cfg.Name, cfg.Home, cfg.NoQUIC, cfg.Games = id, "Host", t.TempDir(), true, games.Lookup
	p, err := HostLobby(cfg, dragonslair.Game, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	return p
}

// TestLobbyStoppedByTwoJoinsDoesNotCrash: an outsider sends two different
// joins under one identity (or an honest user joins as "Bob", quits and
// joins again as "Robert" from the same home). That used to stop the
// host's node in the lobby and then crash the runner on the state the node
// does not have yet. The host must not crash; if its node stops, Run says
// so in plain words.
func TestLobbyStoppedByTwoJoinsDoesNotCrash(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	p := hostLobby(t, 0)
	var mu sync.Mutex
	joins := 0
	p.OnUpdate(func(u Update) {
		mu.Lock()
		defer mu.Unlock()
		for _, ev := range u.Events {
			if ev.Kind == lockstep.EventJoined || ev.Kind == lockstep.EventEquivocation {
				joins++
			}
		}
	})
	p.Runner.cfg.Linger = 100 * time.Millisecond
	runErr := runUntilCleanup(t, ctx, p)
	o := newOutsider(t, ctx, p.Host, p.Lobby)
	// It holds its key and is live: it passes the host's challenge.
	ServeAdmit(o.h, p.Host.ID(), p.Lobby, o.id)
	o.publish(t, ctx, joinEnvelope(t, o.id, "Bob", p.Lobby).Marshal())
	time.Sleep(500 * time.Millisecond)
	o.publish(t, ctx, joinEnvelope(t, o.id, "Robert", p.Lobby).Marshal())
	// The host has had its chance to stop once it has seen a join and
	// five more seconds have passed; how long the joins take to pass the
	// challenge on a loaded machine is bounded by ctx only.
	settled := time.After(5 * time.Second)
	for {
		select {
		case err := <-runErr:
			if !errors.Is(err, ErrStoppedInLobby) || !strings.Contains(err.Error(), "before the game began") {
				t.Fatalf("Run: %v; want a plain stop before the game began", err)
			}
			t.Logf("the host stopped in the lobby: %v", err)
			return
		case <-settled:
			settled = nil
		case <-ctx.Done():
			t.Fatal("the host never saw the joins")
		case <-time.After(50 * time.Millisecond):
		}
		mu.Lock()
		n := joins
		mu.Unlock()
		if settled == nil && n > 0 {
			t.Log("the host shrugged the second join off and is still running")
			return
		}
	}
}

// TestOutsiderCannotTouchStartedGame: once there is a roster, an outsider
// connected to one member publishes signed envelopes for the session (an
// "evidence" whose two halves it signed itself, then a stream of them).
// The member rejects every one, forwards none (the other members never
// see one), and the game ends normally and identically everywhere.
func TestOutsiderCannotTouchStartedGame(t *testing.T) {
	t.Parallel()
	g := dragonslair.Game
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	names := []string{"ada", "bob", "cy"}
	var bots []engine.Bot
	for range names {
		bots = append(bots, g.Bots[0].New())
	}
	started := make(chan crypto.Hash, 1)
	var once sync.Once
	tbl, err := NewTable(ctx, TableConfig{Game: g, Names: names, Bots: bots, Seed: []byte("outsider"), Dir: t.TempDir(),
		BotDelay: 20 * time.Millisecond,
		OnUpdate: func(peer int, u Update) {
			for _, ev := range u.Events {
				if peer == 0 && ev.Kind == lockstep.EventStarted {
					once.Do(func() { started <- u.Status.Session })
				}
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer tbl.Close()
	o := newOutsider(t, ctx, tbl.Peers[0].Host, tbl.Lobby)
	runErr := make(chan error, 1)
	go func() { runErr <- tbl.Run(ctx) }()
	var session crypto.Hash
	select {
	case session = <-started:
	case err := <-runErr:
		t.Fatalf("the game ended before it started: %v", err)
	}
	half := func(body byte) *crypto.Envelope {
		e := &crypto.Envelope{Session: session, Seq: 1, Kind: crypto.KindAction, Body: []byte{body}}
		crypto.Sign(o.id, e)
		return e
	}
	sent := 0
	for i := range 40 {
		enc := engine.NewEncoder(nil)
		enc.Blob("first", half(byte(2*i)).Marshal())
		enc.Blob("second", half(byte(2*i+1)).Marshal())
		ev := &crypto.Envelope{Session: session, Kind: crypto.KindEvidence, Body: enc.Bytes()}
		crypto.Sign(o.id, ev)
		o.publish(t, ctx, ev.Marshal())
		sent++
		time.Sleep(20 * time.Millisecond)
	}
	if err := <-runErr; err != nil {
		t.Fatalf("the game did not end normally: %v", err)
	}
	d0 := tbl.Peers[0].Runner.Drops()
	if d0.Outsider == 0 {
		t.Fatalf("the member next to the outsider rejected none of its %d envelopes: %+v", sent, d0)
	}
	if d0.Outsider >= int64(sent) {
		t.Errorf("all %d of the outsider's envelopes reached the validator: gossipsub never graylisted it (%+v)", sent, d0)
	}
	for _, p := range tbl.Peers[1:] {
		if d := p.Runner.Drops(); d.Outsider != 0 {
			t.Errorf("%s saw %d of the outsider's envelopes: the first member forwarded them", p.Name, d.Outsider)
		}
	}
	want := tbl.Peers[0].Entries()
	for _, p := range tbl.Peers {
		if p.Result() == nil {
			t.Fatalf("%s saw no result", p.Name)
		}
		got := p.Entries()
		if len(got) != len(want) {
			t.Fatalf("%s has %d entries, want %d", p.Name, len(got), len(want))
		}
		for i := range got {
			if !bytes.Equal(got[i], want[i]) {
				t.Fatalf("%s: entry %d differs", p.Name, i)
			}
			if e, _ := crypto.Unmarshal(got[i]); e != nil && e.Author == o.id.ID() {
				t.Fatalf("%s committed an envelope of the outsider", p.Name)
			}
		}
	}
}

// TestGuardLimits is the validator's policy without a network: sizes,
// the roster rule and the lobby's rate limit.
func TestGuardLimits(t *testing.T) {
	t.Parallel()
	self, _ := crypto.GenerateIdentity(rand.Reader)
	member, _ := crypto.GenerateIdentity(rand.Reader)
	stranger, _ := crypto.GenerateIdentity(rand.Reader)
	var lobby crypto.Hash
	lobby[0] = 1
	g := newGuard(peer.ID(self.ID()), lobby)
	now := time.Unix(1000, 0)
	g.now = func() time.Time { return now }
	env := func(id *crypto.Identity, session crypto.Hash, body []byte) []byte {
		e := &crypto.Envelope{Session: session, Kind: crypto.KindJoin, Body: body}
		crypto.Sign(id, e)
		return e.Marshal()
	}
	sid, mid := peer.ID(stranger.ID()), peer.ID(member.ID())
	if v, _ := g.check(sid, make([]byte, MaxEnvelope+1)); v != Reject {
		t.Fatalf("a message over MaxEnvelope: %v, want Reject", v)
	}
	big := env(member, lobby, make([]byte, crypto.MaxBody))
	if len(big) != MaxEnvelope {
		t.Fatalf("an envelope with the largest body is %d bytes, MaxEnvelope %d", len(big), MaxEnvelope)
	}
	if v, _ := g.check(mid, big); v != Accept {
		t.Fatalf("the largest legal envelope: %v, want Accept", v)
	}
	// A stranger in the lobby: its burst passes, then it is throttled
	// until its bucket refills.
	accepted := 0
	for range 100 {
		if v, _ := g.check(sid, env(stranger, lobby, nil)); v == Accept {
			accepted++
		}
	}
	if accepted != lobbyBurst {
		t.Fatalf("a stranger's burst of 100: %d accepted, want %d", accepted, lobbyBurst)
	}
	now = now.Add(time.Second)
	if v, _ := g.check(sid, env(stranger, lobby, nil)); v != Accept {
		t.Fatalf("after a second's refill: %v, want Accept", v)
	}
	// A forger sends envelopes in an honest joiner's name with bad
	// signatures: they are rejected, and the joiner's own tokens are
	// untouched (the author's bucket is spent only once a signature
	// proves it).
	honest, _ := crypto.GenerateIdentity(rand.Reader)
	forger, _ := crypto.GenerateIdentity(rand.Reader)
	for i := range 40 {
		e := &crypto.Envelope{Session: lobby, Kind: crypto.KindJoin, Author: honest.ID(), Body: []byte{byte(i)}, Sig: make([]byte, crypto.SigLen)}
		g.check(peer.ID(forger.ID()), e.Marshal())
	}
	if v, _ := g.check(peer.ID(honest.ID()), env(honest, lobby, nil)); v != Accept {
		t.Fatalf("the honest joiner after a forger used its name: %v, want Accept", v)
	}
	// Once there is a roster only its members publish.
	g.setMembers([]peer.ID{peer.ID(self.ID()), mid})
	var session crypto.Hash
	session[0] = 2
	g.setSession(session, false)
	if v, _ := g.check(sid, env(stranger, session, nil)); v != Reject {
		t.Fatalf("a stranger after the roster: %v, want Reject", v)
	}
	if v, _ := g.check(sid, env(member, session, nil)); v != Accept {
		t.Fatalf("a member's envelope relayed by anyone: %v, want Accept", v)
	}
	var other crypto.Hash
	other[0] = 3
	// Before the seat draw the host may propose the roster again (a new
	// session): a member's envelope of another session may be of it, and
	// reaches the node (which keeps it for the new roster).
	g.setSession(session, true)
	if v, _ := g.check(mid, env(member, other, nil)); v != Accept {
		t.Fatalf("another session while the session may change: %v, want Accept", v)
	}
	g.setSession(session, false)
	if v, _ := g.check(mid, env(member, other, nil)); v != Reject {
		t.Fatalf("another session: %v, want Reject", v)
	}
	d := g.drops()
	if d.TooLarge != 1 || d.Throttled != 100-lobbyBurst+40-lobbyBurst || d.Outsider != 1 || d.WrongSession != 1 || d.BadSignature != lobbyBurst {
		t.Fatalf("drops %+v", d)
	}
}

// TestGuardChecksABundleEnvelopeByEnvelope: a member's bundle is accepted
// whole, each envelope checked as if alone, and handed on in order; one
// envelope that would be refused alone (a forged signature, an outsider's,
// another session's) refuses the whole message and is counted as alone; a
// bundle of two authors is malformed.
func TestGuardChecksABundleEnvelopeByEnvelope(t *testing.T) {
	t.Parallel()
	self, _ := crypto.GenerateIdentity(rand.Reader)
	member, _ := crypto.GenerateIdentity(rand.Reader)
	outsider, _ := crypto.GenerateIdentity(rand.Reader)
	var lobby, session, other crypto.Hash
	lobby[0], session[0], other[0] = 1, 2, 3
	g := newGuard(peer.ID(self.ID()), lobby)
	g.setMembers([]peer.ID{peer.ID(self.ID()), peer.ID(member.ID())})
	g.setSession(session, false)
	sign := func(id *crypto.Identity, s crypto.Hash, seq uint64) *crypto.Envelope {
		e := &crypto.Envelope{Session: s, Seq: seq, Kind: crypto.KindReveal, Body: []byte{byte(seq)}}
		crypto.Sign(id, e)
		return e
	}
	mid := peer.ID(member.ID())
	envs := []*crypto.Envelope{sign(member, session, 1), sign(member, session, 2), sign(member, session, 3)}
	v, checked := g.check(mid, crypto.AppendBundle(nil, envs))
	got, _ := checked.([]*crypto.Envelope)
	if v != Accept || len(got) != len(envs) {
		t.Fatalf("a member's bundle: %v, %T", v, checked)
	}
	for i := range envs {
		if !crypto.Equal(got[i], envs[i]) {
			t.Fatalf("envelope %d of the bundle came out changed", i)
		}
	}
	forged := sign(member, session, 4)
	forged.Sig[5] ^= 1
	for _, tc := range []struct {
		name string
		envs []*crypto.Envelope
	}{
		{"a forged signature last", []*crypto.Envelope{envs[0], forged}},
		{"an outsider's", []*crypto.Envelope{sign(outsider, session, 1), sign(outsider, session, 2)}},
		{"another session's first", []*crypto.Envelope{sign(member, other, 1), envs[1]}},
		{"two authors", []*crypto.Envelope{envs[0], sign(outsider, session, 2)}},
	} {
		if v, checked := g.check(mid, crypto.AppendBundle(nil, tc.envs)); v != Reject || checked != nil {
			t.Errorf("a bundle with %s: %v, want Reject", tc.name, v)
		}
	}
	if d := g.drops(); d.BadSignature != 1 || d.Outsider != 1 || d.WrongSession != 1 || d.Malformed != 1 {
		t.Fatalf("drops %+v", d)
	}
}

// TestStartWhenCountsOnlyChallengedJoiners: with --start-when 2 an
// outsider's join (signed by its key, but the outsider does not answer
// the host's challenge) used to fill the second seat and start the game.
// Now the host waits; a real joiner answers the challenge, and the roster
// holds the host and that joiner only.
func TestStartWhenCountsOnlyChallengedJoiners(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	p := hostLobby(t, 2)
	rosters := make(chan []lockstep.Member, 4)
	var notes []string
	var mu sync.Mutex
	p.OnUpdate(func(u Update) {
		mu.Lock()
		notes = append(notes, u.Notes...)
		mu.Unlock()
		for _, ev := range u.Events {
			if ev.Kind == lockstep.EventRoster {
				rosters <- u.Status.Members
			}
		}
	})
	runErr := runUntilCleanup(t, ctx, p)
	o := newOutsider(t, ctx, p.Host, p.Lobby)
	o.publish(t, ctx, joinEnvelope(t, o.id, "Fake", p.Lobby).Marshal())
	select {
	case m := <-rosters:
		t.Fatalf("the host proposed a roster of %d with only an unchallenged outsider joined", len(m))
	case err := <-runErr:
		t.Fatalf("the host stopped: %v", err)
	case <-time.After(AdmitTimeout + time.Second):
	}
	mu.Lock()
	if len(notes) == 0 || !strings.Contains(notes[0], "did not answer the host's challenge") {
		t.Errorf("the host was not told of the failed challenge: %q", notes)
	}
	mu.Unlock()
	id, err := crypto.GenerateIdentity(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	addr := Addrs(p.Host)[0].String()
	j, _, err := JoinLobby(ctx, NetConfig{Identity: id, Name: "Bob", Home: t.TempDir(), NoQUIC: true, Games: games.Lookup}, addr, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(j.Close)
	runUntilCleanup(t, ctx, j)
	select {
	case m := <-rosters:
		if len(m) != 2 {
			t.Fatalf("roster of %d members, want the host and Bob", len(m))
		}
		for _, x := range m {
			if x.ID == o.id.ID() {
				t.Fatal("the outsider is in the roster")
			}
		}
	case <-time.After(20 * time.Second):
		t.Fatal("no roster after a real joiner answered the challenge")
	}
}

// TestLobbyFloodOfStrangers: an outsider floods the lobby with joins of
// hundreds of fresh identities that never answer the challenge. The
// flood is throttled and counted, and a real joiner still gets in: the
// game's roster is the host and that joiner.
func TestLobbyFloodOfStrangers(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	p := hostLobby(t, 2)
	rosters := make(chan []lockstep.Member, 4)
	p.OnUpdate(func(u Update) {
		for _, ev := range u.Events {
			if ev.Kind == lockstep.EventRoster {
				rosters <- u.Status.Members
			}
		}
	})
	runUntilCleanup(t, ctx, p)
	o := newOutsider(t, ctx, p.Host, p.Lobby)
	for range 300 {
		id, err := crypto.GenerateIdentity(rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		o.publish(t, ctx, joinEnvelope(t, id, "sybil", p.Lobby).Marshal())
	}
	deadline := time.Now().Add(10 * time.Second)
	for p.Runner.Drops().Throttled == 0 {
		if time.Now().After(deadline) {
			t.Fatalf("300 joins from one peer at once and none throttled: %+v", p.Runner.Drops())
		}
		time.Sleep(20 * time.Millisecond)
	}
	id, err := crypto.GenerateIdentity(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	j, _, err := JoinLobby(ctx, NetConfig{Identity: id, Name: "Bob", Home: t.TempDir(), NoQUIC: true, Games: games.Lookup}, Addrs(p.Host)[0].String(), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(j.Close)
	runUntilCleanup(t, ctx, j)
	select {
	case m := <-rosters:
		if len(m) != 2 || (m[0].ID != id.ID() && m[1].ID != id.ID()) {
			t.Fatalf("roster %+v, want the host and Bob", m)
		}
	case <-time.After(30 * time.Second):
		t.Fatalf("Bob never got in after the flood (drops %+v)", p.Runner.Drops())
	}
}

// hostForSilentTest hosts a Dragon's Lair lobby on loopback ("Host", a
// bot in its seat) that starts when startWhen members have joined and
// proposes the table again without a member whose accept or seat draw has
// not come in 2 s: the host of the tests of silent members. It closes
// with the test.
func hostForSilentTest(t *testing.T, startWhen int) *NetPeer {
	t.Helper()
	return hostLobbyOf(t, NetConfig{StartWhen: startWhen, AcceptTimeout: 2 * time.Second,
		Bot: dragonslair.Game.Bots[0].New(), BotRand: engine.NewRand([]byte("h"))})
}

// TestSilentMemberLeftOutOfTheRoster: a member joins (and answers the
// host's challenge) but never accepts the roster. The host used to wait
// forever while the real players were told the game had started. Now,
// after the accept time-out, the host proposes the roster again without
// it, and the game starts with the others; nobody is told it started
// before it has. At a secret table (the default), as here: the
// re-proposal once lost each peer's card layer, and about one run in
// three the first move that opened a card was refused and the table
// stalled. The game is played to its end: both peers at a secret table,
// with the host and Bob only, the same log and the same result. A joiner
// after the roster is told the game has started.
func TestSilentMemberLeftOutOfTheRoster(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	host := hostForSilentTest(t, 3)
	type start struct {
		who     string
		members []lockstep.Member
	}
	started := make(chan start, 4)
	var mu sync.Mutex
	rosters := 0
	host.OnUpdate(func(u Update) {
		for _, ev := range u.Events {
			switch ev.Kind {
			case lockstep.EventRoster:
				mu.Lock()
				rosters++
				mu.Unlock()
			case lockstep.EventStarted:
				started <- start{"host", u.Status.Members}
			}
		}
	})
	hostDone := runUntilCleanup(t, ctx, host)
	// Mallory: joins, passes the challenge, then says nothing more.
	o := newOutsider(t, ctx, host.Host, host.Lobby)
	ServeAdmit(o.h, host.Host.ID(), host.Lobby, o.id)
	o.publish(t, ctx, joinEnvelope(t, o.id, "Mallory", host.Lobby).Marshal())
	bid, err := crypto.GenerateIdentity(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	bob, _, err := JoinLobby(ctx, NetConfig{Identity: bid, Name: "Bob", Home: t.TempDir(), NoQUIC: true, Games: games.Lookup,
		Bot: dragonslair.Game.Bots[0].New(), BotRand: engine.NewRand([]byte("b"))}, Addrs(host.Host)[0].String(), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(bob.Close)
	bob.OnUpdate(func(u Update) {
		for _, ev := range u.Events {
			if ev.Kind == lockstep.EventStarted {
				started <- start{"bob", u.Status.Members}
			}
		}
	})
	bobDone := runUntilCleanup(t, ctx, bob)
	// Carol comes once the roster is proposed (the host waits for
	// Mallory's accept, or has proposed the table again): she is told at
	// once that the game has started. A re-proposal only ever leaves
	// members out, so no joiner after the first roster can be in it.
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		mu.Lock()
		n := rosters
		mu.Unlock()
		if n > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the host never proposed a roster")
		}
	}
	cid, err := crypto.GenerateIdentity(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	if carol, _, err := JoinLobby(ctx, NetConfig{Identity: cid, Name: "Carol", Home: t.TempDir(), NoQUIC: true, Games: games.Lookup},
		Addrs(host.Host)[0].String(), time.Second); !errors.Is(err, ErrLobbyStarted) {
		if carol != nil {
			carol.Close()
		}
		t.Fatalf("a joiner after the roster: %v, want %v", err, ErrLobbyStarted)
	}
	for range 2 {
		select {
		case s := <-started:
			if len(s.members) != 2 {
				t.Fatalf("%s was told the game started with %d members; want the host and Bob, without the silent one", s.who, len(s.members))
			}
			for _, m := range s.members {
				if m.ID != host.Node.ID() && m.ID != bid.ID() {
					t.Fatalf("%s was told the game started with %s; want the host and Bob", s.who, m.Name)
				}
			}
		case <-time.After(30 * time.Second):
			t.Fatal("the game did not start without the silent member")
		}
	}
	mu.Lock()
	seen := rosters
	mu.Unlock()
	if seen < 2 {
		t.Fatalf("the host saw %d rosters; want the first with Mallory and the second without", seen)
	}
	// The game is played to its end by the bots: Run returns nil then.
	bothEnded(t, ctx, hostDone, bobDone)
	// Run has returned: the nodes are the test's to read.
	for _, p := range []*NetPeer{host, bob} {
		// The re-proposal's envelopes (the other's and our own accept,
		// validated before the runner stepped the new roster) once were
		// refused as another session's, and shown as junk turned away.
		if d := p.Runner.Drops(); d.WrongSession != 0 {
			t.Fatalf("%s's validator refused %d envelopes as another session's at an honest table", p.Host.ID(), d.WrongSession)
		}
	}
	playedToTheEndAlike(t, host, bob)
}

// bothEnded waits for the host's and Bob's runners to return, each with
// no error: the bots played the game to its end.
func bothEnded(t *testing.T, ctx context.Context, hostDone, bobDone <-chan error) {
	t.Helper()
	for _, w := range []struct {
		who  string
		done <-chan error
	}{{"the host", hostDone}, {"Bob", bobDone}} {
		select {
		case err := <-w.done:
			if err != nil {
				t.Fatalf("%s's game did not end: %v", w.who, err)
			}
		case <-ctx.Done():
			t.Fatalf("%s's game did not end in time", w.who)
		}
	}
}

// playedToTheEndAlike checks, once both runners have returned, that the
// host and bob ended the game of two at a secret table with the same log,
// that the log verifies to a result on its own, and that their states
// are the same; it returns the replay.
func playedToTheEndAlike(t *testing.T, host, bob *NetPeer) *lockstep.Replay {
	t.Helper()
	want := host.Node.Log()
	for _, p := range []*NetPeer{host, bob} {
		st := p.Node.Status()
		if st.Phase != lockstep.PhaseOver || st.Mode != "secret table" || len(st.Members) != 2 {
			t.Fatalf("%s: phase %v at a %q table of %d; want the game of two over at a secret table", p.Host.ID(), st.Phase, st.Mode, len(st.Members))
		}
		got := p.Node.Log()
		if len(got) != len(want) {
			t.Fatalf("%s has %d log entries, the host %d", p.Host.ID(), len(got), len(want))
		}
		for k := range got {
			if !crypto.Equal(got[k], want[k]) {
				t.Fatalf("%s's entry %d differs from the host's", p.Host.ID(), k)
			}
		}
	}
	rep, err := lockstep.Verify(want, games.Lookup)
	if err != nil || rep.Result == nil {
		t.Fatalf("the log does not verify to a result: %v", err)
	}
	if len(rep.Members) != 2 {
		t.Fatalf("the log's roster has %d members; want the host and Bob", len(rep.Members))
	}
	if !bytes.Equal(engine.Encode(host.Node.State()), engine.Encode(bob.Node.State())) {
		t.Fatal("the host and Bob end with different states")
	}
	return rep
}

// silentRevealer is a member built in the test (an outsider's host on
// loopback, with its own key): it joins the host's lobby as name, passes
// the challenge, accepts every roster of the host's and signs nothing
// else. accepted gets a value once it has accepted one.
func silentRevealer(t *testing.T, ctx context.Context, host *NetPeer, name string) (o *outsider, accepted <-chan struct{}) {
	t.Helper()
	o = newOutsider(t, ctx, host.Host, host.Lobby)
	ServeAdmit(o.h, host.Host.ID(), host.Lobby, o.id)
	acc := make(chan struct{}, 1)
	go func() {
		for {
			msg, err := o.sub.Next(ctx)
			if err != nil {
				return
			}
			envs, _ := crypto.UnmarshalMessage(msg.Data)
			for _, env := range envs {
				if env.Kind != crypto.KindRoster || env.Author != host.Node.ID() {
					continue
				}
				a := &crypto.Envelope{Session: crypto.SessionID(env.Body), Kind: crypto.KindAccept}
				crypto.Sign(o.id, a)
				if o.topic.Publish(ctx, a.Marshal()) == nil {
					select {
					case acc <- struct{}{}:
					default:
					}
				}
			}
		}
	}()
	o.publish(t, ctx, joinEnvelope(t, o.id, name, host.Lobby).Marshal())
	return o, acc
}

// TestLobbyOfTwoWithASilentRevealerEnds: at a table of two the other
// member accepts and never reveals. No table of one can be proposed, and
// the host once waited forever; now, after the time-out, its Run ends
// with a plain error that the game could not start and why (the CLI
// exits non-zero with it).
func TestLobbyOfTwoWithASilentRevealerEnds(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	host := hostForSilentTest(t, 2)
	done := runUntilCleanup(t, ctx, host)
	silentRevealer(t, ctx, host, "Mallory")
	select {
	case err := <-done:
		if !errors.Is(err, ErrStoppedInLobby) || !strings.Contains(err.Error(), "the seat draw of Mallory never came") ||
			!strings.Contains(err.Error(), "needs 2 players and only this peer is left") {
			t.Fatalf("the host's Run returned %v; want it stopped in the lobby, saying Mallory's seat draw never came", err)
		}
	case <-ctx.Done():
		t.Fatal("the host still waits for a seat draw that cannot come")
	}
}

// TestSilentRevealerLeftOutOfTheSeatDraw: Mallory (an outsider's host
// on loopback, with her own key) joins, passes the challenge, accepts the
// roster and then never sends her part of the seat draw. The seat draw
// once waited for her forever. Now every peer's status names her ("waiting
// for Mallory's seat draw"), after the time-out the host proposes the
// table again without her, Bob takes it (he lacks her reveal too), the
// seats are drawn afresh, and the host and Bob play the secret game to
// its end with identical logs that verify.
func TestSilentRevealerLeftOutOfTheSeatDraw(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	host := hostForSilentTest(t, 3)
	var mu sync.Mutex
	var named []string // who named Mallory's seat draw in its status
	var again []string // who was told the table was proposed again without her
	watch := func(who string) func(Update) {
		return func(u Update) {
			mu.Lock()
			defer mu.Unlock()
			for _, w := range u.Status.Waiting {
				if strings.HasPrefix(w.String(), "waiting for Mallory's seat draw (") && !containsPeer(named, who) {
					named = append(named, who)
				}
			}
			for _, ev := range u.Events {
				if ev.Kind == lockstep.EventRoster && strings.Contains(ev.Text, "again without Mallory (no seat draw in time)") {
					again = append(again, who)
				}
			}
		}
	}
	host.OnUpdate(watch("the host"))
	hostDone := runUntilCleanup(t, ctx, host)
	o, accepted := silentRevealer(t, ctx, host, "Mallory")
	bid, err := crypto.GenerateIdentity(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	bob, _, err := JoinLobby(ctx, NetConfig{Identity: bid, Name: "Bob", Home: t.TempDir(), NoQUIC: true, Games: games.Lookup,
		AcceptTimeout: 2 * time.Second, Bot: dragonslair.Game.Bots[0].New(), BotRand: engine.NewRand([]byte("b"))}, Addrs(host.Host)[0].String(), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(bob.Close)
	bob.OnUpdate(watch("Bob"))
	bobDone := runUntilCleanup(t, ctx, bob)
	select {
	case <-accepted:
	case <-time.After(30 * time.Second):
		t.Fatal("Mallory never saw a roster to accept")
	}
	bothEnded(t, ctx, hostDone, bobDone)
	mu.Lock()
	gotNamed, gotAgain := append([]string(nil), named...), append([]string(nil), again...)
	mu.Unlock()
	for _, who := range []string{"the host", "Bob"} {
		if !containsPeer(gotNamed, who) {
			t.Errorf("%s's status never said it waited for Mallory's seat draw", who)
		}
		if !containsPeer(gotAgain, who) {
			t.Errorf("%s was never told the table was proposed again without Mallory", who)
		}
	}
	// Run has returned: the nodes are the test's to read.
	rep := playedToTheEndAlike(t, host, bob)
	for _, m := range rep.Members {
		if m.ID == o.id.ID() {
			t.Fatal("the log's roster holds Mallory")
		}
	}
}

// TestGuardLimitsAMembersRate: a member's signature makes all it floods
// look legitimate, so once there is a roster each member author has a
// bucket (memberBurst, refilled at memberRate a second; state envelopes a
// smaller one of their own). Beyond it the envelopes are ignored (not
// delivered, not forwarded) and counted against that member, and a refill lets
// the member's next envelope through.
func TestGuardLimitsAMembersRate(t *testing.T) {
	t.Parallel()
	self, _ := crypto.GenerateIdentity(rand.Reader)
	member, _ := crypto.GenerateIdentity(rand.Reader)
	var lobby, session crypto.Hash
	lobby[0], session[0] = 1, 2
	g := newGuard(peer.ID(self.ID()), lobby)
	now := time.Unix(1000, 0)
	g.now = func() time.Time { return now }
	g.setSession(session, false)
	g.setMembers([]peer.ID{peer.ID(self.ID()), peer.ID(member.ID())})
	msg := func(kind crypto.Kind, seq uint64) []byte {
		e := &crypto.Envelope{Session: session, Seq: seq, Kind: kind, Body: []byte{1}}
		crypto.Sign(member, e)
		return e.Marshal()
	}
	from := peer.ID(member.ID())
	count := func(kind crypto.Kind, n int) (accepted int) {
		for i := range n {
			if v, _ := g.check(from, msg(kind, uint64(i))); v == Accept {
				accepted++
			}
		}
		return accepted
	}
	if got := count(crypto.KindState, 3*stateBurst); got != stateBurst {
		t.Fatalf("a burst of state envelopes: %d accepted, want %d", got, stateBurst)
	}
	if got := count(crypto.KindAction, memberBurst+500); got != memberBurst-stateBurst {
		t.Fatalf("a member's burst: %d accepted, want %d", got, memberBurst-stateBurst)
	}
	if d := g.drops(); d.OverMemberRate != int64(2*stateBurst+500+stateBurst) || d.Throttled != 0 {
		t.Fatalf("the envelopes over the member's rate were not counted as such: %+v", d)
	}
	if f := g.memberFloods(); len(f) != 1 || f[0].id != from || f[0].n != int64(2*stateBurst+500+stateBurst) {
		t.Fatalf("the flooding member is not the one counted: %+v", f)
	}
	now = now.Add(time.Second)
	if got := count(crypto.KindAction, memberRate+100); got != memberRate {
		t.Fatalf("after a second's refill: %d accepted, want %d", got, memberRate)
	}
	// Bytes: two envelopes of the largest size at once, not three; then
	// one more when the bytes of one have come back.
	huge := func(seq uint64) []byte {
		e := &crypto.Envelope{Session: session, Seq: seq, Kind: crypto.KindAction, Body: make([]byte, crypto.MaxBody)}
		crypto.Sign(member, e)
		return e.Marshal()
	}
	now = now.Add(time.Hour)
	accepted := 0
	for i := range 3 {
		if v, _ := g.check(from, huge(uint64(10000+i))); v == Accept {
			accepted++
		}
	}
	if accepted != 2 {
		t.Fatalf("3 envelopes of the largest size at once: %d accepted, want 2", accepted)
	}
	now = now.Add(time.Duration(float64(MaxEnvelope)/memberBytesRate*float64(time.Second)) + time.Millisecond)
	if v, _ := g.check(from, huge(10003)); v != Accept {
		t.Fatalf("a large envelope once its bytes came back: %v", v)
	}
	if v, _ := g.check(from, huge(10004)); v == Accept {
		t.Fatal("a large envelope over the member's bytes was accepted")
	}
}

// A member's key flooded from another host (a stolen key) spends that
// member's relayed buckets only: the envelopes the member's own host
// hands us still get through (on a secret table the card protocol's
// cannot come back by catch-up), and the flood is still counted against
// the member, named once.
func TestGuardKeepsAMembersOwnHostThroughAStolenKeysFlood(t *testing.T) {
	t.Parallel()
	self, _ := crypto.GenerateIdentity(rand.Reader)
	member, _ := crypto.GenerateIdentity(rand.Reader)
	thief, _ := crypto.GenerateIdentity(rand.Reader)
	var lobby, session crypto.Hash
	lobby[0], session[0] = 1, 2
	g := newGuard(peer.ID(self.ID()), lobby)
	now := time.Unix(1000, 0)
	g.now = func() time.Time { return now }
	g.setSession(session, false)
	g.setMembers([]peer.ID{peer.ID(self.ID()), peer.ID(member.ID())})
	msg := func(seq uint64, size int) []byte {
		e := &crypto.Envelope{Session: session, Seq: seq, Kind: crypto.KindAction, Body: make([]byte, size)}
		crypto.Sign(member, e)
		return e.Marshal()
	}
	flooded := 0
	for i := range 40 {
		if v, _ := g.check(peer.ID(thief.ID()), msg(uint64(1000+i), crypto.MaxBody)); v != Accept {
			flooded++
		}
	}
	if flooded == 0 {
		t.Fatal("a thief's 1 MiB envelopes under the member's key were all accepted")
	}
	for i := range 20 {
		if v, _ := g.check(peer.ID(member.ID()), msg(uint64(i), 300)); v != Accept {
			t.Fatalf("the member's own envelope %d, from its own host, during the flood: %v", i, v)
		}
	}
	if f := g.memberFloods(); len(f) != 1 || f[0].id != peer.ID(member.ID()) || f[0].n != int64(flooded) {
		t.Fatalf("the flood is not counted against the member once: %+v (%d dropped)", f, flooded)
	}
}
