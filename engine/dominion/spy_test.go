package dominion

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"testing"

	"github.com/boardmesh/boardmesh/engine"
	"github.com/boardmesh/boardmesh/engine/enginetest"
)

// spyKingdom is the Kingdom of the spy games: every card the issue names
// for what it reveals (Library, Sentry, Harbinger, Artisan, Cellar,
// Bureaucrat, Bandit, Vassal, Moat, Militia).
var spyKingdom = engine.Options{{Name: optKingdom, Value: "Library+Sentry+Harbinger+Artisan+Cellar+Bureaucrat+Bandit+Vassal+Moat+Militia"}}

// spySteps is how far a spy game goes: its first turns, while most
// starting cards are still hidden (later they are played, revealed or
// reshuffled into the open, and nothing is left to hide).
const spySteps = 300

// spyGame is one recorded game on a secret table: the dealer's decks, the
// moves, and a hash of the spy's complete view after every step.
type spyGame struct {
	moves []engine.Action // zero Op for a beacon step
	views [][32]byte
	cards []engine.Cards // the spy's card bookkeeping after every step
	table *enginetest.SecretTable
}

// playSpy plays a 4-seat bot game on a secret table dealt from perm (nil:
// shuffled from seed), or replays moves on one, hashing spy's view after
// every step.
func playSpy(perm [][]uint16, seed string, moves []engine.Action, spy int) (*spyGame, error) {
	tab, err := enginetest.NewSecretTable(Game, 4, spyKingdom, perm, []byte(seed))
	if err != nil {
		return nil, err
	}
	g := &spyGame{table: tab}
	g.views = append(g.views, sha256.Sum256(tab.SpyView(spy)))
	g.cards = append(g.cards, tab.Peers[spy].Cards().Clone())
	bots := []engine.Bot{&moneyBot{engine: Sentry, most: 2}, &moneyBot{engine: Militia, most: 2}, &moneyBot{engine: Library, most: 2}, explorer{}}
	r := engine.NewRand([]byte(seed))
	for step := 0; tab.ToAct().Kind != engine.ActorOver && step < spySteps; step++ {
		a, ranOut, err := tab.Replay(step, moves, bots, r)
		if err != nil {
			return nil, err
		}
		if ranOut {
			return g, nil
		}
		g.moves = append(g.moves, a)
		g.views = append(g.views, sha256.Sum256(tab.SpyView(spy)))
		g.cards = append(g.cards, tab.Peers[spy].Cards().Clone())
	}
	return g, nil
}

// lineage is every handle one starting card had, through the reshuffles
// (from the dealer's record of which source each position took).
func lineage(tab *enginetest.SecretTable, h engine.Handle) []engine.Handle {
	cs := tab.Peers[0].Cards()
	out := []engine.Handle{h}
	for d := len(cs.Decks()); d < cs.NumDecks(); d++ {
		for i, src := range cs.Sources(d) {
			if src != h {
				continue
			}
			for q, took := range tab.Took[d] {
				if took == i {
					h = engine.Handle{Deck: uint8(d), Pos: uint16(q)}
					out = append(out, h)
				}
			}
		}
	}
	return out
}

// TestSpyLearnsNoHiddenCard is Dominion's spy test with 4 seats, on a
// Kingdom of every card that reveals something. Seat 2 keeps everything
// its engine holds (its state encoding, its Knowledge, every public event).
// For every card of another seat that the rules keep from it (a starting
// card never shown to everyone in any deck it was reshuffled into, and
// never opened to the spy), a second game whose dealer swaps it with a card
// of the other kind in the same starting deck, replayed with the same
// public history, gives the spy the same view after every step. The seat
// that owns it does see the difference when it drew it, and swapping one
// of the spy's own cards changes the spy's view: the comparison can fail.
func TestSpyLearnsNoHiddenCard(t *testing.T) {
	const spy = 1
	games, perSeat := 2, 3
	if testing.Short() {
		games, perSeat = 1, 2
	}
	checked, ownerSaw, steps := 0, 0, 0
	for gi := 0; gi < games; gi++ {
		seed := fmt.Sprintf("dominion spy/%d", gi)
		a, err := playSpy(nil, seed, nil, spy)
		if err != nil {
			t.Fatalf("game %d: %v", gi, err)
		}
		tab := a.table
		cs := tab.Peers[spy].Cards()
		declared := len(cs.Decks())
		// exposed is the first step after which the spy may know the card
		// (it, in any deck it was reshuffled into, was opened to everyone
		// or to the spy), or the number of steps if never.
		exposed := func(h engine.Handle) int {
			line := lineage(tab, h)
			for k := range a.cards {
				for _, g := range line {
					if a.cards[k].Valid(g) && (a.cards[k].Seen(g, engine.Public) || a.cards[k].Seen(g, spy)) {
						return k
					}
				}
			}
			return len(a.cards)
		}
		swapped := func(d uint8, p, q uint16) [][]uint16 {
			perm := make([][]uint16, declared)
			for i := range perm {
				perm[i] = append([]uint16(nil), tab.Perm[i]...)
			}
			perm[d][p], perm[d][q] = perm[d][q], perm[d][p]
			return perm
		}
		for x := 0; x < 4; x++ {
			d := startDeck(x)
			var hidden []uint16
			var until [10]int
			for p := uint16(0); p < 10; p++ {
				if until[p] = exposed(engine.Handle{Deck: d, Pos: p}); until[p] > 0 {
					hidden = append(hidden, p)
				}
			}
			if x == spy {
				// The control: a card the spy drew, swapped with one of
				// the other kind it never saw, changes the spy's view.
				for p := uint16(0); p < 10; p++ {
					h := engine.Handle{Deck: d, Pos: p}
					if !cs.Seen(h, spy) || cs.Seen(h, engine.Public) {
						continue
					}
					for q := uint16(0); q < 10; q++ {
						if tab.Perm[d][q] != tab.Perm[d][p] && !cs.Seen(engine.Handle{Deck: d, Pos: q}, spy) {
							b, err := playSpy(swapped(d, p, q), seed, a.moves, spy)
							if err == nil && b.views[len(b.views)-1] == a.views[len(a.views)-1] {
								t.Fatalf("game %d: swapping the spy's own card %s does not change its view: the test cannot see anything", gi, h)
							}
							p, q = 10, 10
						}
					}
				}
				continue
			}
			n := 0
			for _, p := range hidden {
				for _, q := range hidden {
					if n >= perSeat || tab.Perm[d][p] == tab.Perm[d][q] || q < p {
						continue
					}
					n++
					// Replayed up to the step that shows either card to the
					// spy (or to everyone): until then the views must agree.
					k := min(until[p], until[q]) - 1
					b, err := playSpy(swapped(d, p, q), seed, a.moves[:k], spy)
					if err != nil {
						t.Fatalf("game %d: seat %d's cards %d and %d swapped: the same public history is not playable: %v", gi, x+1, p, q, err)
					}
					if len(b.views) != k+1 {
						t.Fatalf("game %d: the replay has %d views, want %d", gi, len(b.views), k+1)
					}
					checked++
					steps += k
					for i := range b.views {
						if a.views[i] != b.views[i] {
							t.Fatalf("game %d: seat %d's view differs after step %d when seat %d's starting cards %d (%s) and %d (%s) are swapped",
								gi, spy+1, i, x+1, p, cards[tab.Perm[d][p]].name, q, cards[tab.Perm[d][q]].name)
						}
					}
					// Their owner, if it drew one of them by then, does see
					// the difference.
					saw := false
					for _, g := range append(lineage(tab, engine.Handle{Deck: d, Pos: p}), lineage(tab, engine.Handle{Deck: d, Pos: q})...) {
						saw = saw || a.cards[k].Valid(g) && a.cards[k].Seen(g, x)
					}
					if saw {
						ownerSaw++
						same, err := playSpy(swapped(d, p, p), seed, a.moves[:k], spy)
						if err != nil {
							t.Fatal(err)
						}
						if bytes.Equal(knowledgeOf(same.table, x), knowledgeOf(b.table, x)) {
							t.Fatalf("game %d: seat %d drew its swapped card but its knowledge does not change", gi, x+1)
						}
					}
				}
			}
		}
	}
	if checked == 0 || ownerSaw == 0 {
		t.Fatalf("%d swaps checked, %d seen by their owner: the games hide nothing worth testing", checked, ownerSaw)
	}
	t.Logf("%d swaps of hidden cards, %d of them drawn by their owner, %d steps compared", checked, ownerSaw, steps)
}

func knowledgeOf(tab *enginetest.SecretTable, seat int) []byte {
	e := engine.NewEncoder(nil)
	tab.Peers[seat].Cards().Knowledge().Encode(e)
	return append([]byte(nil), e.Bytes()...)
}

// TestSecretPlaysAreNamed: on a secret table a card played from a hand is
// shown to everyone by the move, so every other seat's history names it
// ("Play Militia"), where it said "Play ?": the card was hidden in the
// state before the move, and only the state after knows it.
func TestSecretPlaysAreNamed(t *testing.T) {
	tab, err := enginetest.NewSecretTable(Game, 3, spyKingdom, nil, []byte("named plays"))
	if err != nil {
		t.Fatal(err)
	}
	r := engine.NewRand([]byte("named plays"))
	plays := 0
	for step := 0; step < 600; step++ {
		who, a, ok, err := tab.NextMove(engine.RandomBot{}, r)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			break
		}
		var prevs []*State
		for _, p := range tab.Peers {
			prevs = append(prevs, p.Clone().(*State))
		}
		if err := tab.Act(a); err != nil {
			t.Fatal(err)
		}
		if a.Op != opPlay && a.Op != opTreasure {
			continue
		}
		plays++
		want := prevs[who.Seat].Narrate(tab.Peers[who.Seat], who, a, who.Seat).What
		if want == "" || want == "Play ?" {
			t.Fatalf("the mover's own history says %q", want)
		}
		for seat := range tab.Peers {
			if got := prevs[seat].Narrate(tab.Peers[seat], who, a, seat).What; got != want {
				t.Errorf("step %d: seat %d is told %q of seat %d's %q", step, seat+1, got, who.Seat+1, want)
			}
		}
	}
	if plays == 0 {
		t.Fatal("no card played in 600 steps")
	}
}
