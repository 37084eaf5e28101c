package deal

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/boardmesh/boardmesh/crypto"
)

// A holder whose piece of a dropped seat's key lists a link it does not
// have keeps the table waiting for it; the table votes it out, and then
// the link is decided again by the lists of the seats still in play
// (escrow.go's standing). These tests play the cases the rule must keep
// apart: nobody honest has the link (it is skipped everywhere), one
// honest seat took it before the liar's drop (it stands, and that seat
// relays it), and one that reached an honest seat only after its list
// (kept unused, then used or dropped by what the others' lists say).

// claimLink makes seat liar's piece of a dropped seat's key list the
// setup chain's link (seq 0), whether it holds it or not.
func (tb *table) claimLink(liar int) {
	tb.tamper(liar, crypto.KindPiece, func(env *crypto.Envelope) *crypto.Envelope {
		b, err := decodePiece(env.Body)
		if err != nil {
			tb.t.Fatal(err)
		}
		b.Holds = []uint64{0}
		return tb.resign(liar, env, b.encode())
	})
}

// dropAt has each seat in at agree to drop seat s (the others, silenced,
// never learn of it).
func (tb *table) dropAt(at []int, s int) {
	tb.t.Helper()
	for _, i := range at {
		if err := tb.ms[i].Drop(s); err != nil {
			tb.t.Fatalf("seat %d: Drop(%d): %v", i+1, s+1, err)
		}
	}
	tb.collect()
}

// withhold keeps seat from's piece envelopes of seat d's key from seat to
// (a slow gossip path) and returns a func that delivers them.
func (tb *table) withhold(from, d, to int) func() {
	var kept []*crypto.Envelope
	prev := tb.hook
	tb.hook = func(j int, env *crypto.Envelope) *crypto.Envelope {
		if j == to && env.Author == tb.ids[from].ID() && env.Kind == crypto.KindPiece && env.Seq == uint64(d) {
			kept = append(kept, env)
			return nil
		}
		if prev != nil {
			return prev(j, env)
		}
		return env
	}
	return func() {
		tb.hook = prev
		for _, env := range kept {
			if err := tb.stepInto(to, env); err != nil {
				tb.t.Fatalf("seat %d: the withheld piece: %v", to+1, err)
			}
		}
		tb.collect()
	}
}

// stepInto steps env into seat i as a late delivery, kept on its disk
// like any it received (restart steps it again).
func (tb *table) stepInto(i int, env *crypto.Envelope) error {
	tb.recv[i] = append(tb.recv[i], env)
	return tb.ms[i].Step(env)
}

// dealTo opens one card of deck 0 to each live seat (gone dropped), and
// checks each learns a different card of the deck, and nobody is named.
func (tb *table) dealTo(gone, live []int) {
	tb.t.Helper()
	var ops []Opening
	for k, s := range live {
		ops = append(ops, Opening{Deck: 0, Pos: uint16(k), To: s})
	}
	tb.openLive(gone, ops...)
	tb.run()
	tb.noCheatsAmong(live)
	seen := map[uint16]bool{}
	for k, s := range live {
		c, ok := tb.ms[s].Card(Handle{Deck: 0, Pos: uint16(k)})
		if !ok || seen[c] {
			tb.t.Fatalf("seat %d drew %d (%v)", s+1, c, ok)
		}
		seen[c] = true
	}
}

// noWaits fails if a seat in at waits for anything.
func (tb *table) noWaits(at []int) {
	tb.t.Helper()
	for _, i := range at {
		for _, w := range tb.ms[i].Waiting() {
			tb.t.Errorf("seat %d still waits: seat %d, %s", i+1, w.Seat+1, w.What)
		}
	}
}

// skipText is seat i's EventLinkSkipped text naming seat gone.
func (tb *table) skipText(i, gone int) string {
	for _, e := range tb.events[i] {
		if e.Kind == EventLinkSkipped && e.Seat == gone+1 {
			return e.Text
		}
	}
	return ""
}

// TestLiarDroppedChainGoesOn: at 4 and 5 seats a seat (the last, or one
// in the middle) goes before its shuffle of the setup chain reaches
// anyone; seat 1's piece of its key claims that shuffle. The others wait
// for seat 1, named as the one to relay it, and drop it. Then no seat in
// play holds the link: every honest seat skips it, says in plain words
// that seat 1 claimed it and never relayed it, ends with the same deck
// and deals from it. With late, the lost link reaches one honest seat
// after it signed its piece of seat 1's key but before the other lists
// came: it keeps it unused, and skips it like the others. A restarted
// honest seat (the one that got the late link, with late) comes to the
// same, signing nothing different; a late copy afterwards changes
// nothing.
func TestLiarDroppedChainGoesOn(t *testing.T) {
	for _, n := range []int{4, 5} {
		for _, gone := range []int{1, n - 1} {
			for _, late := range []bool{false, true} {
				t.Run(fmt.Sprintf("%d seats, seat %d gone, late %v", n, gone+1, late), func(t *testing.T) {
					tb := newTable(t, n, []Deck{seqDeck(0, 12, 0)})
					liar := 0
					tb.claimLink(liar)
					var lost []*crypto.Envelope
					tb.loseShuffles(gone, []int{}, &lost)
					tb.run()
					tb.silence(gone)
					tb.drop(gone)
					tb.run()
					var honest []int
					for i := 0; i < n; i++ {
						if i != liar && i != gone {
							honest = append(honest, i)
						}
					}
					tb.noCheatsAmong(honest)
					tb.waitsOnlyFor(honest, []int{liar}, "says it holds")
					link := tb.persist[gone][slices.IndexFunc(tb.persist[gone], func(e *crypto.Envelope) bool { return e.Kind == crypto.KindShuffle })]

					tb.silence(liar)
					x, y := honest[0], honest[1]
					var release func()
					if late {
						release = tb.withhold(y, liar, x)
					}
					tb.dropAt(append([]int{gone}, honest...), liar)
					tb.run()
					if late {
						if tb.ms[x].DeckReady(0) {
							t.Fatal("seat went on before the lists of the liar's drop were in")
						}
						tb.stepInto(x, link)
						tb.collect()
						tb.run()
						if tb.ms[x].DeckReady(0) {
							t.Fatalf("seat %d finished the chain with a link no list names", x+1)
						}
						release()
						tb.run()
					}
					tb.noCheatsAmong(honest)
					tb.noWaits(honest)
					tb.sameDeck(honest, 0, 12)
					for _, i := range honest {
						if tb.skipped(i, gone) != 1 {
							t.Errorf("seat %d skipped %d links of seat %d, want 1", i+1, tb.skipped(i, gone), gone+1)
						}
						text := tb.skipText(i, gone)
						if !strings.Contains(text, "seat 1 (in its piece of "+fmt.Sprintf("seat %d's key) said it held it but never relayed it", gone+1)) {
							t.Errorf("seat %d: the skip does not name the liar: %q", i+1, text)
						}
					}
					tb.dealTo([]int{gone, liar}, honest)

					r := y
					if late {
						r = x // the seat that kept the late link unused
					}
					tb.restart(r, 99)
					for _, s := range []int{gone, liar} {
						if err := tb.ms[r].Drop(s); err != nil {
							t.Fatal(err)
						}
					}
					var ops []Opening
					for k, s := range honest {
						ops = append(ops, Opening{Deck: 0, Pos: uint16(k), To: s})
					}
					if _, err := tb.ms[r].Open(ops); err != nil {
						t.Fatal(err)
					}
					tb.collect()
					tb.run()
					tb.hook = nil
					for _, i := range honest {
						tb.stepInto(i, link)
					}
					tb.collect()
					tb.run()
					tb.noCheatsAmong(honest)
					tb.noWaits(honest)
					tb.sameDeck(honest, 0, 12)
					k := slices.Index(honest, r)
					if c, ok := tb.ms[r].Card(Handle{Deck: 0, Pos: uint16(k)}); !ok {
						t.Errorf("the restarted seat %d lost its card (%d)", r+1, c)
					}
					if tb.skipped(r, gone) != 2 {
						t.Errorf("the restarted seat %d skipped %d links of seat %d in both runs, want 2", r+1, tb.skipped(r, gone), gone+1)
					}
				})
			}
		}
	}
}

// TestLinkRelayedToOneBeforeItsHolderDrops: the split the rule must not
// make. At 4 seats seat 2 goes before its shuffle reaches anyone but seat
// 1, whose piece says so. Seat 1 relays it to seat 3 only (seat 3 checks
// it and shuffles on it), and goes. At seat 1's drop seat 3's piece of
// seat 1's key lists the link, so it stands: seat 4 waits for seat 3,
// named as the one to relay it, never skips it, and once seat 3 relays it
// both end with the same deck. With late, the link reaches seat 4 after
// it signed its list, before seat 3's came: seat 4 keeps it unused, and
// uses it once seat 3's list names it, with no relay more.
func TestLinkRelayedToOneBeforeItsHolderDrops(t *testing.T) {
	for _, late := range []bool{false, true} {
		t.Run(fmt.Sprintf("late %v", late), func(t *testing.T) {
			tb := newTable(t, 4, []Deck{seqDeck(0, 12, 0)})
			holder, gone, x, y := 0, 1, 2, 3
			var kept []*crypto.Envelope
			tb.loseShuffles(gone, []int{holder}, &kept)
			tb.run()
			tb.silence(gone)
			tb.drop(gone)
			tb.run()
			honest := []int{x, y}
			tb.noCheatsAmong(honest)
			tb.waitsOnlyFor(honest, []int{holder}, "says it holds")

			if err := tb.ms[x].Step(kept[0]); err != nil {
				t.Fatalf("seat 3 refused the relayed link: %v", err)
			}
			tb.collect()
			tb.run()
			if tb.ms[y].DeckReady(0) {
				t.Fatal("seat 4 finished the chain without the link")
			}
			tb.silence(holder)
			var release func()
			if late {
				release = tb.withhold(x, holder, y)
			}
			tb.dropAt([]int{gone, x, y}, holder)
			tb.run()
			if late {
				tb.ms[y].Step(kept[0])
				tb.collect()
				tb.run()
				if tb.ms[y].DeckReady(0) {
					t.Fatal("seat 4 used the link before a list of a seat in play named it")
				}
				for _, e := range tb.persist[y] {
					if e.Kind == crypto.KindPiece && e.Seq == uint64(holder) {
						if b, _ := decodePiece(e.Body); len(b.Relays) != 0 {
							t.Errorf("seat 4's piece of seat 1's key lists %v, a link it got after signing", b.Relays)
						}
					}
				}
				release()
				tb.run()
			} else {
				tb.waitsOnlyFor([]int{y}, []int{x}, "its piece of seat 1's key says it holds (it is to relay it)")
				if err := tb.ms[y].Step(kept[0]); err != nil {
					t.Fatalf("seat 4 refused the relayed link: %v", err)
				}
				tb.collect()
				tb.run()
			}
			tb.noCheatsAmong(honest)
			tb.noWaits(honest)
			tb.sameDeck(honest, 0, 12)
			for _, i := range honest {
				if tb.skipped(i, gone) != 0 {
					t.Errorf("seat %d skipped the link seat 3 holds", i+1)
				}
			}
			tb.dealTo([]int{gone, holder}, honest)
		})
	}
}

// TestLiarClaimsARemask: at 4 seats seat 1 draws a card, then seat 2 is
// to draw it, so seat 2 owes a re-masking first, and goes before it sends
// one. Seat 3's piece of seat 2's key claims it holds that re-masking.
// Seats 1 and 4 wait for seat 3, named as the one to relay it, and drop
// it: then no seat in play holds the re-masking, the opening goes on with
// the ciphertext as it was (the skip names seat 3 in plain words), both
// see the card seat 2 held, the one seat 1 drew, and deal on.
func TestLiarClaimsARemask(t *testing.T) {
	tb := newTable(t, 4, []Deck{seqDeck(0, 20, 100)})
	tb.run()
	tb.open(Opening{Deck: 0, Pos: 0, To: 0})
	tb.run()
	h := Handle{Deck: 0, Pos: 0}
	want, ok := tb.ms[0].Card(h)
	if !ok {
		t.Fatal("seat 1 did not draw")
	}
	gone, liar := 1, 2
	honest := []int{0, 3}
	var batch uint64
	tb.hook = func(to int, env *crypto.Envelope) *crypto.Envelope {
		switch env.Author {
		case tb.ids[gone].ID():
			return nil
		case tb.ids[liar].ID():
			if env.Kind == crypto.KindPiece && env.Seq == uint64(gone) {
				b, err := decodePiece(env.Body)
				if err != nil {
					t.Fatal(err)
				}
				b.Remasks = []uint64{batch}
				return tb.resign(liar, env, b.encode())
			}
		}
		return env
	}
	batch = tb.open(Opening{Deck: 0, Pos: 0, To: gone})
	tb.run()
	tb.drop(gone)
	tb.run()
	tb.noCheatsAmong(honest)
	for _, i := range honest {
		// (Each also lists the other's shares, owed once the re-masking
		// is in.)
		named := false
		for _, w := range tb.ms[i].Waiting() {
			named = named || w.Seat == liar && strings.Contains(w.What, "re-masking for batch 1, which its piece of seat 2's key says it holds")
			if w.Seat == gone {
				t.Errorf("seat %d waits for the dropped seat 2, not for seat 3 that is to relay: %q", i+1, w.What)
			}
		}
		if !named {
			t.Errorf("seat %d does not name seat 3 as the one to relay the re-masking: %v", i+1, tb.ms[i].Waiting())
		}
	}
	if _, ok := tb.ms[0].PublicCard(h); ok {
		t.Fatal("seat 1 went on without the re-masking seat 3 claims")
	}
	tb.silence(liar)
	tb.dropAt(append([]int{gone}, honest...), liar)
	tb.run()
	tb.noCheatsAmong(honest)
	tb.noWaits(honest)
	for _, i := range honest {
		if c, ok := tb.ms[i].PublicCard(h); !ok || c != want {
			t.Errorf("seat %d sees the card seat 2 held as %d (%v), want %d", i+1, c, ok, want)
		}
		var text string
		for _, e := range tb.events[i] {
			if e.Kind == EventLinkSkipped && e.Seat == gone+1 {
				text = e.Text
			}
		}
		if !strings.Contains(text, "re-masking") || !strings.Contains(text, "seat 3 (in its piece of seat 2's key) said it held it but never relayed it") {
			t.Errorf("seat %d: the skip reads %q", i+1, text)
		}
	}
	var ops []Opening
	for k, s := range honest {
		ops = append(ops, Opening{Deck: 0, Pos: uint16(1 + k), To: s})
	}
	tb.openLive([]int{gone, liar}, ops...)
	tb.run()
	tb.noCheatsAmong(honest)
	for k, s := range honest {
		if c, ok := tb.ms[s].Card(Handle{Deck: 0, Pos: uint16(1 + k)}); !ok || c == want {
			t.Errorf("seat %d drew %d (%v)", s+1, c, ok)
		}
	}
}
