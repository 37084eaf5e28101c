package deal

import (
	"bytes"
	"errors"
	"testing"

	"github.com/boardmesh/boardmesh/crypto"
	mp "github.com/boardmesh/boardmesh/crypto/mentalpoker"
)

// The fuzz targets of every body decoder of the card protocol, and of a
// hostile envelope's path through a machine. .ci/run finds them with
// go test -list '^Fuzz' and fuzzes each for a bounded time; plain go test
// runs their seeds (f.Add) as regression cases.

// roundTrip is the property of every decoder: it never panics, its errors
// wrap ErrBadBody, and whatever it accepts is canonical.
func roundTrip[T any](t *testing.T, b []byte, dec func([]byte) (T, error), enc func(T) []byte) {
	v, err := dec(b)
	if err != nil {
		if !errors.Is(err, ErrBadBody) {
			t.Fatalf("decoder error %v does not wrap ErrBadBody", err)
		}
		return
	}
	if re := enc(v); !bytes.Equal(re, b) {
		t.Fatalf("accepted a non-canonical body: %x re-encodes as %x", b, re)
	}
}

func seedBodies(f *testing.F, kind crypto.Kind) {
	f.Add([]byte{})
	f.Add([]byte{0})
	f.Add([]byte{0xff, 0xff, 0xff, 0xff, 0x0f})
	switch kind {
	case crypto.KindCardKey:
		f.Add((&keyBody{Key: make([]byte, 32), Proof: make([]byte, 64)}).encode())
	case crypto.KindShuffle:
		f.Add((&shuffleBody{Deck: 3, Output: make([]byte, 2*mp.CiphertextLen), Proof: make([]byte, mp.ShuffleProofLen(2))}).encode())
	case crypto.KindRemask:
		f.Add(encodeRemasks([]remaskEntry{{Slot: 1, CT: make([]byte, 64), Proof: make([]byte, 96)}, {Slot: 4, CT: make([]byte, 64), Proof: make([]byte, 96)}}))
	case crypto.KindShare:
		f.Add(encodeShares([]shareEntry{{Slot: 0, Share: make([]byte, 128)}, {Slot: 2, Share: make([]byte, 128)}}))
	}
}

func FuzzDecodeCardKey(f *testing.F) {
	seedBodies(f, crypto.KindCardKey)
	f.Fuzz(func(t *testing.T, b []byte) {
		roundTrip(t, b, decodeKey, func(k *keyBody) []byte { return k.encode() })
	})
}

func FuzzDecodeShuffle(f *testing.F) {
	seedBodies(f, crypto.KindShuffle)
	f.Fuzz(func(t *testing.T, b []byte) {
		roundTrip(t, b, decodeShuffle, func(s *shuffleBody) []byte { return s.encode() })
	})
}

func FuzzDecodeRemask(f *testing.F) {
	seedBodies(f, crypto.KindRemask)
	f.Fuzz(func(t *testing.T, b []byte) {
		roundTrip(t, b, decodeRemasks, encodeRemasks)
	})
}

func FuzzDecodeShare(f *testing.F) {
	seedBodies(f, crypto.KindShare)
	f.Fuzz(func(t *testing.T, b []byte) {
		roundTrip(t, b, decodeShares, encodeShares)
	})
}

func FuzzDecodeEscrowBodies(f *testing.F) {
	f.Add(uint8(0), encodeBlobBody(make([]byte, 2*mp.EscrowPieceLen)))
	f.Add(uint8(1), encodeBlobBody(make([]byte, mp.ScalarLen)))
	f.Add(uint8(2), encodeBlobBody(make([]byte, mp.AccusationLen)))
	f.Add(uint8(0), []byte{0x80})
	f.Fuzz(func(t *testing.T, k uint8, b []byte) {
		kind := crypto.KindEscrow + crypto.Kind(k%3)
		roundTrip(t, b, func(b []byte) ([]byte, error) { return decodeBlobBody(kind, b) }, encodeBlobBody)
	})
}

// FuzzDecodePiece: a piece of a dropped seat's key carries the lists of
// what its holder holds (escrow.go's decideChains and decideRemask read
// them), so its body is more than FuzzDecodeEscrowBodies' blob.
func FuzzDecodePiece(f *testing.F) {
	f.Add((&pieceBody{Piece: make([]byte, mp.ScalarLen)}).encode())
	f.Add((&pieceBody{Piece: make([]byte, mp.ScalarLen), Holds: []uint64{0, 3, 1 << 33}, Remasks: []uint64{2}}).encode())
	f.Add((&pieceBody{Piece: make([]byte, mp.ScalarLen), Holds: []uint64{1}, Relays: []uint64{relayKey(2, 0), relayKey(2, 1<<32), relayKey(3, 5)}, RelayRemasks: []uint64{relayKey(1, 4)}}).encode())
	f.Fuzz(func(t *testing.T, b []byte) {
		roundTrip(t, b, decodePiece, func(p *pieceBody) []byte { return p.encode() })
	})
}

// FuzzStep sends one envelope signed by seat 2, of any card kind, seq and
// body, into seat 1 of a two-seat table in the middle of its setup (keys
// known, a batch declared), then lets the table run: nothing may panic,
// and whatever seat 1 refuses leaves it able to finish the deal unless it
// named a proven cheat.
func FuzzStep(f *testing.F) {
	f.Add(uint8(0), uint64(0), []byte{})
	f.Add(uint8(1), uint64(0), (&shuffleBody{Deck: 0, Output: make([]byte, 2*64), Proof: make([]byte, mp.ShuffleProofLen(2))}).encode())
	f.Add(uint8(2), uint64(0), encodeRemasks([]remaskEntry{{Slot: 0, CT: make([]byte, 64), Proof: make([]byte, 96)}}))
	f.Add(uint8(3), uint64(0), encodeShares([]shareEntry{{Slot: 0, Share: make([]byte, 128)}}))
	f.Add(uint8(3), uint64(7), encodeShares([]shareEntry{{Slot: 0, Share: append(append([]byte(nil), order2...), make([]byte, 96)...)}}))
	f.Fuzz(func(t *testing.T, kind uint8, seq uint64, body []byte) {
		tb := newTable(t, 2, []Deck{{ID: 0, Cards: []uint16{1, 2}}})
		env := &crypto.Envelope{Session: session(), Seq: seq, Kind: crypto.KindCardKey + crypto.Kind(kind%7), Body: body}
		crypto.Sign(tb.ids[1], env)
		tb.open(Opening{Deck: 0, Pos: 0, To: 0})
		err := tb.ms[0].Step(env)
		tb.run()
		if tb.ms[0].Stopped() || tb.ms[0].Convicted(1) {
			// Stopped, or waiting for the drop of a seat proven to cheat
			// (at a table of two, for ever: the game pauses).
			if len(tb.cheats(0)) == 0 {
				t.Fatalf("seat 1 stopped or convicted seat 2 without naming a cheat (step error %v)", err)
			}
			return
		}
		if _, ok := tb.ms[0].Card(Handle{Deck: 0, Pos: 0}); !ok && !tb.ms[1].Stopped() {
			t.Fatalf("seat 1 did not finish its draw after %v (waiting for %v)", err, tb.ms[0].Waiting())
		}
	})
}
