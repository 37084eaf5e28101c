package cardsource_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/boardmesh/boardmesh/crypto"
	"github.com/boardmesh/boardmesh/engine"
	"github.com/boardmesh/boardmesh/engine/dragonslair"
	"github.com/boardmesh/boardmesh/engine/games"
	"github.com/boardmesh/boardmesh/engine/infinitecity"
	"github.com/boardmesh/boardmesh/lockstep"
	"github.com/boardmesh/boardmesh/lockstep/cardsource"
)

// nodeTable is a table of lockstep nodes over a simulated broadcast
// network that hands every peer the marshalled bytes of every message,
// and records them (what a spy would keep).
type nodeTable struct {
	t       *testing.T
	nodes   []*lockstep.Node
	inbox   [][][]byte
	got     [][][]byte
	entries [][]*crypto.Envelope
	secrets [][]byte
	cheats  []string
	// What each peer has on disk, as a runner keeps it (restart_test.go):
	// its log file and its card-key file; ids and the clock to remake
	// and tick nodes.
	ids       []*crypto.Identity
	disk      [][]byte
	keys      [][]byte
	synced    []int // length of disk[i] at its last fsync
	now       int64
	lostCards int // card records cut with a torn tail
	// crashTorn marks the peers to crash together, with torn tails, as
	// soon as one of them has an unsynced card record (crashNow).
	crashTorn []bool
	crashSeed string
	crashes   int
	// bot plays every seat (engine.RandomBot if nil).
	bot    engine.Bot
	events [][]lockstep.Event
	// gone, if >= 0, is a peer that freezes when it is about to send its
	// goneAfter'th share envelope: that and nothing after goes out, and it
	// is no longer run, until the test sets gone to -1 (it comes back).
	gone, goneAfter, shares int
	// goneToo are peers that vanish with gone, at the same moment.
	goneToo []int
	// goneKind, if set, is the kind counted for goneAfter instead of
	// share envelopes (crypto.KindShuffle: it freezes before a shuffle).
	goneKind crypto.Kind
	// mute, if >= 0, is a peer whose envelopes from its muteAfter'th
	// after its escrow on are lost on the way, and that answers no
	// catch-up, while it goes on by itself: a host closed while its node
	// still commits what it signs. (muted counts them; escrowed says its
	// escrow went out.)
	mute, muteAfter, muted int
	// lost, if set, says that peer from's answer to peer to's gap
	// request q never arrives (the runner sent q elsewhere).
	lost     func(from, to int, q lockstep.GapRequest) bool
	escrowed bool
	held     []*crypto.Envelope // what the gone peer had not sent yet
	heldFrom int
	// tamper, if set, may replace what a peer sends (a modified client:
	// it signs what it returns itself).
	tamper func(from int, env *crypto.Envelope) *crypto.Envelope
	// withhold, if set, keeps what a peer sends from the others, in its
	// messages and in its answers to catch-up requests (a late envelope).
	withhold func(from int, env *crypto.Envelope) bool
	// left marks peers no longer run (a cheater the others dropped), and
	// cheatsOK lets playTicking go on where a test expects cheats named.
	left     []bool
	cheatsOK bool
	// miss, if set, loses on the way to peer to what it returns true for.
	miss func(to int, env *crypto.Envelope) bool
	// onIdle, if set, is called by playTicking each time the table has
	// settled, before the clock moves (a test's late deliveries).
	onIdle func()
	// tune is newNodeGameTable's, for a restarted node's config too.
	tune func(i int, c *lockstep.Config)
}

func newNodeTable(t *testing.T, n int, seed string, openHands bool) *nodeTable {
	t.Helper()
	return newNodeTableOf(t, infinitecity.Game, n, seed, openHands)
}

// newNodeTableOf is newNodeTable for game g.
func newNodeTableOf(t *testing.T, g *engine.Game, n int, seed string, openHands bool) *nodeTable {
	t.Helper()
	return newNodeGameTable(t, g, n, seed, openHands, nil)
}

// newNodeGameTable is newNodeTableOf with tune, if set, changing each
// peer's config.
func newNodeGameTable(t *testing.T, g *engine.Game, n int, seed string, openHands bool, tune func(i int, c *lockstep.Config)) *nodeTable {
	t.Helper()
	nt := &nodeTable{t: t, inbox: make([][][]byte, n), got: make([][][]byte, n), entries: make([][]*crypto.Envelope, n), secrets: make([][]byte, n),
		disk: make([][]byte, n), keys: make([][]byte, n), synced: make([]int, n), events: make([][]lockstep.Event, n), gone: -1, mute: -1}
	for i := 0; i < n; i++ {
		var k [32]byte
		copy(k[:], fmt.Sprintf("%s id %d", seed, i))
		id, err := crypto.GenerateIdentity(rand.NewChaCha8(k))
		if err != nil {
			t.Fatal(err)
		}
		nt.ids = append(nt.ids, id)
		nt.disk[i] = lockstep.AppendLogHeader(nil)
		copy(k[:], fmt.Sprintf("%s cards %d", seed, i))
		cfg := lockstep.Config{Identity: id, Name: fmt.Sprintf("P%d", i+1), Games: games.Lookup,
			Cards: cardsource.Maker(rand.NewChaCha8(k)), OpenHands: openHands}
		if tune != nil {
			tune(i, &cfg)
		}
		node, err := lockstep.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		nt.nodes = append(nt.nodes, node)
	}
	nt.tune = tune
	lobby := crypto.Hash{7}
	if err := nt.nodes[0].Host(lobby, g, nil); err != nil {
		t.Fatal(err)
	}
	for _, node := range nt.nodes[1:] {
		if err := node.Join(lobby); err != nil {
			t.Fatal(err)
		}
	}
	nt.run()
	if err := nt.nodes[0].Propose(); err != nil {
		t.Fatal(err)
	}
	return nt
}

// run moves messages until nothing moves: every Ready handled, every
// message delivered, every shuffle proof made and checked.
func (nt *nodeTable) run() bool {
	busy := false
	if nt.gone < 0 && len(nt.held) > 0 {
		// The peer that was gone is back: what it held goes out.
		for _, env := range nt.held {
			for j := range nt.nodes {
				if j != nt.heldFrom {
					nt.inbox[j] = append(nt.inbox[j], env.Marshal())
				}
			}
		}
		nt.held = nil
	}
	for guard := 0; guard < 1_000_000; guard++ {
		moved := false
		for i := range nt.nodes {
			if !nt.live(i) {
				continue
			}
			for nt.nodes[i].HasReady() {
				node := nt.nodes[i]
				rd := node.Ready()
				msgs := rd.Messages
				if i == nt.gone {
					for k, env := range msgs {
						if kind := nt.goneKind; env.Kind == crypto.KindShare && kind == 0 || kind != 0 && env.Kind == kind {
							if nt.shares++; nt.shares >= nt.goneAfter {
								// It freezes here: the rest goes out
								// when it comes back (gone = -1).
								nt.held = append(nt.held, msgs[k:]...)
								msgs = msgs[:k]
								break
							}
						}
					}
					nt.heldFrom = i
				}
				if rd.CardSecret != nil {
					nt.secrets[i] = append([]byte(nil), rd.CardSecret...)
					nt.keys[i] = lockstep.EncodeCardKey(node.Status().Session, rd.CardSecret)
				}
				nt.entries[i] = append(nt.entries[i], rd.Entries...)
				nt.persist(i, rd)
				if nt.crashTorn != nil && nt.crashTorn[i] && nt.unsyncedCards(i) {
					// A power cut now: before this Ready's messages leave,
					// with card envelopes taken but not yet fsynced.
					nt.crashNow()
					moved = true
					break
				}
				for _, env := range msgs {
					if i == nt.mute && nt.escrowed {
						if nt.muted++; nt.muted >= nt.muteAfter {
							continue
						}
					}
					if i == nt.mute && env.Kind == crypto.KindEscrow {
						nt.escrowed = true
					}
					if nt.tamper != nil {
						env = nt.tamper(i, env)
					}
					if nt.withhold != nil && nt.withhold(i, env) {
						continue
					}
					b := env.Marshal()
					for j := range nt.nodes {
						if j != i && (nt.miss == nil || !nt.miss(j, env)) {
							nt.inbox[j] = append(nt.inbox[j], b)
							nt.got[j] = append(nt.got[j], b)
						}
					}
				}
				nt.events[i] = append(nt.events[i], rd.Events...)
				for _, ev := range rd.Events {
					if ev.Kind == lockstep.EventCheat || ev.Kind == lockstep.EventDesync || ev.Kind == lockstep.EventRefused {
						nt.cheats = append(nt.cheats, fmt.Sprintf("peer %d: %s", i+1, ev.Text))
					}
				}
				node.Advance()
				for _, q := range rd.Requests {
					nt.answer(i, q)
				}
				moved = true
			}
		}
		for j, node := range nt.nodes {
			if !nt.live(j) {
				continue // what reaches it waits in its inbox
			}
			for len(nt.inbox[j]) > 0 {
				b := nt.inbox[j][0]
				nt.inbox[j] = nt.inbox[j][1:]
				env, err := crypto.Unmarshal(b)
				if err != nil {
					nt.t.Fatal(err)
				}
				_ = node.Step(env)
				moved = true
			}
		}
		if !moved {
			for i, node := range nt.nodes {
				if !nt.live(i) {
					continue
				}
				if node.HasWork() {
					moved = node.Work() || moved
				}
			}
		}
		if !moved {
			return busy
		}
		busy = true
	}
	nt.t.Fatal("the network never settles")
	return busy
}

// play plays the game to its end with random bots on each seat's own node.
func (nt *nodeTable) play() { nt.playWith(nil) }

// playWith is play with hook called before each round of moves (a test
// crashes and restarts peers there).
func (nt *nodeTable) playWith(hook func(step int)) {
	r := engine.NewRand([]byte("bots"))
	for steps := 0; steps < 5000; steps++ {
		if hook != nil {
			hook(steps)
		}
		busy := nt.run()
		for tick := 0; !busy && tick < 20 && nt.nodes[0].Status().Phase != lockstep.PhaseOver; tick++ {
			// Nothing moves: let time pass (a restarted peer asks the
			// others to catch up; a stalled deal re-sends and asks).
			nt.now += 1000
			for _, node := range nt.nodes {
				node.Tick(nt.now)
			}
			busy = nt.run()
		}
		if len(nt.cheats) > 0 {
			nt.t.Fatalf("cheats named at an honest table: %v", nt.cheats)
		}
		for _, node := range nt.nodes {
			if node.CanAct() {
				st := node.State()
				var bot engine.Bot = engine.RandomBot{}
				if nt.bot != nil {
					bot = nt.bot
				}
				if err := node.Act(bot.Choose(st, st.Legal(nil), r)); err != nil {
					nt.t.Fatal(err)
				}
				busy = true
			}
		}
		if nt.nodes[0].Status().Phase == lockstep.PhaseOver {
			nt.run()
			return
		}
		if !busy {
			nt.t.Fatalf("the table stalls at seq %d: %v", nt.nodes[0].Status().Seq, nt.nodes[0].Waiting())
		}
	}
	nt.t.Fatal("the game does not end")
}

// TestNodeSecretTable plays whole Infinite City games on secret tables of
// lockstep nodes: the roster makes every peer's table secret, the game
// ends, every peer commits the same log and holds the same shared state,
// and a seat's engine never holds a tile opened to another seat only.
func TestNodeSecretTable(t *testing.T) {
	for _, n := range []int{2, 3} {
		t.Run(fmt.Sprintf("%d seats", n), func(t *testing.T) {
			nt := newNodeTable(t, n, fmt.Sprintf("node %d", n), false)
			nt.play()
			for i, node := range nt.nodes {
				if !node.Secret() {
					t.Fatalf("peer %d's table is not secret", i+1)
				}
				if node.Status().Phase != lockstep.PhaseOver {
					t.Fatalf("peer %d: phase %v", i+1, node.Status().Phase)
				}
				if !bytes.Equal(engine.Encode(node.State()), engine.Encode(nt.nodes[0].State())) {
					t.Fatalf("peer %d's shared state differs from peer 1's", i+1)
				}
				nt.sameEntries(i)
				if len(nt.secrets[i]) == 0 {
					t.Fatalf("peer %d's card key never reached its runner", i+1)
				}
			}
			rep, err := lockstep.Verify(nt.entries[0], games.Lookup)
			if err != nil || rep.Result == nil {
				t.Fatalf("the secret table's log does not verify: %v", err)
			}
			if !bytes.Equal(engine.Encode(rep.Final), engine.Encode(nt.nodes[0].State())) {
				t.Fatal("the replayed final state is not the table's")
			}
			// The spy (each peer in turn): tiles opened to another seat only.
			for spy, node := range nt.nodes {
				c := node.State().(engine.CardState).Cards()
				all := bytes.Join(nt.got[spy], nil)
				hidden := 0
				for pos := 0; c.Valid(engine.Handle{Pos: uint16(pos)}); pos++ {
					h := engine.Handle{Pos: uint16(pos)}
					if _, pub := c.Public(h); pub || c.Seen(h, spy) {
						continue
					}
					for s := range nt.nodes {
						if s != spy && c.Seen(h, s) {
							hidden++
							if _, ok := c.Value(h, spy); ok {
								t.Fatalf("seat %d's engine knows %s, opened to seat %d only", spy+1, h, s+1)
							}
						}
					}
				}
				for s := range nt.nodes {
					if s != spy && bytes.Contains(all, nt.secrets[s]) {
						t.Fatalf("peer %d received seat %d's card key", spy+1, s+1)
					}
				}
				if hidden == 0 {
					t.Fatalf("seat %d never faced a hidden tile of another seat", spy+1)
				}
			}
		})
	}
}

// TestVerifierFollowsSecretLog feeds a whole secret Dragon's Lair game's
// log to a Verifier one entry at a time, as the history view and a
// spectator do: a card turned over is passed with the list the next
// action carries, even when a checkpoint comes between (the history used
// to stop there: "the log does not say which card ... was"), and the end
// is Verify's.
func TestVerifierFollowsSecretLog(t *testing.T) {
	nt := newNodeTableOf(t, dragonslair.Game, 3, "verifier", false)
	nt.play()
	log := nt.entries[0]
	want, err := lockstep.Verify(log, games.Lookup)
	if err != nil || want.Result == nil {
		t.Fatalf("the secret table's log does not verify: %v", err)
	}
	v := lockstep.NewVerifier(games.Lookup)
	for i, env := range log {
		if err := v.Feed(env); err != nil {
			t.Fatalf("entry %d of %d: %v", i, len(log), err)
		}
		if v.Len() != i+1 {
			t.Fatalf("after %d entries the Verifier says it took %d", i+1, v.Len())
		}
	}
	got := v.Replay()
	if got.Phase != lockstep.PhaseOver || got.Result == nil || !bytes.Equal(engine.Encode(got.Final), engine.Encode(want.Final)) {
		t.Fatalf("fed one at a time: phase %v, result %v; not Verify's end", got.Phase, got.Result)
	}
	// A live peer's history is told from its own state's public cards: a
	// card turned over is passed at the action that turned it over (the
	// next may be a human's, far off), and the end is the same.
	c := nt.nodes[0].State().(engine.CardState).Cards()
	hinted := lockstep.NewVerifier(games.Lookup)
	hinted.SetCardHint(func(h engine.Handle) (int, bool) {
		v, ok := c.Public(h)
		return int(v), ok && c.Valid(h)
	})
	early := 0
	for i, env := range log {
		before := len(hinted.Replay().Steps)
		if err := hinted.Feed(env); err != nil {
			t.Fatalf("with the hint, entry %d of %d: %v", i, len(log), err)
		}
		// As the recorder does once it has fed what it has.
		if err := hinted.PassCards(); err != nil {
			t.Fatalf("with the hint, after entry %d of %d: %v", i, len(log), err)
		}
		if env.Kind == crypto.KindAction && len(hinted.Replay().Steps) > before+1 {
			early++
		}
	}
	if early == 0 {
		t.Fatal("with the hint no card turned over was told at the move that turned it over")
	}
	if r := hinted.Replay(); !bytes.Equal(engine.Encode(r.Final), engine.Encode(want.Final)) {
		t.Fatal("with the hint the end is not Verify's")
	}
}

// TestNodeOpenHands: a host with OpenHands opens an open table as before
// secret tables: the roster is not secret, no card envelope travels, and
// the log verifies on its own.
func TestNodeOpenHands(t *testing.T) {
	nt := newNodeTable(t, 2, "open", true)
	nt.play()
	for i, node := range nt.nodes {
		if node.Secret() {
			t.Fatalf("peer %d's open-hands table is secret", i+1)
		}
		for _, b := range nt.got[i] {
			env, _ := crypto.Unmarshal(b)
			if env.Kind.Card() {
				t.Fatalf("peer %d received a %s envelope at an open table", i+1, env.Kind)
			}
		}
	}
	if _, err := lockstep.Verify(nt.entries[0], games.Lookup); err != nil {
		t.Fatalf("the open table's log does not verify: %v", err)
	}
}

// TestSecretLogVerifiesAsItGrows: for every game with hidden cards, a
// secret table's log verifies on its own (Verify, `boardmesh replay`) and
// also entry by entry as it grows (Verifier, a spectator polling the
// log): a card opened to everyone is told by the next action's list, and
// where no action follows (a spectator's log that ends at a checkpoint,
// a game whose last step turned a card over) by the state hash the next
// entry signs. The replayed final state is the table's shared state, and
// a spectator's engine holds no card that is not public.
func TestSecretLogVerifiesAsItGrows(t *testing.T) {
	t.Parallel() // its own simulated clock and disks: it runs beside the others
	for _, g := range hiddenCardGames(t, 0) {
		t.Run(g.Name, func(t *testing.T) {
			nt := newNodeTableOf(t, g, 3, "grow "+g.Name, false)
			nt.bot = g.Bots[0].New()
			nt.play()
			log := nt.entries[0]
			rep, err := lockstep.Verify(log, games.Lookup)
			if err != nil || rep.Result == nil {
				t.Fatalf("the log does not verify: %v", err)
			}
			if rep.Mode != "secret table" {
				t.Errorf("the replay says the table is %q", rep.Mode)
			}
			if engine.Hash(rep.Final) != engine.Hash(nt.nodes[0].State()) {
				t.Fatal("the replayed final state is not the table's")
			}
			v := lockstep.NewVerifier(games.Lookup)
			for i, env := range log {
				if err := v.Feed(env); err != nil {
					t.Fatalf("fed one at a time, entry %d of %d does not verify: %v", i, len(log), err)
				}
			}
			grown := v.Replay()
			if grown.Result == nil || engine.Hash(grown.Final) != engine.Hash(rep.Final) {
				t.Fatal("the log verified as it grew ends elsewhere than the whole log")
			}
			c := grown.Final.(engine.CardState).Cards()
			hidden := 0
			for d := 0; d < c.NumDecks(); d++ {
				for p := 0; c.Valid(engine.Handle{Deck: uint8(d), Pos: uint16(p)}); p++ {
					h := engine.Handle{Deck: uint8(d), Pos: uint16(p)}
					if _, pub := c.Public(h); pub {
						continue
					}
					hidden++
					for s := 0; s < 3; s++ {
						if v, ok := c.Value(h, s); ok {
							t.Fatalf("the spectator's engine knows %s (card %d) as seat %d would", h, v, s+1)
						}
					}
				}
			}
			t.Logf("%d entries verified whole and one by one; %d cards never public, none known to the spectator", len(log), hidden)
		})
	}
}

// TestNodeSecretTableHandBackAfterSwaps replays the two seeds whose games
// pass a tile from seat A to seat B and back to A by two Embassy swaps:
// A's later move that shows the tile once failed ("not in this seat's
// hand"), since the engine asked no new opening (A had seen it) while the
// deal still held B as its holder. Both games must end, identical.
func TestNodeSecretTableHandBackAfterSwaps(t *testing.T) {
	for _, seed := range []string{"s32", "s37"} {
		t.Run(seed, func(t *testing.T) {
			nt := newNodeTable(t, 2, seed, false)
			nt.play()
			for i, node := range nt.nodes {
				if node.Status().Phase != lockstep.PhaseOver {
					t.Fatalf("peer %d: phase %v", i+1, node.Status().Phase)
				}
				if !bytes.Equal(engine.Encode(node.State()), engine.Encode(nt.nodes[0].State())) {
					t.Fatalf("peer %d's shared state differs from peer 1's", i+1)
				}
			}
		})
	}
}

// hiddenCardGames returns the games whose state at a table of seats (0:
// each game's default) holds hidden cards (engine.CardState): the ones a
// secret table deals.
func hiddenCardGames(t *testing.T, seats int) []*engine.Game {
	t.Helper()
	var gs []*engine.Game
	for _, g := range games.All() {
		n := seats
		if n == 0 {
			n = g.DefaultPlayers
		}
		st, err := g.Setup(n, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := st.(engine.CardState); ok {
			gs = append(gs, g)
		}
	}
	return gs
}
