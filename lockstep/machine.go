package lockstep

import (
	"bytes"
	"fmt"
	"sort"

	"github.com/boardmesh/boardmesh/crypto"
	"github.com/boardmesh/boardmesh/engine"
)

// machine is the deterministic core shared by Node and Verify: it takes
// log entries in log order, checks each one as the next entry of the
// session, and applies it. It knows nothing of arrival order, buffering or
// time; Node decides when an entry is ready, Verify feeds a stored log.
type machine struct {
	games func(string) (*engine.Game, error)
	// record keeps a description of every step (for replay); off in Node's
	// hot path and in benchmarks.
	record bool
	// checkSigs makes apply verify signatures (Verify); Node verifies on
	// receipt instead, once per envelope.
	checkSigs bool
	// onStep, if set, sees every step with the states before and after it
	// (Verifier.OnStep); prevSt is the clone of the state before the next
	// step, kept only while onStep is set.
	onStep func(prev, next engine.State, info stepInfo)
	prevSt engine.State

	phase   Phase
	lobby   crypto.Hash
	joins   []*joinBody
	joinEnv []*crypto.Envelope
	roster  *rosterBody
	host    crypto.PeerID
	session crypto.Hash
	game    *engine.Game
	members []*mstate
	byID    map[crypto.PeerID]int // lookup only; never iterated

	seats   []int // seat → member
	seatOf  []int // member → seat
	dropped []bool
	st      engine.State
	dropper engine.Dropper
	bots    []engine.Bot
	seq     uint64
	round   uint64 // the next beacon round
	turn    int
	needCP  bool
	// roundHash is the state hash when the next beacon round became due.
	// Reveals carry it rather than the current hash: a drop applied by a
	// Dropper changes the state while the round stays open, and a reveal,
	// once signed, can never be signed again for its round.
	roundHash crypto.Hash
	roundDue  bool
	agreed    uint64   // seq of the last checkpoint round that matched
	cps       []uint64 // seqs of every checkpoint round that matched, ascending

	// group is the partial group being committed (a round of accepts,
	// reveals, checkpoints or drop votes); who lists its authors in order.
	group     []*crypto.Envelope
	groupWho  []int
	groupKind crypto.Kind
	dropSet   []int

	hashes []crypto.Hash // hashes[s] = hash of the state after s steps
	// posStart is the first step of the current log position (posSet
	// says it is known): a secret table counts steps with no entry (a
	// wait for cards ended, a drop's step), so one log position can see
	// several steps, and a drop vote there may name any of them
	// (voteStep). Set lazily, at the first step or question after the
	// entry that made the position, once that entry's own steps are done.
	posStart uint64
	posSet   bool
	steps    []stepInfo    // steps[s] = the step from s to s+1
	beacons  []crypto.Hash // beacons[k] = beacon round k
	log      []*crypto.Envelope
	logSeq   []uint64 // logSeq[i] = machine seq when entry i was committed
	enc      *engine.Encoder
	scratch  []byte
	reveals  []crypto.Hash
	events   []Event // produced by apply, drained by Node

	// Secret tables (secret.go): this peer's identity and card layer
	// maker (Node only), the layer once the seats are drawn, and whether
	// the state's wait for cards has not been counted as a step yet.
	me        *crypto.Identity
	cardMaker CardMaker
	verifier  func(*crypto.Envelope) error // Config.Verifier, for the card layer
	cards     CardLayer
	// cardKey and cardOwn are what a restarted seat's layer takes up
	// again (Config.CardKey, the card envelopes of Config.Sent).
	cardKey      []byte
	cardOwn      []*crypto.Envelope
	cardHold     bool // the layer is made held (CardConfig.Hold): a restart with the card key on disk
	cardsPending bool
	// dropCards: seats dropped by agreement on a secret table whose keys
	// the card layer is rebuilding (secretdrop.go); nothing else is due
	// until that drop step is counted.
	dropCards []int
	// claimed is the result of a game ended by a claim (claim.go).
	claimed *engine.Result
	// cardRefused is the last action the card layer refused (a card it
	// shows that does not match its ciphertext): the signed proof of the
	// cheat the layer names for it (claim.go's proveCheat).
	cardRefused *crypto.Envelope
	cardsSynced bool // the layer has been told of the current wait
	// pubKnown marks the cards known public (newlyPublic); opened lists
	// those the card layer opened to everyone since the last action, which
	// the next action carries (secretAction).
	pubKnown [][]bool
	opened   []pubCard
	// ahead is the rest of the log Verify is reading (after the entry fed):
	// a wait for cards closed by a checkpoint or a reveal takes the public
	// values from the next action's list.
	ahead []*crypto.Envelope
	// cardHint, if set (Verifier.SetCardHint), tells the values of cards
	// opened to everyone that a live peer's card layer knows before the
	// next action lists them.
	cardHint func(engine.Handle) (int, bool)
}

// mstate is a member and its hash chain.
type mstate struct {
	Member
	segEnd uint64      // first round the current segment does not cover
	last   crypto.Hash // last revealed element, or the segment's commitment
	ext    []segment   // committed extensions not yet in use, in order
}

type segment struct {
	start, n   uint64
	commitment crypto.Hash
}

// chainEnd is the first round no known segment of m covers.
func (m *mstate) chainEnd() uint64 {
	if len(m.ext) > 0 {
		x := m.ext[len(m.ext)-1]
		return x.start + x.n
	}
	return m.segEnd
}

// stepInfo describes one step for reports and replays.
type stepInfo struct {
	Kind   string        // "action", "chance", "bot", "drop"
	Author crypto.PeerID // for actions
	Seat   int
	Entry  int           // log index of the entry that completed the step, -1 for a bot's move
	What   string        // the action's description when recording
	Action engine.Action // the action of an action or bot step, when observed
	// mover, for a drop, is the seat that was to act before it (-1 if
	// none): an action for the step from that seat was its author's to
	// take (outOfTurn).
	mover int
}

func newMachine(games func(string) (*engine.Game, error)) *machine {
	return &machine{games: games, phase: PhaseLobby, byID: map[crypto.PeerID]int{}, enc: engine.NewEncoder(nil)}
}

// fresh is a new machine with m's settings and none of its entries: this
// peer's identity and card layer maker (Node's), how it checks and
// records. A re-proposal replays the lobby on one (supersede); a bare
// newMachine there lost the card layer maker, and at a secret table the
// seats then drew as a spectator's: no card layer, and the peer's first
// move that opened a card was refused ("this peer has no hidden-card
// layer").
func (m *machine) fresh() *machine {
	f := newMachine(m.games)
	f.record, f.checkSigs, f.onStep = m.record, m.checkSigs, m.onStep
	f.me, f.cardMaker, f.verifier = m.me, m.cardMaker, m.verifier
	f.cardKey, f.cardOwn, f.cardHold, f.cardHint = m.cardKey, m.cardOwn, m.cardHold, m.cardHint
	return f
}

// expectation is what may come next at a group boundary: a group of kind
// from the members who, in that order, at seq, carrying hash.
type expectation struct {
	kind crypto.Kind
	seq  uint64
	who  []int
	hash crypto.Hash
	what string // for waiting messages
}

// activeMembers lists the members of seats not dropped, in seat order.
func (m *machine) activeMembers() []int {
	out := make([]int, 0, len(m.seats))
	for seat, mi := range m.seats {
		if !m.dropped[seat] {
			out = append(out, mi)
		}
	}
	return out
}

func (m *machine) allMembers() []int {
	out := make([]int, len(m.members))
	for i := range out {
		out[i] = i
	}
	return out
}

// expect says what the session waits for next. ok is false when nothing
// more can come (lobby before the roster, game over, stopped).
func (m *machine) expect() (x expectation, ok bool) {
	if m.group != nil {
		return expectation{kind: m.groupKind, seq: m.groupSeq(), who: m.groupWho, hash: m.groupHash(), what: kindWhat(m.groupKind)}, true
	}
	switch m.phase {
	case PhaseAccept:
		return expectation{kind: crypto.KindAccept, who: m.allMembers(), what: "an accept"}, true
	case PhaseSeats:
		// Waiting() words it "waiting for bob's seat draw (12 s)".
		return expectation{kind: crypto.KindReveal, seq: m.roster.Draw, who: m.allMembers(), what: "its seat draw"}, true
	case PhasePlaying:
		h := m.hashes[m.seq]
		if m.needCP {
			return expectation{kind: crypto.KindCheckpoint, seq: m.seq, who: m.activeMembers(), hash: h, what: "a checkpoint"}, true
		}
		if m.cardsPending || len(m.dropCards) > 0 {
			// The card layer, not the log, moves the state on.
			return expectation{}, false
		}
		who := m.st.ToAct()
		switch who.Kind {
		case engine.ActorChance:
			return expectation{kind: crypto.KindReveal, seq: m.round, who: m.activeMembers(), hash: m.roundHash, what: "a reveal"}, true
		case engine.ActorSeat:
			return expectation{kind: crypto.KindAction, seq: m.seq, who: []int{m.seats[who.Seat]}, hash: h, what: "an action"}, true
		}
	}
	return expectation{}, false
}

func kindWhat(k crypto.Kind) string {
	switch k {
	case crypto.KindAccept:
		return "an accept"
	case crypto.KindReveal:
		return "a reveal"
	case crypto.KindCheckpoint:
		return "a checkpoint"
	case crypto.KindDrop:
		return "a drop vote"
	case crypto.KindAction:
		return "an action"
	}
	return k.String()
}

func (m *machine) groupSeq() uint64 {
	if m.groupKind == crypto.KindDrop && len(m.group) > 0 {
		return m.group[0].Seq
	}
	if len(m.group) > 0 {
		return m.group[0].Seq
	}
	return 0
}

func (m *machine) groupHash() crypto.Hash {
	if len(m.group) > 0 {
		return m.group[0].StateHash
	}
	return crypto.Hash{}
}

// member returns the member index of an author.
func (m *machine) member(id crypto.PeerID) (int, bool) {
	i, ok := m.byID[id]
	return i, ok
}

// seatOfPeer is the seat of a peer, or -1.
func (m *machine) seatOfPeer(id crypto.PeerID) int {
	if i, ok := m.byID[id]; ok && m.seatOf != nil {
		return m.seatOf[i]
	}
	return -1
}

func (m *machine) name(mi int) string {
	if mi >= 0 && mi < len(m.members) {
		if n := m.members[mi].Name; n != "" {
			return n
		}
		return shortID(m.members[mi].ID)
	}
	return "?"
}

// sessionOf is the session id an envelope of kind must carry.
func (m *machine) sessionOf(k crypto.Kind) crypto.Hash {
	if k == crypto.KindJoin || k == crypto.KindRoster {
		return m.lobby
	}
	return m.session
}

// check tests env as the next entry in the current position without
// changing anything. For a group it checks env as the contribution of
// member who at the group's next position; Node calls it for each member
// of a group before committing any, so a group goes in whole or not at all.
func (m *machine) check(env *crypto.Envelope, x expectation, who int) error {
	if env.Kind != x.kind || env.Seq != x.seq {
		return fmt.Errorf("%w: %s seq %d where %s seq %d is due", ErrUnexpected, env.Kind, env.Seq, x.kind, x.seq)
	}
	if env.Session != m.session {
		return ErrWrongSession
	}
	if mi, ok := m.member(env.Author); !ok {
		return ErrNotMember
	} else if mi != who {
		if x.kind == crypto.KindAction {
			return fmt.Errorf("%w: %s is to act, not %s", ErrNotYourTurn, m.name(who), m.name(mi))
		}
		return fmt.Errorf("%w: %s from %s where %s's is due", ErrUnexpected, env.Kind, m.name(mi), m.name(who))
	}
	if m.checkSigs {
		if err := crypto.VerifyBuf(env, m.scratch); err != nil {
			return err
		}
	}
	switch env.Kind {
	case crypto.KindAccept:
		if len(env.Body) != 0 || !env.StateHash.IsZero() {
			return fmt.Errorf("%w: accept with a body or state hash", ErrBadBody)
		}
	case crypto.KindReveal:
		if env.StateHash != x.hash {
			return fmt.Errorf("%w: reveal for state %s, ours is %s", ErrStateHash, env.StateHash.Short(), x.hash.Short())
		}
		r, err := decodeHashBody(env.Kind, env.Body)
		if err != nil {
			return err
		}
		mem := m.members[who]
		prev := mem.last
		if env.Seq >= mem.segEnd {
			if len(mem.ext) == 0 || mem.ext[0].start != env.Seq {
				return fmt.Errorf("%w: %s's chain ends before round %d and has no extension", ErrBadReveal, m.name(who), env.Seq)
			}
			prev = mem.ext[0].commitment
		}
		v := r
		if m.phase == PhaseSeats {
			// The seat draw of a re-proposed roster is chain element
			// Draw+1: Draw hashes from it lead to element 1, the one
			// after the join's commitment (Draw < ChainLen, checkRosterBody).
			for i := uint64(0); i < env.Seq; i++ {
				v = crypto.ChainHash(v)
			}
		}
		if err := crypto.CheckReveal(prev, v); err != nil {
			return fmt.Errorf("%w (round %d, from %s)", err, env.Seq, m.name(who))
		}
	case crypto.KindCheckpoint:
		turn, err := decodeUintBody(env.Kind, env.Body)
		if err != nil {
			return err
		}
		if env.StateHash != x.hash || turn != uint64(m.turn) {
			return fmt.Errorf("%w: %s has %s (turn %d) at step %d, ours is %s (turn %d)", ErrCheckpoint,
				m.name(who), env.StateHash.Short(), turn, env.Seq, x.hash.Short(), m.turn)
		}
	case crypto.KindAction:
		if env.StateHash != x.hash {
			return fmt.Errorf("%w: action for state %s, ours is %s", ErrStateHash, env.StateHash.Short(), x.hash.Short())
		}
		s, err := m.decodeActionBody(env.Body)
		if err != nil {
			return err
		}
		if m.roster.Secret && m.cards != nil {
			if err := m.checkOpened(s); err != nil {
				return err
			}
		}
		// Legality is checked by apply: Apply validates before it
		// mutates, so a refused action leaves everything as it was, and a
		// clone here would double the cost of every action.
	case crypto.KindDrop:
		if _, ok := m.voteStep(env.StateHash); !ok {
			return fmt.Errorf("%w: drop vote for state %s, not one of this log position's (ours is %s)", ErrStateHash, env.StateHash.Short(), m.hashes[m.seq].Short())
		}
		seats, err := decodeSeats(env.Body, len(m.seats))
		if err != nil {
			return err
		}
		if !equalInts(seats, m.dropSet) {
			return fmt.Errorf("%w: drop vote for seats %v in a vote for %v", ErrUnexpected, seats, m.dropSet)
		}
	}
	return nil
}

// apply commits env, which check accepted, as the next entry.
func (m *machine) apply(env *crypto.Envelope, x expectation) error {
	if env.Kind == crypto.KindAction {
		return m.applyAction(env)
	}
	if m.group == nil {
		m.group, m.groupWho, m.groupKind = []*crypto.Envelope{}, x.who, x.kind
	}
	m.group = append(m.group, env)
	m.appendLog(env)
	if env.Kind == crypto.KindReveal {
		mi := m.byID[env.Author]
		mem := m.members[mi]
		if env.Seq >= mem.segEnd {
			s := mem.ext[0]
			mem.ext = mem.ext[1:]
			mem.segEnd = s.start + s.n
		}
		r, _ := decodeHashBody(env.Kind, env.Body)
		mem.last = r
	}
	if len(m.group) < len(m.groupWho) {
		return nil
	}
	g := m.group
	m.group, m.groupWho = nil, nil
	switch x.kind {
	case crypto.KindAccept:
		m.phase = PhaseSeats
		return nil
	case crypto.KindReveal:
		return m.finishReveals(g)
	case crypto.KindCheckpoint:
		m.needCP = false
		m.agreed = m.seq
		m.cps = append(m.cps, m.seq)
		if m.st.ToAct().Kind == engine.ActorOver {
			m.phase = PhaseOver
			r := m.st.Result()
			m.events = append(m.events, Event{Kind: EventGameOver, Seq: m.seq, Result: &r, Text: "game over: " + r.Reason})
			return nil
		}
		m.events = append(m.events, Event{Kind: EventTurn, Seat: m.st.ToAct().Seat + 1, Turn: m.turn, Seq: m.seq,
			Text: fmt.Sprintf("turn %d begins", m.turn+1)})
		return m.autoplay()
	case crypto.KindDrop:
		// The drop is taken at the step its votes name: the latest of
		// them, which every peer that commits it is at.
		if k, ok := m.dropStep(g); !ok || k != m.seq {
			return fmt.Errorf("%w: the drop votes name no state this peer is in at step %d", ErrStateHash, m.seq)
		}
		return m.finishDrop()
	}
	return nil
}

// applyAction applies an action, or returns ErrIllegal with nothing
// changed.
func (m *machine) applyAction(env *crypto.Envelope) error {
	s, err := m.decodeActionBody(env.Body)
	if err != nil {
		return err
	}
	a := s.a
	seat := m.seatOf[m.byID[env.Author]]
	var what string
	if m.record {
		what = m.st.Describe(a)
	}
	switch {
	case !m.roster.Secret:
		err = m.st.Apply(seat, a)
	case m.cards == nil:
		// Verify: the values the move shows, unchecked against the
		// ciphertexts (the log has none); the state hashes every seat
		// signs after it bind them.
		var rs []Revealed
		if rs, err = DecodeReveals(s.reveals); err == nil {
			vals := make([]int, len(rs))
			for i, r := range rs {
				vals[i] = int(r.Card)
			}
			err = m.st.(engine.CardState).ApplyRevealed(seat, a, vals)
		}
	default:
		// A card layer stopped by a proven cheat (its own event named
		// the cheater) can check no card: the move waits, and its honest
		// mover is not blamed for the deal's end.
		if cerr := m.cards.Err(); cerr != nil {
			return fmt.Errorf("%w: %v", errCardsStopped, cerr)
		}
		// The cards the move shows are checked against their
		// ciphertexts first; a forged one is named by the card layer.
		if err = m.cards.Apply(seat, a, env.Seq, s.reveals); err != nil {
			m.cardRefused = env
		}
	}
	if err != nil {
		return fmt.Errorf("%w: %v", ErrIllegal, err)
	}
	if m.roster.Secret {
		m.newlyPublic() // what the move showed: not the card layer's
		m.opened = nil
	}
	m.appendLog(env)
	return m.stepDone(stepInfo{Kind: "action", Author: env.Author, Seat: seat, Entry: len(m.log) - 1, What: what, Action: a})
}

func (m *machine) appendLog(env *crypto.Envelope) {
	m.log = append(m.log, env)
	m.logSeq = append(m.logSeq, m.seq)
	if env.Kind != crypto.KindDrop {
		// A new log position. (A drop round's votes all name the position
		// of its first: it starts anew once the round is complete,
		// finishDrop.)
		m.posSet = false
	}
}

// posFrom is the first step of the current log position (posStart).
func (m *machine) posFrom() uint64 {
	if !m.posSet {
		m.posSet, m.posStart = true, m.seq
	}
	return m.posStart
}

// voteStep is the step at the current log position whose state hash is h
// (the latest, should two have one hash), if any: what a drop vote cast
// here names. A vote names the step its voter was at, and at a secret
// table two honest voters may be at two steps of one position (one ended
// a wait for cards, with no entry, before it voted; the other voted while
// the wait was open). Their votes make one drop, taken at the latest step
// any of them names (dropStep).
func (m *machine) voteStep(h crypto.Hash) (uint64, bool) {
	from := m.posFrom()
	for k := m.seq; k >= from && k < uint64(len(m.hashes)); k-- {
		if m.hashes[k] == h {
			return k, true
		}
		if k == 0 {
			break
		}
	}
	return 0, false
}

// dropStep is the step a round of drop votes names: the latest any of
// them names, or false if one names no step of this position (yet).
func (m *machine) dropStep(votes []*crypto.Envelope) (uint64, bool) {
	var at uint64
	for i, env := range votes {
		k, ok := m.voteStep(env.StateHash)
		if !ok {
			return 0, false
		}
		if i == 0 || k > at {
			at = k
		}
	}
	return at, len(votes) > 0
}

// finishReveals computes the beacon of a complete round and uses it.
func (m *machine) finishReveals(g []*crypto.Envelope) error {
	m.reveals = m.reveals[:0]
	for _, env := range g {
		r, _ := decodeHashBody(env.Kind, env.Body)
		m.reveals = append(m.reveals, r)
	}
	k := g[0].Seq
	b := crypto.Beacon(m.session, k, m.reveals)
	m.beacons = append(m.beacons, b)
	m.round = k + 1
	m.roundDue = false
	if m.phase == PhaseSeats {
		return m.drawSeats(b)
	}
	info := stepInfo{Kind: "chance", Seat: -1, Entry: len(m.log) - 1}
	if m.record {
		info.What = fmt.Sprintf("beacon round %d: %s", k, b.Short())
	}
	if err := m.st.ApplyChance(b[:]); err != nil {
		return fmt.Errorf("lockstep: chance step failed: %w", err)
	}
	return m.stepDone(info)
}

// drawSeats turns beacon round 0 into the seating: the members in roster
// order, shuffled with the engine's pinned random stream.
func (m *machine) drawSeats(b crypto.Hash) error {
	n := len(m.members)
	m.seats = make([]int, n)
	for i := range m.seats {
		m.seats[i] = i
	}
	engine.NewRand(b[:]).Shuffle(n, func(i, j int) { m.seats[i], m.seats[j] = m.seats[j], m.seats[i] })
	m.seatOf = make([]int, n)
	for seat, mi := range m.seats {
		m.seatOf[mi] = seat
	}
	m.dropped = make([]bool, n)
	m.bots = make([]engine.Bot, n)
	st, err := m.game.Setup(n, m.roster.Options)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrRefused, err)
	}
	m.st = st
	if m.roster.Secret {
		if err := m.startCards(); err != nil {
			return err
		}
		m.newlyPublic() // the face-up decks: public from the start
		m.cardsPending = st.ToAct().Kind == engine.ActorCards
	}
	m.dropper, _ = st.(engine.Dropper)
	m.turn = st.Turn()
	m.hashes = append(m.hashes[:0], crypto.Hash(engine.HashWith(m.enc, st)))
	m.cardsAt()
	if m.onStep != nil {
		m.prevSt = st.Clone()
	}
	m.noteRound()
	m.phase = PhasePlaying
	text := "seats drawn; the game begins"
	if m.roster.Secret {
		text += " at a secret table: no peer can learn a card it may not see"
	} else if _, ok := st.(engine.CardState); ok {
		text += " with open hands: every peer's engine holds every card drawn"
	}
	m.events = append(m.events, Event{Kind: EventStarted, Text: text})
	return m.autoplay()
}

// stepDone records a step and decides whether a checkpoint round is due.
// noteRound records the state hash when a beacon round becomes due.
func (m *machine) noteRound() {
	if !m.roundDue && m.st.ToAct().Kind == engine.ActorChance {
		m.roundDue, m.roundHash = true, m.hashes[m.seq]
	}
}

func (m *machine) stepDone(info stepInfo) error {
	m.seq++
	m.steps = append(m.steps, info)
	m.hashes = append(m.hashes, crypto.Hash(engine.HashWith(m.enc, m.st)))
	m.cardsAt()
	m.observe(info)
	m.noteRound()
	if m.roster.Secret && m.st.ToAct().Kind == engine.ActorCards {
		m.cardsPending = true
	}
	if t := m.st.Turn(); t != m.turn || m.st.ToAct().Kind == engine.ActorOver {
		m.turn = t
		m.needCP = true
		return nil
	}
	return m.autoplay()
}

// observe hands a finished step to onStep with the states around it.
func (m *machine) observe(info stepInfo) {
	if m.onStep == nil || m.prevSt == nil {
		return
	}
	next := m.st.Clone()
	m.onStep(m.prevSt, next, info)
	m.prevSt = next.Clone()
}

// outOfTurn reports whether an action never committed for its step was
// signed by a seat that was not to act there. The seat that was to move
// when the step became a drop, or whose dropped seat's move its bot made,
// signed it in turn: the first action of a turn may be sent with its
// author's checkpoint (Node.CanAct), before a drop at that checkpoint
// round changed the state or took its seat.
func (m *machine) outOfTurn(env *crypto.Envelope) bool {
	st := m.steps[env.Seq]
	seat := m.seatOfPeer(env.Author)
	switch st.Kind {
	case "drop":
		return st.mover != seat
	case "bot":
		return st.Seat != seat
	}
	return st.Author != env.Author
}

// autoplay moves for dropped seats of games without a Dropper: every peer
// plays them with the game's first bot, seeded from the session and seq,
// so every peer computes the same move without any message.
func (m *machine) autoplay() error {
	for !m.needCP && m.phase == PhasePlaying && len(m.dropCards) == 0 {
		who := m.st.ToAct()
		if who.Kind != engine.ActorSeat || !m.dropped[who.Seat] {
			return nil
		}
		legal := m.st.Legal(nil)
		if len(legal) == 0 {
			return fmt.Errorf("lockstep: seat %d to act with no legal action", who.Seat+1)
		}
		if m.bots[who.Seat] == nil {
			m.bots[who.Seat] = m.game.Bots[0].New()
		}
		r := engine.NewRand(engine.Derive(m.session[:], "dropped-seat", m.seq))
		a := m.bots[who.Seat].Choose(m.st, legal, r)
		info := stepInfo{Kind: "bot", Seat: who.Seat, Entry: -1, Action: a}
		if m.record {
			info.What = m.st.Describe(a)
		}
		if err := m.st.Apply(who.Seat, a); err != nil {
			return fmt.Errorf("lockstep: bot for dropped seat %d: %w", who.Seat+1, err)
		}
		if err := m.stepDone(info); err != nil {
			return err
		}
	}
	return nil
}

// finishDrop applies a complete round of drop votes.
func (m *machine) finishDrop() error {
	seats := m.dropSet
	m.dropSet = nil
	m.posSet = false // the next log position starts after the round
	for _, s := range seats {
		m.dropped[s] = true
	}
	m.events = append(m.events, Event{Kind: EventDropped, Seats: seats, Seq: m.seq,
		Text: fmt.Sprintf("dropped by agreement: %s", m.seatNames(seats))})
	if m.roster.Secret {
		// The dropped seats' keys are rebuilt from the others' escrow
		// pieces first (secretdrop.go); the game's drop follows.
		return m.startCardDrop(seats)
	}
	return m.applyDrop(seats)
}

// applyDrop has the game drop seats (its Dropper), or plays them by bot.
func (m *machine) applyDrop(seats []int) error {
	if m.dropper != nil {
		mover := -1
		if a := m.st.ToAct(); a.Kind == engine.ActorSeat {
			mover = a.Seat
		}
		for _, s := range seats {
			if err := m.dropper.Drop(s); err != nil {
				return fmt.Errorf("lockstep: game refused to drop seat %d: %w", s+1, err)
			}
		}
		// The state changed outside any entry, so the peers confirm it
		// with a checkpoint round before going on.
		m.seq++
		m.steps = append(m.steps, stepInfo{Kind: "drop", Seat: seats[0], Entry: len(m.log) - 1, What: "drop " + m.seatNames(seats), mover: mover})
		m.hashes = append(m.hashes, crypto.Hash(engine.HashWith(m.enc, m.st)))
		m.cardsAt()
		m.observe(m.steps[len(m.steps)-1])
		m.noteRound()
		m.turn = m.st.Turn()
		m.needCP = true
		if m.roster.Secret && m.st.ToAct().Kind == engine.ActorCards {
			// The game's drop may ask for cards (a dropped seat's turn
			// passed to the next, who draws).
			m.cardsPending = true
		}
		return nil
	}
	return m.autoplay()
}

func (m *machine) seatNames(seats []int) string {
	var b bytes.Buffer
	for i, s := range seats {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s (seat %d)", m.name(m.seats[s]), s+1)
	}
	return b.String()
}

// dropVoters lists, in seat order, the members who must vote to drop seats.
func (m *machine) dropVoters(seats []int) []int {
	var out []int
	for seat, mi := range m.seats {
		if !m.dropped[seat] && !containsInt(seats, seat) {
			out = append(out, mi)
		}
	}
	return out
}

// dropQuorum is the voters a drop of seats needs (every seat in play
// outside it) and whether they are a strict majority of the seats still in
// play: two sides of a partition can then never drop each other and play
// on as two games. (A table of two can therefore not drop; it waits.)
func (m *machine) dropQuorum(seats []int) ([]int, bool) {
	who := m.dropVoters(seats)
	active := 0
	for _, d := range m.dropped {
		if !d {
			active++
		}
	}
	return who, len(who) > 0 && 2*len(who) > active
}

// dropExpectation is the group of votes that drops seats at the current
// step. ok is false if the drop is impossible (a seat already dropped or
// no voter left).
func (m *machine) dropExpectation(seats []int) (expectation, bool) {
	if m.phase != PhasePlaying || m.group != nil {
		return expectation{}, false
	}
	for _, s := range seats {
		if s < 0 || s >= len(m.dropped) || m.dropped[s] {
			return expectation{}, false
		}
	}
	who, ok := m.dropQuorum(seats)
	if !ok {
		return expectation{}, false
	}
	// A drop vote names the log position where the drop goes (its seq),
	// and the state its voter is in (hash): one step can be waited on at
	// two positions (its checkpoint round, then its action or reveals),
	// and a vote cast at one must never count at the other; one position
	// can see several steps at a secret table (voteStep).
	return expectation{kind: crypto.KindDrop, seq: uint64(len(m.log)), who: who, hash: m.hashes[m.seq], what: "a drop vote"}, true
}

// startDrop opens a drop group (check and apply then take the votes).
func (m *machine) startDrop(seats []int) { m.dropSet = append([]int(nil), seats...) }

// checkExtend tests an extension as the next entry.
func (m *machine) checkExtend(env *crypto.Envelope) (*extendBody, int, error) {
	if m.phase != PhasePlaying || m.group != nil || m.needCP || m.st.ToAct().Kind != engine.ActorChance {
		return nil, 0, fmt.Errorf("%w: a chain extension goes only right before a reveal round", ErrUnexpected)
	}
	if env.Session != m.session {
		return nil, 0, ErrWrongSession
	}
	mi, ok := m.member(env.Author)
	if !ok {
		return nil, 0, ErrNotMember
	}
	if m.dropped[m.seatOf[mi]] {
		return nil, 0, ErrDropped
	}
	if m.checkSigs {
		if err := crypto.VerifyBuf(env, m.scratch); err != nil {
			return nil, 0, err
		}
	}
	x, err := decodeExtend(env.Body)
	if err != nil {
		return nil, 0, err
	}
	end := m.members[mi].chainEnd()
	if env.Seq != end || end > m.round || !env.StateHash.IsZero() {
		return nil, 0, fmt.Errorf("%w: extension of %s from round %d; its chain ends at round %d, the next round is %d",
			ErrUnexpected, m.name(mi), env.Seq, end, m.round)
	}
	return x, mi, nil
}

func (m *machine) applyExtend(env *crypto.Envelope, x *extendBody, mi int) {
	mem := m.members[mi]
	mem.ext = append(mem.ext, segment{start: env.Seq, n: x.ChainLen, commitment: x.Commitment})
	m.appendLog(env)
	m.events = append(m.events, Event{Kind: EventExtended, Peer: env.Author, Seat: m.seatOf[mi] + 1, Seq: env.Seq,
		Text: fmt.Sprintf("%s extended its hash chain from round %d", m.name(mi), env.Seq)})
}

// extensionsNeeded lists the active members whose chains do not cover
// round r, in seat order.
func (m *machine) extensionsNeeded(r uint64) []int {
	var out []int
	for seat, mi := range m.seats {
		if !m.dropped[seat] && m.members[mi].chainEnd() <= r {
			out = append(out, mi)
		}
	}
	return out
}

// --- lobby ---

// checkJoin tests a join as the next lobby entry.
func (m *machine) checkJoin(env *crypto.Envelope) (*joinBody, error) {
	if m.phase != PhaseLobby {
		return nil, fmt.Errorf("%w: join after the roster", ErrUnexpected)
	}
	if len(m.joins) > 0 && env.Session != m.lobby {
		return nil, ErrWrongSession
	}
	if env.Seq != 0 || !env.StateHash.IsZero() {
		return nil, fmt.Errorf("%w: join with a seq or state hash", ErrBadBody)
	}
	if m.checkSigs {
		if err := crypto.VerifyBuf(env, m.scratch); err != nil {
			return nil, err
		}
	}
	j, err := decodeJoin(env.Body)
	if err != nil {
		return nil, err
	}
	if _, dup := m.byID[env.Author]; dup {
		return nil, fmt.Errorf("%w: second join from %s", ErrUnexpected, j.Name)
	}
	if n := len(m.joinEnv); n > 0 && m.joinEnv[n-1].Author >= env.Author {
		return nil, fmt.Errorf("%w: joins not in roster order", ErrUnexpected)
	}
	return j, nil
}

func (m *machine) applyJoin(env *crypto.Envelope, j *joinBody) {
	m.lobby = env.Session
	m.byID[env.Author] = len(m.joins)
	m.joins = append(m.joins, j)
	m.joinEnv = append(m.joinEnv, env)
	m.appendLog(env)
}

// checkRoster tests a roster against the joins committed before it.
func (m *machine) checkRoster(env *crypto.Envelope) (*rosterBody, *engine.Game, error) {
	if m.phase != PhaseLobby || len(m.joins) == 0 {
		return nil, nil, fmt.Errorf("%w: roster without joins before it", ErrUnexpected)
	}
	if env.Session != m.lobby {
		return nil, nil, ErrWrongSession
	}
	if env.Seq != 0 || !env.StateHash.IsZero() {
		return nil, nil, fmt.Errorf("%w: roster with a seq or state hash", ErrBadBody)
	}
	if m.checkSigs {
		if err := crypto.VerifyBuf(env, m.scratch); err != nil {
			return nil, nil, err
		}
	}
	r, err := decodeRoster(env.Body)
	if err != nil {
		return nil, nil, err
	}
	return m.checkRosterBody(env, r)
}

func (m *machine) checkRosterBody(env *crypto.Envelope, r *rosterBody) (*rosterBody, *engine.Game, error) {
	if r.Lobby != m.lobby {
		return nil, nil, fmt.Errorf("%w: roster names lobby %s", ErrWrongSession, r.Lobby.Short())
	}
	if len(r.Members) != len(m.joins) {
		return nil, nil, fmt.Errorf("%w: roster of %d members after %d joins", ErrUnexpected, len(r.Members), len(m.joins))
	}
	host := -1
	for i, mem := range r.Members {
		j := m.joins[i]
		if mem.ID != m.joinEnv[i].Author || mem.Name != j.Name || mem.Commitment != j.Commitment || mem.ChainLen != j.ChainLen {
			return nil, nil, fmt.Errorf("%w: roster member %d does not match its join", ErrUnexpected, i)
		}
		if mem.ID == env.Author {
			host = i
		}
	}
	if host < 0 || m.joins[host].Game == "" {
		return nil, nil, fmt.Errorf("%w: roster not signed by the lobby's host", ErrUnexpected)
	}
	hj := m.joins[host]
	if hj.Game != r.Game || hj.Version != r.Version || hj.Options.String() != r.Options.String() {
		return nil, nil, fmt.Errorf("%w: roster game differs from the lobby's", ErrUnexpected)
	}
	if m.games == nil {
		return nil, nil, fmt.Errorf("%w: no games known", ErrRefused)
	}
	g, err := m.games(r.Game)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %v", ErrRefused, err)
	}
	if g.Version != r.Version {
		return nil, nil, fmt.Errorf("%w: the table plays %s rules version %s; this program has version %s",
			ErrRefused, g.Title, r.Version, g.Version)
	}
	opts, err := engine.ResolveOptions(g.Options, r.Options)
	if err != nil || opts.String() != r.Options.String() {
		return nil, nil, fmt.Errorf("%w: options %q: %v", ErrRefused, r.Options, err)
	}
	if n := len(r.Members); n < g.MinPlayers || n > g.MaxPlayers {
		return nil, nil, fmt.Errorf("%w: %s is for %d to %d players, not %d", ErrRefused, g.Title, g.MinPlayers, g.MaxPlayers, n)
	}
	// Each re-proposal leaves at least one member out, so a lobby sees
	// fewer than maxMembers of them; and every chain must cover the draw.
	if r.Draw >= maxMembers {
		return nil, nil, fmt.Errorf("%w: roster draws the seats at round %d", ErrBadBody, r.Draw)
	}
	for _, mem := range r.Members {
		if r.Draw >= mem.ChainLen {
			return nil, nil, fmt.Errorf("%w: %s's chain ends before the seat draw's round %d", ErrBadBody, mem.Name, r.Draw)
		}
	}
	// The game's own setup checks what ResolveOptions cannot (a kingdom of
	// known cards, a rules table that parses): a roster it refuses could
	// never start, so every peer refuses it now, saying why, instead of
	// stalling at the seat draw.
	if _, err := g.Setup(len(r.Members), opts); err != nil {
		return nil, nil, fmt.Errorf("%w: the host's game cannot be set up: %v", ErrRefused, err)
	}
	return r, g, nil
}

func (m *machine) applyRoster(env *crypto.Envelope, r *rosterBody, g *engine.Game) {
	m.roster, m.game, m.host = r, g, env.Author
	m.session = crypto.SessionID(env.Body)
	for _, mem := range r.Members {
		m.members = append(m.members, &mstate{Member: mem, segEnd: mem.ChainLen, last: mem.Commitment})
	}
	m.round = r.Draw
	m.phase = PhaseAccept
	m.appendLog(env)
}

// --- evidence ---

// CheckEvidence verifies an equivocation proof on its own: two validly
// signed, different envelopes of one author for one slot. Anyone can run
// it, with no other context. It returns the cheating author.
func CheckEvidence(env *crypto.Envelope) (crypto.PeerID, error) {
	if env.Kind != crypto.KindEvidence {
		return "", fmt.Errorf("%w: not evidence", ErrBadBody)
	}
	a, b, err := decodeEvidence(env.Body)
	if err != nil {
		return "", err
	}
	if err := crypto.Verify(a); err != nil {
		return "", fmt.Errorf("first envelope: %w", err)
	}
	if err := crypto.Verify(b); err != nil {
		return "", fmt.Errorf("second envelope: %w", err)
	}
	if !crypto.SameSlot(a, b) || !evidenceKind(a.Kind) || a.Kind == crypto.KindDrop && !bytes.Equal(a.Body, b.Body) {
		return "", fmt.Errorf("%w: the two envelopes are not for one slot of a session", ErrBadBody)
	}
	if crypto.Equal(a, b) {
		return "", fmt.Errorf("%w: the two envelopes are the same", ErrBadBody)
	}
	if err := wellFormed(a); err != nil {
		return "", fmt.Errorf("first envelope: %w", err)
	}
	if err := wellFormed(b); err != nil {
		return "", fmt.Errorf("second envelope: %w", err)
	}
	return a.Author, nil
}

// evidenceKind reports whether two envelopes of kind k for one slot can
// prove an equivocation: the slots of a session. Joins and rosters are
// not: before the roster a joiner may join again (under another name, a
// later join replaces the first) and a host may propose again.
func evidenceKind(k crypto.Kind) bool {
	switch k {
	case crypto.KindAccept, crypto.KindReveal, crypto.KindAction, crypto.KindCheckpoint, crypto.KindExtend:
		return true
	case crypto.KindSettle:
		// One per voter and log position, whatever its seats: two that
		// name two rounds are what the rule of settling forbids
		// (advance.go), and could let two peers take two drops.
		return true
	case crypto.KindDrop:
		// For one seat set (one body): a voter votes to drop a set once
		// at a log position, in the state it is in, and the votes of one
		// position make one drop whichever of its states they name
		// (voteStep). Two for one set and two states would let two peers
		// take two different drops; a voter may vote for other sets.
		return true
	}
	// Every card envelope is one of its author's slots (lockstep/deal);
	// its signature alone makes the pair a proof, whatever its body.
	return k.Card()
}

// checkEvidence tests evidence as the next entry of the session without
// changing anything: it must come from a member, for this session, and
// prove that a member signed two envelopes for one slot of it. It returns
// the cheater and one of its two envelopes.
func (m *machine) checkEvidence(env *crypto.Envelope) (crypto.PeerID, *crypto.Envelope, error) {
	if m.phase == PhaseLobby || m.members == nil {
		return "", nil, fmt.Errorf("%w: evidence before the roster", ErrUnexpected)
	}
	if env.Session != m.session {
		return "", nil, ErrWrongSession
	}
	if _, ok := m.member(env.Author); !ok {
		return "", nil, ErrNotMember
	}
	if env.Seq != 0 || !env.StateHash.IsZero() {
		return "", nil, fmt.Errorf("%w: evidence with a seq or state hash", ErrBadBody)
	}
	if m.checkSigs {
		if err := crypto.VerifyBuf(env, m.scratch); err != nil {
			return "", nil, err
		}
	}
	cheat, err := CheckEvidence(env)
	if err != nil {
		return "", nil, err
	}
	if _, ok := m.member(cheat); !ok {
		return "", nil, fmt.Errorf("%w: the evidence is about %s, who is not a member", ErrNotMember, shortID(cheat))
	}
	x, _, _ := decodeEvidence(env.Body)
	if x.Session != m.session {
		return "", nil, fmt.Errorf("%w: evidence about another session", ErrWrongSession)
	}
	return cheat, x, nil
}

// slotKind reports whether an author may sign only one envelope of kind
// per (session, seq), so that de-duplication keys it by slot alone. Drop
// votes may be re-cast for other seat sets, a host may propose a roster
// again, and evidence and state envelopes are not slots: their body is
// part of the key.
func slotKind(k crypto.Kind) bool {
	switch k {
	case crypto.KindDrop, crypto.KindEvidence, crypto.KindState, crypto.KindRoster:
		return false
	}
	return true
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func containsInt(xs []int, x int) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// sortedSeats returns a sorted copy.
func sortedSeats(seats []int) []int {
	out := append([]int(nil), seats...)
	sort.Ints(out)
	return out
}

// feed checks and applies the next entry of a stored log, whatever its
// kind: the one entry point of Verify and of a node restarting from disk.
func (m *machine) feed(env *crypto.Envelope) error {
	if m.phase == PhaseStopped || m.phase == PhaseOver {
		return fmt.Errorf("%w: %s after the session ended", ErrUnexpected, env.Kind)
	}
	switch env.Kind {
	case crypto.KindEvidence:
		cheat, x, err := m.checkEvidence(env)
		if err != nil {
			return err
		}
		m.appendLog(env)
		m.phase = PhaseStopped
		who, seat := m.nameOf(cheat), m.seatOfPeer(cheat)+1
		if seat > 0 {
			who = fmt.Sprintf("%s (seat %d)", who, seat)
		}
		what := fmt.Sprintf("%s signed two different %s envelopes%s: proof of cheating, kept in the log; the game stops", who, x.Kind, x.Kind.ForSlot(x.Seq))
		m.events = append(m.events, Event{Kind: EventEquivocation, Cheat: CheatEquivocation, Peer: cheat, Seat: seat, Who: who,
			What: what, Evidence: env, Err: ErrEquivocation, Text: what})
		return nil
	case crypto.KindState:
		return fmt.Errorf("%w: a state envelope is not a log entry", ErrUnexpected)
	case crypto.KindSettle:
		return fmt.Errorf("%w: a settle envelope is not a log entry", ErrUnexpected)
	}
	if m.phase == PhaseLobby {
		switch env.Kind {
		case crypto.KindJoin:
			j, err := m.checkJoin(env)
			if err != nil {
				return err
			}
			m.applyJoin(env, j)
			return nil
		case crypto.KindRoster:
			r, g, err := m.checkRoster(env)
			if err != nil {
				return err
			}
			m.applyRoster(env, r, g)
			return nil
		}
		return fmt.Errorf("%w: %s in the lobby", ErrUnexpected, env.Kind)
	}
	// Verify (no card layer) goes past a wait for cards, and a pending
	// drop, before the entry that follows them. A drop vote cast during
	// the wait (the seat the deal waits for has left) signs the hash of
	// the waiting state: the wait is then still open. A claim ends the
	// log: what the claimant's cards did after the last action is not in
	// it (checkClaim).
	if m.endsWait(env) {
		if err := m.verifyCards(env); err != nil {
			return err
		}
		if err := m.verifyDrop(env); err != nil {
			return err
		}
	}
	if m.group == nil && m.phase == PhasePlaying {
		switch env.Kind {
		case crypto.KindClaim:
			seat, cheat, err := m.checkClaim(env, true)
			if err != nil {
				return err
			}
			m.applyClaim(env, seat, cheat)
			return nil
		case crypto.KindDrop:
			seats, err := decodeSeats(env.Body, len(m.seats))
			if err != nil {
				return err
			}
			x, ok := m.dropExpectation(seats)
			if !ok {
				return fmt.Errorf("%w: drop of seats %v is not possible here", ErrUnexpected, seats)
			}
			m.startDrop(seats)
			if err := m.check(env, x, x.who[0]); err != nil {
				m.dropSet = nil
				return err
			}
			return m.apply(env, x)
		case crypto.KindExtend:
			x, mi, err := m.checkExtend(env)
			if err != nil {
				return err
			}
			m.applyExtend(env, x, mi)
			return nil
		}
	}
	x, ok := m.expect()
	if !ok {
		return fmt.Errorf("%w: %s where nothing more is due", ErrUnexpected, env.Kind)
	}
	if x.kind == crypto.KindReveal && m.group == nil {
		if need := m.extensionsNeeded(x.seq); len(need) > 0 {
			return fmt.Errorf("%w: round %d needs a chain extension from %s first", ErrUnexpected, x.seq, m.name(need[0]))
		}
	}
	if err := m.check(env, x, x.who[len(m.group)]); err != nil {
		return err
	}
	return m.apply(env, x)
}

// endsWait reports whether env, fed next, first ends a wait for cards or
// a pending drop (feed). A drop vote does only when it names a state
// after the wait: one that names a step of this position signs the
// waiting state or one before it (voteStep).
func (m *machine) endsWait(env *crypto.Envelope) bool {
	if m.phase != PhasePlaying || env.Kind == crypto.KindClaim {
		return false
	}
	if env.Kind != crypto.KindDrop || m.group != nil && m.groupKind != crypto.KindDrop {
		return true
	}
	_, named := m.voteStep(env.StateHash)
	return !named
}

func (m *machine) nameOf(id crypto.PeerID) string {
	if mi, ok := m.byID[id]; ok {
		return m.name(mi)
	}
	return shortID(id)
}
