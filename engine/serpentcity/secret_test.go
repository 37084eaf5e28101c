package serpentcity

import (
	"bytes"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/boardmesh/boardmesh/engine"
	"github.com/boardmesh/boardmesh/engine/enginetest"
)

// openGame is a bot game on an open table, driven so that its dice and
// Reward Rolls take the beacons a SecretTable with the same seed gives (the
// secret table's beacon counter skips card draws, which its card layer
// answers): before each seat's move, every seat's view and the move.
type openGame struct {
	s     *State
	moves []engine.Action
	views [][]string // before each move: spectator, then seat 1…n
}

func playOpen(t *testing.T, players int, seed []byte, bots []engine.Bot) *openGame {
	t.Helper()
	es, err := Game.Setup(players, nil)
	if err != nil {
		t.Fatal(err)
	}
	g := &openGame{s: es.(*State)}
	s := g.s
	r := engine.NewRand(seed)
	var dice, draws uint64
	var legal []engine.Action
	for step := 0; step < 20000; step++ {
		who := s.ToAct()
		switch who.Kind {
		case engine.ActorOver:
			return g
		case engine.ActorChance:
			var b []byte
			if s.ph == phDraw {
				b = engine.Derive(seed, "open draw", draws)
				draws++
			} else {
				b = engine.Derive(seed, "chance", dice)
				dice++
			}
			if err := s.ApplyChance(b); err != nil {
				t.Fatal(err)
			}
		case engine.ActorSeat:
			legal = s.Legal(legal[:0])
			a := bots[who.Seat].Choose(s, legal, r)
			var v []string
			for q := -1; q < players; q++ {
				v = append(v, viewJSON(t, s.View(q)))
			}
			g.views = append(g.views, v)
			g.moves = append(g.moves, a)
			if err := s.Apply(who.Seat, a); err != nil {
				t.Fatal(err)
			}
		default:
			t.Fatalf("an open table waits for %s", who)
		}
	}
	t.Fatal("the open game did not end")
	return nil
}

// dealer is the dealer's decks that deal a secret table the cards the open
// game drew: every position the open game bound keeps its card, the others
// get the cards nobody drew; a reshuffled deck holds its sources' cards,
// the positions drawn in the order drawn.
func (g *openGame) dealer() [][]uint16 {
	cs := &g.s.cards
	var perm [][]uint16
	value := func(h engine.Handle) int {
		if v, ok := cs.Public(h); ok {
			return int(v)
		}
		for q := range g.s.pl {
			if v, ok := cs.Value(h, q); ok {
				return int(v)
			}
		}
		return -1
	}
	for d := 0; d < cs.NumDecks(); d++ {
		var rest []uint16
		var n int
		if d < len(cs.Decks()) {
			n = len(cs.Decks()[d])
			left := map[uint16]int{}
			for _, v := range cs.Decks()[d] {
				left[v]++
			}
			for p := 0; p < n; p++ {
				if v := value(engine.Handle{Deck: uint8(d), Pos: uint16(p)}); v >= 0 {
					left[uint16(v)]--
				}
			}
			for _, v := range cs.Decks()[d] {
				if left[v] > 0 {
					left[v]--
					rest = append(rest, v)
				}
			}
		} else {
			src := cs.Sources(d)
			n = len(src)
			left := map[uint16]int{}
			for _, h := range src {
				left[perm[h.Deck][h.Pos]]++
			}
			for p := 0; p < n; p++ {
				if v := value(engine.Handle{Deck: uint8(d), Pos: uint16(p)}); v >= 0 {
					left[uint16(v)]--
				}
			}
			for _, h := range src {
				if v := perm[h.Deck][h.Pos]; left[v] > 0 {
					left[v]--
					rest = append(rest, v)
				}
			}
		}
		list := make([]uint16, n)
		for p := range list {
			if v := value(engine.Handle{Deck: uint8(d), Pos: uint16(p)}); v >= 0 {
				list[p] = uint16(v)
			} else {
				list[p], rest = rest[0], rest[1:]
			}
		}
		perm = append(perm, list)
	}
	return perm
}

func viewJSON(t *testing.T, v engine.View) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestOpenAndSecretTablesPlayTheSameGame: bot games on an open table,
// replayed on a secret table dealt the same cards and given the same dice,
// show every seat the same view before every move on its own peer, where
// its bot (which knows only its own cards there) chooses the same move, and
// end alike: one engine, two card sources. A bot that read another seat's
// hand would choose differently on its secret peer, which does not hold it.
func TestOpenAndSecretTablesPlayTheSameGame(t *testing.T) {
	games := 6
	if testing.Short() {
		games = 2
	}
	draws := 0
	for gi := 0; gi < games; gi++ {
		players := 2 + gi%5
		seed := []byte(fmt.Sprintf("equal/%d", gi))
		bots := make([]engine.Bot, players)
		for i := range bots {
			bots[i] = Game.Bots[i%2].New() // strategy and builder
		}
		g := playOpen(t, players, seed, bots)
		tab, err := enginetest.NewSecretTable(Game, players, nil, g.dealer(), seed)
		if err != nil {
			t.Fatal(err)
		}
		r := engine.NewRand(seed)
		var legal []engine.Action
		for i, a := range g.moves {
			for tab.ToAct().Kind == engine.ActorChance {
				if err := tab.Chance(); err != nil {
					t.Fatal(err)
				}
			}
			who := tab.ToAct()
			if who.Kind != engine.ActorSeat {
				t.Fatalf("game %d, move %d: the secret table waits for %s", gi, i, who)
			}
			for q := -1; q < players; q++ {
				got := viewJSON(t, tab.Peers[max(q, 0)].View(q))
				if got != g.views[i][q+1] {
					t.Fatalf("game %d, before move %d: seat %d's view on its own secret peer differs from the open table's:\n%s\n%s", gi, i, q+1, got, g.views[i][q+1])
				}
			}
			own := tab.Peers[who.Seat]
			legal = own.Legal(legal[:0])
			if b := bots[who.Seat].Choose(own, legal, r); !b.Equal(a) {
				t.Fatalf("game %d, move %d: seat %d's bot chose %s on the open table and %s on its secret peer", gi, i, who.Seat+1, g.s.Describe(a), own.Describe(b))
			}
			if err := tab.Act(a); err != nil {
				t.Fatalf("game %d, move %d (%s): %v", gi, i, own.Describe(a), err)
			}
		}
		for tab.ToAct().Kind == engine.ActorChance {
			if err := tab.Chance(); err != nil {
				t.Fatal(err)
			}
		}
		if tab.ToAct().Kind != engine.ActorOver {
			t.Fatalf("game %d: the secret replay did not end (%s to act)", gi, tab.ToAct())
		}
		if got, want := fmt.Sprint(tab.Peers[0].Result()), fmt.Sprint(g.s.Result()); got != want {
			t.Fatalf("game %d: secret result %s, open %s", gi, got, want)
		}
		draws += len(g.s.cards.Decks()[0]) + len(g.s.cards.Decks()[1]) - len(g.s.pile[0]) - len(g.s.pile[1])
		t.Logf("game %d: %d players, %d moves, %d decks", gi, players, len(g.moves), g.s.cards.NumDecks())
	}
	if draws == 0 {
		t.Fatal("no card was drawn: the test compared nothing hidden")
	}
}

// unchanged runs f on st and fails unless it errs and leaves st's encoding
// as it was.
func unchanged(t *testing.T, what string, st engine.State, f func() error) {
	t.Helper()
	before := engine.Encode(st)
	err := f()
	if err == nil {
		t.Fatalf("%s was accepted", what)
	}
	t.Logf("%s: %v", what, err)
	if !bytes.Equal(before, engine.Encode(st)) {
		t.Fatalf("%s was refused but changed the state", what)
	}
}

// stacked is the dealer's decks with the given kinds on top of each
// (position 0 is drawn first), the rest in declared order.
func stacked(econ, mil []int) [][]uint16 {
	cs := defaultCfg.newCards()
	perm := [][]uint16{append([]uint16(nil), cs.Decks()[0]...), append([]uint16(nil), cs.Decks()[1]...)}
	for d, top := range [][]int{econ, mil} {
		for i, k := range top {
			for j := i; j < len(perm[d]); j++ {
				if perm[d][j] == uint16(k) {
					perm[d][i], perm[d][j] = perm[d][j], perm[d][i]
					break
				}
			}
		}
	}
	return perm
}

// onEvery applies f to every peer's state alike (a test's shortcut that
// keeps the shared states equal).
func onEvery(tab *enginetest.SecretTable, f func(s *State)) {
	for _, p := range tab.Peers {
		f(p.(*State))
	}
}

func peer(tab *enginetest.SecretTable, i int) *State { return tab.Peers[i].(*State) }

// A secret table refuses, with the state unchanged: an opening nobody asked
// for, one to another seat, a card the deck does not have, a missing value
// on the recipient's engine, a value on another seat's engine, a move while
// a card is drawn; a card played with no value, with two, with a value the
// deck lacks, with a value that breaks the rules, with a value its own
// engine knows is false, and a card not in the hand. The defender's card
// under Ambush is never shown: every other peer accepts it from the hand
// unseen, and it stays hidden from them.
func TestSecretTableRefuses(t *testing.T) {
	s := newTest(t, 4, 0)
	windfall, levy, eviction := econKind(s, kWindfall), econKind(s, kLevy), econKind(s, kEviction)
	ambush, barricade, convoy := milKind(s, kAmbush), milKind(s, kBarricade), milKind(s, kConvoy)
	tab, err := enginetest.NewSecretTable(Game, 4, nil, stacked([]int{windfall}, []int{ambush, barricade}), []byte("refuse"))
	if err != nil {
		t.Fatal(err)
	}
	if err := tab.Chance(); err != nil { // seat 1's roll
		t.Fatal(err)
	}
	buy := act(opBuyCard, econDeck)
	for i, p := range tab.Peers {
		if err := p.ApplyRevealed(0, buy, nil); err != nil {
			t.Fatalf("peer %d: %v", i+1, err)
		}
	}
	p0, p1 := peer(tab, 0), peer(tab, 1)
	want := p0.Openings(nil)
	if p0.ToAct().Kind != engine.ActorCards || len(want) != 1 || want[0].To != 0 {
		t.Fatalf("a card bought: actor %v, openings %v", p0.ToAct(), want)
	}
	o := want[0]
	unchanged(t, "an opening nobody asked for", p0, func() error { return p0.Open(engine.Opening{Deck: 0, Pos: 5, To: 0}, windfall) })
	unchanged(t, "the opening to another seat", p0, func() error { return p0.Open(engine.Opening{Deck: o.Deck, Pos: o.Pos, To: 1}, windfall) })
	unchanged(t, "a card the Economic deck does not have", p0, func() error { return p0.Open(o, len(s.cfg.decks[econDeck])) })
	unchanged(t, "no card value on its recipient's engine", p0, func() error { return p0.Open(o, engine.NoCard) })
	unchanged(t, "seat 1's card on seat 2's engine", p1, func() error { return p1.Open(o, windfall) })
	unchanged(t, "a move while the card is drawn", p1, func() error { return p1.ApplyRevealed(0, act(opEnd), nil) })
	unchanged(t, "a beacon for the card", p1, func() error { return p1.ApplyChance(make([]byte, 32)) })
	for i, p := range tab.Peers {
		c := engine.NoCard
		if i == 0 {
			c = windfall
		}
		if err := p.Open(o, c); err != nil {
			t.Fatalf("peer %d: %v", i+1, err)
		}
	}
	h := o.Handle()
	if k := p0.kind(h, 0); k != windfall || p1.kind(h, 0) >= 0 || p1.kind(h, 1) >= 0 {
		t.Fatalf("seat 1 knows %d, seat 2's engine %d", k, p1.kind(h, 0))
	}
	play := act(opEcon, h.Arg())
	unchanged(t, "a card played with no value", p1, func() error { return p1.ApplyRevealed(0, play, nil) })
	unchanged(t, "a card played with an empty value list", p1, func() error { return p1.ApplyRevealed(0, play, []int{}) })
	unchanged(t, "a card played with two values", p1, func() error { return p1.ApplyRevealed(0, play, []int{windfall, windfall}) })
	unchanged(t, "a card the deck does not have", p1, func() error { return p1.ApplyRevealed(0, play, []int{99}) })
	unchanged(t, "an Eviction that names no pawn", p1, func() error { return p1.ApplyRevealed(0, play, []int{eviction}) })
	unchanged(t, "a Windfall shown as a Levy on its own engine", p0, func() error { return p0.ApplyRevealed(0, play, []int{levy}) })
	unchanged(t, "a card still in the pile", p1, func() error {
		return p1.ApplyRevealed(0, act(opEcon, engine.Handle{Deck: 0, Pos: 5}.Arg()), []int{windfall})
	})
	unchanged(t, "a Military Card played as an Economic one", p1, func() error {
		return p1.ApplyRevealed(0, act(opEcon, engine.Handle{Deck: 1, Pos: 0}.Arg()), []int{windfall})
	})
	before := p1.pl[0].res
	if err := tab.Act(play); err != nil {
		t.Fatal(err)
	}
	if v, ok := p1.cards.Public(h); !ok || int(v) != windfall || p1.pl[0].res[Coin] != before[Coin]+1 || spent(p1, econDeck, windfall) != 1 {
		t.Fatalf("the Windfall played: public %d %v, Coin %d → %d", v, ok, before[Coin], p1.pl[0].res[Coin])
	}

	// Seat 1 draws the Ambush, seat 2 the Barricade.
	if err := tab.Act(act(opBuyCard, milDeck)); err != nil {
		t.Fatal(err)
	}
	if err := tab.Act(act(opEnd)); err != nil {
		t.Fatal(err)
	}
	if err := tab.Chance(); err != nil {
		t.Fatal(err)
	}
	onEvery(tab, func(s *State) { s.pl[1].res[Fuel] = 1 })
	if err := tab.Act(act(opBuyCard, milDeck)); err != nil {
		t.Fatal(err)
	}
	hA, hB := p0.pl[0].hand[milDeck][0], p1.pl[1].hand[milDeck][0]
	if p0.kind(hA, 0) != ambush || p1.kind(hB, 1) != barricade || p0.kind(hB, 1) >= 0 {
		t.Fatalf("the Military Cards drawn: %d, %d", p0.kind(hA, 0), p1.kind(hB, 1))
	}
	for tab.ToAct().Seat != 0 || p0.ph != phMain {
		switch tab.ToAct().Kind {
		case engine.ActorChance:
			err = tab.Chance()
		default:
			err = tab.Act(act(opEnd))
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	onEvery(tab, func(s *State) {
		place(s, 0, northMarket, 1)
		place(s, 1, northMarket, 1)
	})
	if err := tab.Act(act(opAttack, northMarket, 1)); err != nil {
		t.Fatal(err)
	}
	unchanged(t, "an attacker's card shown as a Barricade", p1, func() error { return p1.ApplyRevealed(0, act(opMil, hA.Arg()), []int{barricade}) })
	unchanged(t, "an Ambush shown as a Convoy on its own engine", p0, func() error { return p0.ApplyRevealed(0, act(opMil, hA.Arg()), []int{convoy}) })
	unchanged(t, "the defender's card played by the attacker", p1, func() error { return p1.ApplyRevealed(0, act(opMil, hB.Arg()), []int{convoy}) })
	if err := tab.Act(act(opMil, hA.Arg())); err != nil {
		t.Fatal(err)
	}
	defend := act(opMil, hB.Arg())
	if got := p1.Reveals(defend, nil); len(got) != 0 {
		t.Fatalf("the defender's card under Ambush is shown: %v", got)
	}
	unchanged(t, "the defender naming the attacker's card", p0, func() error { return p0.ApplyRevealed(1, act(opMil, hA.Arg()), nil) })
	unchanged(t, "the defender's card with a value", p0, func() error { return p0.ApplyRevealed(1, defend, []int{barricade}) })
	if err := tab.Act(defend); err != nil {
		t.Fatal(err)
	}
	for i := range tab.Peers {
		pi := peer(tab, i)
		if _, pub := pi.cards.Public(hB); pub || pi.inHand(1, milDeck, hB) < 0 || i != 1 && pi.kind(hB, i) >= 0 {
			t.Fatalf("peer %d: the ambushed Barricade is public %v, known %d, in the hand %d", i+1, pub, pi.kind(hB, i), pi.inHand(1, milDeck, hB))
		}
	}
	if v, ok := p1.cards.Public(hA); !ok || int(v) != ambush || spent(p1, milDeck, ambush) != 1 {
		t.Fatal("the Ambush is not spent face up")
	}
	if p0.who != 1 || p0.ph != phReward {
		t.Fatalf("1 pawn against 1 with the Barricade void: the defender wins ties (winner seat %d)", p0.who+1)
	}
}

// TestSecretTablesKeepInvariants plays bot games on secret tables (2 to 6
// seats, random and strategy bots, Stroke of Luck in every other game; the
// random bots play every card, Ambush and Eviction included, and run to
// round 60, so the decks are reshuffled): after every step every peer's
// state keeps the invariant, holds no card value but public ones, and its
// seat knows exactly the cards in its own hand and the public ones.
func TestSecretTablesKeepInvariants(t *testing.T) {
	games := 10
	if testing.Short() {
		games = 3
	}
	reshuffles := 0
	for gi := 0; gi < games; gi++ {
		players := 2 + gi%5
		var opts engine.Options
		if gi%2 == 1 {
			opts = engine.Options{{Name: "stroke_of_luck", Value: "true"}}
		}
		seed := []byte(fmt.Sprintf("secret invariants/%d", gi))
		tab, err := enginetest.NewSecretTable(Game, players, opts, nil, seed)
		if err != nil {
			t.Fatal(err)
		}
		bots := make([]engine.Bot, players)
		for i := range bots {
			bots[i] = Game.Bots[(gi+i)%len(Game.Bots)].New()
		}
		r := engine.NewRand(seed)
		for step := 0; tab.ToAct().Kind != engine.ActorOver; step++ {
			if step > 20000 {
				t.Fatalf("game %d does not end", gi)
			}
			if _, _, err := tab.Replay(step, nil, bots, r); err != nil {
				t.Fatalf("game %d: %v", gi, err)
			}
			for i := range tab.Peers {
				p := peer(tab, i)
				if err := invariant(p); err != nil {
					t.Fatalf("game %d step %d, peer %d: %v", gi, step, i+1, err)
				}
				k := p.cards.Knowledge()
				mine := 0
				for d := 0; d < 2; d++ {
					for _, h := range p.pl[i].hand[d] {
						_, ok := k.Card(h)
						if !ok {
							t.Fatalf("game %d step %d: seat %d does not know its card %s", gi, step, i+1, h)
						}
						if _, pub := p.cards.Public(h); !pub {
							mine++ // (the attacker's card is shown while it waits in the hand)
						}
					}
				}
				// Every card it knows is in its hand, or was shown to all.
				known := 0
				for d := 0; d < p.cards.NumDecks(); d++ {
					for pos := 0; p.cards.Valid(engine.Handle{Deck: uint8(d), Pos: uint16(pos)}); pos++ {
						h := engine.Handle{Deck: uint8(d), Pos: uint16(pos)}
						if _, ok := k.Card(h); ok {
							if _, pub := p.cards.Public(h); !pub {
								known++
							}
						}
						if p.cards.Bound(h) {
							if _, pub := p.cards.Public(h); !pub {
								t.Fatalf("game %d step %d: peer %d's shared state holds a private card %s", gi, step, i+1, h)
							}
						}
					}
				}
				if known != mine {
					t.Fatalf("game %d step %d: seat %d knows %d unshown cards, %d of them in its hand", gi, step, i+1, known, mine)
				}
			}
		}
		reshuffles += peer(tab, 0).cards.NumDecks() - 2
	}
	if reshuffles == 0 {
		t.Fatal("no deck was ever reshuffled")
	}
	t.Logf("%d reshuffles in %d games", reshuffles, games)
}
