package dragonslair

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"testing"

	"github.com/boardmesh/boardmesh/engine"
	"github.com/boardmesh/boardmesh/engine/enginetest"
)

// spyStep is what one step of a recorded secret game left, as far as the
// test needs it: the pile's handles, who had seen each (public bookkeeping),
// the Elf's claims on them, and the cards the rules let the spy know so far.
type spyStep struct {
	pile    []engine.Handle
	seen    []uint8 // per pile handle: the seats that saw it
	elf     []bool  // per pile handle: the Elf's player made a claim on it, or is about to
	spyMay  map[engine.Handle]bool
	elfLook bool
}

// spyGame is one recorded 4-seat game on a secret table.
type spyGame struct {
	moves []engine.Action // zero Op for a beacon step
	views [][32]byte      // the spy's complete view after every step
	steps []spyStep
	table *enginetest.SecretTable
}

// may marks the cards the rules let the spy know at this step: every card
// turned over (public), and the cards it looked at itself, computed from
// the zones (the top card while its own Sphere's choice waits, the top
// four while its own Elf's choice waits), not from what the engine says
// it showed the spy: an engine that showed it more fails the test.
func spyMay(s *State, spy int, may map[engine.Handle]bool) {
	if int(s.turnSeat) == spy && s.topN > 0 {
		switch s.phase {
		case phaseSphere:
			may[s.top[0].h] = true
		case phaseElfPut:
			for i := 0; i < min(elfLook, int(s.topN)); i++ {
				may[s.top[i].h] = true
			}
		}
	}
	for _, h := range append(append([]engine.Handle(nil), s.frontH...), s.discH...) {
		may[h] = true
	}
}

func snapshot(s *State, spy int, prev map[engine.Handle]bool) spyStep {
	st := spyStep{spyMay: make(map[engine.Handle]bool, len(prev))}
	for h := range prev {
		st.spyMay[h] = true
	}
	spyMay(s, spy, st.spyMay)
	add := func(sl slot, elf bool) {
		st.pile = append(st.pile, sl.h)
		st.seen = append(st.seen, knownBy(s, sl.h))
		st.elf = append(st.elf, elf || sl.claim != claimNone)
	}
	for i, sl := range s.top[:s.topN] {
		add(sl, s.phase == phaseElfPut && i < elfLook)
	}
	for p := int(s.mid); p < s.deckLen(int(s.pd)); p++ {
		add(slot{h: engine.Handle{Deck: s.pd, Pos: uint16(p)}}, false)
	}
	for _, sl := range s.bottom[:s.botN] {
		add(sl, false)
	}
	return st
}

// playSpy plays a bot game on a secret table dealt from perm (nil: a
// seeded shuffle), or replays moves when moves is not nil, recording the
// spy's view after every step.
func playSpy(perm [][]uint16, seed string, moves []engine.Action, spy int) (*spyGame, error) {
	tab, err := enginetest.NewSecretTable(Game, 4, nil, perm, []byte(seed))
	if err != nil {
		return nil, err
	}
	g := &spyGame{table: tab}
	record := func() {
		var prev map[engine.Handle]bool
		if len(g.steps) > 0 {
			prev = g.steps[len(g.steps)-1].spyMay
		}
		g.steps = append(g.steps, snapshot(tab.Peers[spy].(*State), spy, prev))
		g.views = append(g.views, sha256.Sum256(tab.SpyView(spy)))
	}
	record()
	players := []engine.Bot{bots[0].New(), bots[1].New(), bots[2].New(), bots[0].New()}
	r := engine.NewRand([]byte(seed))
	for step := 0; tab.ToAct().Kind != engine.ActorOver; step++ {
		var a engine.Action
		switch {
		case moves == nil && step > 5000:
			return nil, fmt.Errorf("the game does not end")
		case moves == nil:
			var bot engine.Bot
			if who := tab.ToAct(); who.Kind == engine.ActorSeat {
				bot = players[who.Seat]
			}
			a, _, err = tab.Step(bot, r)
		case step >= len(moves):
			return g, nil
		case moves[step].Op == 0:
			err = tab.Chance()
		default:
			a = moves[step]
			err = tab.Act(a)
		}
		if err != nil {
			return nil, fmt.Errorf("step %d: %w", step, err)
		}
		g.moves = append(g.moves, a)
		record()
	}
	return g, nil
}

func copyPerm(p [][]uint16) [][]uint16 {
	out := make([][]uint16, len(p))
	for i := range p {
		out[i] = append([]uint16(nil), p[i]...)
	}
	return out
}

// swapPartner finds a card of the pile at step st, hidden from the spy, of
// another kind than the one at i, that can change places with it without
// changing the public history: if the Elf's player claimed either, both
// must be noises or both not (the claim is checked when the card is turned
// over; a Sphere's keep or under is anyone's choice).
func swapPartner(perm [][]uint16, st spyStep, i int) int {
	hi := st.pile[i]
	ci := card(perm[hi.Deck][hi.Pos])
	for j, hj := range st.pile {
		cj := card(perm[hj.Deck][hj.Pos])
		if j == i || st.spyMay[hj] || cj == ci {
			continue
		}
		if (st.elf[i] || st.elf[j]) && ci.isNoise() != cj.isNoise() {
			continue
		}
		return j
	}
	return -1
}

// TestSpyLearnsNoPeekedOrUnseenCard is the spy test of The Sleeping
// Dragon's Lair with 4 seats, the full edition with heroes. Seat 2 keeps
// everything its engine holds (its state encoding, its Knowledge, every
// public event). At many points of every game, for every card of the pile
// the rules keep from it (the Crystal Sphere's look of another seat, the
// Elf Tracker's four of another seat, and cards nobody has seen), a second
// game whose dealer swaps that card with another hidden card of another
// kind, replayed with the same public history up to that point, gives the
// spy the same view after every step: what the spy holds does not
// determine the card. The seat that looked sees the difference, and
// swapping a card the spy looked at itself changes the spy's view: the
// comparison can fail.
func TestSpyLearnsNoPeekedOrUnseenCard(t *testing.T) {
	const spy = 1
	games, cutsPerGame := 6, 8
	if testing.Short() {
		games, cutsPerGame = 2, 3
	}
	var bySphere, byElf, unseen, controls int
	for gi := 0; gi < games; gi++ {
		seed := fmt.Sprintf("dragon spy/%d", gi)
		a, err := playSpy(nil, seed, nil, spy)
		if err != nil {
			t.Fatalf("game %d: %v", gi, err)
		}
		perm := a.table.Perm
		// Cut points: steps at which another seat holds a look at a card
		// the spy has not seen, spread over the game, and the last step.
		var cuts []int
		for k, st := range a.steps {
			for i, h := range st.pile {
				if st.seen[i]&^(1<<spy) != 0 && !st.spyMay[h] {
					cuts = append(cuts, k)
					break
				}
			}
		}
		if len(cuts) > cutsPerGame {
			picked := make([]int, 0, cutsPerGame)
			for i := 0; i < cutsPerGame; i++ {
				picked = append(picked, cuts[i*len(cuts)/cutsPerGame])
			}
			cuts = picked
		}
		// And the first steps after another seat's Elf look (rarer than
		// the Sphere's), while the cards it saw are still in the pile.
		elfCuts := 0
		for k, st := range a.steps {
			for i, h := range st.pile {
				if elfCuts < 3 && st.elf[i] && st.seen[i]&^(1<<spy) != 0 && !st.spyMay[h] {
					cuts = append(cuts, k)
					elfCuts++
					break
				}
			}
		}
		cuts = append(cuts, len(a.steps)-1)
		for _, k := range cuts {
			st := a.steps[k]
			unseenHere := 0
			for i, h := range st.pile {
				if st.spyMay[h] {
					continue
				}
				seer := -1
				for q := 0; q < 4; q++ {
					if q != spy && st.seen[i]&(1<<q) != 0 {
						seer = q
					}
				}
				if seer < 0 {
					if unseenHere >= 2 {
						continue
					}
					unseenHere++
				}
				j := swapPartner(perm, st, i)
				if j < 0 {
					continue
				}
				switch {
				case seer < 0:
					unseen++
				case st.elf[i]:
					byElf++
				default:
					bySphere++
				}
				p2 := copyPerm(perm)
				hj := st.pile[j]
				p2[h.Deck][h.Pos], p2[hj.Deck][hj.Pos] = p2[hj.Deck][hj.Pos], p2[h.Deck][h.Pos]
				b, err := playSpy(p2, seed, a.moves[:k], spy)
				if err != nil {
					t.Fatalf("game %d, step %d, card %s swapped with %s: the same public history is not playable: %v", gi, k, h, hj, err)
				}
				for s := 0; s <= k; s++ {
					if a.views[s] != b.views[s] {
						t.Fatalf("game %d: seat %d's view differs after step %d when card %s (%s, seen by seat %d) is swapped with %s (%s)",
							gi, spy+1, s, h, card(perm[h.Deck][h.Pos]), seer+1, hj, card(perm[hj.Deck][hj.Pos]))
					}
				}
				if seer >= 0 {
					ka, kb := knowledgeAt(t, a, seed, k, seer), encodeKnowledge(b.table, seer)
					if bytes.Equal(ka, kb) {
						t.Fatalf("game %d: seat %d saw card %s but its knowledge does not change when the card does", gi, seer+1, h)
					}
				}
			}
			// The control: a card of the pile the spy looked at itself,
			// not turned over yet, swapped with a hidden one.
			for i, h := range st.pile {
				if !st.spyMay[h] {
					continue
				}
				j := swapPartner(perm, st, i)
				if j < 0 {
					continue
				}
				p2 := copyPerm(perm)
				hj := st.pile[j]
				p2[h.Deck][h.Pos], p2[hj.Deck][hj.Pos] = p2[hj.Deck][hj.Pos], p2[h.Deck][h.Pos]
				b, err := playSpy(p2, seed, a.moves[:k], spy)
				if err == nil && b.views[k] == a.views[k] {
					t.Fatalf("game %d, step %d: swapping card %s, which the spy saw, does not change its view: the test cannot see anything", gi, k, h)
				}
				controls++
				break
			}
		}
	}
	t.Logf("cards checked: %d another seat saw with the Crystal Sphere, %d with the Elf Tracker, %d nobody saw; %d controls", bySphere, byElf, unseen, controls)
	if bySphere == 0 || byElf == 0 || unseen == 0 || controls == 0 {
		t.Fatalf("the games did not exercise every kind of hidden card (Sphere %d, Elf %d, unseen %d, controls %d)", bySphere, byElf, unseen, controls)
	}
}

// knowledgeAt is seat's Knowledge after step k of the recorded game a.
func knowledgeAt(t *testing.T, a *spyGame, seed string, k, seat int) []byte {
	t.Helper()
	g, err := playSpy(copyPerm(a.table.Perm), seed, a.moves[:k], 0)
	if err != nil {
		t.Fatal(err)
	}
	return encodeKnowledge(g.table, seat)
}

func encodeKnowledge(tab *enginetest.SecretTable, seat int) []byte {
	e := engine.NewEncoder(nil)
	tab.Peers[seat].Cards().Knowledge().Encode(e)
	return append([]byte(nil), e.Bytes()...)
}
