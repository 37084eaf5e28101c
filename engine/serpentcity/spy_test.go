package serpentcity

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"testing"

	"github.com/boardmesh/boardmesh/engine"
	"github.com/boardmesh/boardmesh/engine/enginetest"
)

// spySteps is how far a spy game goes (a 4-player bot game takes about
// 700 seat moves and as many beacons).
const spySteps = 900

// spyGame is one recorded game on a secret table: the moves, a hash of the
// spy's complete view after every step, and the spy's card bookkeeping
// after every step.
type spyGame struct {
	moves []engine.Action // zero Op for a beacon step
	views [][32]byte
	cards []engine.Cards
	table *enginetest.SecretTable
}

// playSpy plays a 4-seat bot game on a secret table dealt from perm (nil:
// shuffled from seed), or replays moves on one, hashing spy's view after
// every step.
func playSpy(perm [][]uint16, seed string, moves []engine.Action, spy int) (*spyGame, error) {
	tab, err := enginetest.NewSecretTable(Game, 4, nil, perm, []byte(seed))
	if err != nil {
		return nil, err
	}
	g := &spyGame{table: tab}
	g.views = append(g.views, sha256.Sum256(tab.SpyView(spy)))
	g.cards = append(g.cards, tab.Peers[spy].Cards().Clone())
	bots := []engine.Bot{&StrategyBot{}, &BuilderBot{}, &StrategyBot{}, &BuilderBot{}}
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

// lineage is every handle one declared card had, through the reshuffles
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

func knowledgeOf(tab *enginetest.SecretTable, seat int) []byte {
	e := engine.NewEncoder(nil)
	tab.Peers[seat].Cards().Knowledge().Encode(e)
	return append([]byte(nil), e.Bytes()...)
}

// TestSpyLearnsNoHiddenCard is Serpent City's spy test with 4 seats. Seat 2
// keeps everything its engine holds (its state encoding, its Knowledge,
// every public event). For every Special Card another seat drew that the
// rules keep from the spy (never played face up, in any deck it was
// reshuffled into, and never drawn by the spy), a second game whose dealer
// swaps it with a card of another kind the spy has not seen either (in a
// pile or another hand), replayed with the same public history, gives the
// spy the same view after every step until either card is shown: its
// holder's card counts, the defender's card kept back by Ambush, the drawn
// card's deck, but never its kind. The card's holder does see the
// difference, and swapping one of the spy's own cards changes the spy's
// view: the comparison can fail.
func TestSpyLearnsNoHiddenCard(t *testing.T) {
	const spy = 1
	games, perSeat := 3, 4
	if testing.Short() {
		games, perSeat = 1, 2
	}
	checked, ownerSaw, steps, control := 0, 0, 0, 0
	for gi := 0; gi < games; gi++ {
		seed := fmt.Sprintf("serpentcity spy/%d", gi)
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
		// drawnBy says which seat was shown the card (in any of its decks)
		// by step k, or -1.
		drawnBy := func(h engine.Handle, k int) int {
			for _, g := range lineage(tab, h) {
				for x := 0; x < 4; x++ {
					if a.cards[k].Valid(g) && a.cards[k].Seen(g, x) {
						return x
					}
				}
			}
			return -1
		}
		swapped := func(d uint8, p, q uint16) [][]uint16 {
			perm := make([][]uint16, declared)
			for i := range perm {
				perm[i] = append([]uint16(nil), tab.Perm[i]...)
			}
			perm[d][p], perm[d][q] = perm[d][q], perm[d][p]
			return perm
		}
		for d := uint8(0); int(d) < declared; d++ {
			n := len(tab.Perm[d])
			until := make([]int, n)
			for p := range until {
				until[p] = exposed(engine.Handle{Deck: d, Pos: uint16(p)})
			}
			done := map[int]int{}
			controlled := false
			for p := 0; p < n; p++ {
				// Who drew it: before the spy could know it, or at the end.
				x := drawnBy(engine.Handle{Deck: d, Pos: uint16(p)}, max(until[p]-1, 0))
				if until[p] < len(a.cards) && drawnBy(engine.Handle{Deck: d, Pos: uint16(p)}, until[p]) == spy {
					x = spy
				}
				if x < 0 {
					continue
				}
				if x == spy {
					if controlled || until[p] == len(a.cards) {
						continue
					}
					// The control: a card the spy drew, swapped with one of
					// another kind it never saw, changes the spy's view.
					for q := 0; q < n; q++ {
						if tab.Perm[d][q] != tab.Perm[d][p] && until[q] > until[p] {
							b, err := playSpy(swapped(d, uint16(p), uint16(q)), seed, a.moves[:until[p]], spy)
							if err == nil && b.views[until[p]] == a.views[until[p]] {
								t.Fatalf("game %d: swapping the spy's own card %d:%d does not change its view: the test cannot see anything", gi, d, p)
							}
							controlled = true
							control++
							break
						}
					}
					continue
				}
				if until[p] == 0 || done[x] >= perSeat {
					continue
				}
				for q := 0; q < n; q++ {
					if q == p || tab.Perm[d][q] == tab.Perm[d][p] || until[q] == 0 {
						continue
					}
					done[x]++
					// Replayed up to the step that shows either card to the
					// spy (or to everyone): until then the views must agree.
					k := min(until[p], until[q]) - 1
					b, err := playSpy(swapped(d, uint16(p), uint16(q)), seed, a.moves[:k], spy)
					if err != nil {
						t.Fatalf("game %d: cards %d:%d and %d:%d swapped: the same public history is not playable: %v", gi, d, p, d, q, err)
					}
					if len(b.views) != k+1 {
						t.Fatalf("game %d: the replay has %d views, want %d", gi, len(b.views), k+1)
					}
					checked++
					steps += k
					for i := range b.views {
						if a.views[i] != b.views[i] {
							t.Fatalf("game %d: seat %d's view differs after step %d when seat %d's %s Card %d:%d (%s) is swapped with %d:%d (%s)",
								gi, spy+1, i, x+1, deckNames[d], d, p, s0(tab).cardName(int(d), int(tab.Perm[d][p])), d, q, s0(tab).cardName(int(d), int(tab.Perm[d][q])))
						}
					}
					// Their holder, if it drew one of them by then, does see
					// the difference.
					saw := false
					for _, g := range append(lineage(tab, engine.Handle{Deck: d, Pos: uint16(p)}), lineage(tab, engine.Handle{Deck: d, Pos: uint16(q)})...) {
						saw = saw || a.cards[k].Valid(g) && a.cards[k].Seen(g, x)
					}
					if saw {
						ownerSaw++
						same, err := playSpy(swapped(d, uint16(p), uint16(p)), seed, a.moves[:k], spy)
						if err != nil {
							t.Fatal(err)
						}
						if bytes.Equal(knowledgeOf(same.table, x), knowledgeOf(b.table, x)) {
							t.Fatalf("game %d: seat %d drew its swapped card but its knowledge does not change", gi, x+1)
						}
					}
					break
				}
			}
		}
	}
	if checked == 0 || ownerSaw == 0 || control == 0 {
		t.Fatalf("%d swaps checked, %d seen by their holder, %d controls: the games hide nothing worth testing", checked, ownerSaw, control)
	}
	t.Logf("%d swaps of hidden cards, %d of them drawn by their holder, %d steps compared, %d controls", checked, ownerSaw, steps, control)
}

// s0 is seat 1's engine of a table (for card names in messages).
func s0(tab *enginetest.SecretTable) *State { return tab.Peers[0].(*State) }
