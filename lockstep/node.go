package lockstep

import (
	"errors"
	"fmt"
	"io"
	"sort"

	"github.com/boardmesh/boardmesh/crypto"
	"github.com/boardmesh/boardmesh/engine"
)

// Defaults of Config.
const (
	DefaultChainLength = 1024
	DefaultStallAfter  = 5000
	DefaultResendAfter = 1000
	// maxServe bounds the entries of one answer to a gap request.
	maxServe = 4096
	// maxEarly bounds envelopes kept before the session id is known.
	maxEarly = 4096
)

// slot identifies an envelope for de-duplication: one author, one kind,
// one seq. Drop votes add their body, since a peer may vote for several
// seat sets at one step.
type slot struct {
	session crypto.Hash // the lobby id for joins and rosters
	kind    crypto.Kind
	author  crypto.PeerID
	seq     uint64
	extra   string
}

func slotOf(env *crypto.Envelope) slot {
	s := slot{session: env.Session, kind: env.Kind, author: env.Author, seq: env.Seq}
	if !slotKind(env.Kind) {
		s.extra = string(env.Body)
	}
	return s
}

// slot is the slot of kind, author and seq in the current session (the
// lobby, for joins and rosters).
func (n *Node) slot(kind crypto.Kind, author crypto.PeerID, seq uint64) slot {
	s := slot{session: n.m.session, kind: kind, author: author, seq: seq}
	if kind == crypto.KindJoin || kind == crypto.KindRoster {
		s.session = n.lobby
	}
	return s
}

// ownSeg is one of this peer's hash chains and the first round it covers.
type ownSeg struct {
	start uint64
	chain *crypto.Chain
}

// Node is one peer's protocol state machine. It is not safe for
// concurrent use: the runner owns it and calls it from one goroutine.
type Node struct {
	cfg Config
	id  *crypto.Identity
	m   *machine

	now     int64
	hosting bool
	game    *engine.Game
	opts    engine.Options
	lobby   crypto.Hash
	chains  []ownSeg

	// Lookup tables only; every ordered decision iterates slices.
	buf  map[slot]*crypto.Envelope // received or own, not yet committed (bufPut, unbuf)
	use  map[crypto.PeerID]*bufUse // each author's share of buf (buffers.go)
	seen map[slot]*crypto.Envelope // every envelope accepted or committed, for equivocation checks
	sent map[slot]*crypto.Envelope // own signed envelopes
	// early holds envelopes that arrived before the session id was known.
	early       []*crypto.Envelope
	earlyBytes  int
	replayEarly bool
	rejected    map[slot]error     // rejections during one Step, or nil
	states      []*crypto.Envelope // state envelopes from peers ahead of us

	rd       Ready
	progress int64 // time of the last commit
	resent   int64 // time of the last re-send
	stalled  bool
	voted    map[uint64][][]int // log position → seat sets this node voted to drop
	votedAt  int64              // when this node last voted to drop
	// settled is, by log position, the seat set this node settled on
	// there (settle.go); settles are its settles, kept for gap answers.
	settled map[uint64][]int
	settles []*crypto.Envelope
	// wentOnBy lists the members whose gap answers showed a committed
	// entry that is not a drop vote at log position wentOnAt: each went on
	// there without voting (if honest). Our votes there hold us until
	// every round we voted needs one of them (roundDead).
	wentOnAt uint64
	wentOnBy []crypto.PeerID
	// waitedAt is the log position waited lists the seats of: every seat
	// this node waited for there (Tick), with the longest it waited for
	// each, for heldBy; noted: waitedAt is set. askFrom (if askSeen) is
	// when this node first asked the peers for a catch-up there.
	waitedAt uint64
	waited   []seatWait
	noted    bool
	askSeen  bool
	askFrom  int64
	asked    map[crypto.PeerID]int // log length when a gap was last requested from a peer
	askTurn  int                   // how many stalled gap requests named a peer (gapAsk)
	asks     askPacer              // the backoff of a stall's gap asks (asks.go)

	counters Counters
	raised   map[raisedKey]bool // events raised at log length raisedAt
	raisedAt uint64

	// restarted is set for a node made with Config.Log or Config.Sent;
	// heard lists the members that have shown it is at the head of the
	// log since (see CaughtUp).
	restarted bool
	heard     []crypto.PeerID
	caughtUp  bool

	// released is how many log entries went out in Ready.Entries: the
	// lobby's are held until the seat draw (see lobby.go).
	released    int
	acceptSince int64           // when the current accept phase began
	superseded  []crypto.Hash   // sessions of rosters replaced by a re-proposal
	disputed    []crypto.PeerID // authors of a signed state hash (action, reveal, checkpoint) that differs from ours

	// held are state envelopes that differ from ours but that nothing
	// signed yet disputes (see weigh): kept until their author signs a
	// differing hash (a desync), an agreeing one (a lie), or the table
	// stalls.
	held []heldState

	// Secret tables (secret.go): the mode this host proposes, card
	// envelopes that came before the seat draw, the card envelopes this
	// seat signed (re-sent while the cards stall), and whether the card
	// layer's stop was reported.
	hostSecret     bool
	cardEarly      []*crypto.Envelope
	cardEarlyBytes int
	cardSent       []*crypto.Envelope
	cardsStopped   bool
	// cardProof is a card equivocation the card layer proved (two signed
	// envelopes of one author for one slot), to be committed as evidence
	// once the step that found it is done.
	cardProof []*crypto.Envelope
	// cardWorked: the card layer made or checked a proof since the last
	// Tick; cardBusy is the Tick that saw it last (secret.go).
	cardWorked bool
	cardBusy   int64
	// cardHeld are every card envelope the layer took or this seat sent
	// (own and others', once each: cardHas), with the log length then,
	// for catch-up answers (cardsFor); replaying is set while New steps
	// a restarted seat's card log.
	cardHeld []heldCard
	// cardFresh: cardHeld before it went to Config.CardStore
	// (cardstore.go).
	cardFresh int
	// cardStamps are the steps at which members signed card envelopes
	// for our state (desynccards.go): what disputes a state that differs
	// there, as an action in our log does.
	cardStamps []cardStamp
	cardHeard  []crypto.PeerID // members heard from while the card layer is held (releaseCards)
	cardHas    map[slot]bool
	// convicted, by seat, is what the card layer proved against that seat
	// by an envelope it signed (Text "" if nothing): the node votes to
	// drop it at once (secretdrop.go), or, at a table of two, may claim.
	convicted []CardCheat
	// votesOut are members' drop votes against this node's seat at
	// earlier log positions (keepVoteOut, votedOut), a few per member.
	votesOut  []*crypto.Envelope
	replaying bool
	// replayRest is the rest of the log a replaying node is about to
	// feed (cardsStep: a round of drop votes there pins a wait for cards).
	replayRest []*crypto.Envelope
	modeFor    crypto.Hash // the session modeText is of
	modeText   string

	stopped    bool
	stateSent  map[uint64]bool
	reports    []*DesyncReport
	lastEvents int
}

// New makes a node. With Config.Log it restarts from persisted entries,
// re-verifying each; an entry that fails is an error naming it.
func New(cfg Config) (*Node, error) {
	if cfg.Identity == nil {
		return nil, errors.New("lockstep: Config.Identity is required")
	}
	if cfg.ChainLength <= 0 {
		cfg.ChainLength = DefaultChainLength
	}
	if cfg.StallAfter <= 0 {
		cfg.StallAfter = DefaultStallAfter
	}
	if cfg.ResendAfter <= 0 {
		cfg.ResendAfter = DefaultResendAfter
	}
	if cfg.AcceptTimeout <= 0 {
		cfg.AcceptTimeout = DefaultAcceptTimeout
	}
	n := &Node{cfg: cfg, id: cfg.Identity, m: newMachine(cfg.Games),
		buf: map[slot]*crypto.Envelope{}, use: map[crypto.PeerID]*bufUse{}, seen: map[slot]*crypto.Envelope{}, sent: map[slot]*crypto.Envelope{},
		voted: map[uint64][][]int{}, settled: map[uint64][]int{}, asked: map[crypto.PeerID]int{}, stateSent: map[uint64]bool{}, cardHas: map[slot]bool{}}
	n.m.me, n.m.cardMaker, n.m.verifier = cfg.Identity, cfg.Cards, cfg.Verifier
	if store, make := cfg.CardStore, cfg.Cards; store != nil && make != nil {
		n.m.cardMaker = func(st engine.CardState, cc CardConfig) (CardLayer, error) {
			cc.Store = store
			return make(st, cc)
		}
	}
	n.m.cardKey = cfg.CardKey
	n.m.cardHold = cfg.CardKey != nil
	for _, env := range cfg.Sent {
		if env != nil && env.Kind.Card() {
			if env.Author != n.id.ID() {
				return nil, fmt.Errorf("lockstep: Config.Sent holds a card envelope of %s", env.Author)
			}
			n.m.cardOwn = append(n.m.cardOwn, env)
		}
	}
	if err := n.replay(cfg.Log, cfg.CardLog); err != nil {
		return nil, err
	}
	n.m.events = nil
	n.released = len(cfg.Log)
	n.restarted = len(cfg.Log) > 0 || len(cfg.Sent) > 0
	if len(cfg.Log) > 0 {
		n.lobby = n.m.lobby
	}
	for _, env := range cfg.Sent {
		if env.Kind.Card() {
			continue // the card protocol's own (cards.go): not this node's
		}
		if env.Author != n.id.ID() {
			return nil, fmt.Errorf("lockstep: Config.Sent holds an envelope of %s", env.Author)
		}
		if err := crypto.Verify(env); err != nil {
			return nil, fmt.Errorf("lockstep: Config.Sent: %w", err)
		}
		s := slotOf(env)
		n.sent[s] = env
		if env.Kind == crypto.KindDrop && env.Seq >= uint64(len(cfg.Log)) {
			// A vote cast before the crash still binds (mayCommitNormally).
			if seats, err := decodeSeats(env.Body, maxSeats); err == nil {
				n.voted[env.Seq] = append(n.voted[env.Seq], seats)
			}
		}
		if env.Kind == crypto.KindSettle {
			// So does a settle (mayTakeDrop), and it is served again.
			n.noteOwnSettle(env)
		}
		if env.Kind == crypto.KindJoin {
			n.lobby = env.Session
			if j, err := decodeJoin(env.Body); err == nil && j.Game != "" {
				// Our own join as host: the lobby's game, so that a host
				// restarted in the lobby can still propose.
				n.hosting = true
				if cfg.Games != nil {
					if g, err := cfg.Games(j.Game); err == nil && g.Version == j.Version {
						n.game, n.opts = g, j.Options
					}
				}
			}
		}
		if env.Kind == crypto.KindSettle && env.Seq < uint64(len(cfg.Log)) {
			continue // of a committed position: served, not re-sent (settle.go)
		}
		if _, done := n.seen[s]; !done {
			n.seen[s] = env
			n.bufPut(s, env)
		}
	}
	if !n.lobby.IsZero() {
		n.chains = []ownSeg{{start: 0, chain: crypto.NewChain(n.id.ChainSeed(n.lobby, 0), cfg.ChainLength)}}
		for _, env := range cfg.Sent {
			if env.Kind == crypto.KindExtend {
				n.chains = append(n.chains, ownSeg{start: env.Seq,
					chain: crypto.NewChain(n.id.ChainSeed(n.lobby, uint64(len(n.chains))), cfg.ChainLength)})
			}
		}
		n.advance()
	}
	return n, nil
}

// NewLobbyID draws a fresh lobby id from r. Chain seeds are derived from
// it, so it must never repeat: use crypto/rand.Reader outside tests.
func NewLobbyID(r io.Reader) (crypto.Hash, error) {
	var h crypto.Hash
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return h, fmt.Errorf("lockstep: lobby id: %w", err)
	}
	return h, nil
}

// ID is this peer's ID.
func (n *Node) ID() crypto.PeerID { return n.id.ID() }

// Host opens a lobby for game with opts, and joins it.
func (n *Node) Host(lobby crypto.Hash, game *engine.Game, opts engine.Options) error {
	if !n.lobby.IsZero() {
		return fmt.Errorf("%w: already in lobby %s", ErrPhase, n.lobby.Short())
	}
	resolved, err := engine.ResolveOptions(game.Options, opts)
	if err != nil {
		return fmt.Errorf("%s: %w", game.Name, err)
	}
	n.hosting, n.game, n.opts = true, game, resolved
	if !n.cfg.OpenHands && n.cfg.Cards != nil {
		// A game with hidden cards, hosted by a peer with the card layer:
		// a secret table. (Without Config.Cards a node hosts open tables,
		// as before secret tables.)
		if st, err := game.Setup(game.MinPlayers, resolved); err == nil {
			if _, ok := st.(engine.CardState); ok {
				n.hostSecret = true
			}
		}
	}
	return n.join(lobby, &joinBody{Game: game.Name, Version: game.Version, Options: resolved})
}

// Join joins the lobby with the given id.
func (n *Node) Join(lobby crypto.Hash) error {
	if !n.lobby.IsZero() {
		return fmt.Errorf("%w: already in lobby %s", ErrPhase, n.lobby.Short())
	}
	return n.join(lobby, &joinBody{})
}

func (n *Node) join(lobby crypto.Hash, j *joinBody) error {
	n.lobby = lobby
	c := crypto.NewChain(n.id.ChainSeed(lobby, 0), n.cfg.ChainLength)
	n.chains = []ownSeg{{start: 0, chain: c}}
	j.Name, j.Commitment, j.ChainLen = n.cfg.Name, c.Commitment(), uint64(c.Len())
	n.sign(&crypto.Envelope{Session: lobby, Kind: crypto.KindJoin, Body: j.encode()})
	n.progress = n.now
	n.advance()
	return nil
}

// Joined lists the joins the node has seen in its lobby, sorted by peer ID
// (the roster order), before the roster is committed.
func (n *Node) Joined() []Member {
	var out []Member
	for s, env := range n.buf {
		if s.kind == crypto.KindJoin && env.Session == n.lobby {
			if j, err := decodeJoin(env.Body); err == nil {
				out = append(out, Member{ID: env.Author, Name: j.Name, Commitment: j.Commitment, ChainLen: j.ChainLen})
			}
		}
	}
	sort.Slice(out, func(a, b int) bool { return out[a].ID < out[b].ID })
	return out
}

// CanAct reports whether this peer's seat is the one to act now.
//
// A node restarted from disk (Config.Log or Config.Sent) may not act
// until it has caught up (CaughtUp): its disk may have lost a tail, and
// the others may hold an action it signed before the crash.
//
// At an open table the seat that moves first in a turn may act while
// the checkpoint round that ends the turn before is still open, once it
// has signed its own checkpoint (earlyAction): its action then travels
// with its checkpoint instead of one broadcast round after the last
// checkpoint. Every peer still commits it only after the whole round
// matched, so the log is the same as if it had waited.
func (n *Node) CanAct() bool {
	if n.stopped || n.m.phase != PhasePlaying || !n.CaughtUp() {
		return false
	}
	x, ok := n.m.expect()
	if !ok {
		return false
	}
	switch {
	case x.kind == crypto.KindAction && x.who[0] == n.myMember():
	case x.kind == crypto.KindCheckpoint && n.earlyAction(x):
	default:
		return false
	}
	_, done := n.sent[n.slot(crypto.KindAction, n.id.ID(), x.seq)]
	return !done
}

// earlyAction reports whether this peer may sign the first action of the
// next turn while checkpoint round x is open (CanAct). The action's
// pre-state hash is the hash the checkpoints sign, and a checkpoint round
// carries no randomness, so the actor learns nothing from the others'
// checkpoints that it could choose its move by: sending the move with its
// own checkpoint gives it no power it did not have. Not while this peer
// votes to drop seats here (a drop may change the state before the move),
// and not at a secret table, whose card layer may still be at work at a
// turn's start.
func (n *Node) earlyAction(x expectation) bool {
	m := n.m
	me := n.myMember()
	if me < 0 || n.Secret() || m.cardsPending || len(n.voted[uint64(len(m.log))]) > 0 || n.settled[uint64(len(m.log))] != nil {
		return false
	}
	who := m.st.ToAct()
	if who.Kind != engine.ActorSeat || m.dropped[who.Seat] || m.seats[who.Seat] != me || !containsInt(x.who, me) {
		return false
	}
	_, signed := n.sent[n.slot(crypto.KindCheckpoint, n.id.ID(), x.seq)]
	return signed
}

// Act signs and sends this peer's action for the current step. It returns
// the engine's explanation if the action is illegal, and changes nothing.
func (n *Node) Act(a engine.Action) error {
	if n.stopped {
		return ErrStopped
	}
	if !n.CanAct() {
		return fmt.Errorf("%w: it is not this peer's move", ErrPhase)
	}
	c := n.m.st.Clone()
	if err := c.Apply(n.m.seatOf[n.myMember()], a); err != nil {
		return err
	}
	body := engine.AppendAction(nil, a)
	if n.Secret() {
		if n.m.cards == nil {
			return ErrNoCardLayer
		}
		// The cards the move shows, with this seat's decryption shares.
		r, err := n.m.cards.Reveal(a, n.m.seq)
		if err != nil {
			return err
		}
		body = (&secretAction{a: a, reveals: r, opened: n.m.opened}).encode()
	}
	n.sign(&crypto.Envelope{Session: n.m.session, Seq: n.m.seq, Kind: crypto.KindAction,
		StateHash: n.m.hashes[n.m.seq], Body: body})
	n.advance()
	return nil
}

// VoteDrop signs a vote to drop seats at the current step. The drop
// happens once every other seated peer has voted for the same seats. A
// seat held by its own drop vote at a wait for cards this peer went past
// (heldBy) is not voted out: this peer joins that vote instead.
func (n *Node) VoteDrop(seats []int) error {
	var rest []int
	for _, s := range seats {
		if s >= 0 && s < len(n.m.seats) && n.m.phase == PhasePlaying {
			mi := n.m.seats[s]
			if d := n.heldBy(n.m.members[mi].ID); d != nil {
				// Not slow: held by its own vote, which waits for ours.
				why := fmt.Sprintf("%s (seat %d), which this peer waits for, voted so here while a wait for cards this peer has gone past was open, and is held by that vote until the others join it", n.m.name(mi), s+1)
				if err := n.voteDrop(d, why); err != nil {
					return err
				}
				continue
			}
		}
		rest = append(rest, s)
	}
	if len(rest) == 0 && len(seats) > 0 {
		return nil
	}
	return n.voteDrop(rest, "")
}

// voteDrop is VoteDrop, with why (if set) said in the vote's event.
func (n *Node) voteDrop(seats []int, why string) error {
	if n.stopped {
		return ErrStopped
	}
	// Sorted and each seat once: a caller may list a seat per thing it
	// waits for (a seat owing three shuffles), and the body must hold
	// distinct seats or every peer refuses it as malformed.
	var distinct []int
	for _, s := range sortedSeats(seats) {
		if len(distinct) == 0 || distinct[len(distinct)-1] != s {
			distinct = append(distinct, s)
		}
	}
	seats = distinct
	if _, ok := n.m.dropExpectation(seats); !ok || containsInt(seats, n.mySeat()) {
		return fmt.Errorf("%w: cannot drop seats %v now", ErrPhase, seats)
	}
	at := uint64(len(n.m.log))
	for _, v := range n.voted[at] {
		if equalInts(v, seats) {
			return nil
		}
	}
	if settled := n.settled[at]; settled != nil {
		return fmt.Errorf("%w: this peer settled here on the drop of %s, and votes for no other", ErrPhase, n.m.seatNames(settled))
	}
	n.voted[at] = append(n.voted[at], seats)
	n.votedAt = n.now
	n.sign(&crypto.Envelope{Session: n.m.session, Seq: at, Kind: crypto.KindDrop,
		StateHash: n.m.hashes[n.m.seq], Body: encodeSeats(seats)})
	text := "voted to drop " + n.m.seatNames(seats)
	if why != "" {
		text += ": " + why
	}
	n.rd.Events = append(n.rd.Events, Event{Kind: EventDropVote, Seats: seats, Seq: n.m.seq, Text: text})
	n.advance()
	return nil
}

// sign signs env as this peer, records it and queues it for persisting
// and sending. A slot already signed is never signed again.
func (n *Node) sign(env *crypto.Envelope) *crypto.Envelope {
	env.Author = n.id.ID()
	s := slotOf(env)
	if old, ok := n.sent[s]; ok {
		return old
	}
	crypto.Sign(n.id, env)
	s = slotOf(env)
	n.sent[s] = env
	n.seen[s] = env
	n.bufPut(s, env)
	n.rd.Persist = append(n.rd.Persist, env)
	n.rd.Messages = append(n.rd.Messages, env)
	return env
}

func (n *Node) myMember() int {
	if mi, ok := n.m.byID[n.id.ID()]; ok && n.m.members != nil {
		return mi
	}
	return -1
}

func (n *Node) mySeat() int { return n.m.seatOfPeer(n.id.ID()) }

// Step takes one envelope received from the network or a catch-up
// stream. It returns an error if the envelope is rejected (the same
// reason is reported as an EventRejected, except for duplicates).
func (n *Node) Step(env *crypto.Envelope) error {
	if env == nil {
		return fmt.Errorf("%w: nil envelope", ErrMalformed)
	}
	if !env.Kind.Valid() {
		return n.reject(env, fmt.Errorf("%w: unknown kind", ErrMalformed))
	}
	if env.Kind.Card() {
		return n.stepCard(env) // secret.go
	}
	// An exact copy of an envelope we hold was verified when it came
	// first: re-sends, gossip duplicates and catch-up answers cost a map
	// lookup, not a signature check.
	if old, ok := n.seen[slotOf(env)]; ok && crypto.Equal(old, env) {
		return ErrDuplicate
	}
	if err := n.verify(env); err != nil {
		return n.reject(env, err)
	}
	if n.lobby.IsZero() {
		return fmt.Errorf("%w: not in a lobby", ErrWrongSession)
	}
	if env.Kind == crypto.KindJoin || env.Kind == crypto.KindRoster {
		if env.Session != n.lobby {
			return n.reject(env, ErrWrongSession)
		}
	} else if n.isSuperseded(env.Session) {
		// Of a roster the host proposed again: late, not wrong.
		return fmt.Errorf("%w: of a roster proposed again since", ErrStale)
	} else if n.m.session.IsZero() || (env.Session != n.m.session && n.lobbyOpen()) {
		// Before the session id is known, or possibly of a re-proposal
		// that has not arrived yet: keep it for when it has.
		n.keepEarly(env)
		return nil
	} else if env.Session != n.m.session {
		return n.reject(env, ErrWrongSession)
	}
	if env.Kind != crypto.KindState && env.Kind != crypto.KindEvidence {
		// A malformed envelope is refused before it is remembered, so it
		// can neither take the slot of its author's good one nor be half
		// of an equivocation. (State and evidence bodies are decoded by
		// their own handlers.)
		if err := wellFormed(env); err != nil {
			return n.reject(env, err)
		}
		if env.Kind == crypto.KindAction && n.m.roster != nil && env.Session == n.m.session {
			// The body as this table's mode has it (an open table's
			// action is refused here in a secret table's shape, as before).
			if _, err := n.m.decodeActionBody(env.Body); err != nil {
				return n.reject(env, err)
			}
		}
	}
	s := slotOf(env)
	if old, ok := n.seen[s]; ok {
		if crypto.Equal(old, env) {
			return ErrDuplicate
		}
		if evidenceKind(env.Kind) {
			return n.equivocation(old, env)
		}
	}
	switch env.Kind {
	case crypto.KindEvidence:
		return n.stepEvidence(env)
	case crypto.KindState:
		return n.stepState(env)
	}
	if n.stopped {
		return ErrStopped
	}
	if err := n.admissible(env); err != nil {
		if errors.Is(err, ErrStale) {
			n.keepVoteOut(env)
			n.settleStale(env) // settle.go
			return err
		}
		return n.reject(env, err)
	}
	if n.tooFar(env) {
		// Its author is far ahead (or floods): a gap answer brings the
		// entries in order.
		n.counters.Dropped++
		n.counters.DroppedBytes += uint64(env.Size())
		n.noteFuture(env)
		return fmt.Errorf("%w: too far ahead to keep", ErrStale)
	}
	if env.Author == n.id.ID() {
		// Our own envelope, signed before a crash that lost it from our
		// disk, back from a peer: it binds us as if we had it (sign will
		// never sign another for its slot), and goes to disk again. Only
		// once it is well formed, admissible and within reach: we never
		// sign a malformed one, a decided slot needs no binding, and one
		// too far ahead comes back when we get there; anything else
		// carrying our key (a stolen key's flood) must not bind us to
		// slots we have yet to sign, or we would never sign them.
		if _, have := n.sent[s]; !have {
			n.sent[s] = env
			n.rd.Persist = append(n.rd.Persist, env)
			if env.Kind == crypto.KindDrop && n.m.phase == PhasePlaying {
				// A vote of ours binds as one we kept (mayCommitNormally).
				if seats, err := decodeSeats(env.Body, len(n.m.seats)); err == nil && !n.votedFor(env.Seq, seats) {
					n.voted[env.Seq] = append(n.voted[env.Seq], seats)
				}
			}
			n.noteOwnSettle(env)
		}
	}
	if !n.bufPut(s, env) {
		return fmt.Errorf("%w: its author's buffer is full", ErrStale)
	}
	n.seen[s] = env
	n.noteFuture(env)
	// Report a rejection found while committing (an illegal action, a
	// wrong hash, a bad reveal) to the caller too.
	n.rejected = map[slot]error{}
	n.advance()
	err := n.rejected[s]
	n.rejected = nil
	return err
}

// admissible rejects what can never be committed, before buffering.
func (n *Node) admissible(env *crypto.Envelope) error {
	if env.Kind == crypto.KindJoin {
		if n.m.phase != PhaseLobby {
			return fmt.Errorf("%w: the lobby is closed", ErrStale)
		}
		j, err := decodeJoin(env.Body)
		if err != nil {
			return err
		}
		old, again := n.buf[slotOf(env)]
		if !again && n.joiners() >= maxJoiners {
			n.counters.Dropped++
			n.counters.DroppedBytes += uint64(env.Size())
			return fmt.Errorf("%w: the lobby holds %d joins already", ErrStale, maxJoiners)
		}
		text := fmt.Sprintf("%s joined", j.Name)
		if again {
			if oj, err := decodeJoin(old.Body); err == nil {
				text = fmt.Sprintf("%s joined again as %s (this join replaces the earlier one)", oj.Name, j.Name)
			}
		}
		n.rd.Events = append(n.rd.Events, Event{Kind: EventJoined, Peer: env.Author, Who: j.Name, Text: text})
		return nil
	}
	if env.Kind == crypto.KindRoster {
		if n.m.phase != PhaseLobby && !(n.lobbyOpen() && env.Author == n.m.host) {
			return fmt.Errorf("%w: a roster is already agreed", ErrStale)
		}
		if _, err := decodeRoster(env.Body); err != nil {
			return err
		}
		return nil
	}
	mi, ok := n.m.member(env.Author)
	if !ok {
		return ErrNotMember
	}
	if n.m.seatOf != nil && n.m.dropped[n.m.seatOf[mi]] {
		return ErrDropped
	}
	switch env.Kind {
	case crypto.KindAccept:
		if n.m.phase != PhaseAccept {
			return ErrStale
		}
	case crypto.KindReveal, crypto.KindExtend:
		if env.Seq < n.m.round || (env.Seq == 0 && n.m.phase > PhaseSeats) {
			return ErrStale
		}
	case crypto.KindAction, crypto.KindCheckpoint:
		if n.m.phase >= PhasePlaying && env.Seq < n.m.seq {
			return ErrStale
		}
	case crypto.KindDrop, crypto.KindClaim, crypto.KindSettle:
		if env.Seq < uint64(len(n.m.log)) {
			return ErrStale
		}
	}
	if env.Kind == crypto.KindSettle && n.m.seats != nil {
		// Seats of this table only: a settle is never checked again.
		if _, err := decodeSettle(env.Body, len(n.m.seats)); err != nil {
			return err
		}
	}
	if env.Kind == crypto.KindAction && n.m.phase == PhasePlaying && env.Seq == n.m.seq {
		// Who may act at the current step is known now; at a later step
		// it is checked when the step comes (see prune).
		if err := engine.CheckTurn(n.m.st.ToAct(), n.m.seatOf[mi]); err != nil {
			return fmt.Errorf("%w: %v", ErrNotYourTurn, err)
		}
	}
	return nil
}

// prune drops buffered envelopes for steps and rounds already decided.
// An action that was never committed for its step is reported: out of
// turn if its author was not the one to act there.
func (n *Node) prune() {
	m := n.m
	if m.phase < PhasePlaying {
		return
	}
	var gone []*crypto.Envelope
	for s, env := range n.buf {
		switch s.kind {
		case crypto.KindAction, crypto.KindCheckpoint:
			if env.Seq < m.seq {
				gone = append(gone, env)
			}
		case crypto.KindReveal, crypto.KindExtend:
			if env.Seq < m.round && m.phase == PhasePlaying {
				gone = append(gone, env)
			}
		}
	}
	sort.Slice(gone, func(a, b int) bool {
		if gone[a].Seq != gone[b].Seq {
			return gone[a].Seq < gone[b].Seq
		}
		return gone[a].Author < gone[b].Author
	})
	for _, env := range gone {
		n.unbuf(slotOf(env))
		// Forget it altogether: its slot is decided, and a replay of it
		// is refused as stale (this keeps seen as small as the log).
		delete(n.seen, slotOf(env))
		if env.Kind == crypto.KindAction && env.Seq < uint64(len(m.steps)) && m.outOfTurn(env) {
			_ = n.reject(env, fmt.Errorf("%w: step %d was not %s's to take", ErrNotYourTurn, env.Seq, m.nameOf(env.Author)))
		}
	}
}

// noteFuture tracks how far each member has got, and asks for a gap when
// an envelope shows that its author is more than one step (or beacon
// round) ahead of us. One ahead is how lockstep runs: the author has
// committed the step we wait for, whose last input is on its way to us;
// asking then made about 100 catch-up answers in a 4-peer secret Dominion
// game on loopback, half a megabyte each of card envelopes the asker
// already had. An input that was lost shows as an author two ahead, or as
// a stall, which Tick asks for after ResendAfter.
func (n *Node) noteFuture(env *crypto.Envelope) {
	n.learnedNew()
	var ahead bool
	switch env.Kind {
	case crypto.KindAction, crypto.KindCheckpoint:
		ahead = n.m.phase == PhasePlaying && env.Seq > n.m.seq+1
	case crypto.KindReveal:
		ahead = n.m.phase == PhasePlaying && env.Seq > n.m.round+1
	}
	if ahead && n.asked[env.Author] < len(n.m.log)+1 {
		n.asked[env.Author] = len(n.m.log) + 1
		n.rd.Requests = append(n.rd.Requests, GapRequest{To: env.Author, From: uint64(len(n.m.log))})
	}
}

// equivocation turns two envelopes for one slot into evidence: it is
// committed as the last entry of the log, broadcast, and stops the game.
func (n *Node) equivocation(a, b *crypto.Envelope) error {
	if a.Author == n.id.ID() {
		// Never accuse ourselves; the second one is a forgery we cannot
		// have signed, so the signature check would have failed.
		return n.reject(b, ErrEquivocation)
	}
	if n.stopped {
		return ErrStopped
	}
	if n.m.phase == PhaseOver {
		// The log is closed: nothing more can be committed to it. The
		// equivocation is named, not proven in it.
		return n.reject(b, fmt.Errorf("%w%s", ErrEquivocation, afterTheEnd))
	}
	ev := &crypto.Envelope{Session: n.m.session, Kind: crypto.KindEvidence, Body: encodeEvidence(a, b)}
	crypto.Sign(n.id, ev)
	if _, _, err := n.m.checkEvidence(ev); err != nil {
		// Not provable here (no session yet, or not about a member):
		// refuse the second envelope, and stop nothing.
		return n.reject(b, err)
	}
	n.commitEvidence(n.sign(ev))
	return fmt.Errorf("%w by %s (%s seq %d)", ErrEquivocation, n.m.nameOf(a.Author), a.Kind, a.Seq)
}

// stepEvidence takes a peer's evidence. Only evidence from a member, about
// a member of this session, that proves an equivocation on its own, is
// committed (as the last entry of the log, where Verify checks it again)
// and stops the game; anything else changes nothing.
func (n *Node) stepEvidence(env *crypto.Envelope) error {
	if _, ok := n.m.member(env.Author); !ok {
		return n.reject(env, ErrNotMember)
	}
	if n.stopped {
		return ErrStopped
	}
	if n.m.phase == PhaseOver {
		// A peer's proof of a cheat seen after the game ended: its log is
		// as closed as ours. Nothing to commit, and nobody to blame.
		return fmt.Errorf("%w: evidence after the game ended", ErrStale)
	}
	if _, _, err := n.m.checkEvidence(env); err != nil {
		return n.reject(env, err)
	}
	n.seen[slotOf(env)] = env
	n.commitEvidence(env)
	return nil
}

// commitEvidence commits evidence that checkEvidence accepted, and stops.
func (n *Node) commitEvidence(env *crypto.Envelope) {
	if n.stopped {
		return
	}
	if err := n.m.feed(env); err != nil {
		_ = n.reject(env, err) // checked before; cannot happen
		return
	}
	n.release()
	n.drainEvents()
	n.stopped = true
}

// Tick tells the node the time (milliseconds on any monotonic clock). It
// reports stalls, re-sends pending envelopes, asks for gaps, and votes to
// drop peers after Config.DropAfter.
func (n *Node) Tick(now int64) {
	n.now = now
	if n.stopped || n.lobby.IsZero() {
		return
	}
	if n.progress == 0 {
		n.progress = now
	}
	n.dropConvicted()
	waits := n.Waiting()
	n.noteWaited(waits)
	n.joinHeld(waits)
	if n.cardWorked {
		n.cardWorked, n.cardBusy = false, now
	}
	if n.m.cardsPending && now-n.resent >= n.cfg.ResendAfter && now-n.progress >= n.cfg.ResendAfter && now-n.cardBusy >= n.cfg.ResendAfter {
		// The cards stall: a card envelope of ours may have been lost,
		// or one of another seat on its way to us: ask the peers, whose
		// answers carry the card envelopes near our position (cardsFor).
		// (Not while this peer itself is busy with proofs: on a loaded
		// machine its checks can outlast ResendAfter with nothing lost.)
		n.resent = now
		n.resendCards()
		if n.m.cards != nil && n.askDue(now) {
			n.rd.Requests = append(n.rd.Requests, GapRequest{From: uint64(len(n.m.log))})
		}
	}
	if n.m.phase == PhaseLobby && now-n.resent >= n.cfg.ResendAfter {
		// Nobody is waited for in the lobby, but a join lost on the way
		// would keep its author out of the roster: say it again.
		n.resent = now
		n.resend()
		// The roster may have been lost on its way to us, or (for a host
		// restarted in the accept phase) the joins: they are in the log
		// of anyone who has the roster.
		n.rd.Requests = append(n.rd.Requests, GapRequest{From: 0})
	}
	if n.m.phase == PhaseAccept && n.hosting && now-n.acceptSince >= n.cfg.AcceptTimeout {
		n.repropose()
		waits = n.Waiting()
	}
	if n.drawTimedOut() {
		if n.drawStalled(); n.stopped {
			return
		}
		waits = n.Waiting()
	}
	if (!n.CaughtUp() || n.cardsHeld()) && now-n.resent >= n.cfg.ResendAfter {
		// Restarted: ask until a majority shows we are at the head, even
		// when nobody else is waited for (our own action may be due).
		n.resent = now
		n.resend()
		n.rd.Requests = append(n.rd.Requests, n.restartAsks()...)
	}
	if onlyVoteWaits(waits) && n.m.phase == PhasePlaying && (len(n.voted[uint64(len(n.m.log))]) > 0 || n.settled[uint64(len(n.m.log))] != nil) &&
		now-n.progress >= n.cfg.ResendAfter && now-n.resent >= n.cfg.ResendAfter {
		// Held by our own drop vote: every input is here, but we may not
		// commit it (mayCommitNormally). A peer that went on without
		// voting frees us (StepAnswer), so ask.
		n.resent = now
		n.resend()
		n.rd.Requests = append(n.rd.Requests, n.heldAsks(uint64(len(n.m.log)))...)
	}
	if len(waits) == 0 {
		return
	}
	if len(n.held) > 0 && now-n.progress >= n.cfg.StallAfter {
		// A differing state whose author has signed nothing since, and the
		// table stands still: weigh it against the actions that reached us
		// after it (see desync.go).
		if n.reweigh(true); n.stopped {
			return
		}
	}
	if now-n.progress >= n.cfg.StallAfter && !n.stalled {
		n.stalled = true
		text := ""
		for i, w := range waits {
			if i > 0 {
				text += "; "
			}
			text += w.String()
		}
		n.rd.Events = append(n.rd.Events, Event{Kind: EventWaiting, Waiting: waits, Seq: n.m.seq, Text: text})
	}
	if now-n.resent >= n.cfg.ResendAfter && now-n.progress >= n.cfg.ResendAfter {
		n.resent = now
		n.resend()
		if now-n.cardBusy >= n.cfg.ResendAfter {
			// Not while busy with proofs (see the cards' stall above).
			n.resendCards()
		}
		if n.lobbyOpen() {
			// A re-proposal we missed is at the start of the others' logs.
			n.rd.Requests = append(n.rd.Requests, GapRequest{From: 0})
		} else if n.askDue(now) {
			n.rd.Requests = append(n.rd.Requests, n.gapAsk(uint64(len(n.m.log))))
		}
	}
	if n.cfg.DropAfter > 0 && now-n.progress >= n.cfg.DropAfter && n.m.phase == PhasePlaying {
		// Also while a secret table's drop waits for the pieces of a
		// key: a seat that went at the same moment as the dropped one
		// never sends its piece, and the key is rebuilt only once that
		// seat is dropped too (lockstep/deal's pair escrows).
		var seats []int
		for _, w := range waits {
			if w.Seat >= 0 && w.Peer != n.id.ID() && w.What != voteWaiting && (w.Seat >= len(n.m.dropped) || !n.m.dropped[w.Seat]) && !containsInt(seats, w.Seat) {
				seats = append(seats, w.Seat)
			}
		}
		if len(seats) > 0 {
			_ = n.VoteDrop(seats)
		}
		n.extendDropVotes(now)
	}
}

// heldBy is the seat set that peer p, which we wait for, voted to drop
// at this log position in a state we have gone past here, where our
// vote is needed and not cast, and each of whose seats we waited for
// here too: the first such set in seat order, or nil.
//
// A voter never commits its position otherwise (mayCommitNormally), nor
// ends a wait for cards there (cardsStep). So when it voted while a
// wait was open, and the envelopes that end the wait came to us before
// our own drop period ran out, we went on to the next step and it could
// not: it cannot give what that step needs of it (its checkpoint, its
// reveal, its move), and waiting for it is waiting for ourselves. Voting
// it out for that would drop an honest peer for being held; going on
// without it is impossible. So we join its vote (Tick, after the drop
// period like any vote), and the drop is taken at the later of the two
// steps the votes name (dropRound), where it catches up. We join only a
// drop of seats that each kept us waiting here ourselves, for long
// (joinAfter): a peer cannot lead us to drop one that never kept us
// waiting by claiming it kept it waiting, nor one that was only a moment
// slow in a routine wait for cards (the vote at once, then its own
// silence, would get the honest seat dropped and keep the voter).
func (n *Node) heldBy(p crypto.PeerID) []int {
	m := n.m
	at := uint64(len(m.log))
	me := n.myMember()
	var out []int
	for s, env := range n.buf {
		if s.kind != crypto.KindDrop || env.Seq != at || env.Author != p {
			continue
		}
		seats, err := decodeSeats(env.Body, len(m.seats))
		if err != nil {
			continue
		}
		x, ok := m.dropExpectation(seats)
		if !ok || me < 0 || !containsInt(x.who, me) || n.votedFor(at, seats) {
			continue
		}
		if k, known := m.voteStep(env.StateHash); !known || k >= m.seq {
			continue // not held back: it is where we are (or ahead)
		}
		waited := n.waitedAt == at
		for _, d := range seats {
			waited = waited && n.waitedFor(d) >= n.joinAfter()
		}
		if !waited {
			continue
		}
		if out == nil || lessInts(seats, out) {
			out = seats
		}
	}
	return out
}

// joinHeld joins, at once, the vote of a held voter among waits
// (heldBy), where this node votes to drop at all (Config.DropAfter).
// Not after the drop period as other votes: what lets us join (each seat
// of the vote kept us waiting here, waitedFor) is in memory only, and a
// restart in the drop period would lose it, leaving us to vote the held
// voter out, a vote the seat it waits for, gone, never joins: the table
// would stand still for good. Signed now, the vote is on disk (Sent) and
// a restart goes on with it. Joining early changes no outcome: once
// heldBy names a set, nothing but that drop moves this position (the
// held voter commits it no other way, and we cannot go on without its
// envelope).
func (n *Node) joinHeld(waits []Wait) {
	if n.cfg.DropAfter <= 0 || n.m.phase != PhasePlaying {
		return
	}
	for _, w := range waits {
		if w.Seat < 0 || w.What == voteWaiting || w.Peer == n.id.ID() {
			continue
		}
		if d := n.heldBy(w.Peer); d != nil {
			_ = n.VoteDrop([]int{w.Seat})
		}
	}
}

// seatWait is a seat this node waited for at waitedAt, and the longest
// it waited for it there.
type seatWait struct {
	seat int
	For  int64
}

// noteWaited records the seats waits name (not for a drop vote) at the
// current log position, each with the longest wait for it.
//
// What this node waited for is not on its disk: restarted past a wait for
// cards (its disk holds the envelopes that ended it), it no longer waits
// for the seat that kept it there, and would never join a held voter's
// vote to drop it (heldBy), nor could the table go on without that vote.
// But a restarted node's card layer is held until every other seat in
// play has answered its catch-up (cardsHeld), which it asks for at each
// re-send, and a seat that has not answered is one this node really
// waits for, since it first asked at this position: that time, and no
// earlier one it cannot show, counts. (An honest seat answers at once.)
func (n *Node) noteWaited(waits []Wait) {
	if at := uint64(len(n.m.log)); n.waitedAt != at || !n.noted {
		n.waitedAt, n.waited, n.noted, n.askSeen = at, nil, true, false
		n.askFrom = n.now
	}
	if !n.askSeen && n.resent >= n.askFrom {
		// Tick asks after noting, and sets resent when it does.
		n.askSeen, n.askFrom = true, n.resent
	}
	for _, w := range waits {
		if w.Seat < 0 || w.What == voteWaiting {
			continue
		}
		n.noteWait(w.Seat, w.For)
	}
	if n.cardsHeld() && n.m.phase == PhasePlaying && n.askSeen {
		for _, mi := range n.m.activeMembers() {
			if p := n.m.members[mi].ID; p != n.id.ID() && !containsID(n.cardHeard, p) {
				n.noteWait(n.m.seatOf[mi], n.now-n.askFrom)
			}
		}
	}
}

// noteWait records that this node waited d for seat at waitedAt.
func (n *Node) noteWait(seat int, d int64) {
	i := 0
	for i < len(n.waited) && n.waited[i].seat != seat {
		i++
	}
	if i == len(n.waited) {
		n.waited = append(n.waited, seatWait{seat: seat})
	}
	n.waited[i].For = max(n.waited[i].For, d)
}

// waitedFor is the longest this node waited for seat at the current log
// position (0 if never).
func (n *Node) waitedFor(seat int) int64 {
	if n.waitedAt != uint64(len(n.m.log)) {
		return 0
	}
	for _, w := range n.waited {
		if w.seat == seat {
			return w.For
		}
	}
	return 0
}

// joinAfter is how long a seat must have kept this node waiting at a
// position before it joins a held voter's vote to drop it (heldBy): a
// quarter of the drop period (a person's: its claim period), at least the
// stall period. The held voter voted after its own drop period of waiting
// for that seat, which this node, waiting for the same envelopes, mostly
// saw too; a routine wait for cards lasts milliseconds.
func (n *Node) joinAfter() int64 {
	period := max(n.cfg.DropAfter, n.cfg.ClaimAfter)
	return max(n.cfg.StallAfter, period/4)
}

// votedFor reports whether this node voted to drop seats at log position at.
func (n *Node) votedFor(at uint64, seats []int) bool {
	for _, v := range n.voted[at] {
		if equalInts(v, seats) {
			return true
		}
	}
	return false
}

// extendDropVotes: a drop vote of ours that a voter it needs has not
// joined for DropAfter. That voter went too, at the same moment as the
// seats we voted out (two players who quit together: the action waited
// for is only the first's), and the vote can never commit without it; so
// we vote again, to drop it as well. The new vote needs a strict majority
// of the seats in play like any (dropExpectation): at 5 seats two that
// went together are dropped by the other three; at 4 the two left are no
// majority, and the game waits.
func (n *Node) extendDropVotes(now int64) {
	if now-n.votedAt < n.cfg.DropAfter {
		return
	}
	me := n.mySeat()
	votes, _ := n.dropVotes()
	for _, v := range votes {
		if !containsInt(v.Voters, me) {
			continue
		}
		more := append([]int(nil), v.Seats...)
		for _, s := range v.Needed {
			if s != me && !containsInt(v.Voters, s) {
				more = append(more, s)
			}
		}
		if len(more) > len(v.Seats) {
			_ = n.voteDrop(more, "it has not voted on the drop either, and is gone too")
		}
	}
}

// onlyVoteWaits reports whether waits holds nothing but other voters'
// drop votes (voteWaits).
func onlyVoteWaits(waits []Wait) bool {
	for _, w := range waits {
		if w.What != voteWaiting {
			return false
		}
	}
	return true
}

// forkOverlap is how many of our last committed entries a stalled node's
// gap request asks for again. A peer the others dropped may have gone on
// alone for a few entries past the drop (the inputs signed before the
// votes); an answer that starts at our log's end would never show where
// the two logs part, so the node would wait forever instead of stopping
// (forked). Asking from a little earlier lets StepAnswer see the fork.
const forkOverlap = 64

// gapAsk is the gap request of a node that is stalled at log length at:
// it asks from forkOverlap entries back, and names the peer to ask, each
// seated peer still in play but us in turn. Leaving the choice to the
// runner can ask a dead or dropped peer again and again (whatever
// it picks), while an input every other peer committed (and so no longer
// re-sends) is what we lack: the peers that have it must be asked.
func (n *Node) gapAsk(at uint64) GapRequest {
	req := GapRequest{From: at}
	if n.m.phase != PhasePlaying || n.m.seatOf == nil {
		return req
	}
	req.From -= min(at, forkOverlap)
	// The card envelopes near From are old ones we have: what a wait for
	// cards lacks is asked for from our log's end (Tick), so this answer
	// carries none (asks.go).
	req.NoCards = true
	var peers []crypto.PeerID
	for _, mi := range n.m.activeMembers() {
		if id := n.m.members[mi].ID; id != n.id.ID() {
			peers = append(peers, id)
		}
	}
	if len(peers) > 0 {
		req.To = peers[n.askTurn%len(peers)]
		n.askTurn++
	}
	return req
}

// restartAsks are the gap requests of a restarted node: one to any peer
// (the runner picks), for the majority that shows it is at the head of
// the log (CaughtUp); and, while its card layer is held, one to each
// seat in play that has not yet answered its card catch-up, by name. A
// seat counts as having kept such a node waiting from its first ask
// (noteWaited), so that ask must reach that seat: left to the runner's
// choice, it could go to a hostile member or an outsider that holds it
// unanswered, and the honest seat, never asked, would be counted as
// waited for and dropped on a hostile voter's word (the review's finding
// on 192f700, TestRestartedPeerAsksEachSeatItWaitsFor).
func (n *Node) restartAsks() []GapRequest {
	from := uint64(len(n.m.log))
	out := []GapRequest{{From: from}}
	if !n.cardsHeld() || n.m.phase != PhasePlaying {
		return out
	}
	for _, mi := range n.m.activeMembers() {
		if p := n.m.members[mi].ID; p != n.id.ID() && !containsID(n.cardHeard, p) {
			out = append(out, GapRequest{To: p, From: from})
		}
	}
	return out
}

// heldAsks are the gap requests of a node held by its own drop votes at
// log length at: one to each seated peer in play but us that has not yet
// shown it went on there (noteWentOn), all at once. Every voter a round
// needs must show it before we are free, and asked one a period in turn,
// the others' drop period can run out first: they vote the held peer out
// as silent (TestDragonsLairOverFaultyNetwork, seed 90 of 8 players).
func (n *Node) heldAsks(at uint64) []GapRequest {
	base := n.gapAsk(at)
	if base.To == "" {
		return []GapRequest{base}
	}
	var out []GapRequest
	for _, mi := range n.m.activeMembers() {
		id := n.m.members[mi].ID
		if id == n.id.ID() || (n.wentOnAt == at && containsID(n.wentOnBy, id)) {
			continue
		}
		req := base
		req.To = id
		out = append(out, req)
	}
	if len(out) == 0 {
		return []GapRequest{base}
	}
	return out
}

// resend queues again this node's signed envelopes that are not committed.
func (n *Node) resend() {
	var out []*crypto.Envelope
	for s, env := range n.sent {
		if _, pending := n.buf[s]; pending {
			out = append(out, env)
		}
	}
	// Map order is random; the network must not see it.
	sort.Slice(out, func(a, b int) bool {
		if out[a].Seq != out[b].Seq {
			return out[a].Seq < out[b].Seq
		}
		return out[a].Kind < out[b].Kind
	})
	n.rd.Messages = append(n.rd.Messages, out...)
}

// Waiting lists whom the node waits for now, and since when.
func (n *Node) Waiting() []Wait {
	if n.stopped {
		return nil
	}
	if sw := n.settleWaits(); len(sw) > 0 {
		// Our word is given (settle.go): the voters held with us are
		// whom we wait for, and asked (Tick), not the inputs.
		return sw
	}
	out := n.inputWaits()
	for i, w := range out {
		if w.Why != "" || w.Seat < 0 || n.m.phase != PhasePlaying {
			continue
		}
		if d := n.heldBy(w.Peer); d != nil {
			out[i].Why = fmt.Sprintf("held: it voted here to drop %s while a wait for cards this peer has gone past was open, and cannot go on until the others join that vote; a vote to drop it joins that vote instead", n.m.seatNames(d))
		}
	}
	if len(out) == 0 {
		// Every input is here, or the cards wait for nobody: what holds
		// us may be our own drop vote; then the other voters are whom we
		// wait for, and the status must say so rather than nothing.
		out = n.voteWaits()
	}
	return out
}

// voteWaiting is Wait.What of a wait for another voter's drop vote.
const voteWaiting = "its drop vote"

// voteWaits lists, while a drop vote of ours at this log position holds
// us (mayCommitNormally), the other voters whose vote for the same seats
// has not come. Only the drop, or the log of a peer that went on without
// voting (StepAnswer), frees us: Tick asks them. They are voters, not
// stalled seats: the drop machinery never votes them out for it.
func (n *Node) voteWaits() []Wait {
	m := n.m
	at := uint64(len(m.log))
	if m.phase != PhasePlaying || len(n.voted[at]) == 0 {
		return nil
	}
	var out []Wait
	for _, seats := range n.voted[at] {
		x, ok := m.dropExpectation(seats)
		if !ok {
			continue
		}
		for _, mi := range x.who {
			id := m.members[mi].ID
			if id == n.id.ID() {
				continue
			}
			s := n.slot(crypto.KindDrop, id, at)
			s.extra = string(encodeSeats(seats))
			if env, have := n.buf[s]; have {
				if _, known := m.voteStep(env.StateHash); known || m.cardsPending {
					// Its vote counts: it names a step of this position,
					// or one after the wait for cards we are in, which
					// we go to once every vote is here (dropRound).
					continue
				}
			}
			seat := m.seatOf[mi]
			out = append(out, Wait{Peer: id, Name: m.name(mi), Seat: seat, What: voteWaiting, For: n.now - n.progress,
				Why: fmt.Sprintf("held: this peer voted to drop %s here, and goes on only by that drop or once a peer shows it went on without voting", m.seatNames(seats))})
		}
	}
	return out
}

// inputWaits is Waiting without the drop votes.
func (n *Node) inputWaits() []Wait {
	var out []Wait
	x, ok := n.m.expect()
	if !ok {
		return n.cardWaits()
	}
	for i := len(n.m.group); i < len(x.who); i++ {
		mi := x.who[i]
		id := n.m.members[mi].ID
		if _, have := n.buf[n.slot(x.kind, id, x.seq)]; have {
			continue
		}
		seat := -1
		if n.m.seatOf != nil {
			seat = n.m.seatOf[mi]
		}
		out = append(out, Wait{Peer: id, Name: n.m.name(mi), Seat: seat, What: x.what, For: n.now - n.progress})
	}
	if x.kind == crypto.KindReveal && n.m.phase == PhasePlaying && len(n.m.group) == 0 {
		for _, mi := range n.m.extensionsNeeded(x.seq) {
			id := n.m.members[mi].ID
			if _, have := n.buf[n.slot(crypto.KindExtend, id, n.m.members[mi].chainEnd())]; !have {
				out = append(out, Wait{Peer: id, Name: n.m.name(mi), Seat: n.m.seatOf[mi], What: "a chain extension", For: n.now - n.progress})
			}
		}
	}
	return out
}

// HasReady reports whether Ready has anything.
func (n *Node) HasReady() bool { return !n.rd.IsEmpty() }

// Ready returns what the node produced since the last Advance.
func (n *Node) Ready() Ready {
	rd := n.rd
	rd.MustSync = len(rd.Persist) > 0 || rd.CardSecret != nil
	return rd
}

// Advance acknowledges the last Ready: its entries are persisted and its
// messages sent.
func (n *Node) Advance() {
	n.rd = Ready{}
	n.spillCards() // cardstore.go: what was just persisted may leave memory
}

// Serve answers a gap request from another peer: committed entries from
// req.From on, then every uncommitted envelope this node holds. Answer
// says which are which; prefer it (see StepAnswer).
func (n *Node) Serve(req GapRequest) []*crypto.Envelope {
	a := n.Answer(req)
	return append(a.Entries, a.Pending...)
}

// GapAnswer is a peer's answer to a GapRequest. (Added after the first
// API commit; additive.)
type GapAnswer struct {
	// Peer is the answering peer. The runner sets or checks it against
	// the stream's remote peer: StepAnswer trusts what an answer says
	// about its author's choices only.
	Peer crypto.PeerID
	// From is the log index of Entries[0].
	From uint64
	// Entries are the answering peer's committed entries from From on.
	Entries []*crypto.Envelope
	// Pending are the envelopes it holds that are not committed yet.
	Pending []*crypto.Envelope
	// NoCards: the answer is to a request that asked for no card
	// envelopes (GapRequest.NoCards), so it shows nothing of them. The
	// asker sets it from its own request (a runner, after decoding).
	NoCards bool
}

// Answer answers a gap request: what Serve sends, with the committed
// entries told apart from the rest. req.To is the peer that asks (the
// runner sets it to the stream's remote peer).
//
// The uncommitted envelopes served are only those that can help now, so
// that an answer never amplifies what others sent us: during the game,
// the ones for steps and rounds up to serveAhead beyond this node's own
// position, this node's own, and the asking peer's own (a peer whose disk
// lost what it signed gets it back; see CaughtUp); in the lobby, all (the
// buffers bound them).
func (n *Node) Answer(req GapRequest) GapAnswer {
	a := GapAnswer{Peer: n.id.ID(), From: req.From, NoCards: req.NoCards}
	if req.From < uint64(len(n.m.log)) {
		end := min(uint64(len(n.m.log)), req.From+maxServe)
		a.Entries = append(a.Entries, n.m.log[req.From:end]...)
	}
	a.Pending = n.pendingFor(req.To)
	a.Pending = append(a.Pending, n.settlesFrom(req.From)...)
	a.Pending = append(a.Pending, n.cardsFor(req)...)
	return a
}

// pendingFor is what Answer serves of the uncommitted envelopes.
func (n *Node) pendingFor(asker crypto.PeerID) []*crypto.Envelope {
	all := n.pending()
	m := n.m
	if m.phase < PhasePlaying && !n.stopped {
		return all
	}
	out := all[:0]
	for _, env := range all {
		var near bool
		switch env.Kind {
		case crypto.KindAction, crypto.KindCheckpoint:
			near = env.Seq <= m.seq+serveAhead
		case crypto.KindReveal, crypto.KindExtend:
			near = env.Seq <= m.round+serveAhead
		case crypto.KindDrop, crypto.KindClaim, crypto.KindSettle:
			near = env.Seq <= uint64(len(m.log))+serveAhead
		}
		if near || env.Author == asker || env.Author == n.id.ID() {
			out = append(out, env)
		}
	}
	return out
}

// serveAhead is how far beyond this node's own position an answer serves
// others' envelopes: a peer a little ahead of us may need what we hold
// for it (it asked because it waits), but nobody needs a flood of the
// far future relayed.
const serveAhead = maxAhead

// StepAnswer takes another peer's answer to our gap request: every
// envelope in it is stepped like a received one. Its committed entries
// also tell us which way the answering peer went at our current log
// position: if the entry there is not a drop vote, that peer committed the
// position without voting, so no drop can ever complete there, and a vote
// we cast there no longer holds us back (see mayCommitNormally). Entries
// that contradict our log are reported as ErrFork and the answer is not
// used.
func (n *Node) StepAnswer(a GapAnswer) error {
	at := uint64(len(n.m.log))
	// a.From comes from the peer: entries are placed in our log only when
	// they start within it, so that From+i can never wrap around.
	placed := a.Entries
	if a.From > at || n.m.phase < PhasePlaying {
		// (Before the seat draw our lobby may differ from the answering
		// peer's by a re-proposal; that is no fork.)
		placed = nil
	}
	for i, env := range placed {
		idx := a.From + uint64(i)
		if idx < at && !crypto.Equal(n.m.log[idx], env) {
			n.forked(idx, placed[i:])
			return fmt.Errorf("%w: entry %d differs from ours", ErrFork, idx)
		}
		if idx == at && len(n.voted[at]) > 0 && n.m.phase == PhasePlaying && n.wentOn(a.Peer, at) {
			if err := n.verify(env); err != nil || env.Session != n.m.session {
				continue
			}
			// A drop entry there frees nothing: the answering peer's
			// word alone is no proof that no honest peer takes our
			// greatest vote here (a hostile peer could give its vote
			// for our round to one peer and show us a smaller drop),
			// so taking it could fork two honest peers (protocol §5.6).
			if env.Kind != crypto.KindDrop {
				n.noteWentOn(a.Peer, at)
			}
		}
	}
	for i, env := range a.Entries {
		if placed != nil && a.From+uint64(i) < at {
			// Already ours (compared above): an answer to a request that
			// overlaps our log (gapAsk) re-steps nothing, so an entry of
			// a peer dropped since is not reported as rejected.
			continue
		}
		_ = n.Step(env)
	}
	for _, env := range a.Pending {
		_ = n.Step(env)
	}
	n.advance()
	// An answer whose committed entries all are in our log now (and that
	// was not cut short) shows that its peer is not ahead of us.
	if end := a.From + uint64(len(a.Entries)); a.From <= at && end >= a.From && end <= uint64(len(n.m.log)) &&
		len(a.Entries) < maxServe {
		n.heardFrom(a.Peer)
		if len(a.Entries) <= cardServeAhead && !a.NoCards {
			// Short enough that the card envelopes it carried (those
			// near a.From, cardsFor) cover its whole log.
			n.cardHeardFrom(a.Peer)
		}
	}
	n.releaseCards()
	return nil
}

// CaughtUp reports whether this node may act: always for a node that did
// not restart; for a restarted one (Config.Log or Config.Sent given), once
// members that with it make a majority of the seats still in play have
// shown it is at the head of the log: their gap answers (which Tick asks
// for) held no committed entry it lacks. A whole table restarting from
// one point meets that too, by answering one another.
func (n *Node) CaughtUp() bool {
	if !n.restarted || n.caughtUp {
		return true
	}
	m := n.m
	if m.phase != PhasePlaying {
		// Before the game (the lobby, accepts, the seat draw) every
		// contribution is a function of the log and the key: nothing a
		// restarted node signs can differ from what it signed before.
		return m.phase < PhasePlaying
	}
	active := len(m.activeMembers())
	if 2*(len(n.heard)+1) > active {
		n.caughtUp = true
	}
	return n.caughtUp
}

// heardFrom notes that member p is not ahead of us.
func (n *Node) heardFrom(p crypto.PeerID) {
	if n.caughtUp || p == n.id.ID() || containsID(n.heard, p) {
		return
	}
	if seat := n.m.seatOfPeer(p); seat < 0 || n.m.dropped[seat] {
		return
	}
	n.heard = append(n.heard, p)
}

// wentOn reports whether an answer from p may show that p went on
// without voting at log position at: p must be a seated peer still in
// play, and not us. (Which of our rounds its word bears on is roundDead's
// question: a peer being dropped naturally has its own input, so it
// counts only for the rounds it would have to vote in.)
func (n *Node) wentOn(p crypto.PeerID, at uint64) bool {
	seat := n.m.seatOfPeer(p)
	return seat >= 0 && p != n.id.ID() && !n.m.dropped[seat]
}

// noteWentOn records that member p's gap answer showed a committed entry
// at our log position at that is not a drop vote, and frees our votes
// there once every round we voted there is dead (roundDead): only then
// may this node commit the position otherwise (mayCommitNormally).
//
// One peer's word is not enough. A hostile D, one of the voters that our
// round needs, could give its vote to honest B only (B takes the drop,
// rightly) and show us the late input as its committed entry: were that
// to free us, we would commit the input where B committed the drop, two
// honest peers with two logs (TestHostileWentOnAnswerDoesNotForkTheDrop).
// A round needs the vote of every seat outside it, so once each of those
// but us has shown it went on, an honest one among them never voted, and
// if none is honest no honest peer but us could take it.
func (n *Node) noteWentOn(p crypto.PeerID, at uint64) {
	if n.wentOnAt != at {
		n.wentOnAt, n.wentOnBy = at, nil
	}
	if !containsID(n.wentOnBy, p) {
		n.wentOnBy = append(n.wentOnBy, p)
	}
	if settled := n.settled[at]; len(settled) > 0 {
		return // our word is given: only that drop moves us (settle.go)
	}
	for _, set := range n.voted[at] {
		if !n.roundDead(set) {
			return
		}
	}
	delete(n.voted, at)
}

// roundDead reports whether no honest peer but this one can ever take the
// drop of seats at the current log position: a seat of it is already
// dropped, its voters are no strict majority of the seats in play, or
// every voter it needs but this node has shown it went on (noteWentOn).
func (n *Node) roundDead(seats []int) bool {
	m := n.m
	if m.group != nil {
		return false
	}
	if _, ok := m.dropExpectation(seats); !ok {
		return true
	}
	for _, mi := range m.dropVoters(seats) {
		if id := m.members[mi].ID; id != n.id.ID() && !containsID(n.wentOnBy, id) {
			return false
		}
	}
	return true
}

// forked stops this node when a peer's committed log shows, at position
// idx where ours differs, that the others dropped this node's seat: the
// drop group that starts there (entries, in the answering peer's log
// order) must hold a signed vote from every voter the drop needs, for the
// same seats at the same position. One member's vote alone proves
// nothing (it could be that member's invention), so it never stops us.
func (n *Node) forked(idx uint64, entries []*crypto.Envelope) {
	if n.stopped || len(entries) == 0 || n.m.seatOf == nil {
		return
	}
	first := entries[0]
	if first.Kind == crypto.KindClaim {
		n.claimedAway(idx, first)
		return
	}
	if first.Kind != crypto.KindDrop || first.Session != n.m.session || first.Seq != idx {
		return
	}
	seats, err := decodeSeats(first.Body, len(n.m.seats))
	if err != nil || !containsInt(seats, n.mySeat()) {
		return
	}
	need, ok := n.m.dropQuorum(seats)
	if !ok {
		return
	}
	voted := make([]bool, len(need))
	for _, env := range entries {
		if env.Kind != crypto.KindDrop || env.Session != n.m.session || env.Seq != idx || string(env.Body) != string(first.Body) {
			break
		}
		mi, ok := n.m.member(env.Author)
		if !ok || n.verify(env) != nil {
			return
		}
		for k, v := range need {
			if v == mi {
				voted[k] = true
			}
		}
	}
	for _, v := range voted {
		if !v {
			return
		}
	}
	n.stopped = true
	n.rd.Events = append(n.rd.Events, Event{Kind: EventDropped, Peer: n.id.ID(), Seat: n.mySeat() + 1, Seats: seats, Seq: idx,
		Text: fmt.Sprintf("the other players dropped this seat at log entry %d while this peer went on alone; "+
			"this log can no longer join theirs (fetch the log afresh to watch)", idx)})
}

// verify checks a signature with the configured verifier.
func (n *Node) verify(env *crypto.Envelope) error {
	if n.cfg.Verifier != nil {
		return n.cfg.Verifier(env)
	}
	return crypto.Verify(env)
}

// pending lists the uncommitted envelopes this node holds, in a fixed order.
func (n *Node) pending() []*crypto.Envelope {
	var pending []*crypto.Envelope
	for _, env := range n.buf {
		pending = append(pending, env)
	}
	sort.Slice(pending, func(a, b int) bool {
		if pending[a].Kind != pending[b].Kind {
			return pending[a].Kind < pending[b].Kind
		}
		if pending[a].Seq != pending[b].Seq {
			return pending[a].Seq < pending[b].Seq
		}
		return pending[a].Author < pending[b].Author
	})
	return pending
}

// Log returns the committed entries. The slice must not be modified.
func (n *Node) Log() []*crypto.Envelope { return n.m.log }

// Hashes returns the state hash after every step (index 0: the state
// after the seat draw). The slice must not be modified.
func (n *Node) Hashes() []crypto.Hash { return n.m.hashes }

// State returns the current game state, nil before the seat draw. It is
// the node's own: read it, never change it (Clone to keep or try).
func (n *Node) State() engine.State { return n.m.st }

// Reports returns the desync reports built so far.
func (n *Node) Reports() []*DesyncReport { return n.reports }

// Status returns a snapshot for the UI.
func (n *Node) Status() Status {
	m := n.m
	s := Status{Phase: m.phase, Lobby: n.lobby, Session: m.session, Game: m.game, Seats: m.seats,
		MySeat: n.mySeat(), Dropped: m.dropped, Seq: m.seq, Round: m.round, Turn: m.turn,
		Waiting: n.Waiting(), Entries: len(m.log), Counters: n.counters}
	if n.stopped {
		s.Phase = PhaseStopped
	}
	if m.roster != nil {
		s.Options = m.roster.Options
		s.Mode = n.mode()
	} else if n.hosting {
		// The mode this host will propose, for its lobby's answer.
		s.Game, s.Options = n.game, n.opts
		s.Mode = modeWords(n.hostSecret, n.game, n.opts)
	}
	for _, mem := range m.members {
		s.Members = append(s.Members, mem.Member)
	}
	if m.st != nil {
		s.Actor = m.st.ToAct()
	}
	if m.phase == PhasePlaying && !n.stopped {
		s.DropVotes, s.CanDrop = n.dropVotes()
		s.CanAct = n.CanAct()
		if x, ok := m.expect(); ok && x.kind == crypto.KindCheckpoint {
			_, s.Moved = n.sent[n.slot(crypto.KindAction, n.id.ID(), x.seq)]
		}
		s.Pause = n.pauseText()
		s.CanClaim = n.ClaimState() == nil
	}
	if m.phase == PhaseOver {
		r := m.result()
		s.Result = &r
	}
	return s
}

// release hands the committed entries not yet released to Ready.Entries.
func (n *Node) release() {
	n.rd.Entries = append(n.rd.Entries, n.m.log[n.released:]...)
	n.released = len(n.m.log)
}

// dropVotes lists the pending drop votes at the current log position, and
// which seats a vote could drop alone.
func (n *Node) dropVotes() ([]DropVote, []bool) {
	m := n.m
	at := uint64(len(m.log))
	can := make([]bool, len(m.seats))
	for seat := range m.seats {
		_, can[seat] = m.dropExpectation([]int{seat})
	}
	var out []DropVote
	add := func(seats []int, voter int) {
		for i := range out {
			if equalInts(out[i].Seats, seats) {
				if !containsInt(out[i].Voters, voter) {
					out[i].Voters = append(out[i].Voters, voter)
				}
				return
			}
		}
		x, ok := m.dropExpectation(seats)
		if !ok {
			return
		}
		v := DropVote{Seats: seats, Voters: []int{voter}}
		for _, mi := range x.who {
			v.Needed = append(v.Needed, m.seatOf[mi])
		}
		out = append(out, v)
	}
	for sl, env := range n.buf {
		if sl.kind != crypto.KindDrop || env.Seq != at {
			continue
		}
		seats, err := decodeSeats(env.Body, len(m.seats))
		mi, member := m.byID[env.Author]
		if err != nil || !member {
			continue
		}
		add(seats, m.seatOf[mi])
	}
	if me := n.mySeat(); me >= 0 {
		for _, seats := range n.voted[at] {
			add(seats, me)
		}
	}
	// The buffer is a map: put the votes in a fixed order.
	for i := range out {
		sort.Ints(out[i].Voters)
	}
	sort.Slice(out, func(a, b int) bool { return lessInts(out[a].Seats, out[b].Seats) })
	return out, can
}

func (n *Node) drainEvents() {
	n.rd.Events = append(n.rd.Events, n.m.events...)
	n.m.events = n.m.events[:0]
}

// committed moves the entries committed since log index from out of the
// buffer and into Ready.
func (n *Node) committed(from int) {
	// (A re-proposal replaces the lobby's machine by one with a shorter log.)
	from = min(from, len(n.m.log))
	for _, env := range n.m.log[from:] {
		n.unbuf(slotOf(env))
	}
	if n.m.phase >= PhasePlaying {
		n.release()
	}
	if len(n.m.log) > from {
		if n.stalled {
			n.rd.Events = append(n.rd.Events, Event{Kind: EventResumed, Seq: n.m.seq, Text: "resumed"})
		}
		n.stalled = false
		n.progress = n.now
		n.prune()
		n.recheckStates()
	}
	n.drainEvents()
}
