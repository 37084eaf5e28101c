package cardsource_test

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/boardmesh/boardmesh/crypto"
	"github.com/boardmesh/boardmesh/engine"
	"github.com/boardmesh/boardmesh/engine/infinitecity"
	"github.com/boardmesh/boardmesh/lockstep"
	"github.com/boardmesh/boardmesh/lockstep/cardsource"
	"github.com/boardmesh/boardmesh/lockstep/deal"
)

// peer is one seat's peer: its card source and, as a spy would keep them,
// the bytes of every message it received.
type peer struct {
	src    *cardsource.Source
	inbox  [][]byte
	got    [][]byte
	secret []byte // its mental-poker key (Ready.Secret): never sent
	cheats []string
	// shown holds every card the deal opened privately to this seat, ever
	// (its EventOpened): on a secret table the engine's Seen is only the
	// card's holder now, so a card passed on is no longer Seen, though
	// the seat legitimately knows it.
	shown map[engine.Handle]bool
}

// table is a secret table of real mental poker over a simulated broadcast
// network that delivers every message, marshalled, to every other peer.
type table struct {
	t     *testing.T
	peers []*peer
	seq   uint64 // the next move's number (the share of a reveal is bound to it)
	beac  uint64
	seed  string
	// corrupt, when set, changes the reveals of the next move before they
	// are sent (a hostile mover).
	corrupt func([]cardsource.Revealed)
}

func newTable(t *testing.T, n int, seed string) *table {
	t.Helper()
	return newGameTable(t, infinitecity.Game, n, seed)
}

// newGameTable is newTable for any game with hidden cards.
func newGameTable(t *testing.T, g *engine.Game, n int, seed string) *table {
	t.Helper()
	var ids []*crypto.Identity
	var seats []crypto.PeerID
	for i := 0; i < n; i++ {
		var k [32]byte
		copy(k[:], fmt.Sprintf("%s id %d", seed, i))
		id, err := crypto.GenerateIdentity(rand.NewChaCha8(k))
		if err != nil {
			t.Fatal(err)
		}
		ids, seats = append(ids, id), append(seats, id.ID())
	}
	tb := &table{t: t, seed: seed}
	sess := crypto.Hash{1, 2, 3}
	for i, id := range ids {
		st, err := g.Setup(n, nil)
		if err != nil {
			t.Fatal(err)
		}
		var k [32]byte
		copy(k[:], fmt.Sprintf("%s rand %d", seed, i))
		src, err := cardsource.New(st.(engine.CardState), deal.Config{Identity: id, Session: sess, Seats: seats, Rand: rand.NewChaCha8(k)})
		if err != nil {
			t.Fatal(err)
		}
		tb.peers = append(tb.peers, &peer{src: src})
	}
	return tb
}

func (tb *table) broadcast(from int, msg []byte) {
	for i, p := range tb.peers {
		if i != from {
			p.inbox = append(p.inbox, msg)
			p.got = append(p.got, msg)
		}
	}
}

// drain sends what each peer's source produced; it reports whether
// anything moved.
func (tb *table) drain() bool {
	moved := false
	for i, p := range tb.peers {
		for p.src.HasReady() {
			rd := p.src.Ready()
			if rd.Secret != nil {
				p.secret = append([]byte(nil), rd.Secret...)
			}
			for _, env := range rd.Messages {
				tb.broadcast(i, append([]byte{'c'}, env.Marshal()...))
			}
			for _, ev := range rd.Events {
				if ev.Kind == deal.EventCheat {
					p.cheats = append(p.cheats, ev.Text)
				}
				if ev.Kind == deal.EventOpened && ev.Opening.To == p.src.Deal().Seat() {
					if p.shown == nil {
						p.shown = map[engine.Handle]bool{}
					}
					p.shown[ev.Opening.Handle()] = true
				}
			}
			p.src.Advance()
			moved = true
		}
	}
	return moved
}

func (tb *table) deliver(i int) bool {
	p := tb.peers[i]
	moved := len(p.inbox) > 0
	for len(p.inbox) > 0 {
		msg := p.inbox[0]
		p.inbox = p.inbox[1:]
		switch msg[0] {
		case 'c':
			env, err := crypto.Unmarshal(msg[1:])
			if err != nil {
				tb.t.Fatalf("peer %d: %v", i+1, err)
			}
			_ = p.src.Step(env) // a rejection is named in an EventCheat
		case 'a':
			if err := tb.applyMove(i, msg[1:]); err != nil {
				p.cheats = append(p.cheats, err.Error())
			}
		}
	}
	return moved
}

// applyMove reads a move message: seat, seq, action, reveals (the fields
// of an action envelope on a secret table).
func (tb *table) applyMove(i int, b []byte) error {
	d := engine.NewDecoder(b)
	seat := d.Uint()
	seq := d.Uint()
	ab := d.Blob(1024)
	rb := d.Blob(1 << 16)
	if err := d.Finish(); err != nil {
		return err
	}
	a, err := engine.DecodeAction(ab)
	if err != nil {
		return err
	}
	rs, err := lockstep.DecodeReveals(rb)
	if err != nil {
		return err
	}
	err = tb.peers[i].src.Apply(int(seat), a, seq, rs)
	tb.peers[i].src.Sync() // the step is done: its openings are due
	return err
}

// settle runs the network until nothing moves: every message delivered,
// every proof made and checked.
func (tb *table) settle() {
	for guard := 0; ; guard++ {
		if guard > 100000 {
			tb.t.Fatal("the table never settles")
		}
		moved := tb.drain()
		for i := range tb.peers {
			moved = tb.deliver(i) || moved
		}
		if moved {
			continue
		}
		for _, p := range tb.peers {
			if p.src.HasWork() {
				moved = p.src.Work() || moved
			}
		}
		if !moved {
			return
		}
	}
}

// agree fails the test unless every peer holds the same shared state.
func (tb *table) agree() {
	first := engine.Encode(tb.peers[0].src.State())
	for i, p := range tb.peers[1:] {
		if !bytes.Equal(first, engine.Encode(p.src.State())) {
			tb.t.Fatalf("peer %d's shared state differs from peer 1's: %v", i+2, engine.Diff(tb.peers[0].src.State(), p.src.State()))
		}
	}
}

// step plays one step once the table has settled: the seat to act
// chooses on its own peer (which alone knows its hand) and sends its move
// with the cards it shows; a chance step takes a beacon every peer derives
// alike (dice stay on lockstep's beacon; it is not what is tested here).
func (tb *table) step(bot engine.Bot, r *engine.Rand) (over bool) {
	tb.t.Helper()
	tb.settle()
	for i, p := range tb.peers {
		if err := p.src.Err(); err != nil {
			tb.t.Fatalf("peer %d: %v", i+1, err)
		}
	}
	tb.agree()
	who := tb.peers[0].src.State().ToAct()
	switch who.Kind {
	case engine.ActorOver:
		return true
	case engine.ActorChance:
		b := engine.Derive([]byte(tb.seed), "beacon", tb.beac)
		tb.beac++
		for i, p := range tb.peers {
			if err := p.src.State().ApplyChance(b); err != nil {
				tb.t.Fatalf("peer %d: %v", i+1, err)
			}
			p.src.Sync()
		}
	case engine.ActorSeat:
		own := tb.peers[who.Seat].src
		legal := own.State().Legal(nil)
		if len(legal) == 0 {
			tb.t.Fatalf("seat %d has no legal move", who.Seat+1)
		}
		a := bot.Choose(own.State(), legal, r)
		rs, err := own.Reveal(a, tb.seq)
		if err != nil {
			tb.t.Fatalf("seat %d cannot show its move's cards: %v", who.Seat+1, err)
		}
		if tb.corrupt != nil {
			tb.corrupt(rs)
		}
		e := engine.NewEncoder(nil)
		e.Uint("seat", uint64(who.Seat))
		e.Uint("seq", tb.seq)
		e.Blob("action", engine.AppendAction(nil, a))
		e.Blob("reveals", lockstep.EncodeReveals(rs))
		msg := append([]byte{'a'}, e.Bytes()...)
		tb.seq++
		if err := own.Apply(who.Seat, a, tb.seq-1, rs); err != nil {
			tb.peers[who.Seat].cheats = append(tb.peers[who.Seat].cheats, err.Error())
		}
		own.Sync()
		tb.broadcast(who.Seat, msg)
	default:
		// The table settled and still waits for cards: the deal stalled.
		tb.t.Fatalf("the deal stalls: %s waits on %v", who, tb.peers[0].src.Deal().Waiting())
	}
	return false
}

// play plays the game to its end with random bots.
func (tb *table) play() {
	r := engine.NewRand([]byte(tb.seed))
	for steps := 0; !tb.step(engine.RandomBot{}, r); steps++ {
		if steps > 3000 {
			tb.t.Fatal("the game does not end")
		}
		for i, p := range tb.peers {
			if len(p.cheats) > 0 {
				tb.t.Fatalf("peer %d names a cheat at an honest table: %v", i+1, p.cheats)
			}
		}
	}
}

// TestSecretGameEndToEnd plays whole Infinite City games with real mental
// poker, every peer holding only the shared state and its own knowledge:
// the game ends, every peer's shared state is identical at every step,
// every private draw was the card it later showed, and every peer knows
// privately only cards opened to it.
func TestSecretGameEndToEnd(t *testing.T) {
	for _, n := range []int{2, 4} {
		t.Run(fmt.Sprintf("%d seats", n), func(t *testing.T) {
			tb := newTable(t, n, fmt.Sprintf("e2e %d", n))
			tb.play()
			st0 := tb.peers[0].src.State()
			if st0.ToAct().Kind != engine.ActorOver {
				t.Fatalf("the game stopped with %s to act", st0.ToAct())
			}
			c := st0.Cards()
			public := 0
			for d := 0; d < c.NumDecks(); d++ {
				for pos := 0; ; pos++ {
					h := engine.Handle{Deck: uint8(d), Pos: uint16(pos)}
					if !c.Valid(h) {
						break
					}
					pub, isPub := c.Public(h)
					if isPub {
						public++
					}
					for i, p := range tb.peers {
						k := p.src.State().Cards().Knowledge()
						v, known := k.Card(h)
						if known && !p.shown[h] {
							t.Fatalf("seat %d knows %s, which was never opened to it", i+1, h)
						}
						if known && isPub && v != pub {
							t.Fatalf("seat %d drew %s as card %d; it turned out card %d", i+1, h, v, pub)
						}
					}
				}
			}
			if public == 0 {
				t.Fatal("no tile became public in a whole game")
			}
		})
	}
}

// TestSpyLearnsNoHiddenTile: seat 1 is a spy that keeps its whole engine
// state, its knowledge, its deal machine and every byte it received. For
// every tile opened privately to another seat and never made public, at
// the end of a 4-seat game: the spy's state and knowledge do not hold its
// value, its deal machine cannot open it, and no byte it received holds
// the holder's mental-poker key (without which, by the decisional
// Diffie–Hellman assumption crypto/mentalpoker rests on, the ciphertext
// and the other seats' shares do not determine the card).
func TestSpyLearnsNoHiddenTile(t *testing.T) {
	tb := newTable(t, 4, "spy")
	const spy = 0
	r := engine.NewRand([]byte("spy"))
	checked := 0
	look := func() {
		sp := tb.peers[spy].src
		c := sp.State().Cards()
		for pos := 0; ; pos++ {
			h := engine.Handle{Pos: uint16(pos)}
			if !c.Valid(h) {
				break
			}
			if _, pub := c.Public(h); pub || tb.peers[spy].shown[h] {
				continue // public, or the spy was shown it (and may have passed it on)
			}
			for s := 1; s < len(tb.peers); s++ {
				if !c.Seen(h, s) {
					continue
				}
				checked++
				if _, ok := c.Value(h, spy); ok {
					t.Fatalf("the spy's engine knows %s, held by seat %d", h, s+1)
				}
				if _, ok := c.Knowledge().Card(h); ok {
					t.Fatalf("the spy's knowledge holds %s, held by seat %d", h, s+1)
				}
				if _, ok := sp.Deal().Card(deal.Handle{Deck: h.Deck, Pos: h.Pos}); ok {
					t.Fatalf("the spy's deal machine opens %s, held by seat %d", h, s+1)
				}
			}
		}
	}
	for steps := 0; !tb.step(engine.RandomBot{}, r); steps++ {
		if steps > 3000 {
			t.Fatal("the game does not end")
		}
		look()
	}
	if checked == 0 {
		t.Fatal("the spy never faced a hidden tile of another seat")
	}
	all := bytes.Join(tb.peers[spy].got, nil)
	for s := 1; s < len(tb.peers); s++ {
		sk := tb.peers[s].secret
		if len(sk) == 0 {
			t.Fatalf("seat %d's key was never handed to its runner", s+1)
		}
		if bytes.Contains(all, sk) {
			t.Fatalf("the spy received seat %d's mental-poker key", s+1)
		}
	}
	t.Logf("%d checks of hidden tiles; the spy received %d messages, %d bytes", checked, len(tb.peers[spy].got), len(all))
}

// TestForgedRevealIsNamed: a mover that claims a tile from its hand is
// another tile is refused by every other peer, which names its seat, and
// the move changes nothing there.
func TestForgedRevealIsNamed(t *testing.T) {
	tb := newTable(t, 3, "forge")
	r := engine.NewRand([]byte("forge"))
	for steps := 0; steps < 200; steps++ {
		tb.settle()
		st := tb.peers[0].src.State()
		who := st.ToAct()
		if who.Kind == engine.ActorSeat {
			own := tb.peers[who.Seat].src.State()
			var play engine.Action
			for _, a := range own.Legal(nil) {
				if len(own.Reveals(a, nil)) > 0 {
					play = a
					break
				}
			}
			if len(play.Args) > 0 {
				mover := who.Seat
				other := (mover + 1) % len(tb.peers)
				before := engine.Encode(tb.peers[other].src.State())
				tb.corrupt = func(rs []cardsource.Revealed) { rs[0].Card ^= 1 }
				// Force the bot's choice: a move that shows a tile.
				tb.step(fixedBot{play}, r)
				tb.corrupt = nil
				tb.settle()
				for i, p := range tb.peers {
					if i == mover {
						continue
					}
					if !bytes.Equal(before, engine.Encode(p.src.State())) {
						t.Fatalf("peer %d applied a move with a forged tile", i+1)
					}
					named := false
					for _, c := range p.cheats {
						named = named || strings.Contains(c, fmt.Sprintf("seat %d", mover+1))
					}
					if !named {
						t.Fatalf("peer %d did not name seat %d: %v", i+1, mover+1, p.cheats)
					}
				}
				return
			}
		}
		if tb.step(engine.RandomBot{}, r) {
			break
		}
	}
	t.Fatal("no move showed a tile")
}

type fixedBot struct{ a engine.Action }

func (b fixedBot) Choose(engine.State, []engine.Action, *engine.Rand) engine.Action { return b.a }

// TestDecodeRevealsHostile: truncated, extended and random bodies are
// refused with an error, never a panic; a valid one round-trips.
func TestDecodeRevealsHostile(t *testing.T) {
	rs := []cardsource.Revealed{{Handle: engine.Handle{Pos: 7}, Card: 3, Share: bytes.Repeat([]byte{9}, 96)}, {Handle: engine.Handle{Deck: 1, Pos: 2}, Card: 5}}
	b := lockstep.EncodeReveals(rs)
	got, err := lockstep.DecodeReveals(b)
	if err != nil || len(got) != 2 || got[0].Card != 3 || !bytes.Equal(got[0].Share, rs[0].Share) || got[1].Share != nil {
		t.Fatalf("round trip: %v %v", got, err)
	}
	for i := 0; i < len(b); i++ {
		if _, err := lockstep.DecodeReveals(b[:i]); err == nil {
			t.Fatalf("a body cut to %d bytes decoded", i)
		}
	}
	if _, err := lockstep.DecodeReveals(append(append([]byte(nil), b...), 0)); err == nil {
		t.Fatal("a body with a trailing byte decoded")
	}
	huge := binary.AppendUvarint(nil, 1<<40)
	if _, err := lockstep.DecodeReveals(huge); err == nil {
		t.Fatal("a count of 2^40 reveals decoded")
	}
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 5000; i++ {
		x := make([]byte, r.IntN(300))
		for j := range x {
			x[j] = byte(r.Uint32())
		}
		_, _ = lockstep.DecodeReveals(x)
	}
}
