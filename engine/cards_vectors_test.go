package engine

import (
	"encoding/hex"
	"fmt"
	"testing"

	"github.com/boardmesh/boardmesh/engine/golden"
)

// TestCardsEncodingVectors pins the card bookkeeping's encoding to the
// vectors docs/hidden-cards.md prints: an open table with a hidden deck, an
// open deck and a reshuffle partly drawn (values, runs of flags, sources
// taken), and the same decks on a secret table (public values only). A
// change of the encoding changes every card game's state hash: it must be
// deliberate, with the games' rules versions bumped.
func TestCardsEncodingVectors(t *testing.T) {
	decks := []Deck{{Cards: []uint16{0, 0, 0, 1, 1, 2, 3, 3, 3, 3}}, {Cards: []uint16{5, 5, 6}, Open: true}}
	build := func(secret bool) Cards {
		c, err := NewDecks(decks)
		if err != nil {
			t.Fatal(err)
		}
		if secret {
			if err := c.UseSecret(); err != nil {
				t.Fatal(err)
			}
		}
		return c
	}
	open := build(false)
	if err := open.OpenFromBeacon([]Opening{{0, 0, 0}, {0, 1, 0}, {0, 2, 1}, {0, 3, Public}}, Derive([]byte("vectors"), "cards", 0)); err != nil {
		t.Fatal(err)
	}
	if _, err := open.Reshuffle([]Handle{{0, 0}, {0, 1}, {1, 2}, {0, 3}}); err != nil {
		t.Fatal(err)
	}
	if err := open.OpenFromBeacon([]Opening{{2, 0, 1}, {2, 1, Public}}, Derive([]byte("vectors"), "cards", 1)); err != nil {
		t.Fatal(err)
	}
	secret := build(true)
	for _, o := range []Opening{{0, 0, 0}, {0, 1, 0}, {0, 2, 1}} {
		if err := secret.Open(o, NoCard); err != nil {
			t.Fatal(err)
		}
	}
	if err := secret.Open(Opening{0, 3, Public}, 1); err != nil {
		t.Fatal(err)
	}
	if _, err := secret.Reshuffle([]Handle{{0, 0}, {0, 1}, {1, 2}, {0, 3}}); err != nil {
		t.Fatal(err)
	}
	if err := secret.Open(Opening{2, 0, 1}, NoCard); err != nil {
		t.Fatal(err)
	}
	if err := secret.Open(Opening{2, 1, Public}, 6); err != nil {
		t.Fatal(err)
	}
	for _, c := range []*Cards{&open, &secret} {
		if _, err := DecodeDecks(NewDecoder(encodeCards(c)), decks); err != nil {
			t.Fatalf("the vector's state does not decode: %v", err)
		}
	}
	golden.Check(t, "../docs/hidden-cards.md", []golden.Vector{
		{"cards.encoding.open", hex.EncodeToString(encodeCards(&open))},
		{"cards.encoding.secret", hex.EncodeToString(encodeCards(&secret))},
	}, testing.Verbose())
}

// TestCardsFastEncodingIsTheTraced: the hashing path of Cards.Encode
// (no field names) writes the very bytes of the traced path (field by
// field, as a desync report reads them), on open and secret tables,
// through openings and reshuffles, and for a deck of more runs than the
// fast path gathers at once.
func TestCardsFastEncodingIsTheTraced(t *testing.T) {
	same := func(when string, c *Cards) {
		t.Helper()
		fast, trace := NewEncoder(nil), NewTraceEncoder()
		c.Encode(fast)
		c.Encode(trace)
		if string(fast.Bytes()) != string(trace.Bytes()) {
			t.Fatalf("%s: fast %x, traced %x", when, fast.Bytes(), trace.Bytes())
		}
	}
	big := make([]uint16, 600)
	for i := range big {
		big[i] = uint16(i % 7)
	}
	for _, secret := range []bool{false, true} {
		c, err := NewDecks([]Deck{{Cards: big}, {Cards: []uint16{7, 7, 8}, Open: true}})
		if err != nil {
			t.Fatal(err)
		}
		if secret {
			if err := c.UseSecret(); err != nil {
				t.Fatal(err)
			}
		}
		r := NewRand([]byte("fast"))
		same("new", &c)
		for step := 0; step < 400; step++ {
			d := r.Intn(c.NumDecks())
			var live []Handle
			for p := 0; c.Valid(Handle{Deck: uint8(d), Pos: uint16(p)}); p++ {
				if h := (Handle{Deck: uint8(d), Pos: uint16(p)}); !c.Dead(h) {
					live = append(live, h)
				}
			}
			if len(live) == 0 {
				continue
			}
			if step%40 == 39 && c.NumDecks() < 20 {
				// Every other live card of the deck into a new deck.
				var from []Handle
				for i := 0; i < len(live); i += 2 {
					from = append(from, live[i])
				}
				if _, err := c.Reshuffle(from); err != nil {
					t.Fatal(err)
				}
				same(fmt.Sprintf("step %d, a reshuffle", step), &c)
				continue
			}
			h := live[r.Intn(len(live))]
			to := r.Intn(5) - 1 // Public or seats 1..4
			o := Opening{Deck: h.Deck, Pos: h.Pos, To: to}
			if !secret {
				if err := c.OpenFromBeacon([]Opening{o}, Derive([]byte("fast"), "", uint64(step))); err != nil {
					t.Fatal(err)
				}
			} else if to != Public {
				if err := c.Open(o, NoCard); err != nil {
					t.Fatal(err)
				}
			}
			same(fmt.Sprintf("step %d, %s", step, o), &c)
		}
	}
}
