package p2p

import (
	"context"
	"crypto/rand"
	"sync"
	"testing"
	"time"

	"github.com/boardmesh/boardmesh/crypto"
	"github.com/boardmesh/boardmesh/engine"
	"github.com/boardmesh/boardmesh/engine/dragonslair"
	"github.com/boardmesh/boardmesh/lockstep"
	pubsub "github.com/libp2p/go-libp2p-pubsub"
	"github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
)

// silentCatchup is a catch-up handler that takes every stream and never
// answers, holding it until quit: what a hostile peer does to keep one of
// the asker's fetches for the asker's whole deadline. It counts the
// streams by asker.
type silentCatchup struct {
	quit <-chan struct{}
	mu   sync.Mutex
	from map[peer.ID]int
}

func (s *silentCatchup) handle(st network.Stream) {
	s.mu.Lock()
	s.from[st.Conn().RemotePeer()]++
	s.mu.Unlock()
	<-s.quit
	st.Reset()
}

func (s *silentCatchup) streams(p peer.ID) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.from[p]
}

// keyRank is what orders a peer among others when the runner sorts peer
// ids: an ed25519 peer id is a fixed prefix and then the public key.
func keyRank(id *crypto.Identity) byte {
	b := []byte(id.ID())
	return b[len(b)-32]
}

// identityRanked makes an identity whose peer id sorts in [lo, hi) of
// keyRank, so that the test knows the order in which peers are asked.
func identityRanked(t *testing.T, lo, hi byte) *crypto.Identity {
	t.Helper()
	for range 10000 {
		id, err := crypto.GenerateIdentity(rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		if r := keyRank(id); r >= lo && r < hi {
			return id
		}
	}
	t.Fatalf("no identity ranked in [%d, %d)", lo, hi)
	return nil
}

// silentOutsider is a peer outside the roster, on loopback, connected to
// targets and subscribed to the lobby's session topic (which the topic
// lets anyone do), that takes catch-up streams and never answers.
func silentOutsider(t *testing.T, ctx context.Context, lobby crypto.Hash, targets []peer.AddrInfo, s *silentCatchup) host.Host {
	t.Helper()
	key, err := HostKey(identityRanked(t, 0, 0x40))
	if err != nil {
		t.Fatal(err)
	}
	h, err := NewHost(HostConfig{Key: key, NoQUIC: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	for _, p := range targets {
		cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		err := h.Connect(cctx, p)
		cancel()
		if err != nil {
			t.Fatalf("outsider: connect to %s: %v", p.ID, err)
		}
	}
	ps, err := NewPubSub(ctx, h, targets)
	if err != nil {
		t.Fatal(err)
	}
	tp, err := ps.Join(TopicName(lobby.String()))
	if err != nil {
		t.Fatal(err)
	}
	sub, err := tp.Subscribe(pubsub.WithBufferSize(1 << 12))
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		for {
			if _, err := sub.Next(ctx); err != nil {
				return
			}
		}
	}()
	h.SetStreamHandler(CatchupProtocol, s.handle)
	return h
}

func addrInfo(h host.Host) peer.AddrInfo { return peer.AddrInfo{ID: h.ID(), Addrs: h.Addrs()} }

// TestFetchPastSilentOutsiders: anyone may subscribe to a table's topic,
// and a gap request that names no peer (a restarted peer's ask, a wait
// for cards) went to the topic's peers in turn: outsiders that take the
// catch-up stream and never answer each held one of the asker's four
// fetches for 30 s, so a few of them kept a member's answers from ever
// being fetched. Here six such outsiders, whose peer ids sort before the
// members' (they would be asked first), join a secret three-player table
// mid-game. Bob stops and resumes; restarted, he waits until he has
// caught up and until every other seat has answered his card catch-up,
// and Ada and Cy vote out a seat that keeps them waiting 25 s. He must
// ask the members only, catch up, and the game must end identically
// everywhere with nobody blamed or voted out; no outsider may get a
// single catch-up stream from a member once the roster is known.
func TestFetchPastSilentOutsiders(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Second)
	defer cancel()
	quit := make(chan struct{})
	defer close(quit) // before the hosts close (t.Cleanup runs after)
	outside := &silentCatchup{quit: quit, from: map[peer.ID]int{}}

	var mu sync.Mutex
	var blamed []string
	watch := func(name string) func(Update) {
		return func(u Update) {
			mu.Lock()
			defer mu.Unlock()
			for _, ev := range u.Events {
				switch ev.Kind {
				case lockstep.EventCheat, lockstep.EventEquivocation, lockstep.EventRejected,
					lockstep.EventDesync, lockstep.EventDropVote, lockstep.EventDropped:
					blamed = append(blamed, name+": "+ev.String())
				}
			}
		}
	}
	// Ada and Bob rank last, Cy between them and the outsiders: a
	// runner that sorts peer ids asks the outsiders first, then Cy.
	ac, bc, cc := botConfig(t, "Ada", 1), botConfig(t, "Bob", 2), botConfig(t, "Cy", 3)
	ac.Identity, bc.Identity, cc.Identity = identityRanked(t, 0x80, 0xff), identityRanked(t, 0x80, 0xff), identityRanked(t, 0x40, 0x80)
	ac.StartWhen = 3
	// Ada and Cy vote out a seat that keeps them waiting this long: a
	// restarted Bob whose catch-up is held is dropped, honest as he is.
	ac.DropAfter, cc.DropAfter = 25*time.Second, 25*time.Second
	ada, err := HostLobby(ac, dragonslair.Game, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ada.Close()
	ada.OnUpdate(watch("ada"))
	adaErr := make(chan error, 1)
	go func() { adaErr <- ada.Run(ctx) }()
	join := func(c NetConfig) *NetPeer {
		p, _, err := JoinLobby(ctx, c, Addrs(ada.Host)[0].String(), time.Second)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	bob, cy := join(bc), join(cc)
	defer cy.Close()
	bob.OnUpdate(watch("bob"))
	cy.OnUpdate(watch("cy"))
	cyErr := make(chan error, 1)
	go func() { cyErr <- cy.Run(ctx) }()
	bctx, bcancel := context.WithCancel(ctx)
	bobErr := make(chan error, 1)
	go func() { bobErr <- bob.Run(bctx) }()
	for len(logRecords(t, bob.Log.Path())) < 90 {
		select {
		case err := <-bobErr:
			t.Fatalf("bob ended before the restart: %v", err)
		case <-ctx.Done():
			t.Fatal("bob's game did not get going")
		case <-time.After(10 * time.Millisecond):
		}
	}
	var phase lockstep.Phase
	if err := bob.Runner.Do(ctx, func(n *lockstep.Node) error { phase = n.Status().Phase; return nil }); err != nil || phase != lockstep.PhasePlaying {
		t.Fatalf("bob is %s (%v), not playing, before the restart", phase, err)
	}
	// Mid-game, with the roster known to all, the outsiders arrive.
	var outsiders []host.Host
	for range 6 {
		outsiders = append(outsiders, silentOutsider(t, ctx, ada.Lobby, []peer.AddrInfo{addrInfo(ada.Host), addrInfo(bob.Host), addrInfo(cy.Host)}, outside))
	}

	bcancel()
	<-bobErr
	bob.Close()
	dir, meta, err := FindSession(bc.Home, "")
	if err != nil {
		t.Fatal(err)
	}
	rc := bc
	rc.Bot, rc.BotRand = dragonslair.Game.Bots[len(dragonslair.Game.Bots)-1].New(), engine.NewRand([]byte{2})
	bob2, err := ResumeSession(ctx, rc, dir, meta)
	if err != nil {
		t.Fatal(err)
	}
	defer bob2.Close()
	bob2.OnUpdate(watch("bob, resumed"))
	// The outsiders are on the resumed peer's topic before it asks
	// anything, so that they are in the turn a runner takes.
	var ids []peer.ID
	for _, o := range outsiders {
		// The outsider's swarm may hold a dial backoff for bob's port from
		// while bob was down (a redial it made then failed): that is the
		// outsider's state, not the test's subject, so try again until
		// the backoff has passed.
		cctx, ccancel := context.WithTimeout(ctx, 20*time.Second)
		err := o.Connect(cctx, addrInfo(bob2.Host))
		for err != nil && cctx.Err() == nil {
			time.Sleep(250 * time.Millisecond)
			err = o.Connect(cctx, addrInfo(bob2.Host))
		}
		ccancel()
		if err != nil {
			t.Fatalf("outsider: connect to the resumed bob: %v", err)
		}
		ids = append(ids, o.ID())
	}
	wctx, wcancel := context.WithTimeout(ctx, 15*time.Second)
	err = bob2.Runner.topic.WaitPeers(wctx, ids)
	wcancel()
	if err != nil {
		t.Fatalf("the outsiders are not on the resumed bob's topic: %v", err)
	}
	start := time.Now()
	go func() { bobErr <- bob2.Run(ctx) }()
	for _, r := range []struct {
		name string
		err  chan error
	}{{"ada", adaErr}, {"cy", cyErr}, {"the resumed bob", bobErr}} {
		select {
		case err := <-r.err:
			if err != nil {
				t.Errorf("%s: %v", r.name, err)
			}
		case <-ctx.Done():
			t.Errorf("%s did not finish the game: %v", r.name, ctx.Err())
		}
	}
	t.Logf("the game ended %s after bob resumed", time.Since(start).Round(100*time.Millisecond))
	members := map[string]peer.ID{"ada": ada.Host.ID(), "bob": bob2.Host.ID(), "cy": cy.Host.ID()}
	for name, id := range members {
		if n := outside.streams(id); n > 0 {
			t.Errorf("%s opened %d catch-up streams to outsiders after the roster", name, n)
		}
	}
	mu.Lock()
	for _, b := range blamed {
		t.Errorf("blamed or voted on: %s", b)
	}
	mu.Unlock()
	if t.Failed() {
		return
	}
	logs := map[string][]*crypto.Envelope{"ada": ada.Node.Log(), "bob": bob2.Node.Log(), "cy": cy.Node.Log()}
	for name, l := range logs {
		if len(l) != len(logs["ada"]) {
			t.Fatalf("%s committed %d entries, ada %d", name, len(l), len(logs["ada"]))
		}
		for i := range l {
			if !crypto.Equal(l[i], logs["ada"][i]) {
				t.Fatalf("entry %d differs between %s and ada", i, name)
			}
		}
		if st := map[string]*NetPeer{"ada": ada, "bob": bob2, "cy": cy}[name].Node.Status(); st.Phase != lockstep.PhaseOver {
			t.Errorf("%s ended in phase %s, not with the game over", name, st.Phase)
		}
	}
}

// TestFetchPassesOverABusyMember: a member that takes the catch-up stream
// and never answers (Dee, at an open table of four) holds the asker's
// fetch until its deadline. Asked in turn, it is passed over while it
// holds one, so it keeps one of the asker's four fetches at most, not a
// new one at each of its turns; the outsiders on the topic, whose peer
// ids sort first, are never asked; and the game ends identically.
func TestFetchPassesOverABusyMember(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	quit := make(chan struct{})
	release := sync.OnceFunc(func() { close(quit) })
	outside := &silentCatchup{quit: quit, from: map[peer.ID]int{}}
	inside := &silentCatchup{quit: quit, from: map[peer.ID]int{}}
	names := []string{"ada", "bob", "cy", "dee"}
	const bob, dee = 1, 3
	g := dragonslair.Game
	var keys []*crypto.Identity
	var bots []engine.Bot
	for i := range names {
		if i == dee {
			keys = append(keys, identityRanked(t, 0x40, 0x80))
		} else {
			keys = append(keys, identityRanked(t, 0x80, 0xff))
		}
		bots = append(bots, g.Bots[i%len(g.Bots)].New())
	}
	var mu sync.Mutex
	var blamed []string
	tbl, err := NewTable(ctx, TableConfig{Game: g, Names: names, Bots: bots, Keys: keys, Seed: []byte(t.Name()),
		Dir: t.TempDir(), BotDelay: 30 * time.Millisecond,
		OnUpdate: func(i int, u Update) {
			mu.Lock()
			defer mu.Unlock()
			for _, ev := range u.Events {
				switch ev.Kind {
				case lockstep.EventCheat, lockstep.EventEquivocation, lockstep.EventRejected,
					lockstep.EventDesync, lockstep.EventDropVote, lockstep.EventDropped:
					blamed = append(blamed, names[i]+": "+ev.String())
				}
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer tbl.Close()
	defer release() // before the table's hosts close
	runErr := make(chan error, 1)
	go func() { runErr <- tbl.Run(ctx) }()
	r := tbl.Peers[bob].Runner
	for {
		var st lockstep.Status
		if err := r.Do(ctx, func(n *lockstep.Node) error { st = n.Status(); return nil }); err != nil {
			t.Fatalf("bob: %v", err)
		}
		if st.Phase == lockstep.PhasePlaying && st.Seq >= 3 {
			break
		}
		if st.Phase > lockstep.PhasePlaying {
			t.Fatalf("bob's game ended (%s) before the test", st.Phase)
		}
		time.Sleep(10 * time.Millisecond)
	}
	var targets []peer.AddrInfo
	for _, p := range tbl.Peers {
		targets = append(targets, addrInfo(p.Host))
	}
	var ids []peer.ID
	for range 2 {
		ids = append(ids, silentOutsider(t, ctx, tbl.Lobby, targets, outside).ID())
	}
	wctx, wcancel := context.WithTimeout(ctx, 15*time.Second)
	err = r.topic.WaitPeers(wctx, ids)
	wcancel()
	if err != nil {
		t.Fatalf("the outsiders are not on bob's topic: %v", err)
	}
	tbl.Peers[dee].Host.SetStreamHandler(CatchupProtocol, inside.handle)
	// Nine gap requests that name no peer, as a stalled or restarted
	// node makes them: three turns of the three members, each a while
	// apart (an honest answer comes back within it).
	for range 9 {
		err := r.Do(ctx, func(n *lockstep.Node) error {
			r.fetch(r.ctx, lockstep.GapRequest{From: uint64(len(n.Log()))})
			return nil
		})
		if err != nil {
			t.Fatalf("bob's game ended before the asks: %v", err)
		}
		time.Sleep(300 * time.Millisecond)
	}
	if n := inside.streams(tbl.Peers[bob].Host.ID()); n != 1 {
		t.Errorf("dee, which never answers, got %d of bob's catch-up streams in nine asks within its deadline, want 1", n)
	}
	// Dee resets its streams from now on: bob's fetch it held ends, and
	// bob's runner need not wait out its deadline when the game ends.
	release()
	select {
	case err := <-runErr:
		if err != nil {
			t.Fatalf("the table: %v", err)
		}
	case <-ctx.Done():
		t.Fatalf("the game did not end: %v", ctx.Err())
	}
	for i, p := range tbl.Peers {
		if n := outside.streams(p.Host.ID()); n > 0 {
			t.Errorf("%s opened %d catch-up streams to outsiders after the roster", names[i], n)
		}
		if p.Result() == nil {
			t.Errorf("%s saw no result", names[i])
		}
		if p.LogHash() != tbl.Peers[0].LogHash() {
			t.Errorf("%s's log differs from ada's", names[i])
		}
	}
	mu.Lock()
	defer mu.Unlock()
	for _, b := range blamed {
		t.Errorf("blamed or voted on: %s", b)
	}
}
