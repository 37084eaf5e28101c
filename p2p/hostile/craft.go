package hostile

import (
	"github.com/boardmesh/boardmesh/crypto"
	"github.com/boardmesh/boardmesh/engine"
)

// Signed returns e signed by id (e is changed and returned).
func Signed(id *crypto.Identity, e *crypto.Envelope) *crypto.Envelope {
	crypto.Sign(id, e)
	return e
}

// Forged returns e claiming victim as its author with a signature made by
// signer (over e as if signer were the author; then the author is
// swapped): well formed on the wire, but it does not verify.
func Forged(signer, victim *crypto.Identity, e *crypto.Envelope) *crypto.Envelope {
	crypto.Sign(signer, e)
	e.Author = victim.ID()
	return e
}

// JoinBody is a join body (docs/protocol.md §4.1) for a joiner: name,
// commitment and chain length, no game.
func JoinBody(name string, commitment crypto.Hash, chainLen uint64) []byte {
	e := engine.NewEncoder(nil)
	e.Text("name", name)
	e.Blob("commitment", commitment[:])
	e.Uint("chain", chainLen)
	e.Text("game", "")
	e.Text("version", "")
	e.Len("options", 0)
	return e.Bytes()
}

// Join is a joiner's join envelope for lobby, signed by id. The
// commitment is random bytes: an outsider that never means to reveal
// needs no chain.
func Join(id *crypto.Identity, lobby crypto.Hash, name string, commitment crypto.Hash) *crypto.Envelope {
	return Signed(id, &crypto.Envelope{Session: lobby, Kind: crypto.KindJoin, Body: JoinBody(name, commitment, 1024)})
}

// Accept is a member's accept of session, signed by id.
func Accept(id *crypto.Identity, session crypto.Hash) *crypto.Envelope {
	return Signed(id, &crypto.Envelope{Session: session, Kind: crypto.KindAccept})
}

// StateBody is a state body (§4.8): the hashes after from, from+1, …
// steps and a canonical state, any bytes at all.
func StateBody(from uint64, hashes []crypto.Hash, state []byte) []byte {
	e := engine.NewEncoder(nil)
	e.Uint("from", from)
	e.Len("hashes", len(hashes))
	for _, h := range hashes {
		e.Blob("hash", h[:])
	}
	e.Blob("state", state)
	return e.Bytes()
}

// EvidenceBody is an evidence body (§4.7) holding a and b.
func EvidenceBody(a, b *crypto.Envelope) []byte {
	e := engine.NewEncoder(nil)
	e.Blob("first", a.Marshal())
	e.Blob("second", b.Marshal())
	return e.Bytes()
}

// ActionBody is the body of an action envelope (§4.4).
func ActionBody(a engine.Action) []byte { return engine.AppendAction(nil, a) }

// SeatsBody is a drop vote's or a settle's body: seats (0-based,
// ascending) (§4.5, §4.9).
func SeatsBody(seats ...int) []byte {
	e := engine.NewEncoder(nil)
	e.Len("seats", len(seats))
	for _, s := range seats {
		e.Uint("seat", uint64(s))
	}
	return e.Bytes()
}

// UintBody is a checkpoint's body: the turn (§2, kind 6).
func UintBody(v uint64) []byte {
	e := engine.NewEncoder(nil)
	e.Uint("turn", v)
	return e.Bytes()
}

// HashBody is a reveal's body (§4.3).
func HashBody(h crypto.Hash) []byte {
	e := engine.NewEncoder(nil)
	e.Blob("hash", h[:])
	return e.Bytes()
}

// ShuffleBody is a shuffle envelope's body (§10): the deck, the output
// deck (64 bytes a card) and the shuffle proof.
type ShuffleBody struct {
	Deck   uint64
	Output []byte
	Proof  []byte
}

// Encode writes b as the wire has it.
func (b ShuffleBody) Encode() []byte {
	e := engine.NewEncoder(nil)
	e.Uint("deck", b.Deck)
	e.Blob("output", b.Output)
	e.Blob("proof", b.Proof)
	return e.Bytes()
}

// ParseShuffle reads a shuffle body (framing only).
func ParseShuffle(in []byte) (ShuffleBody, error) {
	d := engine.NewDecoder(in)
	b := ShuffleBody{Deck: d.Uint(), Output: d.Blob(1 << 20), Proof: d.Blob(1 << 22)}
	return b, d.Finish()
}

// ShareEntry is one decryption share of a share envelope (§10): the
// opening's slot in its batch and the share (a point and its proof).
type ShareEntry struct {
	Slot  uint64
	Share []byte
}

// SharesBody is a share envelope's body.
func SharesBody(es []ShareEntry) []byte {
	e := engine.NewEncoder(nil)
	e.Len("count", len(es))
	for _, x := range es {
		e.Uint("slot", x.Slot)
		e.Blob("share", x.Share)
	}
	return e.Bytes()
}

// ParseShares reads a share body (framing only).
func ParseShares(in []byte) ([]ShareEntry, error) {
	d := engine.NewDecoder(in)
	n := d.Len(1 << 10)
	var es []ShareEntry
	for i := 0; i < n && d.Err() == nil; i++ {
		es = append(es, ShareEntry{Slot: d.Uint(), Share: d.Blob(1 << 10)})
	}
	return es, d.Finish()
}

// RemaskEntry is one re-masking of a remask envelope (§10): the opening's
// slot in its batch, the re-masked ciphertext (64 bytes) and its proof.
type RemaskEntry struct {
	Slot  uint64
	CT    []byte
	Proof []byte
}

// RemasksBody is a remask envelope's body.
func RemasksBody(es []RemaskEntry) []byte {
	e := engine.NewEncoder(nil)
	e.Len("count", len(es))
	for _, x := range es {
		e.Uint("slot", x.Slot)
		e.Blob("ciphertext", x.CT)
		e.Blob("proof", x.Proof)
	}
	return e.Bytes()
}

// ParseRemasks reads a remask body (framing only).
func ParseRemasks(in []byte) ([]RemaskEntry, error) {
	d := engine.NewDecoder(in)
	n := d.Len(1 << 10)
	var es []RemaskEntry
	for i := 0; i < n && d.Err() == nil; i++ {
		es = append(es, RemaskEntry{Slot: d.Uint(), CT: d.Blob(1 << 10), Proof: d.Blob(1 << 10)})
	}
	return es, d.Finish()
}
