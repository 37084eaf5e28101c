package crypto

import (
	"crypto/ed25519"
	"encoding/binary"
	"errors"
	"fmt"
	"strings"

	"github.com/hdevalence/ed25519consensus"
)

// Kind is the kind of an envelope. Its name is part of the signed bytes (the
// domain tag), so a signature over one kind never verifies as another.
type Kind uint8

// The envelope kinds. The numbers are the wire format; never reuse one.
const (
	KindJoin       Kind = 1  // a joiner's name and hash-chain commitment
	KindRoster     Kind = 2  // the host's proposed roster
	KindAccept     Kind = 3  // a member's signature over the session id
	KindReveal     Kind = 4  // the next hash-chain element, for beacon round seq
	KindAction     Kind = 5  // a seat's action at step seq
	KindCheckpoint Kind = 6  // a peer's state hash where a turn begins or the game ends
	KindDrop       Kind = 7  // a vote to drop stalled seats at step seq
	KindExtend     Kind = 8  // a new hash chain from beacon round seq on
	KindEvidence   Kind = 9  // two envelopes of one author for one slot
	KindState      Kind = 10 // a canonical state, sent to explain a desync
	// The card protocol's kinds (package lockstep/deal, hidden cards).
	KindCardKey Kind = 11 // a seat's mental-poker public key with its Schnorr proof
	KindShuffle Kind = 12 // a seat's shuffle of one deck's chain, with its proof
	KindRemask  Kind = 13 // a seat's proved re-maskings of cards in an opening batch
	KindShare   Kind = 14 // a seat's decryption shares, with proofs, for an opening batch
	KindEscrow  Kind = 15 // a seat's card key split among the others, sealed to each
	KindPiece   Kind = 16 // a holder's piece of a dropped seat's card key
	KindAccuse  Kind = 17 // a holder's proof that a seat's escrow piece for it is wrong
	// KindClaim: the one player left at a table that cannot drop (two
	// seats in play) claims the win while the other is away (log
	// position seq).
	KindClaim Kind = 18
	// KindSettle: a voter's word that at log position seq it takes no
	// round of drop votes but the one for the seats in its body: what
	// frees voters held by a greater round a hostile voter let die.
	KindSettle Kind = 19
)

// LastKind is the highest kind this version knows.
const LastKind = KindSettle

var kindNames = [...]string{
	KindJoin: "join", KindRoster: "roster", KindAccept: "accept", KindReveal: "reveal",
	KindAction: "action", KindCheckpoint: "checkpoint", KindDrop: "drop", KindExtend: "extend",
	KindEvidence: "evidence", KindState: "state",
	KindCardKey: "card-key", KindShuffle: "shuffle", KindRemask: "remask", KindShare: "share",
	KindEscrow: "escrow", KindPiece: "piece", KindAccuse: "accuse", KindClaim: "claim",
	KindSettle: "settle",
}

// Valid reports whether k is a known kind.
func (k Kind) Valid() bool { return k >= KindJoin && k <= LastKind }

// Card reports whether k is one of the card protocol's kinds, which
// package lockstep/deal handles (not the lockstep node).
func (k Kind) Card() bool { return k >= KindCardKey && k <= KindAccuse }

func (k Kind) String() string {
	if k.Valid() {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// ForSlot names, in a player's words, what seq numbers for an envelope of
// kind k, for messages such as "signed two different action envelopes
// for step 4": " for step N" (actions, checkpoints, drop votes, settles,
// claims: a position in the log), " for beacon round N" (reveals,
// extends), " for shuffle chain N", " for card batch N" (re-maskings
// and shares), nothing for the kinds of which a peer signs one per
// session (seq 0), and " (seq N)" for the rest, whose seq packs seats.
func (k Kind) ForSlot(seq uint64) string {
	switch k {
	case KindAction, KindCheckpoint, KindDrop, KindSettle, KindClaim:
		return fmt.Sprintf(" for step %d", seq)
	case KindReveal, KindExtend:
		return fmt.Sprintf(" for beacon round %d", seq)
	case KindShuffle:
		return fmt.Sprintf(" for shuffle chain %d", seq)
	case KindRemask, KindShare:
		return fmt.Sprintf(" for card batch %d", seq)
	case KindJoin, KindRoster, KindAccept, KindCardKey, KindEscrow:
		if seq == 0 {
			return ""
		}
	}
	return fmt.Sprintf(" (seq %d)", seq)
}

// WithArticle is the kind's name after "a" or "an", as a player's message
// begins it: "an action", "a share", "an escrow".
func (k Kind) WithArticle() string {
	name := k.String()
	if strings.ContainsRune("aeiou", rune(name[0])) {
		return "an " + name
	}
	return "a " + name
}

// Errors of envelope decoding and verification.
var (
	ErrMalformed    = errors.New("crypto: malformed envelope")
	ErrBadSignature = errors.New("crypto: bad signature")
)

// Format constants of the wire encoding.
const (
	// Version is the first byte of every encoded envelope.
	Version = 1
	// MaxBody bounds a body; pubsub messages are limited to 1 MiB.
	MaxBody = 1 << 20
	// SigLen is the length of an ed25519 signature.
	SigLen = ed25519.SignatureSize
	// domainPrefix starts the domain tag; the kind name follows.
	domainPrefix = "boardmesh/envelope/v1/"
)

// Envelope is one signed protocol message. The signature covers a domain
// tag naming the kind, then the whole encoding with the signature field
// empty, so the session id, seq, author, state hash and body are all under
// it. Envelopes are self-authenticating: any peer may relay or serve
// another's.
type Envelope struct {
	Session   Hash
	Seq       uint64
	Kind      Kind
	Author    PeerID
	StateHash Hash
	Body      []byte
	Sig       []byte
}

// headerLen is the encoded length without the body and signature bytes.
const headerLen = 1 + 1 + 32 + 8 + 1 + IDLen + 32 + 4 + 1

// Size is the length of the encoding.
func (e *Envelope) Size() int { return headerLen + len(e.Body) + len(e.Sig) }

// AppendMarshal appends the wire encoding of e:
//
//	version u8 | kind u8 | session [32] | seq u64be | author_len u8 | author |
//	state_hash [32] | body_len u32be | body | sig_len u8 | sig
func (e *Envelope) AppendMarshal(dst []byte) []byte {
	dst = e.appendUnsigned(dst)
	dst = append(dst, byte(len(e.Sig)))
	return append(dst, e.Sig...)
}

// Marshal returns the wire encoding of e.
func (e *Envelope) Marshal() []byte { return e.AppendMarshal(make([]byte, 0, e.Size())) }

// appendUnsigned writes everything up to, not including, sig_len.
func (e *Envelope) appendUnsigned(dst []byte) []byte {
	dst = append(dst, Version, byte(e.Kind))
	dst = append(dst, e.Session[:]...)
	dst = binary.BigEndian.AppendUint64(dst, e.Seq)
	dst = append(dst, byte(len(e.Author)))
	dst = append(dst, e.Author...)
	dst = append(dst, e.StateHash[:]...)
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(e.Body)))
	return append(dst, e.Body...)
}

// AppendSigned appends the bytes the signature covers:
//
//	"boardmesh/envelope/v1/" || kind name || 0x00 || encoding with sig_len = 0
func (e *Envelope) AppendSigned(dst []byte) []byte {
	dst = append(dst, domainPrefix...)
	dst = append(dst, e.Kind.String()...)
	dst = append(dst, 0)
	dst = e.appendUnsigned(dst)
	return append(dst, 0)
}

// Unmarshal decodes one envelope that fills b exactly. It checks the
// format only (version, kind, author form, lengths), not the signature.
// The result does not alias b.
func Unmarshal(b []byte) (*Envelope, error) {
	bad := func(what string) (*Envelope, error) {
		return nil, fmt.Errorf("%w: %s", ErrMalformed, what)
	}
	if len(b) < headerLen {
		return bad(fmt.Sprintf("%d bytes, shorter than any envelope", len(b)))
	}
	if b[0] != Version {
		return bad(fmt.Sprintf("version %d, want %d", b[0], Version))
	}
	e := &Envelope{Kind: Kind(b[1])}
	if !e.Kind.Valid() {
		return bad(fmt.Sprintf("unknown kind %d", b[1]))
	}
	copy(e.Session[:], b[2:34])
	e.Seq = binary.BigEndian.Uint64(b[34:42])
	if int(b[42]) != IDLen {
		return bad(fmt.Sprintf("author length %d, want %d", b[42], IDLen))
	}
	e.Author = PeerID(b[43 : 43+IDLen])
	if _, err := PublicKey(e.Author); err != nil {
		return bad("author is not an ed25519 peer ID")
	}
	off := 43 + IDLen
	copy(e.StateHash[:], b[off:off+32])
	off += 32
	n := binary.BigEndian.Uint32(b[off:])
	off += 4
	if n > MaxBody {
		return bad(fmt.Sprintf("body of %d bytes exceeds %d", n, MaxBody))
	}
	if uint64(len(b)-off) < uint64(n)+1 {
		return bad("truncated body")
	}
	e.Body = append([]byte(nil), b[off:off+int(n)]...)
	off += int(n)
	sl := int(b[off])
	off++
	if sl != SigLen {
		return bad(fmt.Sprintf("signature length %d, want %d", sl, SigLen))
	}
	if len(b)-off != sl {
		if len(b)-off < sl {
			return bad("truncated signature")
		}
		return bad(fmt.Sprintf("%d bytes after the signature", len(b)-off-sl))
	}
	e.Sig = append([]byte(nil), b[off:]...)
	return e, nil
}

// Sign sets e.Author to the identity's peer ID and signs e.
func Sign(id *Identity, e *Envelope) {
	e.Author = id.id
	e.Sig = nil
	e.Sig = ed25519.Sign(id.key, e.AppendSigned(nil))
}

// Verify checks e's signature against the public key in e.Author, by the
// ZIP-215 rules (github.com/hdevalence/ed25519consensus): s must be
// canonical, A and R may be any encoding of a curve point, and the
// equation is checked with the cofactor ([8][s]B = [8]R + [8][k]A). Every
// signature Go's crypto/ed25519 accepts is accepted; the few extra that a
// signer can craft on purpose (R or its key with a small-order component)
// are accepted by every peer alike, single or batched (BatchVerifier), so
// no crafted envelope can pass one peer's check and fail another's. Nobody
// but the signer can make them: R's bytes are under the hash k, so an
// honest signature cannot be altered into another valid one.
func Verify(e *Envelope) error {
	var buf [512]byte
	return VerifyBuf(e, buf[:0])
}

// VerifyBuf is Verify with a scratch buffer, to avoid allocation in loops.
func VerifyBuf(e *Envelope, scratch []byte) error {
	pub, err := PublicKey(e.Author)
	if err != nil {
		return err
	}
	if len(e.Sig) != SigLen || !ed25519consensus.Verify(pub, e.AppendSigned(scratch[:0]), e.Sig) {
		return ErrBadSignature
	}
	return nil
}

// Equal reports whether a and b are the same envelope, signature included.
func Equal(a, b *Envelope) bool {
	return a.Session == b.Session && a.Seq == b.Seq && a.Kind == b.Kind && a.Author == b.Author &&
		a.StateHash == b.StateHash && string(a.Body) == string(b.Body) && string(a.Sig) == string(b.Sig)
}

// SameSlot reports whether a and b claim the same slot: one author, one
// session, one kind, one seq. Two different signed envelopes for one slot
// are an equivocation.
func SameSlot(a, b *Envelope) bool {
	return a.Session == b.Session && a.Kind == b.Kind && a.Author == b.Author && a.Seq == b.Seq
}
