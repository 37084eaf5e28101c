package deal

import (
	"fmt"
	"testing"

	"github.com/boardmesh/boardmesh/crypto"
)

// loseShuffles makes every shuffle seat s signs reach only the seats in
// to (none: it is lost), and keeps it in *kept; everything else goes on.
func (tb *table) loseShuffles(s int, to []int, kept *[]*crypto.Envelope) {
	prev := tb.hook
	tb.hook = func(j int, env *crypto.Envelope) *crypto.Envelope {
		if env.Author == tb.ids[s].ID() && env.Kind == crypto.KindShuffle {
			if j == to0(to) {
				*kept = append(*kept, env)
			}
			for _, x := range to {
				if x == j {
					return env
				}
			}
			return nil
		}
		if prev != nil {
			return prev(j, env)
		}
		return env
	}
}

func to0(to []int) int {
	if len(to) == 0 {
		return -1
	}
	return to[0]
}

// liveSeats is every seat but gone.
func liveSeats(n, gone int) []int {
	var out []int
	for i := 0; i < n; i++ {
		if i != gone {
			out = append(out, i)
		}
	}
	return out
}

// sameDeck fails unless every live seat holds deck id, ready, with the
// same ciphertexts.
func (tb *table) sameDeck(live []int, id uint8, n int) {
	tb.t.Helper()
	for _, i := range live {
		if !tb.ms[i].DeckReady(id) {
			tb.t.Fatalf("seat %d: deck %d is not ready", i+1, id)
		}
		for p := 0; p < n; p++ {
			a, err := tb.ms[live[0]].Ciphertext(Handle{Deck: id, Pos: uint16(p)})
			b, err2 := tb.ms[i].Ciphertext(Handle{Deck: id, Pos: uint16(p)})
			if err != nil || err2 != nil || string(a) != string(b) {
				tb.t.Fatalf("seats %d and %d hold different card %d of deck %d (%v, %v)", live[0]+1, i+1, p+1, id, err, err2)
			}
		}
	}
}

// dealToLive opens one card of deck id to each live seat, and checks that
// each learns a card of the deck and that they are all different.
func (tb *table) dealToLive(gone int, live []int, id uint8, first uint16, cards func(uint16) bool) {
	tb.t.Helper()
	var ops []Opening
	for k, s := range live {
		ops = append(ops, Opening{Deck: id, Pos: first + uint16(k), To: s})
	}
	tb.openLive([]int{gone}, ops...)
	tb.run()
	tb.noCheatsAmong(live)
	seen := map[uint16]bool{}
	for k, s := range live {
		c, ok := tb.ms[s].Card(Handle{Deck: id, Pos: first + uint16(k)})
		if !ok || !cards(c) || seen[c] {
			tb.t.Fatalf("seat %d drew %d (%v) from deck %d", s+1, c, ok, id)
		}
		seen[c] = true
	}
}

// skipped counts seat i's EventLinkSkipped naming seat gone.
func (tb *table) skipped(i, gone int) int {
	k := 0
	for _, e := range tb.events[i] {
		if e.Kind == EventLinkSkipped && e.Seat == gone+1 {
			k++
		}
	}
	return k
}

// TestDropBeforeItsLink: at 3 and 4 seats, a seat (the first, a middle
// one, the last of the chain) goes silent before its shuffle of a chain
// declared before its drop: the setup chain, or a reshuffle. The table
// stalls on it; the others drop it; the chain goes on without its link
// (every holder's piece says it lacks it), every live seat ends with the
// same deck, the others deal from it, and no honest seat is named. A late
// copy of the dropped seat's shuffle changes nothing.
func TestDropBeforeItsLink(t *testing.T) {
	for _, n := range []int{3, 4} {
		for _, gone := range []int{0, 1, n - 1} {
			for _, at := range []string{"setup", "reshuffle"} {
				t.Run(fmt.Sprintf("%d seats, seat %d, %s", n, gone+1, at), func(t *testing.T) {
					tb := newTable(t, n, []Deck{seqDeck(0, 20, 100)})
					live := liveSeats(n, gone)
					var lost []*crypto.Envelope
					id, cards := uint8(0), 20
					inDeck := func(c uint16) bool { return c >= 100 && c < 120 }
					if at == "reshuffle" {
						tb.run()
						tb.dealToLive(-1, live, 0, 0, inDeck)
						tb.loseShuffles(gone, nil, &lost)
						for _, m := range tb.ms {
							if err := m.Reshuffle(7, []Handle{{Deck: 0, Pos: 10}, {Deck: 0, Pos: 11}, {Deck: 0, Pos: 12}, {Deck: 0, Pos: 13}}); err != nil {
								t.Fatal(err)
							}
						}
						id, cards = 7, 4
					} else {
						tb.loseShuffles(gone, []int{}, &lost)
					}
					tb.run()
					if tb.ms[live[0]].DeckReady(id) {
						t.Fatal("the deck is ready without the silent seat's shuffle")
					}
					tb.silence(gone)
					waits := false
					for _, w := range tb.ms[live[0]].Waiting() {
						waits = waits || w.Seat == gone
					}
					if !waits {
						t.Fatalf("seat %d does not say it waits for seat %d: %v", live[0]+1, gone+1, tb.ms[live[0]].Waiting())
					}
					tb.drop(gone)
					tb.run()
					tb.noCheatsAmong(live)
					tb.sameDeck(live, id, cards)
					for _, i := range live {
						if tb.skipped(i, gone) != 1 {
							t.Errorf("seat %d: %d skipped links of seat %d, want 1", i+1, tb.skipped(i, gone), gone+1)
						}
						for _, w := range tb.ms[i].Waiting() {
							t.Errorf("seat %d still waits: %v", i+1, w)
						}
					}
					first := uint16(0)
					if at == "setup" {
						first = 2 // past what the reshuffle variant deals first
					}
					tb.dealToLive(gone, live, id, first, inDeck)
					// The dropped seat's shuffle, signed before it went,
					// arrives late (a relay): nothing changes, nobody named.
					tb.hook = nil
					for _, env := range tb.persist[gone] {
						if env.Kind == crypto.KindShuffle {
							for _, i := range live {
								tb.ms[i].Step(env)
							}
						}
					}
					tb.collect()
					tb.run()
					tb.noCheatsAmong(live)
					tb.sameDeck(live, id, cards)
				})
			}
		}
	}
}

// TestDropLinkHeldBySomeone: the dropped seat's shuffle reached one live
// seat only before it went. That seat's piece says it holds the link, so
// the chain keeps it: the others wait for it, and once it is relayed (as
// catch-up does) every live seat finishes the same deck with it, nothing
// skipped, nobody named.
func TestDropLinkHeldBySomeone(t *testing.T) {
	for _, n := range []int{3, 4} {
		t.Run(fmt.Sprintf("%d seats", n), func(t *testing.T) {
			tb := newTable(t, n, []Deck{seqDeck(0, 12, 0)})
			gone, holder := n-1, 0
			live := liveSeats(n, gone)
			var kept []*crypto.Envelope
			tb.loseShuffles(gone, []int{holder}, &kept)
			tb.run()
			if len(kept) == 0 {
				t.Fatal("the last seat shuffled nothing")
			}
			if !tb.ms[holder].DeckReady(0) {
				t.Fatal("the seat that holds every link has no deck")
			}
			tb.silence(gone)
			tb.drop(gone)
			tb.run()
			tb.noCheatsAmong(live)
			if tb.ms[1].DeckReady(0) {
				t.Fatal("seat 2 finished the chain without the link seat 1 holds")
			}
			for _, env := range kept {
				for _, i := range live {
					if i != holder {
						tb.ms[i].Step(env)
					}
				}
			}
			tb.collect()
			tb.run()
			tb.noCheatsAmong(live)
			tb.sameDeck(live, 0, 12)
			for _, i := range live {
				if tb.skipped(i, gone) != 0 {
					t.Errorf("seat %d skipped a link that seat %d holds", i+1, holder+1)
				}
			}
		})
	}
}

// TestDropBeforeItsLinkRestart: a live seat restarts after the drop (its
// disk: its key, what it signed, what it received, in order) and repeats
// its calls: it reaches the same deck as the others, and signs nothing
// different (its persisted piece, with its list, binds it).
func TestDropBeforeItsLinkRestart(t *testing.T) {
	tb := newTable(t, 4, []Deck{seqDeck(0, 12, 0)})
	gone := 1
	var lost []*crypto.Envelope
	tb.loseShuffles(gone, nil, &lost)
	tb.run()
	tb.silence(gone)
	tb.drop(gone)
	tb.run()
	live := liveSeats(4, gone)
	tb.noCheatsAmong(live)
	tb.sameDeck(live, 0, 12)
	tb.restart(2, 99)
	if err := tb.ms[2].Drop(gone); err != nil {
		t.Fatal(err)
	}
	tb.collect()
	tb.run()
	tb.noCheatsAmong(live)
	tb.sameDeck(live, 0, 12)
	if tb.skipped(2, gone) != 2 {
		t.Errorf("the restarted seat skipped %d links in both runs, want 2", tb.skipped(2, gone))
	}
}

// noCheatsAmong fails on any cheat a live seat saw (the dropped seat's
// machine, silenced, never learns of its drop here).
func (tb *table) noCheatsAmong(live []int) {
	tb.t.Helper()
	for _, i := range live {
		for _, e := range tb.cheats(i) {
			tb.t.Errorf("seat %d saw a cheat: %s", i+1, e.Text)
		}
	}
}

// TestPieceListingAChainNotOwedIsNamed: a holder whose piece lists a chain
// in which the dropped seat owed no shuffle before its drop (one declared
// after it, or none at all) is named by every other live seat.
func TestPieceListingAChainNotOwedIsNamed(t *testing.T) {
	tb := newTable(t, 3, []Deck{seqDeck(0, 8, 0)})
	tb.run()
	tb.tamper(1, crypto.KindPiece, func(env *crypto.Envelope) *crypto.Envelope {
		b, err := decodePiece(env.Body)
		if err != nil {
			t.Fatal(err)
		}
		b.Holds = []uint64{5}
		return tb.resign(1, env, b.encode())
	})
	tb.silence(2)
	for _, i := range []int{0, 1} {
		if err := tb.ms[i].Drop(2); err != nil {
			t.Fatal(err)
		}
	}
	tb.collect()
	tb.run()
	found := false
	for _, e := range tb.cheats(0) {
		found = found || e.Cheat == CheatWrongPiece && e.Seat == 2
	}
	if !found {
		t.Errorf("seat 1 did not name seat 2's piece listing chain 6: %v", tb.cheats(0))
	}
	for _, e := range tb.cheats(1) {
		t.Errorf("seat 2 (the liar) names someone: %s", e.Text)
	}
}
