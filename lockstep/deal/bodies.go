package deal

import (
	"errors"
	"fmt"

	"github.com/boardmesh/boardmesh/crypto"
	mp "github.com/boardmesh/boardmesh/crypto/mentalpoker"
	"github.com/boardmesh/boardmesh/engine"
)

// The bodies of the card protocol's envelopes, written with the engine's
// canonical primitives like lockstep's own bodies (docs/protocol.md §10):
// unsigned LEB128 varints and length-prefixed byte strings, each decoder
// re-encoding what it read and comparing, so one message has exactly one
// byte string and one signature. The decoders check the framing and the
// exact lengths only; the points inside are decoded strictly (canonical,
// prime-order subgroup) by crypto/mentalpoker when they are used.

// ErrBadBody is wrapped by every body decoding error.
var ErrBadBody = errors.New("deal: malformed body")

// MaxBatch bounds the openings of one batch, and so the entries of one
// remask or share body.
const MaxBatch = 256

// keyBody is a card-key: the seat's public key and its Schnorr proof.
type keyBody struct {
	Key   []byte // 32
	Proof []byte // 64
}

func (b *keyBody) encode() []byte {
	e := engine.NewEncoder(nil)
	e.Blob("key", b.Key)
	e.Blob("proof", b.Proof)
	return e.Bytes()
}

func decodeKey(in []byte) (*keyBody, error) {
	d := engine.NewDecoder(in)
	b := &keyBody{Key: d.Blob(mp.PointLen), Proof: d.Blob(mp.KeyProofLen)}
	if d.Err() == nil && (len(b.Key) != mp.PointLen || len(b.Proof) != mp.KeyProofLen) {
		return nil, fmt.Errorf("%w: card-key: a key of %d bytes and a proof of %d, want %d and %d",
			ErrBadBody, len(b.Key), len(b.Proof), mp.PointLen, mp.KeyProofLen)
	}
	return b, canonical(d, crypto.KindCardKey, in, b.encode())
}

// shuffleBody is one seat's link of a shuffle chain: the deck it builds,
// the permuted and re-masked deck, and the Neff proof.
type shuffleBody struct {
	Deck   uint8
	Output []byte // 64 per card
	Proof  []byte // mp.ShuffleProofLen(cards)
}

func (b *shuffleBody) encode() []byte {
	e := engine.NewEncoder(nil)
	e.Uint("deck", uint64(b.Deck))
	e.Blob("output", b.Output)
	e.Blob("proof", b.Proof)
	return e.Bytes()
}

func decodeShuffle(in []byte) (*shuffleBody, error) {
	d := engine.NewDecoder(in)
	deck := d.Uint()
	b := &shuffleBody{Deck: uint8(deck), Output: d.Blob(mp.MaxDeck * mp.CiphertextLen), Proof: d.Blob(mp.ShuffleProofLen(mp.MaxDeck))}
	if d.Err() == nil {
		n := len(b.Output) / mp.CiphertextLen
		switch {
		case deck > 255:
			return nil, fmt.Errorf("%w: shuffle: deck %d (at most 255)", ErrBadBody, deck)
		case n < 2 || len(b.Output)%mp.CiphertextLen != 0:
			return nil, fmt.Errorf("%w: shuffle: an output of %d bytes is not 2 or more ciphertexts", ErrBadBody, len(b.Output))
		case len(b.Proof) != mp.ShuffleProofLen(n):
			return nil, fmt.Errorf("%w: shuffle: a proof of %d bytes for %d cards, want %d", ErrBadBody, len(b.Proof), n, mp.ShuffleProofLen(n))
		}
	}
	return b, canonical(d, crypto.KindShuffle, in, b.encode())
}

// remaskEntry is one proved re-masking: the batch slot of the opening, the
// new ciphertext and its Chaum–Pedersen proof.
type remaskEntry struct {
	Slot  int
	CT    []byte // 64
	Proof []byte // 96
}

func encodeRemasks(es []remaskEntry) []byte {
	e := engine.NewEncoder(nil)
	e.Len("count", len(es))
	for _, x := range es {
		e.Uint("slot", uint64(x.Slot))
		e.Blob("ciphertext", x.CT)
		e.Blob("proof", x.Proof)
	}
	return e.Bytes()
}

func decodeRemasks(in []byte) ([]remaskEntry, error) {
	d := engine.NewDecoder(in)
	n := d.Len(MaxBatch)
	var es []remaskEntry
	for i := 0; i < n && d.Err() == nil; i++ {
		x := remaskEntry{Slot: int(d.Len(MaxBatch - 1)), CT: d.Blob(mp.CiphertextLen), Proof: d.Blob(mp.RemaskProofLen)}
		if d.Err() != nil {
			break
		}
		if len(x.CT) != mp.CiphertextLen || len(x.Proof) != mp.RemaskProofLen {
			return nil, fmt.Errorf("%w: remask: entry %d has a %d-byte ciphertext and a %d-byte proof, want %d and %d",
				ErrBadBody, i, len(x.CT), len(x.Proof), mp.CiphertextLen, mp.RemaskProofLen)
		}
		if i > 0 && x.Slot <= es[i-1].Slot {
			return nil, fmt.Errorf("%w: remask: slots not strictly ascending", ErrBadBody)
		}
		es = append(es, x)
	}
	if d.Err() == nil && n == 0 {
		return nil, fmt.Errorf("%w: remask: no entries", ErrBadBody)
	}
	return es, canonical(d, crypto.KindRemask, in, encodeRemasks(es))
}

// shareEntry is one decryption share (D and its Chaum–Pedersen proof) for
// the opening in batch slot Slot.
type shareEntry struct {
	Slot  int
	Share []byte // 128
}

func encodeShares(es []shareEntry) []byte {
	e := engine.NewEncoder(nil)
	e.Len("count", len(es))
	for _, x := range es {
		e.Uint("slot", uint64(x.Slot))
		e.Blob("share", x.Share)
	}
	return e.Bytes()
}

func decodeShares(in []byte) ([]shareEntry, error) {
	d := engine.NewDecoder(in)
	n := d.Len(MaxBatch)
	var es []shareEntry
	for i := 0; i < n && d.Err() == nil; i++ {
		x := shareEntry{Slot: int(d.Len(MaxBatch - 1)), Share: d.Blob(mp.ShareLen)}
		if d.Err() != nil {
			break
		}
		if len(x.Share) != mp.ShareLen {
			return nil, fmt.Errorf("%w: share: entry %d is %d bytes, want %d", ErrBadBody, i, len(x.Share), mp.ShareLen)
		}
		if i > 0 && x.Slot <= es[i-1].Slot {
			return nil, fmt.Errorf("%w: share: slots not strictly ascending", ErrBadBody)
		}
		es = append(es, x)
	}
	if d.Err() == nil && n == 0 {
		return nil, fmt.Errorf("%w: share: no entries", ErrBadBody)
	}
	return es, canonical(d, crypto.KindShare, in, encodeShares(es))
}

// The bodies of escrow and accuse are one blob each: the escrow
// (mentalpoker's 96 bytes per other seat), the accusation (128 bytes). The
// escrow's exact length depends on the table and is checked when it is
// parsed; the accusation's exact length here. A piece's body is its blob
// (a 32-byte scalar) and its holder's list of shuffles held (pieceBody).
func encodeBlobBody(b []byte) []byte {
	e := engine.NewEncoder(nil)
	e.Blob("blob", b)
	return e.Bytes()
}

func decodeBlobBody(kind crypto.Kind, in []byte) ([]byte, error) {
	max := mp.EscrowLen(255)
	switch kind {
	case crypto.KindAccuse:
		max = mp.AccusationLen
	}
	d := engine.NewDecoder(in)
	b := d.Blob(max)
	if d.Err() == nil {
		switch {
		case kind == crypto.KindEscrow && (len(b) == 0 || len(b)%mp.EscrowPieceLen != 0):
			return nil, fmt.Errorf("%w: escrow: %d bytes is not a whole number of %d-byte pieces", ErrBadBody, len(b), mp.EscrowPieceLen)
		case kind != crypto.KindEscrow && len(b) != max:
			return nil, fmt.Errorf("%w: %s: %d bytes, want %d", ErrBadBody, kind, len(b), max)
		}
	}
	return b, canonical(d, kind, in, encodeBlobBody(b))
}

// canonical finishes d and checks that the decoded value re-encodes to in.
func canonical(d *engine.Decoder, kind crypto.Kind, in, re []byte) error {
	if err := d.Finish(); err != nil {
		return fmt.Errorf("%w: %s: %v", ErrBadBody, kind, err)
	}
	if string(in) != string(re) {
		return fmt.Errorf("%w: %s body is not canonical", ErrBadBody, kind)
	}
	return nil
}

// wellFormed decodes env's body for its kind and checks its seq's form.
func wellFormed(env *crypto.Envelope) error {
	var err error
	switch env.Kind {
	case crypto.KindCardKey:
		_, err = decodeKey(env.Body)
		if err == nil && env.Seq != 0 {
			err = fmt.Errorf("%w: a card-key at seq %d (keys are seq 0)", ErrBadBody, env.Seq)
		}
	case crypto.KindShuffle:
		_, err = decodeShuffle(env.Body)
	case crypto.KindRemask:
		_, err = decodeRemasks(env.Body)
	case crypto.KindShare:
		_, err = decodeShares(env.Body)
	case crypto.KindPiece:
		_, err = decodePiece(env.Body)
	case crypto.KindEscrow, crypto.KindAccuse:
		_, err = decodeBlobBody(env.Kind, env.Body)
		if err == nil && env.Kind == crypto.KindEscrow && env.Seq != 0 {
			err = fmt.Errorf("%w: an escrow at seq %d (escrows are seq 0)", ErrBadBody, env.Seq)
		}
	default:
		err = fmt.Errorf("%w: kind %s is not of the card protocol", ErrBadBody, env.Kind)
	}
	if err == nil && !env.StateHash.IsZero() && !answersState(env.Kind) {
		err = fmt.Errorf("%w: a %s envelope carries a state hash", ErrBadBody, env.Kind)
	}
	return err
}

// maxHolds bounds a piece's list of shuffles: more than a deal holds ahead.
const maxHolds = 1024

// pieceBody is a piece envelope's body: the holder's piece of the dropped
// seat's key (a 32-byte scalar), then Holds: the seqs, ascending, of the
// dropped seat's shuffle envelopes of chains declared before the drop that
// the holder held when it signed the piece (each attempt of a chain redone
// without a forger has its own seq, §10.3, so the list names the attempt).
// A chain's attempt no holder holds the dropped seat's link of goes on
// without it (escrow.go, decideChains): every peer reads the same signed
// lists, so every peer skips the same links. Then Remasks: the batches
// declared before the drop, ascending, in which the holder held the
// dropped seat's re-masking envelope (batch.go, decideRemask). Then
// Relays and RelayRemasks: the same for the seats dropped before this
// one, each entry relayKey(seat, seq or batch), ascending: what the holder
// holds of theirs now, so that a link kept only by the list of a holder
// that is dropped in its turn (one that lied about it, say) is decided
// again by the lists of the seats still in play (escrow.go, standing). A
// piece of a pair escrow (pairescrow.go) has empty lists.
type pieceBody struct {
	Piece        []byte
	Holds        []uint64
	Remasks      []uint64
	Relays       []uint64
	RelayRemasks []uint64
}

// relayKey names dropped seat s's envelope of seq (a shuffle's seq, or a
// batch) in a piece's Relays or RelayRemasks: the seat in the top byte. A
// shuffle's seq is below 2^40 (chain, attempt<<32), a batch below 2^32.
func relayKey(s int, seq uint64) uint64 { return uint64(s)<<56 | seq }

func splitRelay(q uint64) (int, uint64) { return int(q >> 56), q &^ (0xff << 56) }

func (b *pieceBody) encode() []byte {
	e := engine.NewEncoder(nil)
	e.Blob("piece", b.Piece)
	for _, l := range []struct {
		name, item string
		list       []uint64
	}{{"holds", "seq", b.Holds}, {"remasks", "batch", b.Remasks}, {"relays", "relay", b.Relays}, {"relay-remasks", "relay", b.RelayRemasks}} {
		e.Len(l.name, len(l.list))
		for _, c := range l.list {
			e.Uint(l.item, c)
		}
	}
	return e.Bytes()
}

func decodePiece(in []byte) (*pieceBody, error) {
	d := engine.NewDecoder(in)
	b := &pieceBody{Piece: d.Blob(mp.ScalarLen)}
	for _, l := range []struct {
		what string
		list *[]uint64
	}{{"shuffle seqs", &b.Holds}, {"batches", &b.Remasks}, {"relayed shuffles", &b.Relays}, {"relayed re-maskings", &b.RelayRemasks}} {
		n := d.Len(maxHolds)
		for i := 0; i < n && d.Err() == nil; i++ {
			c := d.Uint()
			if d.Err() == nil && i > 0 && c <= (*l.list)[i-1] {
				return nil, fmt.Errorf("%w: piece: %s not strictly ascending", ErrBadBody, l.what)
			}
			*l.list = append(*l.list, c)
		}
	}
	if d.Err() == nil && len(b.Piece) != mp.ScalarLen {
		return nil, fmt.Errorf("%w: piece: %d bytes, want %d", ErrBadBody, len(b.Piece), mp.ScalarLen)
	}
	return b, canonical(d, crypto.KindPiece, in, b.encode())
}
