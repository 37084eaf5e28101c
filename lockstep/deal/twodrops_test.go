package deal

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/boardmesh/boardmesh/crypto"
	mp "github.com/boardmesh/boardmesh/crypto/mentalpoker"
)

// TestTwoDropsAtOnce: at 5, 6 and 8 seats, two seats go silent at the same
// moment, in the middle of a draw that needs their shares, before either
// published its piece of the other's key. The others drop both (one vote,
// so two Drop calls at the same place of the log); each key is rebuilt
// (one with the pair escrow that leaves out the other dropped seat, the
// other then with the first's rebuilt key), the draw finishes, the cards
// both held are shown to all, and the live seats reshuffle and deal on.
// Nobody honest is named.
func TestTwoDropsAtOnce(t *testing.T) {
	for _, n := range []int{5, 6, 8} {
		for _, order := range []string{"first-first", "last-first"} {
			t.Run(fmt.Sprintf("%d seats, %s", n, order), func(t *testing.T) {
				tb := newTable(t, n, []Deck{seqDeck(0, 40, 0)})
				tb.run()
				var ops []Opening
				for s := 0; s < n; s++ {
					ops = append(ops, Opening{Deck: 0, Pos: uint16(2 * s), To: s}, Opening{Deck: 0, Pos: uint16(2*s + 1), To: s})
				}
				tb.open(ops...)
				tb.run()
				tb.noCheats()
				a, b := 1, n-1
				held := map[uint16]uint16{}
				for _, s := range []int{a, b} {
					for p := 2 * s; p < 2*s+2; p++ {
						c, ok := tb.ms[s].Card(Handle{Deck: 0, Pos: uint16(p)})
						if !ok {
							t.Fatalf("seat %d did not draw", s+1)
						}
						held[uint16(p)] = c
					}
				}
				tb.silence(a)
				tb.silence(b)
				gone := []int{a, b}
				live := []int{}
				for s := 0; s < n; s++ {
					if s != a && s != b {
						live = append(live, s)
					}
				}
				next := Handle{Deck: 0, Pos: uint16(2 * n)}
				tb.openLive(nil, Opening{Deck: 0, Pos: next.Pos, To: 0})
				tb.run()
				if _, ok := tb.ms[0].Card(next); ok {
					t.Fatal("seat 1 drew without the silent seats' shares")
				}
				first, second := a, b
				if order == "last-first" {
					first, second = b, a
				}
				for _, i := range live {
					for _, s := range []int{first, second} {
						if err := tb.ms[i].Drop(s); err != nil {
							t.Fatalf("seat %d: Drop(%d): %v", i+1, s+1, err)
						}
					}
				}
				tb.collect()
				tb.run()
				tb.noCheatsAmong(live)
				for _, i := range live {
					for _, w := range tb.ms[i].Waiting() {
						t.Errorf("seat %d still waits: %v", i+1, w)
					}
					for _, s := range gone {
						if !tb.ms[i].DropDone(s) {
							t.Errorf("seat %d: the drop of seat %d is not done", i+1, s+1)
						}
					}
					for p, c := range held {
						if got, ok := tb.ms[i].PublicCard(Handle{Deck: 0, Pos: p}); !ok || got != c {
							t.Errorf("seat %d sees a dropped seat's card %d as %d (%v), want %d", i+1, p+1, got, ok, c)
						}
					}
					if _, ok := tb.ms[i].PublicCard(Handle{Deck: 0, Pos: 0}); ok {
						t.Errorf("seat %d sees seat 1's card: the drops revealed more than the dropped hands", i+1)
					}
				}
				if _, ok := tb.ms[0].Card(next); !ok {
					t.Fatal("seat 1's draw did not finish after both keys were rebuilt")
				}
				// A reshuffle among the live seats, and a deal from it.
				var from []Handle
				for k := range live {
					from = append(from, Handle{Deck: 0, Pos: uint16(30 + k)})
				}
				for _, i := range live {
					if err := tb.ms[i].Reshuffle(5, from); err != nil {
						t.Fatal(err)
					}
				}
				tb.collect()
				tb.run()
				var deal []Opening
				for k, s := range live {
					deal = append(deal, Opening{Deck: 5, Pos: uint16(k), To: s})
				}
				tb.openLive(gone, deal...)
				tb.run()
				tb.noCheatsAmong(live)
				tb.sameDeck(live, 5, len(live))
				for k, s := range live {
					if _, ok := tb.ms[s].Card(Handle{Deck: 5, Pos: uint16(k)}); !ok {
						t.Errorf("seat %d did not draw from the deck reshuffled after the drops", s+1)
					}
				}
			})
		}
	}
}

// TestSeatAfterForgerDropsBeforeTheRedoEverywhere: at 5 seats seat 2
// forges its shuffle of the setup chain; seat 5 gets seat 1's shuffle
// only late, so it cannot check the chain. The table drops seat 2: seats
// 1, 3 and 4 redo the chain at once, seat 5 not yet. Seat 4 then goes
// before its shuffle of the redo is out, and is dropped too; only then
// does seat 5 get seat 1's shuffle, find the forgery and redo the chain.
// Whether seat 4 owes a shuffle of the redo must not depend on when each
// peer made the redo: every live seat ends with the same deck, nobody
// but the forger named, nothing awaited.
func TestSeatAfterForgerDropsBeforeTheRedoEverywhere(t *testing.T) {
	n, f, s, late := 5, 1, 3, 4
	tb := newTable(t, n, []Deck{seqDeck(0, 20, 100)})
	tb.forgeAt(f, 0, forgeries[0].edit)
	var held, toS []*crypto.Envelope
	prev := tb.hook
	tb.hook = func(to int, env *crypto.Envelope) *crypto.Envelope {
		if env.Author == tb.ids[0].ID() && env.Kind == crypto.KindShuffle && to == late {
			held = append(held, env)
			return nil
		}
		if env.Author == tb.ids[f].ID() && env.Kind == crypto.KindShuffle && to == s && len(toS) == 0 {
			// Seat 4 gets the forged shuffle after it has shuffled on
			// seat 3's (the pipeline: seat 4's shuffle of the forged
			// attempt is out, held by every peer).
			toS = append(toS, prev(to, env))
			return nil
		}
		if env.Author == tb.ids[s].ID() && env.Kind == crypto.KindShuffle && env.Seq != 0 {
			return nil // seat 4's shuffle of the redo never gets out
		}
		return prev(to, env)
	}
	tb.run()
	for _, env := range toS {
		tb.ms[s].Step(env)
	}
	tb.collect()
	tb.run()
	tb.silence(f)
	tb.drop(f)
	tb.run()
	if tb.redone(0, f) != 1 || tb.redone(late, f) != 0 {
		t.Fatalf("the premise: seat 1 redid the chain %d times, seat 5 %d (want 1, 0)", tb.redone(0, f), tb.redone(late, f))
	}
	tb.silence(s)
	live := []int{0, 2, 4}
	for _, i := range live {
		if err := tb.ms[i].Drop(s); err != nil {
			t.Fatal(err)
		}
	}
	tb.collect()
	tb.run()
	for _, env := range held {
		tb.ms[late].Step(env)
	}
	tb.collect()
	tb.run()
	for _, i := range live {
		tb.onlyNamed(i, f)
		for _, w := range tb.ms[i].Waiting() {
			t.Errorf("seat %d still waits: %v", i+1, w)
		}
	}
	tb.sameDeck(live, 0, 20)
	tb.dealAfter(f, live, 0, 0, func(c uint16) bool { return c >= 100 && c < 120 })
}

// TestDroppedSeatOwedARemask: at 4 seats, seat 1 draws a card, then seat
// 2 is to draw it (Infinite City's swap), so seat 2 owes a re-masking
// first, and goes before it sends one (or after it reached one peer
// only). The table drops seat 2: with no holder of its re-masking the
// opening goes on with the ciphertext as it was, without the re-masking
// (opened to a dropped seat, whose cards are shown); with one holder the
// others wait for it, and it is relayed. Either way every live seat sees
// the same card, the one seat 1 drew, and can deal on.
func TestDroppedSeatOwedARemask(t *testing.T) {
	for _, heldBy := range []int{-1, 2} {
		t.Run(fmt.Sprintf("held by %d", heldBy+1), func(t *testing.T) {
			tb := newTable(t, 4, []Deck{seqDeck(0, 20, 100)})
			tb.run()
			tb.open(Opening{Deck: 0, Pos: 0, To: 0})
			tb.run()
			h := Handle{Deck: 0, Pos: 0}
			want, ok := tb.ms[0].Card(h)
			if !ok {
				t.Fatal("seat 1 did not draw")
			}
			gone := 1
			var kept []*crypto.Envelope
			tb.hook = func(to int, env *crypto.Envelope) *crypto.Envelope {
				if env.Author != tb.ids[gone].ID() {
					return env
				}
				if env.Kind == crypto.KindRemask && to == heldBy {
					kept = append(kept, env)
					return env
				}
				return nil
			}
			tb.open(Opening{Deck: 0, Pos: 0, To: gone})
			tb.run()
			live := liveSeats(4, gone)
			waits := false
			for _, w := range tb.ms[0].Waiting() {
				waits = waits || w.Seat == gone
			}
			if !waits {
				t.Fatalf("the premise: seat 1 does not wait for seat 2: %v", tb.ms[0].Waiting())
			}
			tb.drop(gone)
			tb.run()
			tb.noCheatsAmong(live)
			if heldBy >= 0 {
				if len(kept) != 1 {
					t.Fatal("the premise: seat 2's re-masking reached nobody")
				}
				if _, ok := tb.ms[0].PublicCard(h); ok {
					t.Fatal("seat 1 went on without the re-masking seat 3 holds")
				}
				for _, i := range live {
					if i != heldBy {
						tb.ms[i].Step(kept[0])
					}
				}
				tb.collect()
				tb.run()
			}
			tb.noCheatsAmong(live)
			for _, i := range live {
				if c, ok := tb.ms[i].PublicCard(h); !ok || c != want {
					t.Errorf("seat %d sees the card seat 2 held as %d (%v), want %d", i+1, c, ok, want)
				}
				for _, w := range tb.ms[i].Waiting() {
					t.Errorf("seat %d still waits: %v", i+1, w)
				}
			}
			tb.dealToLive(gone, live, 0, 1, func(c uint16) bool { return c >= 100 && c < 120 && c != want })
		})
	}
}

// TestDropWhileAForgerAwaitsItsDrop: at 5 seats seat 5 forges its
// shuffle of a reshuffle chain and every honest seat convicts it; before
// its own drop, seat 2 goes silent and is dropped first. The forger's
// machine goes on as any (it publishes its piece of seat 2's key, with
// its list), then goes too and is dropped: its piece, which matches the
// escrow's commitment, is taken like any other, seat 2's key is rebuilt,
// the chain goes on without the forged link and the others deal on,
// naming nobody but the forger.
func TestDropWhileAForgerAwaitsItsDrop(t *testing.T) {
	n, f, a := 5, 4, 1
	tb, id, cards := forgedSetup(t, n, f, "reshuffle", forgeries[0].edit)
	for _, i := range liveSeats(n, f) {
		if !tb.ms[i].Convicted(f) {
			t.Fatalf("the premise: seat %d did not convict seat %d", i+1, f+1)
		}
	}
	tb.silence(a)
	tb.drop(a)
	tb.run()
	tb.silence(f)
	live := []int{0, 2, 3}
	for _, i := range live {
		if err := tb.ms[i].Drop(f); err != nil {
			t.Fatal(err)
		}
	}
	tb.collect()
	tb.run()
	for _, i := range live {
		tb.onlyNamed(i, f)
		for _, w := range tb.ms[i].Waiting() {
			t.Errorf("seat %d still waits: %v", i+1, w)
		}
		if !tb.ms[i].DropDone(a) || !tb.ms[i].DropDone(f) {
			t.Errorf("seat %d: the drops are not done", i+1)
		}
		if got := tb.ms[i].pieces[a][f]; got == nil {
			t.Errorf("seat %d did not take the convicted seat's piece of seat %d's key", i+1, a+1)
		}
	}
	tb.sameDeck(live, id, cards)
	tb.dealAfterAll([]int{a, f}, f, live, id, 0)
}

// dealAfterAll opens one card of deck id to each live seat (gone dropped),
// checks each learns a different card and only seat f is ever named.
func (tb *table) dealAfterAll(gone []int, f int, live []int, id uint8, first uint16) {
	tb.t.Helper()
	var ops []Opening
	for k, s := range live {
		ops = append(ops, Opening{Deck: id, Pos: first + uint16(k), To: s})
	}
	tb.openLive(gone, ops...)
	tb.run()
	seen := map[uint16]bool{}
	for k, s := range live {
		tb.onlyNamed(s, f)
		c, ok := tb.ms[s].Card(Handle{Deck: id, Pos: first + uint16(k)})
		if !ok || seen[c] {
			tb.t.Fatalf("seat %d drew %d (%v) from deck %d", s+1, c, ok, id)
		}
		seen[c] = true
	}
}

// waitsOnlyFor fails unless each of the live seats waits for something,
// every wait names one of the seats in want and says (in part) text, and
// none names a live seat: the stall is said in plain words, and no honest
// seat is the one the table is told it waits for.
func (tb *table) waitsOnlyFor(live, want []int, text string) {
	tb.t.Helper()
	for _, i := range live {
		ws := tb.ms[i].Waiting()
		if len(ws) == 0 {
			tb.t.Errorf("seat %d waits for nothing: a silent stall", i+1)
		}
		for _, w := range ws {
			if !slices.Contains(want, w.Seat) || !strings.Contains(w.What, text) {
				tb.t.Errorf("seat %d waits for seat %d: %q; want one of %v saying %q", i+1, w.Seat+1, w.What, want, text)
			}
		}
	}
}

// TestDropBeforeItsEscrow: at 4 seats seat 3's escrow never reaches
// anyone, and seat 3 goes; the table drops it. Its key cannot be rebuilt
// (nobody holds its escrow): the deal says so, naming seat 3 and that the
// game cannot go on unless a peer relays the escrow, and names no live
// seat, so no honest seat is voted out for it.
func TestDropBeforeItsEscrow(t *testing.T) {
	tb := newTable(t, 4, []Deck{seqDeck(0, 12, 0)})
	gone := 2
	tb.hook = func(to int, env *crypto.Envelope) *crypto.Envelope {
		if env.Author == tb.ids[gone].ID() && env.Kind == crypto.KindEscrow {
			return nil
		}
		return env
	}
	tb.run()
	tb.silence(gone)
	live := liveSeats(4, gone)
	tb.openLive(nil, Opening{Deck: 0, Pos: 0, To: 0})
	tb.run()
	tb.waitsOnlyFor(live, []int{gone}, "its escrow")
	tb.drop(gone)
	tb.run()
	tb.noCheatsAmong(live)
	tb.waitsOnlyFor(live, []int{gone}, "cannot go on")
}

// TestThreeDropsAtOnce: at 6 seats three seats go at the same moment, and
// the table drops all three. The pair escrows cover two: each key needs a
// piece of one of the other two. The deal says so for each, naming only
// dropped seats, never stalling silently.
func TestThreeDropsAtOnce(t *testing.T) {
	tb := newTable(t, 6, []Deck{seqDeck(0, 12, 0)})
	tb.run()
	gone := []int{1, 3, 5}
	for _, s := range gone {
		tb.silence(s)
	}
	live := []int{0, 2, 4}
	tb.openLive(nil, Opening{Deck: 0, Pos: 0, To: 0})
	tb.run()
	for _, i := range live {
		for _, s := range gone {
			if err := tb.ms[i].Drop(s); err != nil {
				t.Fatal(err)
			}
		}
	}
	tb.collect()
	tb.run()
	tb.noCheatsAmong(live)
	tb.waitsOnlyFor(live, gone, "cannot be rebuilt")
}

// TestHolderClaimingALinkItLacks: at 4 seats seat 4 goes before its
// shuffle of the setup chain reaches anyone; seat 1's piece of its key
// claims it holds that shuffle. The others keep the link and wait for it:
// the seat they are told they wait for is seat 1, the one that is to
// relay it, not the dropped seat 4.
func TestHolderClaimingALinkItLacks(t *testing.T) {
	tb := newTable(t, 4, []Deck{seqDeck(0, 12, 0)})
	liar, gone := 0, 3
	tb.tamper(liar, crypto.KindPiece, func(env *crypto.Envelope) *crypto.Envelope {
		b, err := decodePiece(env.Body)
		if err != nil {
			t.Fatal(err)
		}
		b.Holds = []uint64{0}
		return tb.resign(liar, env, b.encode())
	})
	var lost []*crypto.Envelope
	tb.loseShuffles(gone, nil, &lost)
	tb.run()
	tb.silence(gone)
	tb.drop(gone)
	tb.run()
	honest := []int{1, 2}
	tb.noCheatsAmong(honest)
	tb.waitsOnlyFor(honest, []int{liar}, "says it holds")
}

// TestBadPairEscrowPieceIsAccused: at 5 seats seat 2 seals a wrong piece
// for seat 3 in its pair escrow without seat 1. Seat 3 finds it when it
// opens its piece, and publishes the proof; seats 1 and 4 check the
// accusation and name seat 2, with its escrow and the accusation as
// evidence. (At 4 seats there are no pair escrows.)
func TestBadPairEscrowPieceIsAccused(t *testing.T) {
	if l := (&Machine{seats: make([]crypto.PeerID, 4)}).escrowLen(); l != mp.EscrowLen(4) {
		t.Errorf("a 4-seat escrow is %d bytes, want the plain escrow's %d", l, mp.EscrowLen(4))
	}
	tb := newTable(t, 5, []Deck{seqDeck(0, 8, 0)})
	tb.tamper(1, crypto.KindEscrow, func(env *crypto.Envelope) *crypto.Envelope {
		b, _ := decodeBlobBody(env.Kind, env.Body)
		b[mp.EscrowLen(5)+2*mp.PointLen] ^= 1 // the pair escrow without seat 1: seat 3's sealed piece
		return tb.resign(1, env, encodeBlobBody(b))
	})
	tb.run()
	for _, i := range []int{0, 3, 4} {
		found := false
		for _, e := range tb.cheats(i) {
			if e.Cheat == CheatBadEscrow && e.Seat == 2 && len(e.Evidence) == 2 && e.Evidence[1].Kind == crypto.KindAccuse && e.Evidence[1].Seq == pairSeq(1, 0) {
				found = true
			}
		}
		if !found {
			t.Errorf("seat %d did not name seat 2's bad pair escrow from the accusation: %v", i+1, tb.cheats(i))
		}
	}
	if cs := tb.cheats(2); len(cs) == 0 || cs[0].Cheat != CheatBadEscrow || cs[0].Seat != 2 {
		t.Errorf("seat 3 named %v", cs)
	}
}

// TestSecondDropsPieceReachedOnlyOne: at 5 seats seat 2 goes with a share
// owed and is dropped; seat 5 publishes its piece of seat 2's key, which
// reaches seat 1 only, and goes too. Seat 1 rebuilds seat 2's key from
// the plain pieces, the others from the pair escrow without seat 5 (seat
// 1's pair piece included, though it needs none itself): every live seat
// ends with both keys rebuilt, the draw done, the same cards shown.
func TestSecondDropsPieceReachedOnlyOne(t *testing.T) {
	n, a, b := 5, 1, 4
	tb := newTable(t, n, []Deck{seqDeck(0, 20, 0)})
	tb.run()
	tb.silence(a)
	tb.openLive(nil, Opening{Deck: 0, Pos: 0, To: 0}, Opening{Deck: 0, Pos: 1, To: b})
	tb.run()
	prev := tb.hook
	tb.hook = func(to int, env *crypto.Envelope) *crypto.Envelope {
		if env.Author == tb.ids[b].ID() && (env.Kind != crypto.KindPiece || to != 0) {
			return nil
		}
		return prev(to, env)
	}
	tb.drop(a)
	tb.run()
	live := []int{0, 2, 3}
	if tb.ms[0].pieces[a][b] == nil || tb.ms[2].pieces[a][b] != nil {
		t.Fatal("the premise: seat 5's piece of seat 2's key reached seat 1 only")
	}
	for _, i := range live {
		if err := tb.ms[i].Drop(b); err != nil {
			t.Fatal(err)
		}
	}
	tb.collect()
	tb.run()
	tb.noCheatsAmong(live)
	for _, i := range live {
		for _, w := range tb.ms[i].Waiting() {
			t.Errorf("seat %d still waits: %v", i+1, w)
		}
		if !tb.ms[i].DropDone(a) || !tb.ms[i].DropDone(b) {
			t.Fatalf("seat %d: the drops are not done", i+1)
		}
	}
	if _, ok := tb.ms[0].Card(Handle{Deck: 0, Pos: 0}); !ok {
		t.Error("seat 1's draw did not finish")
	}
	h := Handle{Deck: 0, Pos: 1} // seat 5's: shown at its drop
	c0, ok0 := tb.ms[0].PublicCard(h)
	for _, i := range live {
		if c, ok := tb.ms[i].PublicCard(h); !ok || c != c0 || !ok0 {
			t.Errorf("%s: seat 1 sees %d (%v), seat %d %d (%v)", h, c0, ok0, i+1, c, ok)
		}
	}
}
