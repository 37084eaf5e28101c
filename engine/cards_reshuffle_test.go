package engine

import (
	"encoding/binary"
	"errors"
	"fmt"
	"testing"
)

// dealAll opens every position of deck d to seat 0 on an open table.
func dealAll(t *testing.T, c *Cards, d uint8, beacon []byte) []int {
	t.Helper()
	var want []Opening
	for p := range c.slots[d] {
		want = append(want, Opening{Deck: d, Pos: uint16(p), To: 0})
	}
	if err := c.OpenFromBeacon(want, beacon); err != nil {
		t.Fatal(err)
	}
	var got []int
	for p := range c.slots[d] {
		v, ok := c.Value(Handle{Deck: d, Pos: uint16(p)}, 0)
		if !ok {
			t.Fatalf("%d:%d not known after its opening", d, p)
		}
		got = append(got, int(v))
	}
	return got
}

// TestReshuffleOnAnOpenTable: a reshuffled deck holds exactly its
// sources' cards, its order is pinned by a golden vector, its old handles
// name nothing, and its first position is uniform over the sources.
func TestReshuffleOnAnOpenTable(t *testing.T) {
	c := mustCards(t)
	// Seat 0 sees four cards, then the four and two never-opened ones are
	// reshuffled into deck 1.
	first := dealAll(t, &c, 0, Derive([]byte("r"), "", 0))
	// Refused reshuffles change nothing: a card named twice, a card that
	// does not exist after good ones.
	before := encodeCards(&c)
	for _, bad := range [][]Handle{{{0, 0}, {0, 1}, {0, 0}}, {{0, 4}, {0, 5}, {0, 10}}} {
		if _, err := c.Reshuffle(bad); err == nil {
			t.Fatalf("reshuffle of %v accepted", bad)
		}
		if string(encodeCards(&c)) != string(before) || c.NumDecks() != 1 {
			t.Fatalf("refused reshuffle of %v changed the cards", bad)
		}
	}
	from := []Handle{{0, 0}, {0, 1}, {0, 2}, {0, 3}, {0, 8}, {0, 9}}
	id, err := c.Reshuffle(from)
	if err != nil || id != 1 {
		t.Fatalf("reshuffle: %d %v", id, err)
	}
	if err := c.Check(Opening{Deck: 0, Pos: 2, To: Public}, first[2]); !errors.Is(err, ErrNotWaiting) {
		t.Fatalf("a reshuffled handle opened: %v", err)
	}
	if _, err := c.Reshuffle([]Handle{{0, 2}}); err == nil {
		t.Fatal("a handle reshuffled twice")
	}
	got := dealAll(t, &c, 1, Derive([]byte("r"), "", 1))
	want := map[int]int{}
	for _, h := range from {
		want[first[h.Pos]]++
	}
	for _, v := range got {
		want[v]--
	}
	for v, n := range want {
		if n != 0 {
			t.Fatalf("deck 1 holds %v, its sources %v (card %d off by %d)", got, first, v, n)
		}
	}
	if g := fmt.Sprint(got); g != "[0 3 3 0 1 0]" {
		t.Errorf("reshuffled deck gave %s", g)
	}
	back, err := DecodeCards(NewDecoder(encodeCards(&c)), testDeck())
	if err != nil || string(encodeCards(&back)) != string(encodeCards(&c)) {
		t.Fatalf("a reshuffled state does not survive decoding: %v", err)
	}
	// Uniform: the first position takes each source equally often.
	const n = 6000
	counts := map[int]int{}
	for i := 0; i < n; i++ {
		c := mustCards(t)
		if _, err := c.Reshuffle(from); err != nil {
			t.Fatal(err)
		}
		if err := c.OpenFromBeacon([]Opening{{Deck: 1, Pos: 0, To: Public}}, Derive([]byte("u"), "", uint64(i))); err != nil {
			t.Fatal(err)
		}
		counts[int(c.slots[1][0].src)]++
	}
	for i := range from {
		if counts[i] < n/6-200 || counts[i] > n/6+200 {
			t.Errorf("source %d taken %d times of %d", i, counts[i], n)
		}
	}
}

func TestReshuffleOnASecretTable(t *testing.T) {
	c := mustCards(t)
	if err := c.UseSecret(); err != nil {
		t.Fatal(err)
	}
	c.SetKnowledge(NewKnowledge(1))
	// Positions 5 (card 2, the only one) and 6 are public; 7 was seen by
	// seat 1 privately.
	for _, o := range []struct {
		o Opening
		v int
	}{{Opening{Pos: 5, To: Public}, 2}, {Opening{Pos: 6, To: Public}, 0}, {Opening{Pos: 7, To: 1}, 3}} {
		if err := c.Open(o.o, o.v); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.Reshuffle([]Handle{{0, 5}, {0, 6}}); err != nil {
		t.Fatal(err)
	}
	// Both sources are public: deck 1 holds a 2 and a 0, nothing else.
	if err := c.Check(Opening{Deck: 1, Pos: 0, To: Public}, 3); !errors.Is(err, ErrBadCard) {
		t.Fatalf("a card no source is: %v", err)
	}
	if err := c.Open(Opening{Deck: 1, Pos: 0, To: Public}, 2); err != nil {
		t.Fatal(err)
	}
	if err := c.Check(Opening{Deck: 1, Pos: 1, To: Public}, 2); !errors.Is(err, ErrBadCard) {
		t.Fatalf("the single 2 shown twice: %v", err)
	}
	// A deck with a hidden source may hold anything its deck could.
	if _, err := c.Reshuffle([]Handle{{0, 7}, {0, 8}}); err != nil {
		t.Fatal(err)
	}
	if err := c.Check(Opening{Deck: 2, Pos: 0, To: Public}, 1); err != nil {
		t.Fatalf("a possible card refused: %v", err)
	}
	if c.UseSecret() == nil {
		t.Fatal("secret mode chosen again after reshuffles")
	}
	back, err := DecodeCards(NewDecoder(encodeCards(&c)), testDeck())
	if err != nil || string(encodeCards(&back)) != string(encodeCards(&c)) {
		t.Fatalf("a secret reshuffled state does not survive decoding: %v", err)
	}
	// A handle that is the source of two decks is refused.
	bad := c.Clone()
	bad.sources[1] = []Handle{{0, 5}, {0, 8}}
	if _, err := DecodeCards(NewDecoder(encodeCards(&bad)), testDeck()); err == nil {
		t.Fatal("a card reshuffled into two decks decoded")
	}
}

func TestOpenDecksLieFaceUp(t *testing.T) {
	c, err := NewDecks([]Deck{{Cards: []uint16{0, 1, 1}}, {Cards: []uint16{4, 4, 5}, Open: true}})
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := c.Public(Handle{Deck: 1, Pos: 2}); !ok || v != 5 {
		t.Fatalf("an open deck's card is not public: %d %v", v, ok)
	}
	if err := c.UseSecret(); err != nil {
		t.Fatalf("open decks stop a table from being secret: %v", err)
	}
	if _, err := c.Reshuffle([]Handle{{1, 0}, {0, 2}}); err != nil {
		t.Fatal(err)
	}
	if err := c.Check(Opening{Deck: 2, Pos: 0, To: Public}, 4); err != nil {
		t.Fatalf("the supply card taken into the deck cannot be shown: %v", err)
	}
	e := NewEncoder(nil)
	c.Encode(e)
	if _, err := DecodeDecks(NewDecoder(e.Bytes()), []Deck{{Cards: []uint16{0, 1, 1}}, {Cards: []uint16{4, 4, 5}, Open: true}}); err != nil {
		t.Fatal(err)
	}
	// The values of an open deck are the game's declared list, not in the
	// encoding; a position of it that is not face up is refused.
	if back, err := DecodeDecks(NewDecoder(e.Bytes()), []Deck{{Cards: []uint16{0, 1, 1}}, {Cards: []uint16{4, 4, 5}, Open: true}}); err != nil {
		t.Fatal(err)
	} else if v, ok := back.Public(Handle{Deck: 1, Pos: 2}); !ok || v != 5 {
		t.Fatalf("decoded open deck shows %d %v at 1:2, declared 5", v, ok)
	}
	hidden := c.Clone()
	hidden.slots[1][1].pub = false
	e.Reset()
	hidden.Encode(e)
	if _, err := DecodeDecks(NewDecoder(e.Bytes()), []Deck{{Cards: []uint16{0, 1, 1}}, {Cards: []uint16{4, 4, 5}, Open: true}}); err == nil {
		t.Fatal("an open deck with a card face down decoded")
	}
}

// TestCardsEncodingRefusesBadRuns: the runs of flags must be maximal, of
// at least one position, and cover the deck exactly; anything else is
// refused (one state, one encoding).
func TestCardsEncodingRefusesBadRuns(t *testing.T) {
	c := mustCards(t)
	if err := c.OpenFromBeacon([]Opening{{0, 0, 1}, {0, 1, Public}, {0, 5, Public}}, Derive([]byte("r"), "", 0)); err != nil {
		t.Fatal(err)
	}
	good := encodeCards(&c)
	if _, err := DecodeCards(NewDecoder(good), testDeck()); err != nil {
		t.Fatal(err)
	}
	// The header: mode, decks, then deck 0: sources, slots, its values.
	d := NewDecoder(good)
	d.Uint()
	d.Len(MaxDecks)
	d.Len(MaxDeckSize)
	m := d.Len(MaxDeckSize)
	for i := 0; i < m; i++ {
		d.Int()
	}
	head := append([]byte(nil), good[:d.off]...)
	runs := func(rs ...uint64) []byte {
		b := binary.AppendUvarint(append([]byte(nil), head...), uint64(len(rs)/2))
		for _, x := range rs {
			b = binary.AppendUvarint(b, x)
		}
		return b
	}
	pub, seen1 := uint64(1), uint64(1<<3)
	ok := runs(1, seen1, 1, pub, 3, 0, 1, pub, uint64(m-6), 0) // (count, flags) each
	if string(ok) != string(good) {
		t.Fatalf("the test's runs %x are not the encoding's %x", ok, good)
	}
	for _, tc := range []struct {
		name string
		b    []byte
	}{
		{"a run split in two", runs(1, seen1, 1, pub, 1, 0, 2, 0, 1, pub, uint64(m-6), 0)},
		{"an empty run", runs(1, seen1, 1, pub, 0, 0, 3, 0, 1, pub, uint64(m-6), 0)},
		{"runs short of a deck", runs(1, seen1, 1, pub, 3, 0, 1, pub, uint64(m-7), 0)},
		{"runs past a deck", runs(1, seen1, 1, pub, 3, 0, 1, pub, uint64(m-5), 0)},
	} {
		if _, err := DecodeCards(NewDecoder(tc.b), testDeck()); err == nil {
			t.Errorf("%s decoded", tc.name)
		}
	}
}

// TestDerivedCountsFollowTheSlots: the per-card counts and free-source
// lists an opening uses, kept up as cards are bound, are always what a
// fresh count over the slots gives (what a decoded state starts from).
func TestDerivedCountsFollowTheSlots(t *testing.T) {
	c := mustCards(t)
	check := func(when string) {
		t.Helper()
		fresh := c.Clone()
		fresh.derive()
		if fmt.Sprint(c.rem, c.remPub, c.free) != fmt.Sprint(fresh.rem, fresh.remPub, fresh.free) {
			t.Fatalf("%s: kept %v %v %v, counted %v %v %v", when, c.rem, c.remPub, c.free, fresh.rem, fresh.remPub, fresh.free)
		}
	}
	if err := c.Bind(Handle{0, 5}, 2); err != nil {
		t.Fatal(err)
	}
	check("after Bind")
	if err := c.OpenFromBeacon([]Opening{{0, 0, 1}, {0, 1, Public}, {0, 5, Public}}, Derive([]byte("d"), "", 0)); err != nil {
		t.Fatal(err)
	}
	check("after openings")
	if _, err := c.Reshuffle([]Handle{{0, 0}, {0, 1}, {0, 2}, {0, 9}}); err != nil {
		t.Fatal(err)
	}
	check("after a reshuffle")
	if err := c.OpenFromBeacon([]Opening{{1, 2, Public}, {1, 0, 0}}, Derive([]byte("d"), "", 1)); err != nil {
		t.Fatal(err)
	}
	check("after openings of the reshuffled deck")
	// A dealer gives position 1 a card a free source may be.
	v := int(c.slot(c.Sources(1)[c.free[0][0]]).val)
	for k := 0; v < 0; k++ {
		if c.rem[0][k] > 0 {
			v = k
		}
	}
	if err := c.Open(Opening{Deck: 1, Pos: 1, To: Public}, v); err != nil {
		t.Fatal(err)
	}
	check("after a dealt card of the reshuffled deck")
}
