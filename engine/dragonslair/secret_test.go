package dragonslair

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/boardmesh/boardmesh/engine"
	"github.com/boardmesh/boardmesh/engine/enginetest"
)

// TestOpenAndSecretTablesPlayTheSameGame plays bot games on an open table
// (the beacon answers every opening), then replays their moves on a secret
// table whose dealer holds the cards the open game drew: before every move,
// every seat's view on its own secret peer is the one the open engine
// shows it, and the games end alike. One engine, two card sources. Heroes
// are chosen, so that every other random step is a move.
func TestOpenAndSecretTablesPlayTheSameGame(t *testing.T) {
	games := 6
	if testing.Short() {
		games = 2
	}
	opts := engine.Options{{Name: optHeroes, Value: "chosen"}}
	for gi := 0; gi < games; gi++ {
		players := 2 + gi%5
		es, err := Game.Setup(players, opts)
		if err != nil {
			t.Fatal(err)
		}
		open := es.(*State)
		players2 := make([]engine.Bot, players)
		for i := range players2 {
			players2[i] = Game.Bots[i%len(Game.Bots)].New()
		}
		seed := []byte(fmt.Sprintf("equal/%d", gi))
		var moves []engine.Action
		var views [][]string
		_, err = engine.PlayOut(open, players2, engine.SeededChance{Seed: seed}, engine.NewRand(seed), 100000, true,
			func(prev, next engine.State, st engine.Step) {
				if st.Who.Kind != engine.ActorSeat {
					return
				}
				moves = append(moves, st.Action)
				var v []string
				for s := -1; s < players; s++ {
					v = append(v, viewJSON(t, prev.View(s)))
				}
				views = append(views, v)
			})
		if err != nil {
			t.Fatal(err)
		}
		tab, err := enginetest.NewSecretTable(Game, players, opts, dealerOf(t, open), seed)
		if err != nil {
			t.Fatal(err)
		}
		for i, a := range moves {
			if who := tab.ToAct(); who.Kind != engine.ActorSeat {
				t.Fatalf("game %d, move %d: the secret table waits for %s", gi, i, who)
			}
			for s := -1; s < players; s++ {
				got := viewJSON(t, tab.Peers[max(s, 0)].View(s))
				if got != views[i][s+1] {
					t.Fatalf("game %d, before move %d: seat %d's view on its own secret peer differs from the open table's:\n%s\n%s", gi, i, s+1, got, views[i][s+1])
				}
			}
			if err := tab.Act(a); err != nil {
				t.Fatalf("game %d, move %d (%s): %v", gi, i, open.Describe(a), err)
			}
		}
		if tab.ToAct().Kind != engine.ActorOver {
			t.Fatalf("game %d: the secret replay did not end", gi)
		}
		if g, w := fmt.Sprint(tab.Peers[0].Result()), fmt.Sprint(open.Result()); g != w {
			t.Fatalf("game %d: secret result %s, open %s", gi, g, w)
		}
		if open.cards.NumDecks() < 2 {
			t.Logf("game %d never reshuffled", gi)
		}
	}
}

// dealerOf is a dealer's decks that deal what the open game s drew: every
// bound position its card, the others the cards of their deck left over.
func dealerOf(t *testing.T, s *State) [][]uint16 {
	t.Helper()
	perm := make([][]uint16, s.cards.NumDecks())
	for d := range perm {
		var pool []uint16
		if d < len(s.cards.Decks()) {
			pool = append(pool, s.cards.Decks()[d]...)
		} else {
			for _, h := range s.cards.Sources(d) {
				pool = append(pool, uint16(valueOf(t, s, h)))
			}
		}
		perm[d] = make([]uint16, s.deckLen(d))
		bound := make([]bool, len(perm[d]))
		for p := range perm[d] {
			if c, ok := boundCard(s, engine.Handle{Deck: uint8(d), Pos: uint16(p)}); ok {
				perm[d][p], bound[p] = uint16(c), true
				for i, v := range pool {
					if v == uint16(c) {
						pool = append(pool[:i], pool[i+1:]...)
						break
					}
				}
			}
		}
		for p := range perm[d] {
			if !bound[p] {
				perm[d][p], pool = pool[0], pool[1:]
			}
		}
	}
	return perm
}

func viewJSON(t *testing.T, v engine.View) string {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// secretTable sets up 3 seats on a secret table dealt from the given top
// of the deck (the rest in the declared order), seat 1 with hero h.
func secretTable(t *testing.T, h hero, top ...card) *enginetest.SecretTable {
	t.Helper()
	decks := [][]uint16{declaredDeck(true, true)}
	perm := []uint16{}
	rest := append([]uint16(nil), decks[0]...)
	for _, c := range top {
		for i, v := range rest {
			if v == uint16(c) {
				rest = append(rest[:i], rest[i+1:]...)
				break
			}
		}
		perm = append(perm, uint16(c))
	}
	perm = append(perm, rest...)
	tab, err := enginetest.NewSecretTable(Game, 3, engine.Options{{Name: optHeroes, Value: "none"}}, [][]uint16{perm}, []byte("refusals"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range tab.Peers {
		p.(*State).seats[0].hero = h
	}
	return tab
}

// unchanged fails the test if st's encoding is not before.
func unchanged(t *testing.T, st engine.State, before []byte, what string) {
	t.Helper()
	if string(engine.Encode(st)) != string(before) {
		t.Fatalf("%s changed the state", what)
	}
}

func TestSecretTableRefusesWrongOpenings(t *testing.T) {
	tab := secretTable(t, noHero, cardSphere, cardCrown, cardCoin)
	if err := tab.Act(act(opDraw)); err != nil { // the Sphere: seat 1 looks at the Crown
		t.Fatal(err)
	}
	s := tab.Peers[0].(*State)
	if s.phase != phaseSphere {
		t.Fatalf("phase %d, want the Sphere's choice", s.phase)
	}
	if v := s.View(0).(*View); len(v.KnownTop) != 1 || v.KnownTop[0] != cardCrown.String() {
		t.Fatalf("seat 1's own peer should know the Crown on top: %v", v.KnownTop)
	}
	for q := 1; q < 3; q++ {
		if v := tab.Peers[q].View(q).(*View); len(v.KnownTop) != 0 {
			t.Fatalf("seat %d's peer knows the Sphere's card: %v", q+1, v.KnownTop)
		}
	}
	// Keep it and turn it over: the card layer must open it to everyone.
	if err := tab.Act(act(opSphereKeep)); err != nil {
		t.Fatal(err)
	}
	for _, p := range tab.Peers {
		if err := p.Apply(0, act(opDraw)); err != nil {
			t.Fatal(err)
		}
	}
	other := tab.Peers[1].(*State)
	if other.ToAct().Kind != engine.ActorCards {
		t.Fatalf("a secret table should wait for the card layer, not %s", other.ToAct())
	}
	before := engine.Encode(other)
	want := other.Openings(nil)
	if len(want) != 1 || want[0].To != engine.Public {
		t.Fatalf("openings %v, want the top card to everyone", want)
	}
	o := want[0]
	cases := []struct {
		what string
		o    engine.Opening
		card int
		err  error
	}{
		{"an opening nobody asked for", engine.Opening{Deck: 0, Pos: 40, To: engine.Public}, int(cardCoin), engine.ErrNotWaiting},
		{"the card to one seat instead of everyone", engine.Opening{Deck: o.Deck, Pos: o.Pos, To: 2}, engine.NoCard, engine.ErrNotWaiting},
		{"a card turned over without its value", o, engine.NoCard, engine.ErrBadCard},
		{"a card the game does not have", o, int(numCards), engine.ErrBadCard},
	}
	for _, c := range cases {
		err := other.Open(c.o, c.card)
		if !errors.Is(err, c.err) {
			t.Fatalf("%s: %v, want %v", c.what, err, c.err)
		}
		unchanged(t, other, before, c.what)
	}
	if err := other.ApplyChance(beacon(1)); err == nil {
		t.Fatal("the beacon answered a secret table's card")
	}
	unchanged(t, other, before, "a beacon")
	if err := other.ApplyRevealed(0, act(opEscape), []int{int(cardCoin)}); err == nil {
		t.Fatal("a move with a shown card was taken while the table waits for the card layer")
	}
	unchanged(t, other, before, "a move out of turn")
	if err := other.UseSecretCards(); err == nil {
		t.Fatal("the table switched card modes after cards were opened")
	}
}

func TestSecretTableRefusesAPrivateCardOnAnotherSeatsEngine(t *testing.T) {
	tab := secretTable(t, noHero, cardSphere, cardCrown)
	for _, p := range tab.Peers {
		if err := p.Apply(0, act(opDraw)); err != nil {
			t.Fatal(err)
		}
		if err := p.Open(p.Openings(nil)[0], int(cardSphere)); err != nil {
			t.Fatal(err)
		}
	}
	other := tab.Peers[2].(*State)
	want := other.Openings(nil)
	if len(want) != 1 || want[0].To != 0 {
		t.Fatalf("openings %v, want the top card to seat 1", want)
	}
	before := engine.Encode(other)
	if err := other.Open(want[0], int(cardCrown)); !errors.Is(err, engine.ErrBadCard) {
		t.Fatalf("seat 3's engine took the card shown to seat 1: %v", err)
	}
	unchanged(t, other, before, "a private card on another seat's engine")
}

// TestSecretTableNamesAnElfThatLies: the Elf Tracker's player says which
// cards it saw are noises; nobody can check that at once, so each claim is
// checked when its card is turned over, and a lie is refused and named.
// The Elf's own peer refuses the lie at once.
func TestSecretTableNamesAnElfThatLies(t *testing.T) {
	for _, lie := range []struct {
		mask int
		says string
	}{{0b0001, "kept the Clinking Coins (noise) on top as no noise"}, {0b0000, "kept the Clinking Coins (noise) on top as no noise"}} {
		tab := secretTable(t, heroElf, cardCoin, cardClink, cardCup, cardCrown)
		if err := tab.Act(act(opElf)); err != nil {
			t.Fatal(err)
		}
		elf := tab.Peers[0].(*State)
		if l := elf.Legal(nil); len(l) != 1 || !l[0].Equal(actArg(opElfUnder, 0b0010)) {
			t.Fatalf("the Elf's own peer offers %v, want only sending the noise (2nd card) under", l)
		}
		bad := actArg(opElfUnder, lie.mask)
		before := engine.Encode(elf)
		if err := elf.Apply(0, bad); !errors.Is(err, engine.ErrIllegal) {
			t.Fatalf("the Elf's own peer took the lie: %v", err)
		}
		unchanged(t, elf, before, "the lie on the Elf's own peer")
		others := tab.Peers[1:]
		for _, p := range others {
			if err := p.Apply(0, bad); err != nil {
				t.Fatalf("another peer cannot tell the lie yet, but refused it: %v", err)
			}
			if err := p.Apply(0, act(opDraw)); err != nil {
				t.Fatal(err)
			}
		}
		// Turn the top card over (the Coin if it was sent under).
		for guard := 0; ; guard++ {
			p := others[0].(*State)
			o := p.Openings(nil)[0]
			v := int(tab.Perm[o.Deck][o.Pos])
			err := p.Open(o, v)
			if err == nil {
				if guard > 3 {
					t.Fatal("the lie was never caught")
				}
				if err := others[1].Open(o, v); err != nil {
					t.Fatal(err)
				}
				if p.phase == phaseCard {
					for _, q := range others {
						if err := q.Apply(0, act(opDraw)); err != nil {
							t.Fatal(err)
						}
					}
				}
				continue
			}
			if !errors.Is(err, engine.ErrBadCard) || !strings.Contains(err.Error(), lie.says) || !strings.Contains(err.Error(), "seat 1 cheated") {
				t.Fatalf("mask %b: %v; want %q named", lie.mask, err, lie.says)
			}
			break
		}
	}
}

func TestDecodeRefusesMisplacedHandles(t *testing.T) {
	if _, err := Game.Decode(engine.Encode(table(t, 3))); err != nil {
		t.Fatalf("a fresh state does not decode: %v", err)
	}
	// One card on top and under the deck, a card of the middle nowhere:
	// the counts add up, the handles do not.
	s := table(t, 3)
	stack(t, s, cardCoin)
	s.bottom[0], s.botN = s.top[0], 1
	s.mid++
	if _, err := Game.Decode(engine.Encode(s)); err == nil || !strings.Contains(err.Error(), "two places") {
		t.Fatalf("a card on top and under the deck decoded: %v", err)
	}
	// A face-down card in front of the player, the turned-over one back
	// in the pile.
	s2 := table(t, 3)
	draws(t, s2, cardCoin)
	h0 := s2.frontH[0]
	s2.fillTop(1)
	s2.frontH[0], s2.top[0] = s2.top[0].h, slot{h: h0}
	if _, err := Game.Decode(engine.Encode(s2)); err == nil || !strings.Contains(err.Error(), "turned over") {
		t.Fatalf("a face-down card in front of the player decoded: %v", err)
	}
}
