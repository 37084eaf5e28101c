package deal

import (
	"fmt"
	"strings"
	"testing"

	"github.com/boardmesh/boardmesh/crypto"
	mp "github.com/boardmesh/boardmesh/crypto/mentalpoker"
)

// forgeries are the two ways a signed shuffle is forged: its output is a
// deck whose proof fails (two ciphertexts swapped under the honest proof,
// a stacked deck), or no deck of the chain at all (a torsion point).
var forgeries = []struct {
	name string
	edit func(b *shuffleBody)
}{
	{"stacked", func(b *shuffleBody) {
		b.Output = append([]byte(nil), b.Output...)
		a := append([]byte(nil), b.Output[:64]...)
		copy(b.Output, b.Output[64:128])
		copy(b.Output[64:], a)
	}},
	{"malformed", func(b *shuffleBody) {
		b.Output = append([]byte(nil), b.Output...)
		copy(b.Output[64:], order2)
	}},
}

// forgeAt installs a hook under which seat s's shuffle of chain seq goes
// out forged by edit, signed by s.
func (tb *table) forgeAt(s int, seq uint64, edit func(*shuffleBody)) {
	tb.tamper(s, crypto.KindShuffle, func(env *crypto.Envelope) *crypto.Envelope {
		if env.Seq != seq {
			return nil
		}
		b, err := decodeShuffle(env.Body)
		if err != nil {
			tb.t.Fatal(err)
		}
		edit(b)
		return tb.resign(s, env, b.encode())
	})
}

// redone counts seat i's EventChainRedone naming seat f.
func (tb *table) redone(i, f int) int {
	k := 0
	for _, e := range tb.events[i] {
		if e.Kind == EventChainRedone && e.Seat == f+1 {
			k++
		}
	}
	return k
}

// onlyNamed fails unless every cheat seat i saw names seat f, and it saw one.
func (tb *table) onlyNamed(i, f int) {
	tb.t.Helper()
	cs := tb.cheats(i)
	if len(cs) == 0 {
		tb.t.Errorf("seat %d named nobody, want seat %d", i+1, f+1)
	}
	for _, e := range cs {
		if e.Seat != f+1 || e.Cheat != CheatForgedShuffle {
			tb.t.Errorf("seat %d: %s", i+1, e.Text)
		}
	}
}

// forgedSetup is a table of n seats whose seat f forges its shuffle of
// the setup chain (deck 0, 20 cards 100 to 119) or of a reshuffle of four
// of its cards (deck 7), run until quiet: the deck and chain it forged.
func forgedSetup(t *testing.T, n, f int, at string, edit func(*shuffleBody)) (tb *table, id uint8, cards int) {
	tb = newTable(t, n, []Deck{seqDeck(0, 20, 100)})
	id, cards = 0, 20
	if at == "reshuffle" {
		tb.run()
		all := liveSeats(n, -1)
		tb.dealToLive(-1, all, 0, 0, func(c uint16) bool { return c >= 100 && c < 120 })
		tb.forgeAt(f, 1, edit)
		for _, m := range tb.ms {
			if err := m.Reshuffle(7, []Handle{{Deck: 0, Pos: 10}, {Deck: 0, Pos: 11}, {Deck: 0, Pos: 12}, {Deck: 0, Pos: 13}}); err != nil {
				t.Fatal(err)
			}
		}
		tb.collect()
		id, cards = 7, 4
	} else {
		tb.forgeAt(f, 0, edit)
	}
	tb.run()
	return tb, id, cards
}

// TestForgedShuffleRedone: at 3 and 4 seats, a seat (the first, a middle
// one, the last of the chain) signs a forged shuffle, of the setup chain
// or of a reshuffle, while the seats after it shuffle on its output before
// they check its proof. Every honest seat names it, does not stop, takes
// no deck and says it waits for the forger's drop; once the table drops
// it, the chain is redone from the last valid shuffle by the seats after
// the forger (under a new seq: nobody is named for a second envelope in a
// slot), every live seat holds the same deck, every card of the deck is in
// it once, and the others deal from it. Without the rule every honest seat
// stops at the forgery.
func TestForgedShuffleRedone(t *testing.T) {
	for _, n := range []int{3, 4} {
		for _, f := range []int{0, 1, n - 1} {
			for _, at := range []string{"setup", "reshuffle"} {
				for _, fg := range forgeries {
					t.Run(fmt.Sprintf("%d seats, seat %d, %s, %s", n, f+1, at, fg.name), func(t *testing.T) {
						tb, id, cards := forgedSetup(t, n, f, at, fg.edit)
						live := liveSeats(n, f)
						for _, i := range live {
							m := tb.ms[i]
							tb.onlyNamed(i, f)
							if m.Stopped() || !m.Convicted(f) || m.DeckReady(id) {
								t.Fatalf("seat %d: stopped %v, forger convicted %v, deck %d ready %v", i+1, m.Stopped(), m.Convicted(f), id, m.DeckReady(id))
							}
							waits := false
							for _, w := range m.Waiting() {
								waits = waits || w.Seat == f && w.What == fmt.Sprintf("its drop (its shuffle of deck %d is proven forged)", id)
							}
							if !waits {
								t.Errorf("seat %d waits for %v, want seat %d's drop", i+1, m.Waiting(), f+1)
							}
						}
						tb.silence(f)
						tb.drop(f)
						tb.run()
						tb.sameDeck(live, id, cards)
						chain := uint64(0)
						if at == "reshuffle" {
							chain = 1
						}
						for _, i := range live {
							// The redo's shuffles are on the wire under
							// seq (forger + 1)·2³² + chain (docs/protocol.md
							// §10.3), from the seats after the forger only.
							redo, old := 0, 0
							for _, env := range tb.persist[i] {
								if env.Kind == crypto.KindShuffle && env.Seq == uint64(f+1)<<32|chain {
									redo++
								}
								if env.Kind == crypto.KindShuffle && env.Seq == chain {
									old++
								}
							}
							if want := map[bool]int{true: 1, false: 0}[i > f]; redo != want {
								t.Errorf("seat %d signed %d shuffles of the redo, want %d", i+1, redo, want)
							}
							// The premise: the seat after the forger shuffled
							// the stacked output before it checked its proof
							// (a malformed one is refused on arrival; a seat
							// further on here checks the forgery first).
							if i == f+1 && fg.name == "stacked" && old != 1 {
								t.Errorf("seat %d signed %d shuffles of the forged attempt, want 1 (the pipeline)", i+1, old)
							}
							tb.onlyNamed(i, f)
							if k := tb.redone(i, f); k != 1 {
								t.Errorf("seat %d redid the chain %d times, want once", i+1, k)
							}
							for _, w := range tb.ms[i].Waiting() {
								t.Errorf("seat %d still waits: %v", i+1, w)
							}
						}
						first := uint16(0)
						if at == "setup" {
							first = 2
						}
						tb.dealAfter(f, live, id, first, func(c uint16) bool { return c >= 100 && c < 120 })
						if at == "setup" {
							tb.wholeDeck(f, live, 20)
						}
					})
				}
			}
		}
	}
}

// wholeDeck opens every card of deck 0 not dealt yet to all and checks
// that, with the ones dealt, each card 100 to 99+n is there exactly once
// (a redo from a forged output would show a substituted or missing card).
func (tb *table) wholeDeck(f int, live []int, n int) {
	tb.t.Helper()
	var ops []Opening
	for p := 2 + len(live); p < n; p++ {
		ops = append(ops, Opening{Deck: 0, Pos: uint16(p), To: Public})
	}
	tb.openLive([]int{f}, ops...)
	tb.run()
	seen := map[uint16]bool{}
	for p := 2; p < n; p++ {
		h := Handle{Deck: 0, Pos: uint16(p)}
		c, ok := tb.ms[live[0]].Card(h)
		if p < 2+len(live) {
			c, ok = tb.ms[live[p-2]].Card(h)
		}
		if !ok || c < 100 || c >= uint16(100+n) || seen[c] {
			tb.t.Fatalf("card %d of the deck is %d (%v)", p+1, c, ok)
		}
		seen[c] = true
	}
}

// TestForgedShuffleRedoneRestart: at 4 seats seat 2 forges the setup
// shuffle and is dropped; after the redo seat 3 (which shuffled on the
// forged output, then again in the redo) restarts from its disk and the
// envelopes it had received: it comes to the same redo, sends its own
// redo shuffle again rather than a new one, and deals with the others.
func TestForgedShuffleRedoneRestart(t *testing.T) {
	tb, id, cards := forgedSetup(t, 4, 1, "setup", forgeries[0].edit)
	tb.silence(1)
	tb.drop(1)
	tb.run()
	live := liveSeats(4, 1)
	tb.sameDeck(live, id, cards)
	before, _ := tb.ms[2].Ciphertext(Handle{Deck: 0, Pos: 0})
	tb.restart(2, 77)
	if err := tb.ms[2].Drop(1); err != nil {
		t.Fatal(err)
	}
	tb.collect()
	tb.run()
	tb.sameDeck(live, id, cards)
	if after, _ := tb.ms[2].Ciphertext(Handle{Deck: 0, Pos: 0}); string(after) != string(before) {
		t.Fatal("the restarted seat's deck differs from before its restart")
	}
	for _, i := range live {
		tb.onlyNamed(i, 1)
	}
	tb.dealAfter(1, live, id, 2, func(c uint16) bool { return c >= 100 && c < 120 })
}

// dealAfter is dealToLive at a table that named forger f (and only it).
func (tb *table) dealAfter(f int, live []int, id uint8, first uint16, cards func(uint16) bool) {
	tb.t.Helper()
	var ops []Opening
	for k, s := range live {
		ops = append(ops, Opening{Deck: id, Pos: first + uint16(k), To: s})
	}
	tb.openLive([]int{f}, ops...)
	tb.run()
	seen := map[uint16]bool{}
	for k, s := range live {
		tb.onlyNamed(s, f)
		c, ok := tb.ms[s].Card(Handle{Deck: id, Pos: first + uint16(k)})
		if !ok || !cards(c) || seen[c] {
			tb.t.Fatalf("seat %d drew %d (%v) from deck %d", s+1, c, ok, id)
		}
		seen[c] = true
	}
}

// TestForgerOtherLinkLate: at 4 seats seat 2 forges its shuffle of deck 0
// and shuffles deck 1 honestly. Seat 1 gets the honest link before it can
// convict seat 2 (the forged one reaches it after); seat 3 gets it only
// after it has convicted seat 2. Seat 3 still takes it: seat 1's piece says
// it holds the link, so the chain keeps it after the drop, and every peer
// must take it. Deck 0 is redone, deck 1 keeps the forger's honest link,
// and every live seat ends with the same decks. Refusing it as any
// envelope of a convicted seat, seat 3 would wait for deck 1 for ever.
func TestForgerOtherLinkLate(t *testing.T) {
	tb := newTable(t, 4, []Deck{seqDeck(0, 10, 100), seqDeck(1, 10, 200)})
	tb.forgeAt(1, 0, forgeries[0].edit)
	forge := tb.hook
	var late, held *crypto.Envelope
	released := false
	tb.hook = func(to int, env *crypto.Envelope) *crypto.Envelope {
		if env.Author != tb.ids[1].ID() || env.Kind != crypto.KindShuffle {
			return forge(to, env)
		}
		switch {
		case to == 0 && env.Seq == 0 && !released:
			held = env
			return nil
		case to == 0 && env.Seq == 1:
			released = true
			tb.queue = append(tb.queue, held) // (a duplicate for the others)
		case to == 2 && env.Seq == 1 && late == nil:
			late = env
			return nil
		}
		return forge(to, env)
	}
	tb.run()
	if late == nil || held == nil || !tb.ms[2].Convicted(1) || !tb.ms[0].Convicted(1) {
		t.Fatalf("seat 2's links held back: %v %v; seats 1 and 3 convicted seat 2: %v %v", late != nil, held != nil, tb.ms[0].Convicted(1), tb.ms[2].Convicted(1))
	}
	tb.recv[2] = append(tb.recv[2], late)
	_ = tb.ms[2].Step(late)
	tb.collect()
	tb.silence(1)
	tb.drop(1)
	tb.run()
	live := liveSeats(4, 1)
	tb.sameDeck(live, 0, 10)
	tb.sameDeck(live, 1, 10)
	for _, i := range live {
		tb.onlyNamed(i, 1)
		if tb.redone(i, 1) != 1 || tb.skipped(i, 1) != 0 {
			t.Errorf("seat %d: %d redone, %d skipped, want deck 0 redone and nothing skipped", i+1, tb.redone(i, 1), tb.skipped(i, 1))
		}
	}
	tb.dealAfter(1, live, 1, 0, func(c uint16) bool { return c >= 200 && c < 210 })
}

// TestBadRemaskDropsTheCheater: at 3 and 4 seats seat 1 peeks at a card,
// then seat 2 draws it and signs a re-masking that substitutes another
// card. Every honest seat names seat 2, does not stop, opens nothing with
// the substituted card and says it waits for seat 2's drop; once the table
// drops it, the draw goes on with the ciphertext as it was, the card is
// shown to all (it was opened to a dropped seat) as the one seat 1 peeked
// at, and the others deal on. Without the rule the table stops there.
func TestBadRemaskDropsTheCheater(t *testing.T) {
	for _, n := range []int{3, 4} {
		t.Run(fmt.Sprintf("%d seats", n), func(t *testing.T) {
			tb := newTable(t, n, []Deck{seqDeck(0, 12, 100)})
			tb.run()
			h := Handle{Deck: 0, Pos: 3}
			tb.open(Opening{Deck: 0, Pos: 3, To: 0}) // a peek by seat 1
			tb.run()
			tb.noCheats()
			peeked, ok := tb.ms[0].Card(h)
			if !ok {
				t.Fatal("seat 1 did not peek")
			}
			tb.tamper(1, crypto.KindRemask, func(env *crypto.Envelope) *crypto.Envelope {
				es, _ := decodeRemasks(env.Body)
				c, _ := mp.Mask(newSeeded(5), tb.ms[1].joint, 11)
				es[0].CT = c.Bytes()
				return tb.resign(1, env, encodeRemasks(es))
			})
			tb.open(Opening{Deck: 0, Pos: 3, To: 1}) // seat 2 draws the peeked card
			tb.run()
			live := liveSeats(n, 1)
			for _, i := range live {
				m := tb.ms[i]
				if cs := tb.cheats(i); len(cs) != 1 || cs[0].Seat != 2 || cs[0].Cheat != CheatBadRemask {
					t.Fatalf("seat %d named %v, want seat 2's bad re-masking", i+1, cs)
				}
				if m.Stopped() || !m.Convicted(1) {
					t.Fatalf("seat %d: stopped %v, seat 2 convicted %v", i+1, m.Stopped(), m.Convicted(1))
				}
				waits := false
				for _, w := range m.Waiting() {
					waits = waits || w.Seat == 1 && strings.Contains(w.What, "its drop (its re-masking")
				}
				if !waits {
					t.Errorf("seat %d waits for %v, want seat 2's drop", i+1, m.Waiting())
				}
			}
			tb.silence(1)
			tb.drop(1)
			tb.run()
			for _, i := range live {
				if c, ok := tb.ms[i].PublicCard(h); !ok || c != peeked {
					t.Errorf("seat %d sees the drawn card as %d (%v), seat 1 peeked %d", i+1, c, ok, peeked)
				}
				for _, w := range tb.ms[i].Waiting() {
					t.Errorf("seat %d still waits: %v", i+1, w)
				}
				if cs := tb.cheats(i); len(cs) != 1 {
					t.Errorf("seat %d named %d cheats, want seat 2's one", i+1, len(cs))
				}
			}
			tb.openLive([]int{1}, Opening{Deck: 0, Pos: 5, To: Public})
			tb.run()
			c, ok := tb.ms[0].PublicCard(Handle{Deck: 0, Pos: 5})
			for _, i := range live {
				if d, dok := tb.ms[i].PublicCard(Handle{Deck: 0, Pos: 5}); !ok || !dok || d != c || d == peeked {
					t.Errorf("seat %d sees card 6 as %d (%v), seat 1 as %d (%v)", i+1, d, dok, c, ok)
				}
			}
		})
	}
}

// TestTwoForgers: at 4 seats seat 1 forges its shuffle of the setup
// chain; once it is dropped, seat 3 forges its shuffle of the redo. Seat 3
// is convicted in turn, and once it is dropped too the redo is redone from
// seat 2's valid shuffle by seat 4 alone. Seats 2 and 4 end with the same
// deck, name only the two forgers, and deal from it.
func TestTwoForgers(t *testing.T) {
	tb := newTable(t, 4, []Deck{seqDeck(0, 12, 100)})
	tb.forgeAt(0, 0, forgeries[0].edit)
	first := tb.hook
	tb.run()
	tb.silence(0)
	tb.tamper(2, crypto.KindShuffle, func(env *crypto.Envelope) *crypto.Envelope {
		if env.Seq != redoSeq(0, 0) {
			return nil
		}
		b, _ := decodeShuffle(env.Body)
		forgeries[0].edit(b)
		return tb.resign(2, env, b.encode())
	})
	second := tb.hook
	tb.hook = func(to int, env *crypto.Envelope) *crypto.Envelope {
		if env.Author == tb.ids[0].ID() {
			return nil
		}
		return second(to, first(to, env))
	}
	tb.drop(0)
	tb.run()
	for _, i := range []int{1, 3} {
		if !tb.ms[i].Convicted(2) || tb.ms[i].DeckReady(0) || tb.ms[i].Stopped() {
			t.Fatalf("seat %d: seat 3 convicted %v, deck ready %v, stopped %v", i+1, tb.ms[i].Convicted(2), tb.ms[i].DeckReady(0), tb.ms[i].Stopped())
		}
	}
	tb.silence(2)
	for _, i := range []int{1, 3} {
		if err := tb.ms[i].Drop(2); err != nil {
			t.Fatal(err)
		}
	}
	tb.collect()
	tb.run()
	live := []int{1, 3}
	tb.sameDeck(live, 0, 12)
	for _, i := range live {
		for _, e := range tb.cheats(i) {
			if e.Cheat != CheatForgedShuffle || e.Seat != 1 && e.Seat != 3 {
				t.Errorf("seat %d: %s", i+1, e.Text)
			}
		}
		if tb.redone(i, 0) != 1 || tb.redone(i, 2) != 1 {
			t.Errorf("seat %d redid the chain without seat 1 %d times, without seat 3 %d times; want once each", i+1, tb.redone(i, 0), tb.redone(i, 2))
		}
	}
	var ops []Opening
	for p := 0; p < 12; p++ {
		ops = append(ops, Opening{Deck: 0, Pos: uint16(p), To: Public})
	}
	tb.openLive([]int{0, 2}, ops...)
	tb.run()
	seen := map[uint16]bool{}
	for p := 0; p < 12; p++ {
		c, ok := tb.ms[1].PublicCard(Handle{Deck: 0, Pos: uint16(p)})
		d, _ := tb.ms[3].PublicCard(Handle{Deck: 0, Pos: uint16(p)})
		if !ok || c != d || c < 100 || c >= 112 || seen[c] {
			t.Fatalf("card %d is %d (%v) at seat 2, %d at seat 4", p+1, c, ok, d)
		}
		seen[c] = true
	}
}

// TestForgerEscrowLate: at 3 and 4 seats a seat forges its shuffle of the
// setup chain, and its escrow, which it signed before that shuffle,
// reaches the others only after the forgery has convicted it (gossip
// does not keep one author's envelopes in order). The others still take
// the escrow: once the table drops the forger its key is rebuilt from it,
// the chain is redone without it, and the others deal on; also when an
// honest seat restarts before the drop and steps again what it received,
// in the order it came. Refused as any envelope of a convicted seat, the
// escrow never counts, and every honest seat waits for ever for a key
// nobody can rebuild.
func TestForgerEscrowLate(t *testing.T) {
	for _, n := range []int{3, 4} {
		for _, f := range []int{0, n - 1} {
			for _, restart := range []bool{false, true} {
				t.Run(fmt.Sprintf("%d seats, seat %d, restart %v", n, f+1, restart), func(t *testing.T) {
					tb := newTable(t, n, []Deck{seqDeck(0, 20, 100)})
					tb.forgeAt(f, 0, forgeries[0].edit)
					forge := tb.hook
					var held *crypto.Envelope
					tb.hook = func(to int, env *crypto.Envelope) *crypto.Envelope {
						if env.Author == tb.ids[f].ID() && env.Kind == crypto.KindEscrow {
							held = env
							return nil
						}
						return forge(to, env)
					}
					tb.run()
					live := liveSeats(n, f)
					for _, i := range live {
						if held == nil || !tb.ms[i].Convicted(f) {
							t.Fatalf("seat %d: the forger's escrow held back %v, the forger convicted %v", i+1, held != nil, tb.ms[i].Convicted(f))
						}
					}
					tb.hook = forge
					tb.deliver(held)
					tb.collect()
					if restart {
						tb.restart(live[0], 77)
						tb.collect()
					}
					tb.silence(f)
					tb.drop(f)
					tb.run()
					tb.sameDeck(live, 0, 20)
					for _, i := range live {
						tb.onlyNamed(i, f)
						if k := tb.redone(i, f); k != 1 {
							t.Errorf("seat %d redid the chain %d times, want once", i+1, k)
						}
						for _, w := range tb.ms[i].Waiting() {
							t.Errorf("seat %d still waits: %v", i+1, w)
						}
					}
					tb.dealAfter(f, live, 0, 2, func(c uint16) bool { return c >= 100 && c < 120 })
					tb.wholeDeck(f, live, 20)
				})
			}
		}
	}
}
