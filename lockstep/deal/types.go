package deal

import (
	"errors"
	"fmt"
	"io"

	"github.com/boardmesh/boardmesh/crypto"
	"github.com/boardmesh/boardmesh/engine"
)

// Deck declares deck ID: an ordered public list of card ids. Unless Open,
// the deck protocol shuffles it jointly at setup; afterwards its cards are
// referred to by Handle{Deck: ID, Pos: position}.
type Deck struct {
	ID    uint8
	Cards []uint16
	// Open decks are never shuffled: their cards lie face up in list order
	// (a supply), from where a Reshuffle may take them into a hidden deck.
	Open bool
}

// Handle names a card by its deck and position, the only name the engine
// has for a hidden card: the engine's own type, so the card layer passes
// handles and openings between the two unchanged.
type Handle = engine.Handle

// cardName is a handle as a player reads it, positions counted from 1.
func cardName(h Handle) string { return fmt.Sprintf("card %d of deck %d", int(h.Pos)+1, h.Deck) }

// Public as Opening.To makes an opening public.
const Public = engine.Public

// Opening asks for the card at (Deck, Pos) to be shown to seat To (a
// 0-based seat: a private draw or a peek; the card stays where it is
// either way, the engine decides where it goes), or to everyone (Public).
// It is the engine's type (engine.Opening).
type Opening = engine.Opening

// Config configures a Machine.
type Config struct {
	// Identity signs this seat's envelopes. Required.
	Identity *crypto.Identity
	// Session is the session id the envelopes and proofs are bound to.
	Session crypto.Hash
	// Seats are the seated peers in seat order (2 to 255). This peer must
	// be one of them.
	Seats []crypto.PeerID
	// Names are the seats' display names for event texts (optional).
	Names []string
	// Rand is the secret randomness for the key, the shuffles, the
	// re-maskings and the proofs' nonces: crypto/rand in a runner, a
	// seeded stream in tests. Required.
	Rand io.Reader
	// Decks are the game's decks, with distinct IDs, at most MaxCards
	// cards in all, every deck that is not Open having at least 2.
	Decks []Deck
	// Secret is this seat's secret key from an earlier Ready.Secret, after
	// a restart; nil at the first start (a new key is drawn).
	Secret []byte
	// Verify checks a received envelope's signature; nil means
	// crypto.Verify. A runner whose transport has already checked the
	// signature of the envelope being stepped passes a verifier that says
	// so (lockstep passes its Config.Verifier), so each card envelope's
	// signature is checked once, not twice.
	Verify func(*crypto.Envelope) error
	// Sent holds this seat's own envelopes persisted before a restart
	// (Ready.Persist). The machine never signs a different envelope for
	// their slots: it takes them as they are, and sends them again when
	// it reaches them. After New, the runner steps every envelope it had
	// received and repeats its Open, Reshuffle and Drop calls.
	Sent []*crypto.Envelope
	// Hold, after a restart whose disk may have lost some of Sent (a torn
	// or cut log): the machine signs nothing new until Release, only what
	// Sent or an own envelope back from a peer (Step) holds for its slot.
	// The runner releases it once the peers that may hold this seat's
	// envelopes have answered its catch-up request, so that it never signs
	// a second, different envelope for a slot it signed before the crash
	// (which every peer would rightly call an equivocation).
	Hold bool
	// Store, if set, is where the runner persisted the card envelopes;
	// the machine then keeps those of done chains and batches on disk
	// only, by slot and hash, and reads them back to prove an
	// equivocation (store.go). Nil keeps every envelope in memory.
	Store Store
}

// MaxCards bounds the cards of all decks of a game together: every card
// is a point (k+1)·G for its index k in the game's card space.
const MaxCards = 1024

// Ready is what a Machine produced since the last Advance. Handle it in
// field order: store Secret privately and Persist durably (fsync, if
// MustSync), THEN broadcast Messages, then show Events, then Advance.
type Ready struct {
	// MustSync is true when Secret or Persist is set.
	MustSync bool
	// Secret is this seat's new mental-poker secret key (once, at start).
	// Without it the seat cannot take part in any opening after a crash;
	// it is private knowledge: never hashed, never sent.
	Secret []byte
	// Persist holds envelopes this seat has just signed; they must be
	// durable before any of them is sent.
	Persist []*crypto.Envelope
	// Messages are envelopes to broadcast, after Persist is durable.
	Messages []*crypto.Envelope
	// Events tell the engine and the player what happened, in order.
	Events []Event
}

// IsEmpty reports whether rd holds nothing.
func (rd *Ready) IsEmpty() bool {
	return rd.Secret == nil && len(rd.Persist) == 0 && len(rd.Messages) == 0 && len(rd.Events) == 0
}

// EventKind names an event.
type EventKind uint8

// The events.
const (
	EventKeys        EventKind = iota + 1 // every seat's key has checked; the joint key is known
	EventDeckReady                        // every shuffle of a deck's chain has checked (Deck)
	EventOpened                           // an opening is done (Batch, Slot, Opening, Card if Known)
	EventBatchDone                        // every opening of a batch is done (Batch)
	EventCheat                            // a cheat, named (Cheat, Seat, Text, Evidence)
	EventAheadFull                        // a seat's envelopes for what is not declared here yet were dropped: its buffer is full (Seat); not a cheat
	EventDropped                          // Drop: a seat is dropped; the others publish its key's pieces (Seat)
	EventRecovered                        // a dropped seat's key is rebuilt (Seat)
	EventDropReveal                       // a card a dropped seat held is now public (Seat, Opening, Card)
	EventEscrows                          // every seat's escrow has checked (3+ seats): openings may start
	EventLinkSkipped                      // a chain goes on without a dropped seat's shuffle, which no other seat held (Seat, Deck)
	EventChainRedone                      // a chain is redone from the last valid link, without a dropped forger (Seat, Deck)
	EventOtherState                       // an envelope answers another shared state than ours: a desync, not a cheat (Seat, Evidence)
)

var eventNames = [...]string{EventKeys: "keys", EventDeckReady: "deck-ready", EventOpened: "opened",
	EventBatchDone: "batch-done", EventCheat: "cheat", EventAheadFull: "ahead-full", EventDropped: "dropped",
	EventRecovered: "recovered", EventDropReveal: "drop-reveal", EventEscrows: "escrows",
	EventLinkSkipped: "link-skipped", EventChainRedone: "chain-redone", EventOtherState: "other-state"}

func (k EventKind) String() string {
	if int(k) < len(eventNames) && eventNames[k] != "" {
		return eventNames[k]
	}
	return fmt.Sprintf("event(%d)", uint8(k))
}

// CheatKind says what a seat did wrong.
type CheatKind uint8

// The cheats. A forged signature or a replay proves nothing against the
// seat it names (anyone can forge a claim or replay an old envelope), so
// their texts say "under the name of"; every other kind is signed by the
// cheater, and Event.Evidence holds what proves it.
const (
	CheatForged          CheatKind = iota + 1 // a signature that does not verify
	CheatReplayed                             // an envelope of another session
	CheatMalformed                            // a body that does not decode for its kind
	CheatBadKey                               // a key whose proof of knowledge fails
	CheatForgedShuffle                        // a shuffle whose proof fails (a substituted or dropped card, a stacked deck)
	CheatBadRemask                            // a re-masking whose proof fails (a substituted card)
	CheatWrongShare                           // a decryption share whose proof fails
	CheatMissingShare                         // a share or re-masking envelope that leaves out one it owes, or holds one it does not
	CheatBadReveal                            // a revealed card that does not match its ciphertext
	CheatEquivocation                         // two different signed envelopes for one slot
	CheatUnexpected                           // an envelope for a slot where its author owes nothing
	CheatBadEscrow                            // an escrow whose commitments do not add up, or whose piece for a holder is proved wrong
	CheatFalseAccusation                      // an accusation of an escrow that does not prove its piece wrong
	CheatWrongPiece                           // a published piece of a dropped seat's key that does not match its commitment
)

var cheatNames = [...]string{CheatForged: "forged", CheatReplayed: "replayed", CheatMalformed: "malformed",
	CheatBadKey: "bad key", CheatForgedShuffle: "forged shuffle", CheatBadRemask: "bad re-masking",
	CheatWrongShare: "wrong share", CheatMissingShare: "missing share", CheatBadReveal: "bad reveal",
	CheatEquivocation: "equivocation", CheatUnexpected: "unexpected", CheatBadEscrow: "bad escrow",
	CheatFalseAccusation: "false accusation", CheatWrongPiece: "wrong piece"}

func (k CheatKind) String() string {
	if int(k) < len(cheatNames) && cheatNames[k] != "" {
		return cheatNames[k]
	}
	return fmt.Sprintf("cheat(%d)", uint8(k))
}

// Event is something the engine or the player should know. Seat is
// counted from 1 (0: none), as players count; Opening.To stays 0-based.
type Event struct {
	Kind EventKind
	Text string
	Seat int
	// Cheat and Evidence describe an EventCheat: what, and the signed
	// envelopes that prove it (one for a bad proof, two for an
	// equivocation; none for a forgery, which proves nothing).
	Cheat    CheatKind
	Evidence []*crypto.Envelope
	// Convicted, on an EventCheat, says that the machine did not stop:
	// it waits for the table to drop Seat (convict.go).
	Convicted bool
	Deck      uint8
	Batch     uint64
	Slot      int
	Opening   Opening
	// Card is the opened card's id when this seat may know it (Known):
	// its own private openings and every public one.
	Card  uint16
	Known bool
	Err   error
}

func (e Event) String() string { return e.Kind.String() + ": " + e.Text }

// Wait is one seat the machine is waiting for, and for what.
type Wait struct {
	Seat int // 0-based
	What string
}

// Errors of Step, Open and Reshuffle.
var (
	ErrStopped      = errors.New("deal: stopped by a cheat")
	ErrDuplicate    = errors.New("deal: duplicate envelope")
	ErrNotMember    = errors.New("deal: author is not seated")
	ErrWrongSession = errors.New("deal: envelope of another session")
	ErrBadInput     = errors.New("deal: bad input")
	ErrCheat        = errors.New("deal: cheat")
	ErrNotReady     = errors.New("deal: not ready")
	// ErrConvicted: the envelope's author is proven to cheat (convict.go);
	// nothing it signs is taken any more.
	ErrConvicted = errors.New("deal: author convicted of cheating")
	// ErrStale: a shuffle of an attempt of a chain that was redone
	// without a forger (forge.go); it counts for nothing.
	ErrStale = errors.New("deal: shuffle of an abandoned attempt")
	// ErrOtherState: the envelope answers another shared state than this
	// peer's (state.go); its proof is not checked, nobody is blamed.
	ErrOtherState = errors.New("deal: envelope for another game state")
)
