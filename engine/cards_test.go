package engine

import (
	"errors"
	"fmt"
	"testing"
)

func testDeck() [][]uint16 { return [][]uint16{{0, 0, 0, 1, 1, 2, 3, 3, 3, 3}} }

func mustCards(t *testing.T) Cards {
	t.Helper()
	c, err := NewCards(testDeck())
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestOpenSourceGoldenVector pins the open card source: the cards a beacon
// gives to positions 0..9 of a fixed deck, opened in that order. A change
// here changes every open table's draws and must be deliberate.
func TestOpenSourceGoldenVector(t *testing.T) {
	c := mustCards(t)
	var want []Opening
	for p := uint16(0); p < 10; p++ {
		want = append(want, Opening{Deck: 0, Pos: p, To: int(p % 3)})
	}
	if err := c.OpenFromBeacon(want, Derive([]byte("golden"), "cards", 0)); err != nil {
		t.Fatal(err)
	}
	var got []int
	for p := uint16(0); p < 10; p++ {
		v, ok := c.Value(Handle{Pos: p}, int(p%3))
		if !ok {
			t.Fatalf("position %d not known to its recipient", p)
		}
		got = append(got, int(v))
	}
	if g := fmt.Sprint(got); g != "[3 0 0 1 3 1 3 3 0 2]" {
		t.Errorf("open source gave %s", g)
	}
	// Every copy is used once: the deck was dealt out exactly.
	for _, w := range c.remaining(0, false) {
		if w != 0 {
			t.Fatalf("copies left over: %v", c.remaining(0, false))
		}
	}
}

// TestOpenSourceIsUniform: over many beacons the first position holds
// each card as often as the deck has copies of it (within 4 sigma).
func TestOpenSourceIsUniform(t *testing.T) {
	const n = 20000
	counts := make([]int, 4)
	for i := 0; i < n; i++ {
		c := mustCards(t)
		if err := c.OpenFromBeacon([]Opening{{Pos: 7, To: Public}}, Derive([]byte("uniform"), "", uint64(i))); err != nil {
			t.Fatal(err)
		}
		v, _ := c.Public(Handle{Pos: 7})
		counts[v]++
	}
	for card, copies := range []int{3, 2, 1, 4} {
		exp := float64(n*copies) / 10
		sd := 0.0
		for x := exp * (1 - float64(copies)/10); sd*sd < x; sd += 0.5 {
		}
		if d := float64(counts[card]) - exp; d > 4*sd || d < -4*sd {
			t.Errorf("card %d drawn %d times, expected about %.0f", card, counts[card], exp)
		}
	}
}

func TestSecretCardsKeepPrivateValuesOutOfTheState(t *testing.T) {
	spy := mustCards(t)
	me := mustCards(t)
	for _, c := range []*Cards{&spy, &me} {
		if err := c.UseSecret(); err != nil {
			t.Fatal(err)
		}
	}
	spy.SetKnowledge(NewKnowledge(0))
	me.SetKnowledge(NewKnowledge(1))
	o := Opening{Pos: 4, To: 1}
	if err := spy.Open(o, 2); !errors.Is(err, ErrBadCard) {
		t.Fatalf("a private card given to another seat's engine: %v", err)
	}
	if err := spy.Open(o, NoCard); err != nil {
		t.Fatal(err)
	}
	if err := me.Open(o, NoCard); !errors.Is(err, ErrBadCard) {
		t.Fatalf("the recipient accepted no value: %v", err)
	}
	if err := me.Open(o, 2); err != nil {
		t.Fatal(err)
	}
	if string(encodeCards(&spy)) != string(encodeCards(&me)) {
		t.Fatal("the shared part differs between the recipient and another seat")
	}
	if v, ok := me.Value(Handle{Pos: 4}, 1); !ok || v != 2 {
		t.Fatalf("recipient sees %d %v", v, ok)
	}
	if _, ok := spy.Value(Handle{Pos: 4}, 1); ok {
		t.Fatal("another seat's engine knows a private card")
	}
	if !spy.Seen(Handle{Pos: 4}, 1) || spy.Seen(Handle{Pos: 4}, 0) {
		t.Fatal("who saw the card is not recorded")
	}
	// Public values are checked against the deck: card 2 has one copy.
	if err := spy.Open(Opening{Pos: 5, To: Public}, 2); err != nil {
		t.Fatal(err)
	}
	if err := spy.Open(Opening{Pos: 6, To: Public}, 2); !errors.Is(err, ErrBadCard) {
		t.Fatalf("a second public copy of a single card: %v", err)
	}
	if err := spy.Open(Opening{Pos: 6, To: Public}, 9); !errors.Is(err, ErrBadCard) {
		t.Fatalf("a card the deck does not have: %v", err)
	}
	if err := spy.Open(Opening{Pos: 60, To: Public}, 0); !errors.Is(err, ErrNotWaiting) {
		t.Fatalf("a position the deck does not have: %v", err)
	}
	open := mustCards(t)
	_ = open.Open(Opening{Pos: 1, To: 0}, 1)
	if open.UseSecret() == nil {
		t.Fatal("a table switched to secret cards after a card was opened")
	}
}

func encodeCards(c *Cards) []byte {
	e := NewEncoder(nil)
	c.Encode(e)
	return e.Bytes()
}

func TestCardsDecodeRoundTripAndRefusals(t *testing.T) {
	c := mustCards(t)
	if err := c.OpenFromBeacon([]Opening{{Pos: 0, To: 1}, {Pos: 3, To: Public}}, Derive([]byte("x"), "", 0)); err != nil {
		t.Fatal(err)
	}
	b := encodeCards(&c)
	d := NewDecoder(b)
	back, err := DecodeCards(d, testDeck())
	if err != nil || d.Finish() != nil {
		t.Fatal(err, d.Finish())
	}
	if string(encodeCards(&back)) != string(b) {
		t.Fatal("round trip changed the encoding")
	}
	if _, err := DecodeCards(NewDecoder(b), [][]uint16{{0, 1}}); err == nil {
		t.Fatal("decoded against another deck")
	}
	// A secret table with a private value in its state is refused.
	s := mustCards(t)
	s.mode = CardsSecret
	s.slots[0][2] = slot{val: 1, seen: 1}
	if _, err := DecodeCards(NewDecoder(encodeCards(&s)), testDeck()); err == nil {
		t.Fatal("a secret state holding a private value was accepted")
	}
	// More copies bound than the deck has.
	o := mustCards(t)
	for i := range o.slots[0] {
		o.slots[0][i] = slot{val: 2, pub: true}
	}
	if _, err := DecodeCards(NewDecoder(encodeCards(&o)), testDeck()); err == nil {
		t.Fatal("ten copies of a single card were accepted")
	}
}

func TestHandleArg(t *testing.T) {
	for _, h := range []Handle{{0, 0}, {0, 119}, {3, 1023}, {MaxDecks - 1, 65535}} {
		if back, ok := HandleArg(h.Arg()); !ok || back != h {
			t.Errorf("%s -> %d -> %s %v", h, h.Arg(), back, ok)
		}
	}
	for _, a := range []int32{-1, MaxDecks << 16} {
		if _, ok := HandleArg(a); ok {
			t.Errorf("argument %d read as a handle", a)
		}
	}
}

// TestWantsAnyIsWant: WantsAny of a zone says exactly whether Want lists
// any of its cards, for every recipient, with handles that exist or not.
func TestWantsAnyIsWant(t *testing.T) {
	c := mustCards(t)
	if err := c.OpenFromBeacon([]Opening{{0, 0, 1}, {0, 1, Public}, {0, 2, 0}, {0, 3, 1}}, Derive([]byte("w"), "", 0)); err != nil {
		t.Fatal(err)
	}
	var all []Handle
	for p := uint16(0); p < 12; p++ { // 10 and 11 are no card of the deck
		all = append(all, Handle{Pos: p})
	}
	all = append(all, Handle{Deck: 3, Pos: 0})
	for to := Public; to <= MaxCardSeats; to++ {
		for i := range all {
			for j := i; j <= len(all); j++ {
				zone := all[i:j]
				want := len(func() []Opening {
					var dst []Opening
					for _, h := range zone {
						dst = c.Want(dst, h, to)
					}
					return dst
				}()) > 0
				if got := c.WantsAny(zone, to); got != want {
					t.Fatalf("WantsAny(%v, %d) = %v, Want lists %v", zone, to, got, want)
				}
			}
		}
	}
}

// TestSecretSeenFollowsTheHolder: on a secret table a card opened to seat
// 1, then to seat 2, then wanted by seat 1 again (passed on and back, as
// two Embassy swaps do) is asked for again: the deal's holder is seat 2
// until then, and only the holder can show the card. On an open table
// nothing needs proving, and seat 1's look still counts.
func TestSecretSeenFollowsTheHolder(t *testing.T) {
	h := Handle{Pos: 4}
	a, b := mustCards(t), mustCards(t) // seat 1's engine and seat 2's
	for _, c := range []*Cards{&a, &b} {
		if err := c.UseSecret(); err != nil {
			t.Fatal(err)
		}
	}
	a.SetKnowledge(NewKnowledge(0))
	b.SetKnowledge(NewKnowledge(1))
	open := func(to int, v int) {
		t.Helper()
		for i, c := range []*Cards{&a, &b} {
			card := NoCard
			if i == to {
				card = v
			}
			if err := c.Open(Opening{Pos: h.Pos, To: to}, card); err != nil {
				t.Fatalf("seat %d's engine: %v", i+1, err)
			}
		}
	}
	open(0, 2)
	if a.Wants(h, 0) || !a.Wants(h, 1) {
		t.Fatal("after the first look: seat 1 is not the holder")
	}
	open(1, 2)
	for i, c := range []*Cards{&a, &b} {
		if !c.Wants(h, 0) || c.Wants(h, 1) || c.Seen(h, 0) || !c.Seen(h, 1) {
			t.Fatalf("seat %d's engine: after seat 2's look, seat 1 still counts as holding the card", i+1)
		}
		if got := c.Want(nil, h, 0); len(got) != 1 || got[0] != (Opening{Pos: h.Pos, To: 0}) {
			t.Fatalf("seat %d's engine wants %v for seat 1", i+1, got)
		}
		if c.WantsAny([]Handle{h}, 1) || !c.WantsAny([]Handle{h}, 0) {
			t.Fatalf("seat %d's engine: WantsAny disagrees with Wants", i+1)
		}
	}
	if _, ok := a.Value(h, 0); ok {
		t.Fatal("seat 1 still shows the card seat 2 holds")
	}
	open(0, 2) // back to seat 1: the same value, learnt again
	if v, ok := a.Value(h, 0); !ok || v != 2 || a.Wants(h, 0) || !b.Wants(h, 1) {
		t.Fatalf("back at seat 1: value %d %v", v, ok)
	}
	if string(encodeCards(&a)) != string(encodeCards(&b)) {
		t.Fatal("the shared part differs between the two seats")
	}

	o := mustCards(t) // an open table keeps every look
	for _, to := range []int{0, 1} {
		if err := o.Open(Opening{Pos: h.Pos, To: to}, 2); err != nil {
			t.Fatal(err)
		}
	}
	if o.Wants(h, 0) || o.Wants(h, 1) {
		t.Fatal("an open table forgets a look")
	}
}
