package infinitecity

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/boardmesh/boardmesh/engine"
	"github.com/boardmesh/boardmesh/engine/enginetest"
)

// spyGame is one recorded game on a secret table: the dealer's decks, the
// moves, and a hash of the spy's complete view after every step.
type spyGame struct {
	perm [][]uint16
	// may marks the tiles the rules let the spy know: every tile that was
	// in its hand or among the Library tiles it used at some step, or face
	// up on the table. It is computed from the zones, not from what the
	// engine says the spy was shown, so an engine that showed the spy a
	// tile it may not see fails the test.
	may   []bool
	moves []engine.Action // zero Op for a beacon step
	views [][32]byte
	table *enginetest.SecretTable
}

// playSecret plays a 4-seat bot game on a secret table dealt from perm, or
// replays moves on one when moves is not nil, hashing spy's view after
// every step.
func playSecret(t *testing.T, perm [][]uint16, seed string, moves []engine.Action, spy int) (*spyGame, error) {
	tab, err := enginetest.NewSecretTable(Game, 4, nil, perm, []byte(seed))
	if err != nil {
		return nil, err
	}
	g := &spyGame{perm: tab.Perm, table: tab}
	g.may = make([]bool, len(tab.Perm[0]))
	mark := func() {
		s := tab.Peers[spy].(*State)
		for _, p := range s.hands[spy] {
			g.may[p] = true
		}
		if s.current == spy {
			for _, p := range s.peek {
				g.may[p] = true
			}
		}
		for _, c := range s.board {
			if c.kind != faceDown {
				g.may[c.pos] = true
			}
		}
	}
	mark()
	g.views = append(g.views, sha256.Sum256(tab.SpyView(spy)))
	bots := []engine.Bot{GreedyBotSpec.New(), GreedyBotSpec.New(), engine.RandomBot{}, GreedyBotSpec.New()}
	r := engine.NewRand([]byte(seed))
	for step := 0; tab.ToAct().Kind != engine.ActorOver; step++ {
		if step > 5000 {
			return nil, fmt.Errorf("the game does not end")
		}
		a, ranOut, err := tab.Replay(step, moves, bots, r)
		if err != nil {
			return nil, err
		}
		if ranOut {
			return nil, fmt.Errorf("the replay runs past the recorded game")
		}
		g.moves = append(g.moves, a)
		mark()
		g.views = append(g.views, sha256.Sum256(tab.SpyView(spy)))
	}
	return g, nil
}

// TestSpyLearnsNoHiddenTile is the spy test of Infinite City with 4 seats.
// Seat 2 keeps everything its engine holds (its state encoding, its
// Knowledge, every public event). For every tile the rules keep hidden from
// it (another seat's hand, a Library look, swapped hands, the pile and the
// face-down plus), a second game whose dealer swaps that tile with another
// hidden tile of another kind, with the same public history, gives the spy
// the same view after every step: what the spy holds does not determine
// the tile. The seat that did see the tile does see the difference, and
// swapping one of the spy's own tiles changes the spy's view: the
// comparison can fail.
func TestSpyLearnsNoHiddenTile(t *testing.T) {
	const spy = 1
	games := 8
	if testing.Short() {
		games = 2
	}
	var otherHand, otherSaw, unseen int
	for gi := 0; gi < games; gi++ {
		seed := fmt.Sprintf("spy/%d", gi)
		a, err := playSecret(t, nil, seed, nil, spy)
		if err != nil {
			t.Fatalf("game %d: %v", gi, err)
		}
		final := a.table.Peers[spy].(*State)
		cards := final.Cards()
		var hidden []int
		for p := 0; p < final.set.Total; p++ {
			if !a.may[p] {
				hidden = append(hidden, p)
			}
		}
		inHand := map[int]bool{}
		for q, h := range final.hands {
			for _, p := range h {
				if q != spy {
					inHand[p] = true
				}
			}
		}
		for _, h := range hidden {
			// A hidden tile of another kind to swap it with.
			h2 := -1
			for _, x := range hidden {
				if a.perm[0][x] != a.perm[0][h] {
					h2 = x
					break
				}
			}
			if h2 < 0 {
				continue
			}
			sawIt := -1
			for q := 0; q < 4; q++ {
				if q != spy && cards.Seen(handle(h), q) {
					sawIt = q
				}
			}
			switch {
			case inHand[h]:
				otherHand++
			case sawIt >= 0:
				otherSaw++
			default:
				unseen++
			}
			perm := [][]uint16{append([]uint16(nil), a.perm[0]...)}
			perm[0][h], perm[0][h2] = perm[0][h2], perm[0][h]
			b, err := playSecret(t, perm, seed, a.moves, spy)
			if err != nil {
				t.Fatalf("game %d, tile %d swapped with %d: the same public history is not playable: %v", gi, h, h2, err)
			}
			if len(b.views) != len(a.views) {
				t.Fatalf("game %d: the replay has %d steps, the game %d", gi, len(b.views), len(a.views))
			}
			for i := range a.views {
				if a.views[i] != b.views[i] {
					t.Fatalf("game %d: seat %d's view differs after step %d when tile %d (kind %d, seen by seat %d) is swapped with tile %d",
						gi, spy+1, i, h, a.perm[0][h], sawIt+1, h2)
				}
			}
			if sawIt >= 0 {
				ka, kb := encodeKnowledge(a.table, sawIt), encodeKnowledge(b.table, sawIt)
				if bytes.Equal(ka, kb) {
					t.Fatalf("game %d: seat %d saw tile %d but its knowledge does not change when the tile does", gi, sawIt+1, h)
				}
			}
		}
		// The control: one of the spy's own tiles swapped with a hidden one.
		mine := -1
		for _, p := range final.hands[spy] {
			if !cards.Seen(handle(p), engine.Public) {
				mine = p
			}
		}
		if mine >= 0 && len(hidden) > 0 {
			h2 := -1
			for _, x := range hidden {
				if a.perm[0][x] != a.perm[0][mine] {
					h2 = x
					break
				}
			}
			perm := [][]uint16{append([]uint16(nil), a.perm[0]...)}
			perm[0][mine], perm[0][h2] = perm[0][h2], perm[0][mine]
			b, err := playSecret(t, perm, seed, a.moves, spy)
			if err == nil && b.views[len(b.views)-1] == a.views[len(a.views)-1] {
				t.Fatalf("game %d: swapping the spy's own tile %d does not change its view: the test cannot see anything", gi, mine)
			}
		}
	}
	t.Logf("tiles checked: %d in another seat's hand at the end, %d another seat saw (a Library, a swap, put back), %d nobody saw",
		otherHand, otherSaw, unseen)
	if otherHand == 0 || otherSaw == 0 || unseen == 0 {
		t.Fatalf("the games did not keep every kind of hidden tile (hands %d, seen by others %d, unseen %d)", otherHand, otherSaw, unseen)
	}
}

func encodeKnowledge(tab *enginetest.SecretTable, seat int) []byte {
	e := engine.NewEncoder(nil)
	tab.Peers[seat].Cards().Knowledge().Encode(e)
	return e.Bytes()
}

// TestSecretTableHoldsNoPrivateTile plays secret games to the end and
// checks after the game that no peer's shared state holds the kind of any
// tile that is not face up, and that each seat's engine knows, of the
// tiles in hands, exactly its own and those it was shown (a swap of hands
// shows a seat the hand it receives and leaves it knowing the one it gave).
func TestSecretTableHoldsNoPrivateTile(t *testing.T) {
	g, err := playSecret(t, nil, "noprivate", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	for seat, p := range g.table.Peers {
		s := p.(*State)
		for pos := 0; pos < s.set.Total; pos++ {
			_, pub := s.cards.Public(handle(pos))
			if s.cards.Bound(handle(pos)) != pub {
				t.Fatalf("seat %d's shared state holds private tile %d", seat+1, pos)
			}
		}
		for q, h := range s.hands {
			for _, pos := range h {
				k := s.tileOf(pos, seat)
				if q == seat && k < 0 || (k >= 0) != s.cards.Seen(handle(pos), seat) {
					t.Fatalf("seat %d's engine: tile %d of seat %d known: %v", seat+1, pos, q+1, k >= 0)
				}
				if k := s.tileOf(pos, seat); k >= 0 && k != int(g.perm[0][pos]) {
					t.Fatalf("seat %d's engine thinks tile %d is kind %d; it is %d", seat+1, pos, k, g.perm[0][pos])
				}
			}
		}
	}
	if g.table.ToAct().Kind != engine.ActorOver {
		t.Fatal("the secret game did not end")
	}
}

// TestOpenAndSecretTablesPlayTheSameGame plays bot games on an open table
// (the beacon answers every opening), then replays their moves on a secret
// table whose dealer holds the cards the open game drew: before every move,
// every seat's view on its own secret peer is the one the open engine
// shows it, and the games end alike. One engine, two card sources.
func TestOpenAndSecretTablesPlayTheSameGame(t *testing.T) {
	games := 6
	if testing.Short() {
		games = 2
	}
	for gi := 0; gi < games; gi++ {
		players := 2 + gi%5
		es, err := Game.Setup(players, nil)
		if err != nil {
			t.Fatal(err)
		}
		open := es.(*State)
		bots := make([]engine.Bot, players)
		for i := range bots {
			bots[i] = Game.Bots[i%len(Game.Bots)].New()
		}
		seed := []byte(fmt.Sprintf("equal/%d", gi))
		var moves []engine.Action
		var views [][]string // before each move: every seat's view, as JSON
		_, err = engine.PlayOut(open, bots, engine.SeededChance{Seed: seed}, engine.NewRand(seed), 100000, true,
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
		// The dealer's decks: what the open game drew, and the cards nobody
		// drew in the positions nobody opened.
		perm := [][]uint16{make([]uint16, open.set.Total)}
		var rest []uint16
		for k := range open.set.Kinds {
			for n := left(open, k); n > 0; n-- {
				rest = append(rest, uint16(k))
			}
		}
		for p := range perm[0] {
			if k := boundKind(open, p); k >= 0 {
				perm[0][p] = uint16(k)
			} else {
				perm[0][p], rest = rest[0], rest[1:]
			}
		}
		tab, err := enginetest.NewSecretTable(Game, players, nil, perm, seed)
		if err != nil {
			t.Fatal(err)
		}
		for i, a := range moves {
			who := tab.ToAct()
			if who.Kind != engine.ActorSeat {
				t.Fatalf("game %d, move %d: the secret table waits for %s", gi, i, who)
			}
			for s := -1; s < players; s++ {
				peer := max(s, 0)
				got := viewJSON(t, tab.Peers[peer].View(s))
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
	}
}

func viewJSON(t *testing.T, v engine.View) string {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
