package lockstep

import (
	"fmt"
	"strings"

	"github.com/boardmesh/boardmesh/crypto"
	"github.com/boardmesh/boardmesh/engine"
)

// Config configures a Node.
type Config struct {
	// Identity signs this peer's envelopes. Required.
	Identity *crypto.Identity
	// Name is the display name this peer announces in its join.
	Name string
	// Games resolves a roster's game name (games.Lookup). Required for
	// joiners; a roster naming an unknown game or another rules version is
	// refused with an event that says so.
	Games func(name string) (*engine.Game, error)
	// ChainLength is the number of reveals in each hash chain (default
	// 1024). A peer whose chain is about to run out signs an extension.
	ChainLength int
	// StallAfter is how long, in the tick's time unit (milliseconds), the
	// node waits for a peer before reporting a stall (default 5000).
	StallAfter int64
	// DropAfter is how long it waits before voting to drop the peers it is
	// waiting for (default 0: never by itself; VoteDrop votes on request).
	DropAfter int64
	// ClaimAfter is how long this peer must have kept a table of two
	// waiting at one position before it takes the other player's claim of
	// the win there (default: DropAfter, else StallAfter; a tenth less, for
	// the time the envelope before it took to travel). A person's peer sets
	// it to its --drop-after: its node drops nobody by itself (DropAfter
	// 0), and its player may think longer than the stall period. See
	// claim.go's claimRefusal.
	ClaimAfter int64
	// ResendAfter is how long it waits without progress before re-sending
	// its own pending envelopes and asking peers for gaps (default 1000).
	ResendAfter int64
	// AcceptTimeout is how long the host waits, in the accept phase, for
	// every member's accept before it proposes the roster again without
	// the silent ones (default DefaultAcceptTimeout, 20 s). See lobby.go.
	AcceptTimeout int64
	// Verifier, if set, replaces crypto.Verify for received envelopes.
	// The p2p runner can pass one that remembers what its topic validator
	// has already checked, so each signature is verified once per
	// process; it must be at least as strict as crypto.Verify.
	Verifier func(*crypto.Envelope) error
	// Log holds the committed entries persisted before a restart, in
	// order. They are re-verified as they are replayed.
	Log []*crypto.Envelope
	// Sent holds this peer's own envelopes persisted before a restart
	// (committed or not); the node never signs a different envelope for
	// their slots, which is what keeps a crash from becoming an
	// equivocation.
	Sent []*crypto.Envelope
	// Cards makes this seat's hidden-card layer on a secret table
	// (cardsource.Maker). A node without it hosts only open tables and
	// cannot take a seat at a secret one (it says so at the seat draw).
	Cards CardMaker
	// CardStore, on a secret table, reads back the card envelopes the
	// runner persisted (Ready.Persist and Ready.Cards): the node and the
	// card layer then keep old ones on disk only (cardstore.go). Nil keeps
	// them in memory (the simulator, tests).
	CardStore CardStore
	// CardKey is the card-key file of this seat (EncodeCardKey of the
	// session and an earlier Ready.CardSecret), after a restart of a
	// secret table; nil at the first start or at an open table.
	CardKey []byte
	// CardLog holds the other seats' card envelopes persisted before a
	// restart (Ready.Cards, LogFile.Cards), in the order they were taken:
	// the card layer steps them again between the same entries of Log,
	// and with CardKey and this seat's own card envelopes in Sent it
	// deals on from where it was.
	CardLog []CardRecord
	// OpenHands, for a host, makes the table an open one even for a game
	// with hidden cards (every peer's engine then holds every card drawn).
	// A host with Cards and without OpenHands opens a secret table for a
	// game whose state implements engine.CardState.
	OpenHands bool
}

// Ready is the output of a Node since the last Advance. The caller handles
// its fields in this order: append Persist, Entries and Keep to the disk
// log; if MustSync, fsync it; THEN broadcast Messages and send Requests,
// then show Events, then call Advance.
type Ready struct {
	// MustSync says that the disk log must be fsynced after Persist is
	// appended and BEFORE any of Messages is sent (as raft's
	// Ready.MustSync): it is true whenever Persist is not empty. An
	// envelope this peer signed must be durable before anyone can hold
	// it, or a crash could lose it and the restarted peer sign a
	// different one for the same slot, which the others would rightly
	// prove to be an equivocation. Entries and Keep need no fsync of
	// their own: a lost tail of them is fetched again from the peers.
	MustSync bool
	// Persist holds envelopes this node has just signed. They must be on
	// disk before any of them is sent: after a crash the node must find
	// them (Config.Sent), or it could sign a different envelope for the
	// same slot, which the others would rightly call an equivocation.
	Persist []*crypto.Envelope
	// Entries are newly committed log entries, in log order. Every honest
	// peer commits the same entries in the same order.
	Entries []*crypto.Envelope
	// Messages are envelopes to broadcast on the session topic (own new
	// ones, re-sends, and evidence), after Persist is durable.
	Messages []*crypto.Envelope
	// Requests ask peers for entries this node is missing; the runner sends
	// each over the catch-up stream and Steps every envelope of the answer.
	Requests []GapRequest
	// Events tell the player what happened, in order.
	Events []Event
	// Keep holds other peers' state envelopes that explain a desync.
	// Append them to the disk log as RecordState records: with them the
	// log file is the desync bundle that `boardmesh replay` explains.
	// (Added after the first API commit; additive.)
	Keep []*crypto.Envelope
	// CardSecret is this seat's mental-poker key on a secret table (once,
	// at the seat draw): private, never sent, never in the log. Write it
	// privately and durably (EncodeCardKey with Status().Session: a file
	// of mode 0600, fsynced) BEFORE anything else of this Ready is
	// persisted or sent; MustSync is set with it.
	CardSecret []byte
	// Cards are other seats' card envelopes this node's card layer took,
	// in order: append them to the disk log (RecordCard) before Entries;
	// like Entries they need no fsync of their own (a lost tail of them is
	// served again by the peers), and with them a restarted seat deals on
	// (Config.CardLog).
	Cards []*crypto.Envelope
}

// IsEmpty reports whether rd holds nothing.
func (rd *Ready) IsEmpty() bool {
	return len(rd.Persist) == 0 && len(rd.Entries) == 0 && len(rd.Messages) == 0 &&
		len(rd.Requests) == 0 && len(rd.Events) == 0 && len(rd.Keep) == 0 &&
		rd.CardSecret == nil && len(rd.Cards) == 0
}

// GapRequest asks a peer for what this node is missing: the committed
// entries from log index From on, and every envelope it holds for later
// steps. Any peer can answer (envelopes are self-authenticating); To is the
// peer most likely to have them, empty for any.
type GapRequest struct {
	To   crypto.PeerID
	From uint64
	// NoCards: the asker needs no card envelopes (a stalled node's ask
	// from before its log's end, gapAsk): the answer carries none. (Added
	// with the asks' backoff, asks.go; additive.)
	NoCards bool
}

// EventKind names an event.
type EventKind uint8

// The events.
const (
	EventJoined       EventKind = iota + 1 // a peer joined the lobby
	EventRoster                            // the host proposed a roster
	EventStarted                           // everyone accepted and the seats are drawn
	EventTurn                              // a turn began (all checkpoints matched)
	EventWaiting                           // stalled: waiting for peers (see Waiting)
	EventResumed                           // progress after a stall
	EventDropVote                          // this node voted to drop seats
	EventDropped                           // seats dropped by agreement
	EventRejected                          // an envelope was rejected (Err says why)
	EventEquivocation                      // proof that a peer signed two envelopes for one slot
	EventDesync                            // states differ; Desync is the report
	EventGameOver                          // the game ended; Result is set
	EventRefused                           // the roster cannot be accepted (Err says why)
	EventExtended                          // a peer extended its hash chain
	// EventCheat names a cheat or a fault of a peer, in plain words: Cheat
	// is what, Who the author (its name), Seat its seat counted from 1 (0
	// for a non-seated peer), What a sentence, Err the rejection. At most
	// one per (author, kind, cheat) and step is raised; every rejection is
	// counted in Status.Counters.
	EventCheat
	// EventCards tells what the hidden-card protocol did that a player
	// should know of (Text): a dropped seat's key rebuilt and its cards
	// shown, a shuffle chain that goes on without a dropped seat's link or
	// is redone without a forger's.
	EventCards
)

var eventNames = [...]string{
	EventJoined: "joined", EventRoster: "roster", EventStarted: "started", EventTurn: "turn",
	EventWaiting: "waiting", EventResumed: "resumed", EventDropVote: "drop-vote", EventDropped: "dropped",
	EventRejected: "rejected", EventEquivocation: "equivocation", EventDesync: "desync",
	EventGameOver: "game-over", EventRefused: "refused", EventExtended: "extended", EventCheat: "cheat",
	EventCards: "cards",
}

// CheatKind says what a peer did wrong (EventCheat).
type CheatKind uint8

// The cheats. A forged or replayed envelope proves nothing against the
// peer it names (anyone can forge a claim or replay an old envelope), so
// their What says "under the name of"; every other kind is signed by its
// author. A state hash that differs from ours (CheatWrongHash,
// CheatWrongCheckpoint) proves no cheat either: its author's engine may
// have gone wrong (a desync), and so may ours. It is raised as an
// EventRejected carrying the kind, in words that say the states differ;
// the state envelopes then decide (an EventDesync naming whose state
// diverged, or a CheatLyingState).
const (
	CheatForged          CheatKind = iota + 1 // a signature that does not verify
	CheatReplayed                             // an envelope signed for another session or lobby
	CheatOutOfTurn                            // an action from a seat that is not to act
	CheatIllegal                              // an action the engine refuses (What has its reason)
	CheatWrongHash                            // an action, reveal or vote for a state that is not ours (an EventRejected: see below)
	CheatBadReveal                            // a reveal that is not the next element of its chain
	CheatEquivocation                         // two different envelopes for one slot (proof)
	CheatFlood                                // more envelopes than a buffer holds for one author
	CheatWrongCheckpoint                      // a checkpoint whose state differs from ours (an EventRejected: see below)
	CheatMalformed                            // a body that does not decode for its kind
	CheatLyingState                           // a state envelope contradicting checkpoints its author signed
	CheatCards                                // a cheat the hidden-card protocol names (What says which)
)

var cheatNames = [...]string{
	CheatForged: "forged", CheatReplayed: "replayed", CheatOutOfTurn: "out of turn", CheatIllegal: "illegal",
	CheatWrongHash: "wrong state hash", CheatBadReveal: "bad reveal", CheatEquivocation: "equivocation",
	CheatFlood: "flood", CheatWrongCheckpoint: "wrong checkpoint", CheatMalformed: "malformed",
	CheatLyingState: "lying state", CheatCards: "hidden cards",
}

func (k CheatKind) String() string {
	if int(k) < len(cheatNames) && cheatNames[k] != "" {
		return cheatNames[k]
	}
	return fmt.Sprintf("cheat(%d)", uint8(k))
}

func (k EventKind) String() string {
	if int(k) < len(eventNames) && eventNames[k] != "" {
		return eventNames[k]
	}
	return fmt.Sprintf("event(%d)", uint8(k))
}

// Event is something the player should know. Text is a sentence for them
// (seats counted from 1); the other fields are set as the kind needs.
type Event struct {
	Kind EventKind
	Text string
	Peer crypto.PeerID // the peer concerned (joiner, rejected author, cheater)
	// Seat is the seat concerned counted from 1, as players count: 0 if
	// none. (Seats, Status.MySeat and Wait.Seat are the engine's 0-based
	// indices, for code.)
	Seat int
	// Cheat, Who and What describe an EventCheat (and the EventEquivocation
	// and EventDesync that name a culprit): what was done, the author's
	// name, and a sentence saying what and where.
	Cheat    CheatKind
	Who      string
	What     string
	Turn     int
	Seq      uint64
	Seats    []int  // EventDropped, EventDropVote: the seats (engine indices, from 0)
	Waiting  []Wait // EventWaiting
	Err      error  // EventRejected, EventRefused, EventEquivocation
	Evidence *crypto.Envelope
	Desync   *DesyncReport
	Result   *engine.Result
}

func (e Event) String() string { return e.Kind.String() + ": " + e.Text }

// Wait is one peer the node is waiting for.
type Wait struct {
	Peer crypto.PeerID
	Name string
	Seat int    // -1 in the lobby
	What string // "an action", "a reveal", "a checkpoint", "an accept", "a chain extension"
	For  int64  // how long, in tick units
	// Why, for a secret table's card wait that is held, says why in plain
	// words, seats from 1 ("held: waiting for bob (seat 3) to answer the
	// card catch-up after restart"); empty for a plain wait. (Additive.)
	Why string
}

func (w Wait) String() string {
	s := fmt.Sprintf("waiting for %s (%s, %s)", w.Name, w.What, fmtMillis(w.For))
	if what, ok := strings.CutPrefix(w.What, "its "); ok {
		// The card layer's words: "waiting for bob's decryption shares
		// for batch 3 (5 s)".
		s = fmt.Sprintf("waiting for %s's %s (%s)", w.Name, what, fmtMillis(w.For))
	}
	if w.Why != "" {
		s += " — " + w.Why
	}
	return s
}

func fmtMillis(ms int64) string {
	if ms < 1000 {
		return fmt.Sprintf("%d ms", ms)
	}
	return fmt.Sprintf("%d s", ms/1000)
}

// DesyncReport explains a divergence between this peer's state and
// another's. It is built from the canonical states the two exchange.
type DesyncReport struct {
	// Peer is the other peer; Seq the step at which the states were compared.
	Peer crypto.PeerID
	Seq  uint64
	// Entry is the first step whose resulting state differs (its index
	// into the step sequence, counted like seq), EntryAuthor who authored it
	// (empty for a chance step or a dropped seat's move), EntryWhat what it
	// was. If the states already differed before the first step both peers
	// still had hashes for, Entry is that step.
	Entry       uint64
	EntryAuthor crypto.PeerID
	EntryWhat   string
	// Mine and Theirs are the two state hashes after that entry.
	Mine, Theirs crypto.Hash
	// Diff lists the differing fields of the two states at Seq.
	Diff []engine.FieldDiff
	// MyState and TheirState are the canonical states at Seq.
	MyState, TheirState []byte
	// Evidence is the other peer's signed state envelope.
	Evidence *crypto.Envelope
	// Agreed is the step of the last checkpoint every peer signed alike
	// (the other's state agrees with it, or it would be a lie, not a
	// desync): the divergence lies after it. The report does not say who
	// diverged; the other peer is the suspect, the entry's author is not.
	Agreed uint64
}

// String is the report as a player reads it.
func (r *DesyncReport) String() string {
	var b strings.Builder
	fmt.Fprintf(&b, "desync with %s at step %d: first divergent entry is step %d (%s", shortID(r.Peer), r.Seq, r.Entry, r.EntryWhat)
	if r.EntryAuthor != "" {
		fmt.Fprintf(&b, " by %s", shortID(r.EntryAuthor))
	}
	fmt.Fprintf(&b, "); state hash after it: mine %s, theirs %s; the states agreed at the checkpoint of step %d, which both signed",
		r.Mine.Short(), r.Theirs.Short(), r.Agreed)
	for _, d := range r.Diff {
		fmt.Fprintf(&b, "\n  %s: mine %s, theirs %s", d.Path, d.A, d.B)
	}
	return b.String()
}

func shortID(id crypto.PeerID) string {
	s := id.String()
	if len(s) > 8 {
		return s[len(s)-8:]
	}
	return s
}

// Phase is where a node is in the session.
type Phase uint8

// The phases.
const (
	PhaseIdle    Phase = iota // neither hosting nor joined
	PhaseLobby                // collecting joins, or waiting for the roster
	PhaseAccept               // roster proposed; collecting accepts
	PhaseSeats                // collecting the reveals of beacon round 0
	PhasePlaying              // the game is on
	PhaseOver                 // the game ended
	PhaseStopped              // stopped by an equivocation or a desync
)

var phaseNames = [...]string{"idle", "lobby", "accept", "seats", "playing", "over", "stopped"}

func (p Phase) String() string {
	if int(p) < len(phaseNames) {
		return phaseNames[p]
	}
	return fmt.Sprintf("phase(%d)", uint8(p))
}

// Member is one peer of a roster.
type Member struct {
	ID         crypto.PeerID
	Name       string
	Commitment crypto.Hash
	ChainLen   uint64
}

// Status is a snapshot for the UI.
type Status struct {
	// Mode is the table's card mode in words, agreed by the roster:
	// "secret table", "open hands", or "open (no hidden cards)" for a game
	// without hidden cards; empty before the roster (except for a host,
	// whose lobby says the mode it will propose).
	Mode    string
	Phase   Phase
	Lobby   crypto.Hash
	Session crypto.Hash
	Game    *engine.Game
	Options engine.Options
	// Members in roster order (peer IDs sorted); Seats[i] is the member
	// index in seat i; MySeat is -1 for a spectator or before the draw.
	Members []Member
	Seats   []int
	MySeat  int
	Dropped []bool // by seat
	Seq     uint64 // steps applied
	Round   uint64 // beacon rounds completed
	Turn    int
	Actor   engine.Actor
	Waiting []Wait
	Entries int // committed log entries
	// Counters count what the node refused or dropped since it started.
	Counters Counters
	// DropVotes are the votes to drop seats seen at the current log
	// position that have not passed yet, ordered by their seats; CanDrop
	// says by seat whether a vote to drop that seat alone could pass now
	// (the voters would be a strict majority of the seats in play). (Added
	// for the table UI; additive.)
	DropVotes []DropVote
	CanDrop   []bool
	// CanAct is Node.CanAct: this peer's seat may act now. Actor alone
	// does not say it: while a checkpoint round (or a restarted node's
	// catch-up) is open, Actor is already the next seat to move, but it
	// may act only once its own checkpoint is signed, at an open table,
	// and not at all while catching up. A UI offers moves only while
	// CanAct. (Additive.)
	CanAct bool
	// Moved says this peer has signed its action for the current step
	// and it waits, sent, for the checkpoint round before it (the first
	// action of a turn may leave with its author's checkpoint, Node.CanAct).
	// (Additive.)
	Moved bool
	// Pause says, at a table of two kept waiting by the other player for
	// the stall time, that the game is paused and why; CanClaim that this
	// peer may claim the win now (Node.Claim, claim.go). (Additive.)
	Pause    string
	CanClaim bool
	// Result is the game's result once it is over: the engine state's, or
	// a claim's (which the state does not know: it ends a game that was
	// not over). (Additive.)
	Result *engine.Result
}

// Counters count the envelopes a node did not keep, so that floods and
// cheats show even when their events are rate-limited.
type Counters struct {
	// Rejected counts envelopes rejected by the protocol's checks (each
	// also raised an EventCheat or EventRejected, at most once per author,
	// kind, reason and step).
	Rejected uint64
	// Outsider counts envelopes from peers that are not members, once the
	// roster exists (evidence included): ignored, with no event.
	Outsider uint64
	// Dropped and DroppedBytes count envelopes thrown away because a
	// buffer for their author and kind was full (a flood).
	Dropped, DroppedBytes uint64
}

// DropVote is a pending vote to drop Seats: the seats that have voted for
// it and the seats whose votes it needs (all counted from 0).
type DropVote struct {
	Seats  []int
	Voters []int
	Needed []int
}
