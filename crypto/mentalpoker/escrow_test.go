package mentalpoker

import (
	"errors"
	"testing"
)

// TestEscrowCheatingDealer: a dealer whose pieces do not add up to its key
// is caught by everyone at once; a dealer who seals a wrong piece to one
// holder is caught by that holder, whose accusation every seat can check;
// a false accusation is refused; a wrong published piece is refused.
func TestEscrowCheatingDealer(t *testing.T) {
	rnd := seeded(30)
	tb := newTable(t, 4, rnd)
	ctx := testCtx("escrow", 2)
	good, err := MakeEscrow(rnd, ctx, 1, tb.sks[1], tb.pks)
	if err != nil {
		t.Fatal(err)
	}

	// Commitments that do not sum to the key: the escrow of another key
	// presented as seat 2's.
	wrong, _ := MakeEscrow(rnd, ctx, 1, tb.sks[1], tb.pks)
	copy(wrong[:PointLen], good[EscrowPieceLen:EscrowPieceLen+PointLen])
	if _, err := ParseEscrow(ctx, 1, tb.pks, wrong); err == nil {
		t.Error("an escrow whose commitments do not sum to the key was accepted")
	}

	// A sealed piece that does not match its commitment (the holder is
	// seat 3, the second entry: seats 1, 3, 4 hold seat 2's key).
	bad := append([]byte(nil), good...)
	bad[EscrowPieceLen+2*PointLen] ^= 1
	e, err := ParseEscrow(ctx, 1, tb.pks, bad)
	if err != nil {
		t.Fatalf("the public check cannot see a bad sealed piece, yet: %v", err)
	}
	if _, err := e.Open(2, tb.sks[2]); !errors.Is(err, ErrInvalidProof) {
		t.Fatalf("seat 3 opened a bad piece: %v", err)
	}
	acc, err := e.Accuse(rnd, 2, tb.sks[2])
	if err != nil {
		t.Fatal(err)
	}
	if err := e.VerifyAccusation(2, acc); err != nil {
		t.Errorf("a true accusation is refused: %v", err)
	}
	// The same accusation against the honest escrow is false.
	he, _ := ParseEscrow(ctx, 1, tb.pks, good)
	if err := he.VerifyAccusation(2, acc); err == nil {
		t.Error("an accusation made for another escrow's piece holds")
	}
	honestAcc, _ := he.Accuse(rnd, 2, tb.sks[2])
	if err := he.VerifyAccusation(2, honestAcc); !errors.Is(err, ErrInvalidProof) {
		t.Errorf("a false accusation of an honest dealer: %v", err)
	}
	// An accuser who lies about the Diffie–Hellman point cannot prove it.
	forged := append([]byte(nil), acc...)
	copy(forged, pointBytes(base.Point().Base()))
	if err := e.VerifyAccusation(2, forged); !errors.Is(err, ErrInvalidProof) {
		t.Errorf("an accusation with a made-up key: %v", err)
	}

	// A wrong published piece at recovery.
	p, _ := he.Open(0, tb.sks[0])
	pb := p.Bytes()
	pb[0] ^= 1
	if _, err := he.VerifyPiece(0, pb); !errors.Is(err, ErrInvalidProof) {
		t.Errorf("a wrong published piece: %v", err)
	}
	if _, err := he.VerifyPiece(1, p.Bytes()); !errors.Is(err, ErrBadInput) {
		t.Errorf("the dealer's own 'piece': %v", err)
	}
	// Each holder opens only its own piece.
	if _, err := he.Open(0, tb.sks[3]); !errors.Is(err, ErrBadInput) {
		t.Errorf("seat 4's key opening seat 1's piece: %v", err)
	}
	// Escrow needs three seats.
	if _, err := MakeEscrow(rnd, ctx, 0, tb.sks[0], tb.pks[:2]); !errors.Is(err, ErrBadInput) {
		t.Errorf("a two-seat escrow: %v", err)
	}
	// Escrow is bound to its context.
	c2 := ctx
	c2.Seq++
	e2, err := ParseEscrow(c2, 1, tb.pks, good)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e2.Open(0, tb.sks[0]); err == nil {
		t.Error("a piece opened in another context")
	}
}
