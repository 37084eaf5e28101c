package mentalpoker

import (
	"errors"
	"testing"
)

// TestFourPlayerRoundTrip plays the whole protocol at a 4-seat table with
// a 52-card deck: keys, the shuffle chain, a private draw to each seat that
// only that seat can open, a public reveal, a peek that leaves the card in
// place, and the escrow that rebuilds a dropped seat's key.
func TestFourPlayerRoundTrip(t *testing.T) {
	const seats, cards = 4, 52
	rnd := seeded(1)
	tb := newTable(t, seats, rnd)

	// Escrow at setup: every seat checks every escrow, every holder its piece.
	escrowCtx := testCtx("escrow", 2)
	escrows := make([]*Escrow, seats)
	for dealer := 0; dealer < seats; dealer++ {
		b, err := MakeEscrow(rnd, escrowCtx, dealer, tb.sks[dealer], tb.pks)
		if err != nil {
			t.Fatal(err)
		}
		e, err := ParseEscrow(escrowCtx, dealer, tb.pks, b)
		if err != nil {
			t.Fatalf("seat %d's honest escrow: %v", dealer+1, err)
		}
		for holder := 0; holder < seats; holder++ {
			if holder == dealer {
				continue
			}
			if _, err := e.Open(holder, tb.sks[holder]); err != nil {
				t.Fatalf("seat %d cannot open its piece of seat %d's key: %v", holder+1, dealer+1, err)
			}
		}
		escrows[dealer] = e
	}

	deck := tb.shuffled(t, cards, rnd)
	open, _ := OpenDeck(cards)
	for i := range deck {
		if deck[i].Equal(open[i]) {
			t.Fatalf("card %d is still unmasked after the shuffle chain", i)
		}
	}

	// A private draw to each seat: the top card goes to seat `seat`.
	seen := map[int]bool{}
	hands := make([]int, seats)
	drawShares := make([][]Share, seats)
	for seat := 0; seat < seats; seat++ {
		ct := deck[seat]
		ctx := testCtx("draw", uint64(100+seat))
		others := tb.sharesFor(t, ctx, ct, seat, rnd)
		card, err := OpenPrivate(tb.sks[seat], seat, ct, others, seats, cards)
		if err != nil {
			t.Fatalf("seat %d cannot open its own draw: %v", seat+1, err)
		}
		if seen[card] {
			t.Fatalf("card %d dealt twice", card)
		}
		seen[card] = true
		hands[seat] = card
		drawShares[seat] = others
		// Nobody else can open it: every posted share together still lacks
		// the drawer's, and another seat's key in its place opens nothing.
		lacking := base.Point().Sub(ct.c2, sumShares(others))
		if got, err := cardOf(lacking, cards); err == nil {
			t.Fatalf("the posted shares alone open seat %d's draw as card %d", seat+1, got)
		}
		for spy := 0; spy < seats; spy++ {
			if spy == seat {
				continue
			}
			if got, err := OpenPrivate(tb.sks[spy], seat, ct, others, seats, cards); err == nil {
				t.Fatalf("seat %d opened seat %d's draw as card %d", spy+1, seat+1, got)
			}
		}
		if _, err := OpenPublic(ct, others, seats, cards); !errors.Is(err, ErrBadInput) {
			t.Fatalf("the public shares alone opened seat %d's draw: %v", seat+1, err)
		}
	}

	// A public reveal of seat 3's card: its share joins the posted ones.
	revealCtx := testCtx("reveal", 200)
	own, err := MakeShare(rnd, revealCtx, 2, tb.sks[2], deck[2])
	if err != nil {
		t.Fatal(err)
	}
	ownV, err := VerifyShare(revealCtx, 2, tb.pks[2], deck[2], own.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	all := append(append([]Share(nil), drawShares[2]...), ownV)
	if err := VerifyReveal(deck[2], all, seats, cards, hands[2]); err != nil {
		t.Fatalf("an honest reveal: %v", err)
	}

	// A peek: seat 1 looks at the card at position 10 and leaves it there.
	// It peeks at a proved re-masking of it, so that the shares it collects
	// open nothing but the copy.
	peekCtx := testCtx("peek", 300)
	copyCt, prf, err := RemaskProved(rnd, peekCtx, 0, tb.joint, deck[10])
	if err != nil {
		t.Fatal(err)
	}
	if err := VerifyRemask(peekCtx, 0, tb.joint, deck[10], copyCt, prf); err != nil {
		t.Fatalf("an honest re-masking: %v", err)
	}
	peekShares := tb.sharesFor(t, peekCtx, copyCt, 0, rnd)
	peeked, err := OpenPrivate(tb.sks[0], 0, copyCt, peekShares, seats, cards)
	if err != nil {
		t.Fatal(err)
	}
	if seen[peeked] {
		t.Fatalf("the peeked card %d was already dealt", peeked)
	}
	// The card is still in place: drawing it later gives the same card.
	laterCtx := testCtx("draw", 301)
	later := tb.sharesFor(t, laterCtx, deck[10], 1, rnd)
	drawn, err := OpenPrivate(tb.sks[1], 1, deck[10], later, seats, cards)
	if err != nil || drawn != peeked {
		t.Fatalf("seat 2 drew %d (%v) at the peeked place, seat 1 saw %d", drawn, err, peeked)
	}

	// Seat 4 drops: the others publish their pieces and rebuild its key,
	// then open its hand (its cards become known, as the rules say).
	var pieces []Piece
	for holder := 0; holder < 3; holder++ {
		p, err := escrows[3].Open(holder, tb.sks[holder])
		if err != nil {
			t.Fatal(err)
		}
		v, err := escrows[3].VerifyPiece(holder, p.Bytes())
		if err != nil {
			t.Fatalf("seat %d's published piece: %v", holder+1, err)
		}
		pieces = append(pieces, v)
	}
	rebuilt, err := escrows[3].Recover(pieces)
	if err != nil {
		t.Fatal(err)
	}
	if !rebuilt.Public().Equal(tb.pks[3]) {
		t.Fatal("the rebuilt key is not seat 4's")
	}
	card, err := OpenPrivate(rebuilt, 3, deck[3], drawShares[3], seats, cards)
	if err != nil || card != hands[3] {
		t.Fatalf("the rebuilt key opens seat 4's card as %d (%v), want %d", card, err, hands[3])
	}
	// The table goes on: anyone can now post seat 4's share for a draw.
	laterDraw := testCtx("draw", 400)
	s4, err := MakeShare(rnd, laterDraw, 3, rebuilt, deck[20])
	if err != nil {
		t.Fatal(err)
	}
	if _, err := VerifyShare(laterDraw, 3, tb.pks[3], deck[20], s4.Bytes()); err != nil {
		t.Fatalf("a share made with the rebuilt key: %v", err)
	}
	if _, err := escrows[3].Recover(pieces[:2]); err == nil {
		t.Fatal("two of three pieces rebuilt the key")
	}
}
