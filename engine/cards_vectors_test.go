package engine

import (
	"encoding/hex"
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
