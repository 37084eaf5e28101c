package deal

import (
	"errors"
	"fmt"
	"testing"

	"github.com/boardmesh/boardmesh/crypto"
	mp "github.com/boardmesh/boardmesh/crypto/mentalpoker"
)

// silence drops every envelope seat s sends from now on (it has gone).
func (tb *table) silence(s int) {
	prev := tb.hook
	tb.hook = func(to int, env *crypto.Envelope) *crypto.Envelope {
		if env.Author == tb.ids[s].ID() {
			return nil
		}
		if prev != nil {
			return prev(to, env)
		}
		return env
	}
}

func (tb *table) drop(s int) {
	tb.t.Helper()
	for i, m := range tb.ms {
		if i == s {
			continue
		}
		if err := m.Drop(s); err != nil {
			tb.t.Fatalf("seat %d: Drop(%d): %v", i+1, s+1, err)
		}
	}
	tb.collect()
}

// openLive is open on every seat but the dropped ones.
func (tb *table) openLive(gone []int, ops ...Opening) {
	tb.t.Helper()
	for i, m := range tb.ms {
		skip := false
		for _, g := range gone {
			skip = skip || g == i
		}
		if skip {
			continue
		}
		if _, err := m.Open(ops); err != nil {
			tb.t.Fatalf("seat %d: Open: %v", i+1, err)
		}
	}
	tb.collect()
}

// TestDropRecovery: at 3, 4 and 8 seats, a seat goes silent in the middle
// of a draw that needs its share; the others drop it, rebuild its key
// from their pieces, finish the draw, see the cards it held, reshuffle
// and deal on without it. At 4 and 8 seats a second seat then drops too.
func TestDropRecovery(t *testing.T) {
	for _, n := range []int{3, 4, 8} {
		t.Run(fmt.Sprintf("%d seats", n), func(t *testing.T) {
			tb := newTable(t, n, []Deck{seqDeck(0, 40, 0)})
			tb.run()
			var ops []Opening
			for s := 0; s < n; s++ {
				ops = append(ops, Opening{Deck: 0, Pos: uint16(2 * s), To: s}, Opening{Deck: 0, Pos: uint16(2*s + 1), To: s})
			}
			tb.open(ops...)
			tb.run()
			tb.noCheats()
			gone := 1
			held := []uint16{}
			for p := 2; p < 4; p++ {
				c, ok := tb.ms[gone].Card(Handle{Deck: 0, Pos: uint16(p)})
				if !ok {
					t.Fatal("seat 2 did not draw")
				}
				held = append(held, c)
			}
			// Seat 2 goes silent as seat 1 draws.
			tb.silence(gone)
			next := Handle{Deck: 0, Pos: uint16(2 * n)}
			tb.openLive(nil, Opening{Deck: 0, Pos: next.Pos, To: 0})
			tb.run()
			if _, ok := tb.ms[0].Card(next); ok {
				t.Fatal("seat 1 drew without seat 2's share")
			}
			if w := tb.ms[0].Waiting(); len(w) != 1 || w[0].Seat != gone {
				t.Fatalf("seat 1 waits for %v", w)
			}
			tb.drop(gone)
			tb.run()
			tb.noCheats()
			if _, ok := tb.ms[0].Card(next); !ok {
				t.Fatal("seat 1's draw did not finish after seat 2's key was rebuilt")
			}
			for i, m := range tb.ms {
				if i == gone {
					continue
				}
				for k, p := range []int{2, 3} {
					if c, ok := m.PublicCard(Handle{Deck: 0, Pos: uint16(p)}); !ok || c != held[k] {
						t.Errorf("seat %d sees the dropped seat's card %d as %d (%v), want %d", i+1, p+1, c, ok, held[k])
					}
				}
				if _, ok := m.PublicCard(Handle{Deck: 0, Pos: 0}); ok {
					t.Errorf("seat %d sees seat 1's card: the drop revealed more than the dropped hand", i+1)
				}
			}
			// A reshuffle without seat 2, and a draw from it.
			live := func() []int { return []int{gone} }
			for i, m := range tb.ms {
				if i != gone {
					if err := m.Reshuffle(5, []Handle{{Deck: 0, Pos: 30}, {Deck: 0, Pos: 31}, {Deck: 0, Pos: 32}}); err != nil {
						t.Fatal(err)
					}
				}
			}
			for i, m := range tb.ms {
				if i != gone {
					for _, w := range m.Waiting() {
						if w.Seat == gone {
							t.Errorf("seat %d waits for the dropped seat: %v", i+1, w)
						}
					}
				}
			}
			tb.run()
			last := n - 1
			if _, err := tb.ms[0].Open([]Opening{{Deck: 0, Pos: 33, To: gone}}); err == nil {
				t.Error("an opening to a dropped seat is accepted")
			}
			tb.openLive(live(), Opening{Deck: 5, Pos: 0, To: last})
			tb.run()
			tb.noCheats()
			if _, ok := tb.ms[last].Card(Handle{Deck: 5, Pos: 0}); !ok {
				t.Fatalf("seat %d did not draw from the deck reshuffled after the drop", last+1)
			}
			if n == 3 {
				if err := tb.ms[0].Drop(2); err == nil {
					t.Error("a drop that leaves 2 seats in play is accepted")
				}
				return
			}
			// A second seat drops: its pieces held by seat 2 are opened
			// with seat 2's rebuilt key.
			tb.silence(last)
			for i, m := range tb.ms {
				if i != gone && i != last {
					if err := m.Drop(last); err != nil {
						t.Fatal(err)
					}
				}
			}
			tb.collect()
			tb.run()
			tb.noCheats()
			for i, m := range tb.ms {
				if i == gone || i == last {
					continue
				}
				if _, ok := m.PublicCard(Handle{Deck: 5, Pos: 0}); !ok {
					t.Errorf("seat %d does not see the second dropped seat's card", i+1)
				}
			}
		})
	}
}

func TestBadEscrowPieceIsAccused(t *testing.T) {
	tb := newTable(t, 4, []Deck{seqDeck(0, 8, 0)})
	tb.tamper(1, crypto.KindEscrow, func(env *crypto.Envelope) *crypto.Envelope {
		b, _ := decodeBlobBody(env.Kind, env.Body)
		b[2*mp.PointLen] ^= 1 // seat 1's sealed piece
		return tb.resign(1, env, encodeBlobBody(b))
	})
	tb.run()
	// Seat 1 finds it on opening its piece; seats 3 and 4 from seat 1's
	// accusation, with both envelopes as proof.
	for _, i := range []int{2, 3} {
		found := false
		for _, e := range tb.cheats(i) {
			if e.Cheat == CheatBadEscrow && e.Seat == 2 && len(e.Evidence) == 2 && e.Evidence[1].Kind == crypto.KindAccuse {
				found = true
			}
		}
		if !found {
			t.Errorf("seat %d did not name seat 2's bad escrow from the accusation: %v", i+1, tb.cheats(i))
		}
	}
	if cs := tb.cheats(0); len(cs) == 0 || cs[0].Cheat != CheatBadEscrow || cs[0].Seat != 2 {
		t.Errorf("seat 1 named %v", cs)
	}
}

func TestEscrowNotAddingUp(t *testing.T) {
	tb := newTable(t, 3, []Deck{seqDeck(0, 8, 0)})
	tb.tamper(2, crypto.KindEscrow, func(env *crypto.Envelope) *crypto.Envelope {
		b, _ := decodeBlobBody(env.Kind, env.Body)
		copy(b, mp.CardBytes(9)) // another commitment
		return tb.resign(2, env, encodeBlobBody(b))
	})
	tb.run()
	tb.named(CheatBadEscrow, 2, 1)
}

func TestFalseAccusation(t *testing.T) {
	tb := newTable(t, 3, []Deck{seqDeck(0, 8, 0)})
	tb.run()
	// Seat 1 accuses seat 3's good escrow with a made-up proof.
	acc := make([]byte, mp.AccusationLen)
	copy(acc, mp.CardBytes(1))
	copy(acc[32:], mp.CardBytes(2))
	copy(acc[64:], mp.CardBytes(3))
	env := &crypto.Envelope{Session: session(), Seq: 2, Kind: crypto.KindAccuse, Body: encodeBlobBody(acc)}
	crypto.Sign(tb.ids[0], env)
	tb.deliver(env)
	tb.collect()
	tb.named(CheatFalseAccusation, 0, 1)
}

func TestWrongPieceAtRecovery(t *testing.T) {
	tb := newTable(t, 3, []Deck{seqDeck(0, 8, 0)})
	tb.run()
	tb.silence(2)
	tb.tamper(1, crypto.KindPiece, func(env *crypto.Envelope) *crypto.Envelope {
		return tb.resign(1, env, (&pieceBody{Piece: tb.ms[1].myPieces[0].Bytes()}).encode()) // its piece of another seat's key
	})
	silent := tb.hook
	tb.hook = func(to int, env *crypto.Envelope) *crypto.Envelope {
		if env.Author == tb.ids[2].ID() {
			return nil
		}
		return silent(to, env)
	}
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
		t.Errorf("seat 1 did not name seat 2's wrong piece: %v", tb.cheats(0))
	}
}

func TestTwoSeatsCannotDrop(t *testing.T) {
	tb := newTable(t, 2, []Deck{seqDeck(0, 4, 0)})
	tb.run()
	if err := tb.ms[0].Drop(1); !errors.Is(err, ErrBadInput) {
		t.Errorf("a 2-seat drop: %v", err)
	}
}

// TestDropWhenOnlySomeHadTheShare: the dropped seat's last share reached
// one peer only before it went. That peer finished the draw at once, the
// others only after the key was rebuilt; all end with the same public
// cards, and the share arriving late elsewhere blames nobody.
func TestDropWhenOnlySomeHadTheShare(t *testing.T) {
	tb := newTable(t, 4, []Deck{seqDeck(0, 20, 0)})
	tb.run()
	tb.open(Opening{Deck: 0, Pos: 0, To: 1}, Opening{Deck: 0, Pos: 1, To: 2})
	tb.run()
	var late *crypto.Envelope
	tb.hook = func(to int, env *crypto.Envelope) *crypto.Envelope {
		if env.Author == tb.ids[1].ID() {
			if env.Kind == crypto.KindShare && to == 0 {
				late = env
				return env
			}
			return nil
		}
		return env
	}
	tb.openLive(nil, Opening{Deck: 0, Pos: 2, To: 0}, Opening{Deck: 0, Pos: 1, To: Public})
	tb.run()
	if _, ok := tb.ms[0].Card(Handle{Deck: 0, Pos: 2}); !ok || late == nil {
		t.Fatal("seat 1 did not draw with seat 2's share")
	}
	if _, ok := tb.ms[3].PublicCard(Handle{Deck: 0, Pos: 1}); ok {
		t.Fatal("seat 4 opened without seat 2's share")
	}
	tb.drop(1)
	tb.openLive([]int{1}, Opening{Deck: 0, Pos: 3, To: 3})
	tb.run()
	if err := tb.ms[2].Step(late); err != nil && !errors.Is(err, ErrDuplicate) {
		t.Errorf("the late share: %v", err)
	}
	tb.collect()
	tb.noCheats()
	for p := uint16(0); p < 20; p++ {
		h := Handle{Deck: 0, Pos: p}
		c0, ok0 := tb.ms[0].PublicCard(h)
		for _, i := range []int{2, 3} {
			if c, ok := tb.ms[i].PublicCard(h); c != c0 || ok != ok0 {
				t.Errorf("%s: seat 1 sees %d (%v), seat %d %d (%v)", h, c0, ok0, i+1, c, ok)
			}
		}
	}
	if _, ok := tb.ms[0].PublicCard(Handle{Deck: 0, Pos: 0}); !ok {
		t.Error("the dropped seat's card is not public")
	}
	if _, ok := tb.ms[3].Card(Handle{Deck: 0, Pos: 3}); !ok {
		t.Error("seat 4's draw after the drop did not finish")
	}
}

func TestEscrowKindsRefusedWhereNoneIsOwed(t *testing.T) {
	tb := newTable(t, 2, []Deck{seqDeck(0, 4, 0)})
	env := &crypto.Envelope{Session: session(), Kind: crypto.KindEscrow, Body: encodeBlobBody(make([]byte, mp.EscrowPieceLen))}
	crypto.Sign(tb.ids[1], env)
	if err := tb.ms[0].Step(env); !errors.Is(err, ErrCheat) {
		t.Errorf("an escrow at a 2-seat table: %v", err)
	}
	tb3 := newTable(t, 3, []Deck{seqDeck(0, 4, 0)})
	piece := &crypto.Envelope{Session: session(), Seq: 7, Kind: crypto.KindPiece, Body: (&pieceBody{Piece: make([]byte, mp.ScalarLen)}).encode()}
	crypto.Sign(tb3.ids[1], piece)
	if err := tb3.ms[0].Step(piece); !errors.Is(err, ErrCheat) {
		t.Errorf("a piece of seat 8 at a 3-seat table: %v", err)
	}
	for _, x := range []*table{tb, tb3} {
		x.collect()
		if cs := x.cheats(0); len(cs) != 1 || cs[0].Seat != 2 || x.ms[0].Stopped() {
			t.Errorf("named %v, stopped %v", cs, x.ms[0].Stopped())
		}
	}
	tb.run()
	tb3.run()
	if !tb.ms[0].DeckReady(0) || !tb3.ms[0].DeckReady(0) {
		t.Error("the refused envelopes stopped the deal")
	}
}
