package deal

import (
	"fmt"

	"github.com/boardmesh/boardmesh/crypto"
	mp "github.com/boardmesh/boardmesh/crypto/mentalpoker"
)

// Kind names of the proof contexts (mentalpoker.Context.Kind): the
// envelope kind that carries the proof, as docs/mentalpoker.md asks.
const (
	ctxKey     = "card-key"
	ctxShuffle = "shuffle"
	ctxRemask  = "remask"
	ctxShare   = "share"
	ctxAction  = "action"
)

// Bounds of what is held for a seat ahead of the local caller (envelopes
// for chains and batches not declared yet here: peers may be ahead).
const (
	maxAhead      = 64
	maxAheadBytes = 8 << 20
)

// card is one position of a deck: its current ciphertext, the decryption
// shares of it that are public (verified, by seat), the seat it was opened
// to privately (-1: none), the card space index everyone knows (-1: not
// public) and the one this seat knows (-1: not known here).
type card struct {
	ct     mp.Ciphertext
	shares []*mp.Share
	privTo int
	pub    int
	mine   int
}

type deck struct {
	id    uint8
	cards []card
	open  bool
	chain int // the chain that builds it last, -1 for an open deck
	ready bool
	// gone marks, by position, the cards a Reshuffle has taken into
	// another deck: their handles name nothing any more. Set when the
	// Reshuffle is declared, so every peer refuses the same openings.
	gone []bool
}

// has reports whether pos is a position of d.
func (m *Machine) has(d *deck, pos uint16) bool {
	n := len(d.cards)
	if d.cards == nil {
		n = m.chains[d.chain].n
	}
	return int(pos) < n
}

// handleErr says why h names no card that may be used now, or nil.
func (m *Machine) handleErr(h Handle) error {
	d := m.decks[h.Deck]
	if d == nil || !m.has(d, h.Pos) {
		return fmt.Errorf("%w: no %s", ErrBadInput, cardName(h))
	}
	if d.gone != nil && d.gone[h.Pos] {
		return fmt.Errorf("%w: %s was taken into a reshuffled deck; its handle names nothing now", ErrBadInput, cardName(h))
	}
	return nil
}

// link is one seat's shuffle of a chain, as received (or made here).
type link struct {
	env      *crypto.Envelope
	out      mp.Deck
	proof    []byte
	verified bool
	// stored: the chain is done and env went to the Store (store.go);
	// the link has an envelope all the same.
	stored  bool
	skipped bool // a seat dropped before the chain was declared
	// forged: its proof failed, or its output is no deck of the chain;
	// its author is convicted, and the chain is redone without it once
	// it is dropped (forge.go). out is nil: nobody shuffles on it.
	forged bool
}

// has reports whether the link has its envelope (in memory or stored).
func (l *link) has() bool { return l.env != nil || l.stored }

// chain is one shuffle chain: seat 0 shuffles the input, every next seat
// the previous seat's output; the last output becomes the deck.
type chain struct {
	deck    uint8
	n       int
	in      mp.Deck // nil until the chain starts
	links   []link  // by seat
	started bool
	done    bool
	from    []Handle // a reshuffle's sources; nil for a deck of the setup
	// seq is the seq of the chain's shuffle envelopes now: its index, or
	// after a redo without a forger the redo's (forge.go); past holds
	// the seqs of its abandoned attempts.
	seq  uint64
	past []uint64
	// state is the shared state it answers (At when it was declared;
	// zero for a deck of the setup): every shuffle of it carries it.
	state crypto.Hash
	// member: by seat, whether it has a link in the current attempt,
	// decided at the same place of the log on every peer (a seat dropped
	// before the chain was declared has none; a redo keeps the seats
	// after the forger not dropped before it). A member's link may still
	// be skipped, by the holders' lists (escrow.go's decideChains).
	member []bool
	// prep: this seat's shuffle of the chain, prepared while it waits for
	// its input (PrepareShuffle), nil until then and once used.
	prep *mp.ShufflePrep
}

// entry is one opening of a batch, planned when the batch starts.
type entry struct {
	op       Opening
	ct       mp.Ciphertext // the ciphertext opened (after a re-masking)
	remaskBy int           // the seat that must re-mask first, -1 for none
	remasked bool
	need     []bool      // by seat: owes a share of ct
	shares   []*mp.Share // by seat, verified
}

type batch struct {
	ops        []Opening
	entries    []entry
	remaskEnv  []*crypto.Envelope // by seat, received, not yet checked
	shareEnv   []*crypto.Envelope
	remaskOK   []bool // by seat: its re-maskings checked (or none owed)
	remaskBad  []bool // by seat: its re-masking envelope is proven wrong (remaskCheat)
	shareOK    []bool
	started    bool
	done       bool
	sentRemask bool
	sentShares bool
	state      crypto.Hash // the shared state it answers (At when it was declared)
}

// op is one step of the machine's queue: a chain or a batch, in the order
// the caller declared them (which every peer does alike).
type op struct {
	chain int // index into chains, or -1
	batch int // index into batches, or -1
	drop  int // a dropped seat, or -1 (escrow.go)
	done  bool
}

type slotKey struct {
	kind crypto.Kind
	seat int
	seq  uint64
}

// Machine is one seat's side of the card protocol. It is driven like
// lockstep.Node: Step every received envelope, call Work while HasWork
// (the expensive proofs, one at a time, so the runner can interleave
// received envelopes and keep the shuffle pipeline full), and handle
// Ready after each. Open and Reshuffle are called by the engine's card
// source at the same point of the agreed log on every peer.
type Machine struct {
	id      *crypto.Identity
	session crypto.Hash
	seats   []crypto.PeerID
	names   []string
	me      int
	rand    interface{ Read([]byte) (int, error) }
	verify  func(*crypto.Envelope) error // Config.Verify, or crypto.Verify
	// prepared counts this seat's shuffles made from a preparation (its
	// tests check that a seat that waits in a chain prepares).
	prepared int

	sk    *mp.SecretKey
	keys  []mp.PublicKey
	haveK []bool
	joint mp.PublicKey
	keyOK bool

	space   []uint16   // card space index -> card id
	decks   [256]*deck // by id
	open    mp.Deck    // the open deck of the whole card space
	chains  []*chain
	batches []*batch
	ops     []op
	head    int // every op before it is done (a long game's queue is not rescanned)

	seen map[slotKey]*crypto.Envelope // lookup only, never ranged over
	// store, stored and spillQ: card envelopes on disk (store.go). stored
	// holds the hash of each envelope of seen that went to the Store;
	// spillQ the slots of done chains and batches still in seen.
	store   Store
	stored  map[slotKey]crypto.Hash // lookup only
	spillQ  []slotKey
	own     map[slotKey]*crypto.Envelope // Config.Sent, by slot; lookup only
	ahead   []*crypto.Envelope           // for chains and batches not declared yet, in arrival order
	aheadN  []int                        // by seat: how many
	aheadB  []int                        // by seat: how many bytes
	flooded []bool

	// Escrow and drops (escrow.go), by seat.
	escrows     []*mp.Escrow
	escrowEnv   []*crypto.Envelope
	myPieces    []mp.Piece // this seat's piece of each dealer's key: private
	dropped     []bool
	recovered   []*mp.SecretKey
	pieces      [][]*mp.Piece // [dropped seat][holder]
	pieceSent   []bool
	escrowsTold bool
	// Links a dropped seat owes in chains declared before its drop
	// (escrow.go, decideChains), by dropped seat: the number of chains
	// declared at its drop, each holder's signed holds (claimed: its
	// piece envelope came), and whether they are decided.
	dropChains []int
	holds      [][][]uint64 // [dropped seat][holder]
	// The same for the re-maskings it owes in batches declared before
	// its drop (batch.go's decideRemask).
	dropBatches []int
	remaskHolds [][][]uint64
	claimed     [][]bool
	decided     []bool
	// relays and relayRemasks: [dropped seat][holder], what each holder's
	// piece of the dropped seat's key lists of the seats dropped before
	// it (pieceBody.Relays); late: the envelopes of dropped seats this
	// seat received after its last list, while no list of a seat in play
	// named them (lookup only): its next list leaves them out (standing).
	relays       [][][]uint64
	relayRemasks [][][]uint64
	late         map[slotKey]bool
	// Pair escrows (pairescrow.go): [dealer][left-out seat], this seat's
	// pieces of them, the published pieces [dropped][left out][holder],
	// which this seat sent; and the order of the drops (1 for the first).
	pairs      [][]*mp.Escrow
	myPairs    [][]mp.Piece
	pairPieces [][][]*mp.Piece
	pairSent   [][]bool
	dropOrder  []int
	drops      int
	// convicted: seats proven cheats by a signed share envelope of their
	// own, whose drop the machine waits for (convict.go).
	convicted []bool

	// held: signing anew waits for Release (Config.Hold); keyDue: this
	// seat's card-key envelope is to be signed then, unless one of its
	// own comes back first.
	held    bool
	keyDue  bool
	keyBody []byte

	// at is the hash of the shared state the chains and batches declared
	// now answer (At); zero before the first At (the setup's decks).
	at crypto.Hash

	stopped bool
	rd      Ready
}

// New checks cfg, draws this seat's key and signs its card-key envelope
// (the first Ready holds it), and declares the setup chains of cfg.Decks.
func New(cfg Config) (*Machine, error) {
	bad := func(f string, a ...any) (*Machine, error) {
		return nil, fmt.Errorf("%w: %s", ErrBadInput, fmt.Sprintf(f, a...))
	}
	if cfg.Identity == nil || cfg.Rand == nil {
		return bad("an identity and a random source are required")
	}
	n := len(cfg.Seats)
	if n < 2 || n > 255 {
		return bad("%d seats (2 to 255)", n)
	}
	m := &Machine{id: cfg.Identity, session: cfg.Session, seats: append([]crypto.PeerID(nil), cfg.Seats...),
		me: -1, rand: cfg.Rand, keys: make([]mp.PublicKey, n), haveK: make([]bool, n),
		seen: map[slotKey]*crypto.Envelope{}, own: map[slotKey]*crypto.Envelope{}, aheadN: make([]int, n), aheadB: make([]int, n), flooded: make([]bool, n),
		escrows: make([]*mp.Escrow, n), escrowEnv: make([]*crypto.Envelope, n), myPieces: make([]mp.Piece, n),
		dropped: make([]bool, n), convicted: make([]bool, n), recovered: make([]*mp.SecretKey, n), pieces: make([][]*mp.Piece, n), pieceSent: make([]bool, n)}
	m.dropChains, m.holds, m.claimed, m.decided = make([]int, n), make([][][]uint64, n), make([][]bool, n), make([]bool, n)
	m.dropBatches, m.remaskHolds = make([]int, n), make([][][]uint64, n)
	m.relays, m.relayRemasks, m.late = make([][][]uint64, n), make([][][]uint64, n), map[slotKey]bool{}
	m.pairs, m.myPairs, m.pairPieces, m.pairSent, m.dropOrder = make([][]*mp.Escrow, n), make([][]mp.Piece, n), make([][][]*mp.Piece, n), make([][]bool, n), make([]int, n)
	for i := range m.pieces {
		m.myPairs[i], m.pairSent[i], m.pairPieces[i] = make([]mp.Piece, n), make([]bool, n), make([][]*mp.Piece, n)
		for x := range m.pairPieces[i] {
			m.pairPieces[i][x] = make([]*mp.Piece, n)
		}
		m.pieces[i] = make([]*mp.Piece, n)
		m.holds[i] = make([][]uint64, n)
		m.remaskHolds[i] = make([][]uint64, n)
		m.relays[i], m.relayRemasks[i] = make([][]uint64, n), make([][]uint64, n)
		m.claimed[i] = make([]bool, n)
	}
	m.held = cfg.Hold
	m.store = cfg.Store
	m.verify = cfg.Verify
	if m.verify == nil {
		m.verify = crypto.Verify
	}
	for i, p := range cfg.Seats {
		for j := 0; j < i; j++ {
			if cfg.Seats[j] == p {
				return bad("seats %d and %d are the same peer", j+1, i+1)
			}
		}
		if p == cfg.Identity.ID() {
			m.me = i
		}
		name := ""
		if i < len(cfg.Names) {
			name = cfg.Names[i]
		}
		m.names = append(m.names, name)
	}
	if m.me < 0 {
		return bad("this peer has no seat")
	}
	total := 0
	for i, d := range cfg.Decks {
		if m.decks[d.ID] != nil {
			return bad("deck %d is declared twice", d.ID)
		}
		if len(d.Cards) == 0 || (!d.Open && len(d.Cards) < 2) {
			return bad("deck %d has %d cards (a shuffled deck needs 2)", d.ID, len(d.Cards))
		}
		total += len(d.Cards)
		if total > MaxCards {
			return bad("more than %d cards in all", MaxCards)
		}
		m.decks[d.ID] = &deck{id: d.ID, open: d.Open, chain: -1}
		_ = i
	}
	if total == 0 {
		return bad("no decks")
	}
	open, err := mp.OpenDeck(total)
	if err != nil {
		return nil, err
	}
	m.open = open
	for _, d := range cfg.Decks {
		dk := m.decks[d.ID]
		base := len(m.space)
		m.space = append(m.space, d.Cards...)
		in := append(mp.Deck(nil), open[base:base+len(d.Cards)]...)
		if d.Open {
			dk.cards = m.newCards(in)
			for i := range dk.cards {
				dk.cards[i].pub = base + i
				dk.cards[i].mine = base + i
			}
			dk.ready = true
			continue
		}
		dk.chain = m.addChain(d.ID, in, nil)
		m.chains[dk.chain].started = true
	}
	for _, env := range cfg.Sent {
		if env == nil || env.Author != m.id.ID() || env.Session != m.session || !env.Kind.Card() {
			return bad("a persisted envelope that is not this seat's in this session")
		}
		if err := crypto.Verify(env); err != nil {
			return bad("a persisted %s envelope (seq %d) has a bad signature", env.Kind, env.Seq)
		}
		if err := wellFormed(env); err != nil {
			return bad("a persisted %s envelope (seq %d) does not decode: %v", env.Kind, env.Seq, err)
		}
		k := slotKey{env.Kind, m.me, env.Seq}
		if old, ok := m.own[k]; ok && !crypto.Equal(old, env) {
			return bad("two different persisted %s envelopes for seq %d", env.Kind, env.Seq)
		}
		m.own[k] = env
	}
	var sk *mp.SecretKey
	if cfg.Secret != nil {
		if sk, err = mp.ParseSecretKey(cfg.Secret); err != nil {
			return bad("the persisted secret key: %v", err)
		}
	} else {
		if sk, err = mp.GenerateKey(cfg.Rand); err != nil {
			return nil, err
		}
		m.rd.Secret = sk.Bytes()
	}
	m.sk = sk
	if own := m.own[slotKey{crypto.KindCardKey, m.me, 0}]; own != nil {
		if b, _ := decodeKey(own.Body); string(b.Key) != string(sk.Public().Bytes()) {
			return bad("the persisted card key is not the persisted secret key's")
		}
		m.sign(own)
	} else if m.held {
		m.keyDue = true // Release signs it, unless ours comes back first
	} else if err := m.signKey(); err != nil {
		return nil, err
	}
	m.keys[m.me], m.haveK[m.me] = sk.Public(), true
	return m, nil
}

func (m *Machine) signKey() error {
	prf, err := mp.ProveKey(m.rand, m.ctx(0, 0, ctxKey), m.me, m.sk)
	if err != nil {
		return err
	}
	m.sign(&crypto.Envelope{Kind: crypto.KindCardKey, Body: (&keyBody{Key: m.sk.Public().Bytes(), Proof: prf}).encode()})
	return nil
}

// Held reports whether signing anew waits for Release.
func (m *Machine) Held() bool { return m.held }

// Release lets a held machine (Config.Hold) sign anew: for every slot it
// reaches that neither Config.Sent nor an own envelope back from a peer
// holds. The runner calls it once it knows those peers have answered.
func (m *Machine) Release() {
	if !m.held || m.stopped {
		m.held = false
		return
	}
	m.held = false
	if m.keyDue {
		m.keyDue = false
		if err := m.signKey(); err != nil {
			m.cheat(CheatBadKey, m.me, fmt.Sprintf("this peer could not prove its card key: %v", err))
			return
		}
	}
	m.progress()
}

// mayNew reports whether this seat may sign a new envelope for the slot:
// not while held, unless its own for the slot is known (then sign sends
// that one).
func (m *Machine) mayNew(kind crypto.Kind, seq uint64) bool {
	return !m.held || m.adopted(kind, seq) != nil
}

// adoptWindow bounds how far beyond the chains and batches declared here
// an own envelope back from a peer may bind this seat: one further ahead
// comes back when the deal gets there (catch-up serves what is near).
const adoptWindow = maxAhead

// adopt takes this seat's own envelope, signed before a crash that lost
// it from this machine's disk, back from a peer (Step has checked its
// signature, session and form): it binds this seat as if it were in
// Config.Sent, and goes to disk again (Ready.Persist). Only within the
// window: a flood under our name must not bind slots far ahead.
func (m *Machine) adopt(env *crypto.Envelope, k slotKey) error {
	if old, ok := m.own[k]; ok {
		if crypto.Equal(old, env) {
			return ErrDuplicate
		}
		return fmt.Errorf("%w: two different %s envelopes of our own seat for seq %d (one persisted, one from a peer): this seat's key signed both", ErrBadInput, env.Kind, env.Seq)
	}
	switch env.Kind {
	case crypto.KindCardKey:
		b, err := decodeKey(env.Body)
		if err != nil || string(b.Key) != string(m.sk.Public().Bytes()) {
			return fmt.Errorf("%w: a card-key envelope of our own seat that is not this seat's key", ErrBadInput)
		}
	case crypto.KindShuffle:
		if env.Seq&chainMask >= uint64(len(m.chains))+adoptWindow {
			return fmt.Errorf("%w: an own %s envelope too far ahead (seq %d)", ErrBadInput, env.Kind, env.Seq)
		}
	case crypto.KindRemask, crypto.KindShare:
		if env.Seq >= uint64(len(m.batches))+adoptWindow {
			return fmt.Errorf("%w: an own %s envelope too far ahead (seq %d)", ErrBadInput, env.Kind, env.Seq)
		}
	}
	m.own[k] = env
	m.rd.Persist = append(m.rd.Persist, env)
	if env.Kind == crypto.KindCardKey && m.keyDue {
		m.keyDue = false
		m.sign(env)
	}
	m.progress()
	return nil
}

// adopted is this seat's persisted envelope for the slot, if any.
func (m *Machine) adopted(kind crypto.Kind, seq uint64) *crypto.Envelope {
	return m.own[slotKey{kind, m.me, seq}]
}

func (m *Machine) newCards(cts mp.Deck) []card {
	cs := make([]card, len(cts))
	for i, ct := range cts {
		cs[i] = card{ct: ct, shares: make([]*mp.Share, len(m.seats)), privTo: -1, pub: -1, mine: -1}
	}
	return cs
}

func (m *Machine) addChain(d uint8, in mp.Deck, from []Handle) int {
	n := len(in)
	if from != nil {
		n = len(from)
	}
	c := &chain{deck: d, n: n, in: in, links: make([]link, len(m.seats)), from: from, seq: uint64(len(m.chains)), state: m.at}
	c.member = make([]bool, len(m.seats))
	for s := range c.links {
		c.member[s] = !m.dropped[s]
		if m.dropped[s] {
			c.links[s].skipped, c.links[s].verified = true, true
		}
	}
	m.chains = append(m.chains, c)
	m.ops = append(m.ops, op{chain: len(m.chains) - 1, batch: -1, drop: -1})
	return len(m.chains) - 1
}

func (m *Machine) ctx(seq uint64, slot uint32, kind string) mp.Context {
	return mp.Context{Session: m.session, Seq: seq, Slot: slot, Kind: kind}
}

// who is "seat N" or "seat N (Name)", seat 0-based.
func (m *Machine) who(seat int) string {
	if seat >= 0 && seat < len(m.names) && m.names[seat] != "" {
		return fmt.Sprintf("seat %d (%s)", seat+1, m.names[seat])
	}
	return fmt.Sprintf("seat %d", seat+1)
}

// sign signs env and hands it out to persist and send, unless this seat
// persisted an envelope for that slot before a restart: then that one is
// sent again instead (it is on disk already) and returned, and the caller
// must go by it.
func (m *Machine) sign(env *crypto.Envelope) *crypto.Envelope {
	k := slotKey{env.Kind, m.me, env.Seq}
	if own := m.own[k]; own != nil {
		m.seen[k] = own
		m.rd.Messages = append(m.rd.Messages, own)
		return own
	}
	env.Session = m.session
	crypto.Sign(m.id, env)
	m.seen[k] = env
	m.rd.Persist = append(m.rd.Persist, env)
	m.rd.Messages = append(m.rd.Messages, env)
	return env
}

// HasReady reports whether Ready has anything.
func (m *Machine) HasReady() bool { return !m.rd.IsEmpty() }

// Ready returns what the machine produced since the last Advance.
func (m *Machine) Ready() Ready {
	rd := m.rd
	rd.MustSync = rd.Secret != nil || len(rd.Persist) > 0
	return rd
}

// Advance acknowledges the last Ready.
func (m *Machine) Advance() { m.rd = Ready{} }

// Stopped reports whether a cheat stopped the machine.
func (m *Machine) Stopped() bool { return m.stopped }

// Seat is this peer's 0-based seat.
func (m *Machine) Seat() int { return m.me }

// Seats is the number of seats.
func (m *Machine) Seats() int { return len(m.seats) }

// cheat names a proven cheat of seat, stops the machine and returns the
// error for Step.
func (m *Machine) cheat(kind CheatKind, seat int, text string, evidence ...*crypto.Envelope) error {
	m.rd.Events = append(m.rd.Events, Event{Kind: EventCheat, Cheat: kind, Seat: seat + 1, Text: text, Evidence: evidence})
	m.stopped = true
	return fmt.Errorf("%w (%s): %s", ErrCheat, kind, text)
}

// reject names a rejected envelope that does not stop anything (a forgery,
// a replay, a malformed body: none of them took a slot).
func (m *Machine) reject(kind CheatKind, seat int, text string, err error) error {
	m.rd.Events = append(m.rd.Events, Event{Kind: EventCheat, Cheat: kind, Seat: seat + 1, Text: text, Err: err})
	return fmt.Errorf("%w (%s): %s", ErrCheat, kind, text)
}

func (m *Machine) seatOf(p crypto.PeerID) int {
	for i, s := range m.seats {
		if s == p {
			return i
		}
	}
	return -1
}

// Step takes one envelope received from the network. An error says why
// it was rejected; every cheat is also an EventCheat naming its seat.
func (m *Machine) Step(env *crypto.Envelope) error {
	if env == nil || !env.Kind.Card() {
		return fmt.Errorf("%w: not an envelope of the card protocol", ErrBadInput)
	}
	seat := m.seatOf(env.Author)
	if seat < 0 {
		return ErrNotMember
	}
	if m.same(slotKey{env.Kind, seat, env.Seq}, env) {
		return ErrDuplicate
	}
	if err := m.verify(env); err != nil {
		return m.reject(CheatForged, seat, fmt.Sprintf("%s envelope under the name of %s has a bad signature", env.Kind.WithArticle(), m.who(seat)), err)
	}
	if env.Session != m.session {
		return m.reject(CheatReplayed, seat, fmt.Sprintf("a %s envelope of %s is of another session (a replay)", env.Kind, m.who(seat)), ErrWrongSession)
	}
	if m.stopped {
		return ErrStopped
	}
	if m.convicted[seat] && (!takenFromConvicted(env.Kind) || m.taken(slotKey{env.Kind, seat, env.Seq})) {
		// Nothing it signs counts any more, not even a second claim for
		// the slot of its proven lie (convict.go). But its shuffle of
		// another chain still counts: a peer that holds it keeps that
		// link after the drop (escrow.go's holds), so every peer must
		// take it, and its proof is checked like any (forge.go); the
		// same for its re-masking of a batch, which every peer must come
		// to alike (batch.go's remaskCheat); its piece of a dropped
		// seat's key, checked against the escrow's commitment, whose list
		// every peer must read alike (escrow.go); and its escrow, signed
		// before anything that could convict it but not always received
		// first, without which its key is never rebuilt after its drop.
		return fmt.Errorf("%w: %s is proven to cheat; its envelopes are not taken", ErrConvicted, m.who(seat))
	}
	if err := wellFormed(env); err != nil {
		return m.reject(CheatMalformed, seat, fmt.Sprintf("%s sent a %s envelope that does not decode: %v", m.who(seat), env.Kind, err), err)
	}
	switch env.Kind {
	case crypto.KindEscrow, crypto.KindPiece, crypto.KindAccuse:
		if !m.escrowOn() {
			return m.reject(CheatUnexpected, seat, fmt.Sprintf("%s sent a %s envelope at a table of 2, which has no escrow", m.who(seat), env.Kind), nil)
		}
		if _, _, ok := m.splitSeq(env.Seq); !ok || env.Kind == crypto.KindEscrow && env.Seq != 0 {
			return m.reject(CheatMalformed, seat, fmt.Sprintf("%s sent a %s envelope for seq %d, which names no escrow of a table of %d", m.who(seat), env.Kind, env.Seq, len(m.seats)), nil)
		}
	}
	k := slotKey{env.Kind, seat, env.Seq}
	if m.taken(k) {
		old, err := m.slotEnv(k)
		if err != nil {
			// The slot is taken by another envelope, which this peer can
			// no longer show: nothing is proven, nothing is taken.
			return fmt.Errorf("%s signed a second, different %s envelope for seq %d, but the first cannot be shown: %w", m.who(seat), env.Kind, env.Seq, err)
		}
		return m.cheat(CheatEquivocation, seat, fmt.Sprintf("%s signed two different %s envelopes%s", m.who(seat), env.Kind, env.Kind.ForSlot(env.Seq)), old, env)
	}
	if seat == m.me {
		// Our own envelope, which we do not hold: signed before a crash
		// that lost it from our disk, back from a peer. It binds us for
		// its slot (sign sends it, never a different one).
		return m.adopt(env, k)
	}
	if !m.declared(env) {
		return m.keepAhead(env, seat)
	}
	m.seen[k] = env
	if err := m.route(env, seat); err != nil {
		return err
	}
	m.progress()
	return nil
}

// takenFromConvicted reports whether an envelope of kind still counts
// when its author is convicted (see Step).
func takenFromConvicted(kind crypto.Kind) bool {
	switch kind {
	case crypto.KindShuffle, crypto.KindRemask, crypto.KindPiece, crypto.KindEscrow:
		return true
	}
	return false
}

// declared reports whether env's chain or batch is known here yet.
func (m *Machine) declared(env *crypto.Envelope) bool {
	switch env.Kind {
	case crypto.KindShuffle:
		_, ok := m.chainOf(env.Seq)
		return ok
	case crypto.KindRemask, crypto.KindShare:
		return env.Seq < uint64(len(m.batches))
	case crypto.KindEscrow, crypto.KindPiece, crypto.KindAccuse:
		return m.declaredEscrow(env)
	}
	return true
}

func (m *Machine) keepAhead(env *crypto.Envelope, seat int) error {
	for _, e := range m.ahead {
		if e.Kind == env.Kind && e.Author == env.Author && e.Seq == env.Seq {
			if crypto.Equal(e, env) {
				return ErrDuplicate
			}
			return m.cheat(CheatEquivocation, seat, fmt.Sprintf("%s signed two different %s envelopes%s", m.who(seat), env.Kind, env.Kind.ForSlot(env.Seq)), e, env)
		}
	}
	if m.aheadN[seat] >= maxAhead || m.aheadB[seat]+env.Size() > maxAheadBytes {
		// Not a cheat: a seat that is far ahead of this peer (this peer
		// was cut off, dropped, or is catching up after a restart) sends
		// honest envelopes for chains and batches not declared here, as
		// many as the game has gone on. A flooder gains nothing by it
		// (what is held is bounded; the gossip gate names a fast one),
		// and naming it named honest peers on a lagging peer's screen.
		if !m.flooded[seat] {
			m.flooded[seat] = true
			m.rd.Events = append(m.rd.Events, Event{Kind: EventAheadFull, Seat: seat + 1,
				Text: fmt.Sprintf("%s is further ahead than this peer keeps card envelopes for (%d, %d bytes); the rest are dropped, and a catch-up brings them when this peer gets there", m.who(seat), maxAhead, maxAheadBytes)})
		}
		return fmt.Errorf("%w: the buffer for %s is full", ErrBadInput, m.who(seat))
	}
	m.ahead = append(m.ahead, env)
	m.aheadN[seat]++
	m.aheadB[seat] += env.Size()
	return nil
}

// release steps the envelopes kept ahead that are now declared.
func (m *Machine) release() {
	var rest []*crypto.Envelope
	var now []*crypto.Envelope
	for _, e := range m.ahead {
		if m.declared(e) {
			now = append(now, e)
			s := m.seatOf(e.Author)
			m.aheadN[s]--
			m.aheadB[s] -= e.Size()
		} else {
			rest = append(rest, e)
		}
	}
	m.ahead = rest
	for _, e := range now {
		if m.stopped {
			return
		}
		s := m.seatOf(e.Author)
		m.seen[slotKey{e.Kind, s, e.Seq}] = e
		_ = m.route(e, s) // a cheat is named by route
	}
}

// route stores a well-formed, signed, declared envelope where it belongs,
// checking what can be checked cheaply; the shuffle proofs wait for Work.
func (m *Machine) route(env *crypto.Envelope, seat int) error {
	if want, ok := m.stateOf(env); ok && env.StateHash != want {
		return m.otherState(env, seat, want)
	}
	switch env.Kind {
	case crypto.KindCardKey:
		b, _ := decodeKey(env.Body)
		pk, err := mp.ParsePublicKey(b.Key)
		if err == nil {
			err = mp.VerifyKey(m.ctx(0, 0, ctxKey), seat, pk, b.Proof)
		}
		if err != nil {
			return m.cheat(CheatBadKey, seat, fmt.Sprintf("%s's card key does not come with a valid proof that it knows its secret (%v)", m.who(seat), err), env)
		}
		m.keys[seat], m.haveK[seat] = pk, true
	case crypto.KindShuffle:
		ci, _ := m.chainOf(env.Seq)
		c := m.chains[ci]
		if env.Seq != c.seq {
			// A link of an attempt redone without a forger (forge.go):
			// late, and of no use. Its slot stays taken.
			return fmt.Errorf("%w: %s's shuffle %d is of an attempt of chain %d that was redone without a forger", ErrStale, m.who(seat), env.Seq, ci)
		}
		if len(c.links) == 0 || c.links[seat].skipped {
			// A one-card chain has no links; a seat dropped before the
			// chain was declared has none in it. Nothing to keep, no slot.
			m.forget(slotKey{env.Kind, seat, env.Seq})
			return fmt.Errorf("%w: %s has no shuffle in chain %d", ErrBadInput, m.who(seat), env.Seq)
		}
		b, _ := decodeShuffle(env.Body)
		if b.Deck != c.deck || len(b.Output) != c.n*mp.CiphertextLen {
			return m.forged(ci, seat, fmt.Sprintf("%s's shuffle %d is of deck %d with %d cards; the chain is deck %d with %d",
				m.who(seat), env.Seq, b.Deck, len(b.Output)/mp.CiphertextLen, c.deck, c.n), env)
		}
		out, err := mp.ParseDeck(b.Output, c.n)
		if err != nil {
			return m.forged(ci, seat, fmt.Sprintf("%s's shuffle of deck %d holds a card that is not a valid ciphertext (%v)", m.who(seat), c.deck, err), env)
		}
		c.links[seat] = link{env: env, out: out, proof: b.Proof}
		if ci < m.dropChains[seat] {
			m.arrived(slotKey{env.Kind, seat, env.Seq}, false)
		}
	case crypto.KindRemask:
		m.batches[env.Seq].remaskEnv[seat] = env
		if env.Seq < uint64(m.dropBatches[seat]) {
			m.arrived(slotKey{env.Kind, seat, env.Seq}, true)
		}
	case crypto.KindShare:
		m.batches[env.Seq].shareEnv[seat] = env
	case crypto.KindEscrow, crypto.KindPiece, crypto.KindAccuse:
		return m.routeEscrow(env, seat)
	}
	if b := m.batchOf(env); b != nil && b.done {
		// After the batch: either late (a dropped seat's shares, computed
		// by everyone meanwhile) or never owed.
		if env.Kind == crypto.KindShare && !m.owesShare(b, seat) || env.Kind == crypto.KindRemask && !m.owesRemask(b, seat) {
			m.unexpected(seat, env)
			return fmt.Errorf("%w (%s): %s owes no %s for batch %d", ErrCheat, CheatUnexpected, m.who(seat), env.Kind, env.Seq)
		}
	}
	return nil
}

// progress advances everything that needs no expensive proof: the joint
// key, chains' starts and ends, and the batches in order.
func (m *Machine) progress() {
	for !m.stopped && m.step() {
	}
	m.spill()
}

// step makes one change and reports whether it did.
func (m *Machine) step() bool {
	if !m.keyOK {
		for _, ok := range m.haveK {
			if !ok {
				return false
			}
		}
		h, err := mp.JointKey(m.keys)
		if err != nil { // the sum of proved keys is the identity: negligible
			m.cheat(CheatBadKey, m.me, fmt.Sprintf("the seats' keys add up to nothing (%v)", err))
			return false
		}
		m.joint, m.keyOK = h, true
		m.rd.Events = append(m.rd.Events, Event{Kind: EventKeys, Text: "every seat's card key has checked"})
		m.release() // escrows that came before the last key
		return true
	}
	if m.stepEscrow() {
		return true
	}
	for m.head < len(m.ops) && m.opDone(m.ops[m.head]) {
		m.head++
	}
	before := true // every op before i is done
	for i := m.head; i < len(m.ops); i++ {
		o := m.ops[i]
		prevDone := before
		before = before && m.opDone(o)
		if o.chain >= 0 {
			c := m.chains[o.chain]
			if !c.started && prevDone {
				m.startChain(c)
				return true
			}
			if c.started && !c.done && m.redo(o.chain, c) {
				return true
			}
			if c.started && !c.done && m.chainVerified(c) && !m.frozen(o.chain) {
				m.finishChain(o.chain, c)
				return true
			}
			continue
		}
		if o.drop >= 0 {
			if o.done {
				continue
			}
			if !prevDone || m.recovered[o.drop] == nil {
				return false
			}
			// The dropped seat's cards are shown here, at the drop's place
			// among the ops, so every peer plans the batches after it from
			// the same state whenever its key was rebuilt.
			m.ops[i].done = true
			m.revealDropped(o.drop)
			return true
		}
		b := m.batches[o.batch]
		if b.done {
			continue
		}
		if !prevDone {
			return false
		}
		return m.stepBatch(uint64(o.batch), b)
	}
	return false
}

// opDone reports whether o is done.
func (m *Machine) opDone(o op) bool {
	switch {
	case o.chain >= 0:
		return m.chains[o.chain].done
	case o.batch >= 0:
		return m.batches[o.batch].done
	}
	return o.done
}

func (m *Machine) startChain(c *chain) {
	c.started = true
	c.in = make(mp.Deck, len(c.from))
	for i, h := range c.from {
		c.in[i] = m.decks[h.Deck].cards[h.Pos].ct
	}
}

func (m *Machine) chainVerified(c *chain) bool {
	for _, l := range c.links {
		if !l.verified {
			return false
		}
	}
	return true
}

func (m *Machine) finishChain(i int, c *chain) {
	c.done = true
	d := m.decks[c.deck]
	if len(c.links) == 0 { // one card: it moves as it is, with what is known of it
		h := c.from[0]
		old := m.decks[h.Deck].cards[h.Pos]
		old.shares = append([]*mp.Share(nil), old.shares...)
		d.cards = []card{old}
	} else {
		d.cards = m.newCards(c.output())
	}
	// Every link is verified and the deck holds the last output: the
	// input, the outputs before it and the proofs are of no more use
	// (a link's envelope stays, for equivocation and catch-up). At a
	// Dominion table, which reshuffles every few turns, they were a
	// quarter of what a peer kept (issue 14).
	c.in, c.prep = nil, nil
	for s := range c.links {
		c.links[s].out, c.links[s].proof = nil, nil
	}
	m.spillLater(crypto.KindShuffle, c.seq, func(s int) bool { return c.links[s].env != nil })
	// The cards the chain took are in this deck now; their handles name
	// nothing any more (Reshuffle marked them gone, every earlier opening
	// of them is done, as the chain started after it), so their points
	// are of no more use. What this seat knew of them (pub, mine) stays.
	for _, h := range c.from {
		if src := m.decks[h.Deck]; src != nil && src != d && int(h.Pos) < len(src.cards) && src.gone != nil && src.gone[h.Pos] {
			src.cards[h.Pos].ct, src.cards[h.Pos].shares = mp.Ciphertext{}, nil
		}
	}
	d.chain, d.ready = i, true
	m.rd.Events = append(m.rd.Events, Event{Kind: EventDeckReady, Deck: c.deck,
		Text: fmt.Sprintf("deck %d is shuffled by every seat (%d cards)", c.deck, c.n)})
}

// input is the deck seat shuffles in chain c, nil if not known yet.
func (c *chain) input(seat int) mp.Deck {
	if !c.started {
		return nil
	}
	for j := seat - 1; j >= 0; j-- {
		if !c.links[j].skipped {
			return c.links[j].out
		}
	}
	return c.in
}

// output is the chain's result: the last shuffled deck.
func (c *chain) output() mp.Deck { return c.input(len(c.links)) }

// HasWork reports whether Work has a proof to make, prepare or check.
func (m *Machine) HasWork() bool { return !m.stopped && m.nextWork(false) }

// Work makes, prepares or checks one shuffle proof: first this seat's own
// next shuffle (so the chain moves on to the next seat at once), then the
// preparation of its shuffle of a chain that has not reached it yet, then
// the earliest unchecked shuffle of another seat. It reports whether it did
// anything. Call it while HasWork, handling Ready and received envelopes
// between calls.
func (m *Machine) Work() bool {
	if m.stopped {
		return false
	}
	did := m.nextWork(true)
	m.progress()
	return did
}

func (m *Machine) nextWork(do bool) bool {
	if !m.keyOK {
		return false
	}
	for i, c := range m.chains {
		if m.owesLink(i, c) && c.started {
			if in := c.input(m.me); in != nil {
				if do {
					m.shuffle(c, in)
				}
				return true
			}
		}
	}
	// Then prepare this seat's shuffle of each chain it waits in: the
	// half of its proof that does not depend on the deck, done while the
	// seats before it shuffle, so its own link, when its input comes,
	// costs the other half. Before any check: the checks can wait for the
	// chain's end, the link is on the chain's path. (A setup's chains
	// run side by side, so every one is prepared, not only the first.)
	for i, c := range m.chains {
		if m.owesLink(i, c) && c.prep == nil && m.adopted(crypto.KindShuffle, c.seq) == nil {
			if do {
				prep, err := mp.PrepareShuffle(m.rand, m.joint, c.n)
				if err != nil {
					m.cheat(CheatForgedShuffle, m.me, fmt.Sprintf("this peer could not prepare its shuffle of deck %d: %v", c.deck, err))
					return true
				}
				c.prep = prep
			}
			return true
		}
	}
	for i, c := range m.chains {
		if m.frozen(i) {
			continue
		}
		for s := range c.links {
			l := &c.links[s]
			if l.env == nil || l.verified || l.forged || c.forgedBefore(s) {
				// (A link after a forged one is of an attempt to be redone.)
				continue
			}
			in := c.input(s)
			if in == nil {
				continue
			}
			if do {
				if err := mp.VerifyShuffle(m.ctx(c.seq, uint32(c.deck), ctxShuffle), s, m.joint, in, l.out, l.proof); err != nil {
					_ = m.forged(i, s, fmt.Sprintf("%s's shuffle of deck %d does not prove that it permutes and re-masks the deck it was given: a substituted or re-ordered card (%v)", m.who(s), c.deck, err), l.env)
					return true
				}
				l.verified = true
			}
			return true
		}
	}
	return false
}

// owesLink reports whether this seat has yet to shuffle chain i (c) in
// its current attempt, and may.
func (m *Machine) owesLink(i int, c *chain) bool {
	if len(c.links) == 0 || m.frozen(i) {
		return false
	}
	l := &c.links[m.me]
	return !l.has() && !l.skipped && m.mayNew(crypto.KindShuffle, c.seq) && !c.forgedBefore(m.me)
}

func (m *Machine) shuffle(c *chain, in mp.Deck) {
	if own := m.adopted(crypto.KindShuffle, c.seq); own != nil {
		b, _ := decodeShuffle(own.Body)
		out, err := mp.ParseDeck(b.Output, c.n)
		if err != nil || b.Deck != c.deck {
			m.cheat(CheatForgedShuffle, m.me, fmt.Sprintf("this peer's persisted shuffle of deck %d does not fit the chain (%v)", c.deck, err))
			return
		}
		c.links[m.me] = link{env: m.sign(own), out: out, proof: b.Proof, verified: true}
		return
	}
	ctx := m.ctx(c.seq, uint32(c.deck), ctxShuffle)
	var out mp.Deck
	var prf []byte
	var err error
	if c.prep.For(m.joint, len(in)) {
		out, prf, err = c.prep.Shuffle(ctx, m.me, in)
		m.prepared++
	} else {
		out, prf, err = mp.Shuffle(m.rand, ctx, m.me, m.joint, in)
	}
	c.prep = nil
	if err != nil {
		m.cheat(CheatForgedShuffle, m.me, fmt.Sprintf("this peer could not shuffle deck %d: %v", c.deck, err))
		return
	}
	env := &crypto.Envelope{Seq: c.seq, Kind: crypto.KindShuffle, StateHash: c.state, Body: (&shuffleBody{Deck: c.deck, Output: out.Bytes(), Proof: prf}).encode()}
	m.sign(env)
	c.links[m.me] = link{env: env, out: out, proof: prf, verified: true}
}
