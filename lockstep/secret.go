package lockstep

import (
	"errors"
	"fmt"

	"github.com/boardmesh/boardmesh/crypto"
	"github.com/boardmesh/boardmesh/engine"
)

// A secret table (docs/hidden-cards.md) answers the engine's openings with
// the hidden-card protocol instead of the beacon. Its roster says so
// (rosterBody.Secret), so every member agrees on the mode or accepts no
// session. The protocol itself (package lockstep/deal, wrapped for one seat
// by lockstep/cardsource) is behind the CardLayer interface, so that this
// package's core does not depend on the mental-poker group arithmetic; the
// runner passes the constructor (Config.Cards).
//
// How a secret table's steps go:
//   - at the seat draw every seat's state is switched to secret cards and
//     its card layer starts the deal (keys, shuffle chains);
//   - while the state waits for cards (engine.ActorCards) no log entry is
//     due: the card layer's envelopes (crypto.Kind.Card) travel beside the
//     log, and when the state moves on the node counts one step of kind
//     "cards" (no entry, like a dropped seat's bot move: every peer takes
//     it at the same point, since the openings are a function of the
//     shared state);
//   - the action of a move that shows cards from the mover's hand carries
//     them, with the holder's decryption shares, in its body
//     (encodeSecretAction); every peer checks them against the cards'
//     ciphertexts before it applies the move.
//
// What is private (a seat's Knowledge, its mental-poker key) never enters
// the shared state, its hash, the log or an envelope.

// CardLayer is one seat's hidden-card protocol (cardsource.Layer).
type CardLayer interface {
	// Step takes a card envelope; a rejection is also named in a cheat of
	// the next TakeReady.
	Step(env *crypto.Envelope) error
	// Sync declares the openings the state waits for (the node calls it
	// once the step that made the state wait is counted).
	Sync()
	// HasWork and Work: one shuffle proof to make or check.
	HasWork() bool
	Work() bool
	// TakeReady returns and clears what the layer produced.
	TakeReady() CardReady
	// Reveal is the mover's side: the body part carrying the cards action
	// a at seq shows.
	Reveal(a engine.Action, seq uint64) ([]byte, error)
	// Apply checks the cards seat's action a at seq shows and applies it
	// to the state.
	Apply(seat int, a engine.Action, seq uint64, reveals []byte) error
	// Err is why the layer stopped, or nil.
	Err() error
	// Waiting says whom the deal waits for (seats 0-based), in words.
	Waiting() []CardWait
	// Held and Release: a layer made with CardConfig.Hold signs nothing
	// new until Release (the node calls it once every other seat has
	// answered its catch-up request, see releaseCards).
	Held() bool
	Release()
	// At tells the layer the hash of the shared state after the step just
	// counted (the node calls it after every step, on every peer alike):
	// the chains and batches the layer declares from then on answer that
	// state, and their envelopes carry its hash (lockstep/deal's state.go).
	At(h crypto.Hash)
	// Drop starts the drop of seat (0-based) in the card protocol, at the
	// drop's point of the log: the others publish their pieces of its key.
	Drop(seat int) error
	// DropDone reports whether seat's key is rebuilt and its cards shown.
	DropDone(seat int) bool
	// ShowDropped makes the cards dropped seat held public in the state.
	ShowDropped(seat int) error
}

// CardWait is one seat the card layer waits for: Seat 0-based, What in
// words that follow the seat's name ("its decryption shares for batch 3").
type CardWait struct {
	Seat int
	What string
}

// CardReady is what a card layer produced: as lockstep's Ready, Secret and
// Persist must be on disk (Secret privately) before Messages are sent.
type CardReady struct {
	Secret   []byte
	Persist  []*crypto.Envelope
	Messages []*crypto.Envelope
	Cheats   []CardCheat
	Notes    []string
	// OtherState are envelopes of other seats the layer set aside, unchecked,
	// because they answer another shared state than ours: a desync, which
	// the node finds out about as for an action for another state.
	OtherState []*crypto.Envelope
}

// CardCheat is a cheat the card layer named: Seat counted from 1 (0:
// unknown author), the text in plain words.
type CardCheat struct {
	Seat int
	Text string
	// Evidence, for an equivocation, is the author's two signed envelopes
	// for one slot: the node commits them as evidence (Node.equivocation).
	Evidence []*crypto.Envelope
	// Convicted: the layer proved Seat a cheat by an envelope Seat signed
	// (a bad proof of its own). If the layer goes on (Err is nil: a wrong
	// decryption share, or one left out, a forged shuffle, a re-masking
	// proven wrong), it waits for the table to drop Seat; if it stopped,
	// the game cannot go on, but a table of two may claim the win
	// (secretdrop.go's convicted seats).
	Convicted bool
	// Kind is the cheat's name (lockstep/deal's CheatKind, "wrong share"),
	// and Proof, for a convicting cheat, the envelope of Seat's that
	// proves it: a claim of the win that follows carries both, so that
	// the log says why the game ended (claim.go).
	Kind  string
	Proof *crypto.Envelope
}

// CardConfig is what a card layer is made from.
type CardConfig struct {
	Identity *crypto.Identity
	Session  crypto.Hash
	Seats    []crypto.PeerID // in seat order
	Names    []string
	// Verify checks a received card envelope's signature: the node's
	// Config.Verifier (which may trust the transport's check of the
	// envelope being stepped), or crypto.Verify.
	Verify func(*crypto.Envelope) error
	// Secret and Sent, after a restart: the seat's key (an earlier
	// CardReady.Secret) and the card envelopes it signed (CardReady.
	// Persist). The layer signs nothing different for their slots.
	Secret []byte
	Sent   []*crypto.Envelope
	// Hold, after a restart with the card key on disk: the card envelopes
	// on disk may lack some this seat signed (a torn or cut log), so the
	// layer signs nothing new until Release; own envelopes back from the
	// peers' catch-up answers bind it meanwhile.
	Hold bool
	// Store is Config.CardStore: where the runner persisted the card
	// envelopes (lockstep/deal's Store; nil keeps them in memory).
	Store CardStore
}

// CardStore is a runner's reader of the card envelopes it persisted: its
// own (Ready.Persist) and the other seats' it was handed (Ready.Cards),
// as etcd raft's Storage is its application's reader of what it saved.
// With one, the node and the card layer keep an old card envelope by its
// slot and hash only, and read it back when a catch-up answer or an
// equivocation's proof needs it (cardstore.go). lockstep/deal.Store has
// the same methods.
type CardStore interface {
	// Holds reports whether author's envelope of kind for seq is written.
	Holds(kind crypto.Kind, author crypto.PeerID, seq uint64) bool
	// Card reads it back, or says why it cannot.
	Card(kind crypto.Kind, author crypto.PeerID, seq uint64) (*crypto.Envelope, error)
}

// CardMaker makes a seat's card layer over st (fresh from Setup).
type CardMaker func(st engine.CardState, cfg CardConfig) (CardLayer, error)

// Bounds of a secret action's body and of card envelopes kept before the
// seat draw.
const (
	maxActionBytes = 1024
	maxRevealBytes = 32 << 10
	maxCardEarly   = 1024
	maxCardResend  = 16
	// maxCardEarlyBytes: an 8-seat table's keys, escrows and first
	// shuffles of a 1024-card game fit.
	maxCardEarlyBytes = 32 << 20
	maxOpened         = 4096
)

// errCardsStopped: a secret table's move cannot be checked because the
// card layer stopped on a proven cheat. It is no fault of the move's
// author: the move is neither applied nor refused.
var errCardsStopped = errors.New("lockstep: the hidden cards have stopped")

// ErrNoCardLayer: a secret table's roster, and this peer has no card layer.
var ErrNoCardLayer = errors.New("lockstep: this table is secret and this peer has no hidden-card layer")

// pubCard is a card opened to everyone by the card layer.
type pubCard struct {
	h    engine.Handle
	card uint16
}

// secretAction is the body of an action on a secret table: the action;
// the cards it shows from the mover's hand (cardsource.EncodeReveals:
// values and decryption shares); and the cards the card layer opened to
// everyone since the previous action, with their values. Every peer
// checks the last list against what it opened itself (it must be exactly
// that); it is there for the log: with it, a log verifies on its own
// (Verify answers the private openings with engine.NoCard, as a seat that
// is not their recipient does, and the public ones from the list), and
// every state hash every seat signed is checked.
type secretAction struct {
	a       engine.Action
	reveals []byte
	opened  []pubCard
}

func (s *secretAction) encode() []byte {
	e := engine.NewEncoder(nil)
	e.Blob("action", engine.AppendAction(nil, s.a))
	e.Blob("reveals", s.reveals)
	e.Len("opened", len(s.opened))
	for _, p := range s.opened {
		e.Uint("handle", uint64(p.h.Arg()))
		e.Uint("card", uint64(p.card))
	}
	return append([]byte(nil), e.Bytes()...)
}

func decodeSecretAction(b []byte) (*secretAction, error) {
	d := engine.NewDecoder(b)
	ab := d.Blob(maxActionBytes)
	s := &secretAction{reveals: d.Blob(maxRevealBytes)}
	n := d.Len(maxOpened)
	for i := 0; i < n && d.Err() == nil; i++ {
		a, c := d.Uint(), d.Uint()
		h, ok := engine.HandleArg(int32(min(a, 1<<31-1)))
		if d.Err() == nil && (!ok || a > 1<<31-1 || c > 0xffff) {
			return nil, fmt.Errorf("%w: secret action: opened card %d", ErrBadBody, i+1)
		}
		s.opened = append(s.opened, pubCard{h, uint16(c)})
	}
	if err := d.Finish(); err != nil {
		return nil, fmt.Errorf("%w: secret action: %v", ErrBadBody, err)
	}
	var err error
	if s.a, err = engine.DecodeAction(ab); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadBody, err)
	}
	if string(s.encode()) != string(b) {
		return nil, fmt.Errorf("%w: secret action not canonical", ErrBadBody)
	}
	return s, nil
}

// decodeActionBody reads an action body as the table's mode has it.
func (m *machine) decodeActionBody(b []byte) (*secretAction, error) {
	if m.roster != nil && m.roster.Secret {
		return decodeSecretAction(b)
	}
	a, err := engine.DecodeAction(b)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadBody, err)
	}
	return &secretAction{a: a}, nil
}

// newlyPublic returns the cards public in the state that were not at the
// last call, and marks them.
func (m *machine) newlyPublic() []pubCard {
	cs, ok := m.st.(engine.CardState)
	if !ok {
		return nil
	}
	c := cs.Cards()
	var out []pubCard
	for d := 0; d < c.NumDecks() && d < engine.MaxDecks; d++ {
		if d >= len(m.pubKnown) {
			m.pubKnown = append(m.pubKnown, nil)
		}
		for p := 0; p < engine.MaxDeckSize; p++ {
			h := engine.Handle{Deck: uint8(d), Pos: uint16(p)}
			if !c.Valid(h) {
				break
			}
			if p >= len(m.pubKnown[d]) {
				m.pubKnown[d] = append(m.pubKnown[d], false)
			}
			if v, pub := c.Public(h); pub && !m.pubKnown[d][p] {
				m.pubKnown[d][p] = true
				out = append(out, pubCard{h, v})
			}
		}
	}
	return out
}

// checkOpened checks that an action's list of cards opened to everyone
// is exactly the ones this peer's card layer opened since the last action.
func (m *machine) checkOpened(s *secretAction) error {
	if len(s.opened) != len(m.opened) {
		return fmt.Errorf("%w: the action lists %d cards opened to everyone since the last move, not %d", ErrBadBody, len(s.opened), len(m.opened))
	}
	for i, p := range s.opened {
		if p != m.opened[i] {
			return fmt.Errorf("%w: the action says %s was opened as card %d; it was card %d", ErrBadBody, p.h, p.card, m.opened[i].card)
		}
	}
	return nil
}

// errOpenedAhead: a wait for cards opened a card to everyone, and no
// action after it is known yet to name it (a Verifier of a growing log
// holds the entry for the next one).
var errOpenedAhead = errors.New("no later action names it yet")

// observeCards is a peer without a card layer (Verify) going past a wait
// for cards, from the log: the private openings answered with
// engine.NoCard, the public ones from opened (the list of the action that
// follows, or nil).
func (m *machine) observeCards(opened []pubCard) error {
	return observeCardsOn(m.st.(engine.CardState), opened, m.openedDropped(), m.cardHint)
}

// openedDropped is, by seat, whether an opening the state asks for now
// to that seat was made public by the live seats' card layers: a seat
// dropped by agreement, but not one whose drop is still pending
// (dropCards). The openings of a wait under way when its drop committed
// were asked before it, and the card layers open them to it privately,
// as planned; they are shown to all at the drop's step (verifyDrop), as
// every card it held.
func (m *machine) openedDropped() []bool {
	if len(m.dropCards) == 0 {
		return m.dropped
	}
	out := append([]bool(nil), m.dropped...)
	for _, s := range m.dropCards {
		out[s] = false
	}
	return out
}

// observeCardsOn is observeCards on the state cs, dropped the seats
// dropped by agreement; hint, if set (Verifier.SetCardHint), is asked the
// public values opened does not list.
func observeCardsOn(cs engine.CardState, opened []pubCard, dropped []bool, hint func(engine.Handle) (int, bool)) error {
	for guard := 0; cs.ToAct().Kind == engine.ActorCards; guard++ {
		want := cs.Openings(nil)
		if len(want) == 0 || guard > engine.MaxDeckSize*engine.MaxDecks {
			return fmt.Errorf("lockstep: the state waits for cards and asks for none")
		}
		for _, o := range want {
			card := engine.NoCard
			// An opening for a dropped seat was made public by the live
			// seats' card layers (cardsource): as asked, then to all.
			toDropped := o.To >= 0 && o.To < len(dropped) && dropped[o.To]
			if o.To == engine.Public || toDropped {
				found := false
				for _, p := range opened {
					if p.h == o.Handle() {
						card, found = int(p.card), true
					}
				}
				if !found && hint != nil {
					card, found = hint(o.Handle())
				}
				if !found {
					return fmt.Errorf("%w: the log does not say which card %s opened to everyone was (%w)", ErrUnexpected, o.Handle(), errOpenedAhead)
				}
			}
			if toDropped {
				if err := cs.Open(o, engine.NoCard); err != nil {
					return fmt.Errorf("%w: %v", ErrIllegal, err)
				}
				if err := cs.Cards().Open(engine.Opening{Deck: o.Deck, Pos: o.Pos, To: engine.Public}, card); err != nil {
					return fmt.Errorf("%w: %v", ErrIllegal, err)
				}
				continue
			}
			if err := cs.Open(o, card); err != nil {
				return fmt.Errorf("%w: %v", ErrIllegal, err)
			}
		}
	}
	return nil
}

// hintedCards passes a wait for cards as soon as m.cardHint knows the
// public ones (the live history: the next action, which lists them, may
// be a human's, minutes away). A wait the hint cannot answer whole is
// left as it is, for the next action's list.
func (m *machine) hintedCards() error {
	if m.cardHint == nil || !m.cardsFromLog() {
		return nil
	}
	try := m.st.Clone().(engine.CardState)
	if observeCardsOn(try, nil, m.openedDropped(), m.cardHint) != nil || try.ToAct().Kind == engine.ActorCards {
		return nil
	}
	if err := m.observeCards(nil); err != nil {
		return err
	}
	return m.cardsDone()
}

// Secret reports whether the session is a secret table (known once the
// roster is committed).
func (n *Node) Secret() bool { return n.m.roster != nil && n.m.roster.Secret }

// startCards makes this seat's card layer at the seat draw of a secret
// table. A peer with no card layer (Verify, a spectator, a runner without
// Config.Cards) keeps the shared state only: it waits at the first opening.
func (m *machine) startCards() error {
	cs, ok := m.st.(engine.CardState)
	if !ok {
		return fmt.Errorf("%w: %s has no hidden cards, yet the roster makes the table secret", ErrRefused, m.game.Name)
	}
	if m.me == nil || m.seatOfPeer(m.me.ID()) < 0 {
		// Verify, or a peer without a seat: the shared state only.
		return cs.UseSecretCards()
	}
	if m.cardMaker == nil {
		return ErrNoCardLayer
	}
	cfg := CardConfig{Identity: m.me, Session: m.session, Verify: m.verifier, Sent: m.cardOwn}
	if m.cardKey != nil {
		sess, key, err := DecodeCardKey(m.cardKey)
		if err != nil {
			return fmt.Errorf("%w: %v; this seat's hidden-card key is lost, so it cannot deal on", ErrRefused, err)
		}
		if sess != m.session {
			return fmt.Errorf("%w: the card-key file is of session %s, this log of %s; this seat's hidden-card key for this game is lost, so it cannot deal on", ErrRefused, sess.Short(), m.session.Short())
		}
		cfg.Secret = key
		cfg.Hold = m.cardHold
	} else if len(m.cardOwn) > 0 {
		return fmt.Errorf("%w: this seat signed card envelopes before the restart, but its card-key file is missing; its hidden-card key is lost, so it cannot deal on", ErrRefused)
	}
	for _, mi := range m.seats {
		cfg.Seats = append(cfg.Seats, m.members[mi].ID)
		cfg.Names = append(cfg.Names, m.members[mi].Name)
	}
	l, err := m.cardMaker(cs, cfg)
	if err != nil {
		return fmt.Errorf("lockstep: the hidden-card layer: %w", err)
	}
	m.cards = l
	return nil
}

// stepCard takes an envelope of the card protocol.
func (n *Node) stepCard(env *crypto.Envelope) error {
	if n.m.cards == nil {
		if n.m.phase == PhasePlaying || n.m.phase == PhaseOver {
			if !n.Secret() {
				return ErrCardKind
			}
			return ErrNoCardLayer
		}
		// Before the seat draw: a faster peer's key or shuffle. Keep, for
		// when the layer starts, only a member's, signed for this session,
		// and a bounded number and size of them.
		if n.m.session.IsZero() || env.Session != n.m.session {
			return fmt.Errorf("%w: a card envelope before the session is known", ErrStale)
		}
		if _, ok := n.m.byID[env.Author]; !ok {
			return n.reject(env, ErrNotMember)
		}
		if err := n.verify(env); err != nil {
			return n.reject(env, err)
		}
		if len(n.cardEarly) >= maxCardEarly || n.cardEarlyBytes+env.Size() > maxCardEarlyBytes {
			return fmt.Errorf("%w: too many card envelopes before the seat draw", ErrStale)
		}
		n.cardEarly = append(n.cardEarly, env)
		n.cardEarlyBytes += env.Size()
		return nil
	}
	err := n.m.cards.Step(env)
	if err == nil {
		n.tookCard(env)
		n.noteCardStamp(env)
	}
	n.pumpCards()
	if perr := n.proveCards(); perr != nil {
		return perr
	}
	return err
}

// heldCard is a card envelope this node holds, and its log length when it
// came. With a CardStore, env is nil once the store holds it (spillCards):
// then kind, author, seq and sum find it again and say it is the same.
type heldCard struct {
	env    *crypto.Envelope
	at     uint64
	kind   crypto.Kind
	author crypto.PeerID
	seq    uint64
	sum    crypto.Hash
}

// tookCard notes a card envelope the layer took from another seat: it goes
// to disk (Ready.Cards) and into what catch-up serves.
func (n *Node) tookCard(env *crypto.Envelope) {
	if n.holdCard(env) && !n.replaying {
		n.rd.Cards = append(n.rd.Cards, env)
		n.learnedNew() // asks.go
	}
}

// holdCard keeps env for catch-up answers, once; it reports whether env
// was new.
func (n *Node) holdCard(env *crypto.Envelope) bool {
	s := slotOf(env)
	if n.cardHas[s] {
		return false
	}
	n.cardHas[s] = true
	n.cardHeld = append(n.cardHeld, heldCard{env: env, at: uint64(len(n.m.log))})
	return true
}

// Catch-up of card envelopes: a seated member that asks from log position
// From gets the card envelopes this node took or sent while its own log was
// near From (cardServeBehind before, cardServeAhead after: peers are never
// far apart at a secret table, since every opening needs every seat), so a
// seat that lost some (a torn tail, a gap of gossip, a restart) deals on
// without relying on its authors' re-sends, and nothing far ahead of its
// deal (which it would drop) is relayed. Nobody else gets any: a
// spectator's catch-up is the committed log (p2p's policy), which holds
// every public card a spectator may see (the secret action body), and an
// outsider gets nothing. No card envelope holds a secret of any seat
// anyway; the rule keeps the stream to what the asker can use.
const (
	cardServeBehind = maxAhead
	cardServeAhead  = 16
	maxCardServe    = 1024
)

// cardsFor is what Answer serves of the card envelopes to req.To.
func (n *Node) cardsFor(req GapRequest) []*crypto.Envelope {
	if !n.Secret() || n.m.seatOfPeer(req.To) < 0 || req.NoCards {
		return nil
	}
	lo := uint64(0)
	if req.From > cardServeBehind {
		lo = req.From - cardServeBehind
	}
	hi := req.From + cardServeAhead
	var out []*crypto.Envelope
	for i := range n.cardHeld {
		if h := &n.cardHeld[i]; h.at >= lo && h.at <= hi && len(out) < maxCardServe {
			env, err := n.heldEnv(h)
			if err != nil {
				n.rd.Events = append(n.rd.Events, Event{Kind: EventRejected, Err: err,
					Text: fmt.Sprintf("a catch-up answer leaves out a card envelope: %v", err)})
				continue
			}
			out = append(out, env)
		}
	}
	return out
}

// replay feeds a restarted node's log, and on a secret table steps its
// card log into the card layer between the same entries as before: each
// card envelope after the entries it came after, with the layer's work
// done and its waits counted as they were live (settleCards), so the deal
// ends each wait before the entry that followed it. Then the layer has
// this seat's keys, decks and Knowledge as before the restart.
func (n *Node) replay(log []*crypto.Envelope, cards []CardRecord) error {
	n.replaying = true
	defer func() { n.replaying = false }()
	sigs := newSigBatches(log)
	ci := 0
	for i := 0; i <= len(log); i++ {
		for ci < len(cards) && cards[ci].After <= i {
			n.settleCards()
			switch env := cards[ci].Env; {
			case env != nil && env.Kind == crypto.KindAction && env.Author != n.id.ID() && n.m.cards != nil:
				if err := n.recheckAction(env); err != nil { // a cheat's proof (claim.go)
					return err
				}
			case env == nil || !env.Kind.Card() || env.Author == n.id.ID():
			case n.m.cards != nil:
				if n.m.cards.Step(env) == nil {
					n.holdCard(env)
				}
			case len(n.cardEarly) < maxCardEarly:
				// Taken in the Ready of the seat draw, whose entries the
				// node releases only then (so they follow it on disk):
				// kept, as live, for the layer the draw makes.
				n.cardEarly = append(n.cardEarly, env)
			}
			ci++
		}
		n.replayRest = log[i:]
		n.settleCards()
		n.replayRest = nil
		if i == len(log) {
			break
		}
		env := log[i]
		n.m.checkSigs = !sigs.good(i)
		if err := n.m.feed(env); err != nil {
			if n.m.cardsPending && n.m.cards != nil {
				err = fmt.Errorf("%w (the card envelopes on disk end before the deal that comes before this entry is done: the log was cut or edited)", err)
			}
			return &VerifyError{Index: i, Entry: env, Err: err}
		}
		n.seen[slotOf(env)] = env
	}
	n.m.checkSigs = false
	if n.m.cards != nil {
		// What this seat sent before the restart, again: the last few (the
		// rest is served by catch-up).
		n.rd.Messages = append(n.rd.Messages, n.cardSent[max(0, len(n.cardSent)-maxCardResend):]...)
	}
	return nil
}

// settleCards runs a restarted seat's card layer as far as it goes: its
// proofs made or checked, its output taken, its waits counted.
func (n *Node) settleCards() {
	if n.m.cards == nil {
		return
	}
	for guard := 0; guard < 1<<20; guard++ {
		worked := false
		for n.m.cards.HasWork() && n.m.cards.Work() {
			worked = true
		}
		n.drainCards()
		// A drop's step too (secretdrop.go): live, advance counts it once
		// the pieces have rebuilt the key; a replay that skipped it met
		// the checkpoint round after it with nothing due.
		if !n.cardsStep() && !n.cardDropStep() && !worked {
			return
		}
	}
}

// proveCards commits the card equivocation the card layer proved, as for
// any other slot: evidence every peer (and Verify) can check on its own,
// broadcast, and the game stops.
func (n *Node) proveCards() error {
	p := n.cardProof
	if p == nil {
		return nil
	}
	n.cardProof = nil
	return n.equivocation(p[0], p[1])
}

// pumpCards moves the card layer's output into the node's Ready and, when
// the state has stopped waiting for cards, counts the step and goes on.
func (n *Node) pumpCards() {
	n.drainCards()
	n.advance()
}

// drainCards moves the card layer's output into the node's Ready (advance
// calls it last: an action applied may have started a batch).
func (n *Node) drainCards() {
	l := n.m.cards
	if l == nil {
		return
	}
	if len(n.cardEarly) > 0 {
		early := n.cardEarly
		n.cardEarly, n.cardEarlyBytes = nil, 0
		for _, env := range early {
			if l.Step(env) == nil {
				n.tookCard(env)
			}
		}
	}
	rd := l.TakeReady()
	if rd.Secret != nil {
		n.rd.CardSecret = rd.Secret
		n.rd.MustSync = true
	}
	if len(rd.Persist) > 0 {
		n.rd.Persist = append(n.rd.Persist, rd.Persist...)
		n.rd.MustSync = true
	}
	for _, env := range rd.Messages {
		// Every message of the layer is this seat's own (new, or one it
		// had signed before a restart, sent again).
		if n.holdCard(env) {
			// Only the last few are ever sent again (resendCards); the
			// rest are in cardHeld.
			if len(n.cardSent) >= 2*maxCardResend {
				k := copy(n.cardSent, n.cardSent[len(n.cardSent)-maxCardResend:])
				clear(n.cardSent[k:])
				n.cardSent = n.cardSent[:k]
			}
			n.cardSent = append(n.cardSent, env)
		}
		n.noteCardStamp(env)
	}
	if !n.replaying {
		n.rd.Messages = append(n.rd.Messages, rd.Messages...)
	}
	for _, env := range rd.OtherState {
		n.otherCardState(env)
	}
	votedOut := len(rd.Cheats) > 0 && n.votedOut()
	for _, c := range rd.Cheats {
		if votedOut && len(c.Evidence) != 2 {
			// The others have voted this seat out (every voter the drop
			// needs), or dropped it, and went on or may go on without
			// it: their card envelopes since build on decks and keys
			// without this seat's, and fail against this node's. That
			// proves nothing of their authors, so nobody is named or
			// convicted (an equivocation, two envelopes of one author
			// for one slot, proves itself in any game, and still is).
			if !n.replaying {
				n.rd.Events = append(n.rd.Events, Event{Kind: EventCards, Seq: n.m.seq,
					Text: "the others have voted this peer out and may have gone on without it; what they sent since does not check against this peer's cards, which names nobody (" + c.Text + ")"})
			}
			continue
		}
		n.rd.Events = append(n.rd.Events, Event{Kind: EventCheat, Cheat: CheatCards, Seat: c.Seat, Seq: n.m.seq, Text: c.Text, What: c.Text})
		n.proveCheat(&c) // its proof, to disk (claim.go)
		if c.Convicted {
			n.convict(c.Seat-1, c)
		}
		if len(c.Evidence) == 2 && n.cardProof == nil {
			n.cardProof = c.Evidence
		}
	}
	if !n.replaying {
		for _, note := range rd.Notes {
			n.rd.Events = append(n.rd.Events, Event{Kind: EventCards, Seq: n.m.seq, Text: note})
		}
	}
	if len(rd.Persist)+len(rd.Messages) > 0 {
		n.progress = n.now
	}
	if err := l.Err(); err != nil && !n.cardsStopped {
		n.cardsStopped = true
		// What the layer proved against another seat may be our own
		// state's fault (a buggy engine reshuffles a wrong pile): our
		// state lets the others find out (desync.go).
		n.sendState(n.m.seq)
		n.rd.Events = append(n.rd.Events, Event{Kind: EventCheat, Cheat: CheatCards, Seq: n.m.seq, Text: "the hidden cards stopped: " + err.Error()})
	}
}

// HasWork reports whether the card layer has a shuffle proof to make or
// check; the runner calls Work between envelopes while it does.
func (n *Node) HasWork() bool { return n.m.cards != nil && n.m.cards.HasWork() }

// Work makes or checks one shuffle proof.
func (n *Node) Work() bool {
	if n.m.cards == nil {
		return false
	}
	w := n.m.cards.Work()
	n.cardWorked = n.cardWorked || w
	n.pumpCards()
	_ = n.proveCards()
	return w
}

// resendCards queues again the last card envelopes this seat signed, when
// the cards or the table stall (pubsub may have lost one; the deal drops
// duplicates). Only the last few: what a stalled wait still needs of this
// seat is its latest, and a table's whole card history is megabytes.
//
// Not only while our own state waits for cards: a peer past a batch sends
// nothing more of it, and one that lost its share on the way (a flood of
// its author's key, over the member's rate, drops honest envelopes too)
// waits on it for ever; the whole table then stands still, which is when
// Tick calls this.
func (n *Node) resendCards() {
	if n.m.cards != nil && n.m.phase == PhasePlaying {
		n.rd.Messages = append(n.rd.Messages, n.cardSent[max(0, len(n.cardSent)-maxCardResend):]...)
	}
}

// secretTable is the mode this host proposes.
func (n *Node) secretTable() bool { return n.hostSecret }

// cardsStep counts the card layer's answers as one step once the state
// has stopped waiting for cards, outside any group (a checkpoint round
// keeps its seq).
func (n *Node) cardsStep() bool {
	m := n.m
	if m.phase != PhasePlaying || !m.cardsPending {
		return false
	}
	if m.cards != nil && !m.cardsSynced {
		m.cardsSynced = true
		m.cards.Sync()
	}
	if m.needCP || m.group != nil || m.st.ToAct().Kind == engine.ActorCards {
		return false
	}
	if n.replaying && m.votesPin(n.replayRest) {
		// A restarted node replaying its log: the next entries are a
		// round of drop votes that name this step as their latest (or an
		// earlier one), so the wait was still open when it committed
		// (the card envelopes that end it may have come before the
		// round, to a voter held by its own vote, below).
		return false
	}
	if !n.mayCommitNormally(expectation{}) {
		// Our drop vote at this log position names the step it was cast
		// at (its state hash), and a drop is taken at the latest step its
		// votes name (dropRound): ending the wait for cards here, with no
		// entry, would take us past a drop that every other voter may
		// still join where we voted. So the wait ends by the drop, or
		// once a peer that went on without voting frees us (StepAnswer),
		// as for an action; or when every voter has voted and a vote
		// names a state after the wait, which its voter reached before
		// voting: then the drop is taken there, and we go there too.
		if _, _, _, ahead := n.dropRound(); !ahead {
			return false
		}
	}
	m.cardsSynced = false
	if err := m.cardsDone(); err != nil {
		n.rd.Events = append(n.rd.Events, Event{Kind: EventCheat, Cheat: CheatCards, Seq: m.seq, Text: err.Error()})
	}
	if n.stalled {
		// A step done, as by a commit: a stall announced during the
		// wait for cards is over, and the next one is announced anew
		// (else a stall that named one seat's shares hid a later one
		// for another seat's move, and its drop vote came unannounced).
		n.stalled = false
		n.rd.Events = append(n.rd.Events, Event{Kind: EventResumed, Seq: m.seq, Text: "resumed"})
	}
	n.progress = n.now
	return true
}

// cardsDone counts the end of a wait for cards as a step (no entry).
func (m *machine) cardsDone() error {
	m.posFrom() // a step with no entry: the log position's first, if none came before
	m.cardsPending, m.cardsSynced = false, false
	m.opened = append(m.opened, m.newlyPublic()...)
	info := stepInfo{Kind: "cards", Seat: -1, Entry: -1}
	if m.record {
		info.What = "cards opened"
	}
	return m.stepDone(info)
}

// cardsFromLog reports whether the next entry fed ends a wait for cards
// from the log (verifyCards): the cards opened to everyone are then read
// from the next action, which may come after it (Verifier holds entries
// until it has it).
func (m *machine) cardsFromLog() bool {
	return m.waitFromLog() && m.group == nil
}

// waitFromLog is cardsFromLog, in a round or not: a round of drop votes
// whose next vote names the state after the wait ends it there (feed:
// the first voter voted while the wait was open, the next after it
// ended, at the same log position).
func (m *machine) waitFromLog() bool {
	return m.cardsPending && m.cards == nil && !m.needCP && m.phase == PhasePlaying
}

// verifyCards is Verify's (and a restarted node's) way past a wait for
// cards at entry env: from the list of cards opened to everyone that the
// next action carries. Without one (another kind of entry) only private
// openings can be answered.
func (m *machine) verifyCards(env *crypto.Envelope) error {
	if !m.cardsFromLog() && !(m.waitFromLog() && m.group != nil && m.groupKind == crypto.KindDrop && env.Kind == crypto.KindDrop) {
		return nil
	}
	var opened []pubCard
	next := env
	for i := 0; next.Kind != crypto.KindAction && i < len(m.ahead); i++ {
		next = m.ahead[i]
	}
	if next.Kind == crypto.KindAction {
		s, err := decodeSecretAction(next.Body)
		if err != nil {
			return err
		}
		opened = s.opened
	} else {
		// No action follows in the log (yet): a spectator's growing log,
		// or the end of a game whose last step opened a card to everyone.
		// The entry signs the state after the wait; find the cards.
		opened = m.openedByHash(env.StateHash)
	}
	if err := m.observeCards(opened); err != nil {
		return err
	}
	return m.cardsDone()
}

// mode is the table's card mode in words (Status.Mode).
func (n *Node) mode() string {
	if n.modeFor == n.m.session && n.modeText != "" {
		return n.modeText
	}
	n.modeFor, n.modeText = n.m.session, n.m.modeWords()
	return n.modeText
}

// modeWords is the roster's card mode in words (Status.Mode, Replay.Mode):
// empty before the roster.
func (m *machine) modeWords() string {
	if m.roster == nil {
		return ""
	}
	return modeWords(m.roster.Secret, m.game, m.roster.Options)
}

// A table's card mode in words (Status.Mode, Replay.Mode, the lobby's
// offer): front ends compare against these, and older builds read the
// words, so they do not change.
const (
	ModeSecret    = "secret table"           // hidden cards dealt by the card layer
	ModeOpenHands = "open hands"             // a game with hidden cards, played face up
	ModeOpen      = "open (no hidden cards)" // a game without hidden cards
)

// modeWords is a table's card mode in words: secret, or open for a game g
// with hidden cards or without.
func modeWords(secret bool, g *engine.Game, opts engine.Options) string {
	if secret {
		return ModeSecret
	}
	if g != nil {
		if st, err := g.Setup(g.MinPlayers, opts); err == nil {
			if _, ok := st.(engine.CardState); !ok {
				return ModeOpen
			}
		}
	}
	return ModeOpenHands
}

// modeAgrees says why this joiner refuses roster r's card mode, or nil: a
// joiner sits only at the table it asked for (a secret one by default for
// a game with hidden cards; open with Config.OpenHands or without a card
// layer), so no member plays in a mode it did not choose.
func (n *Node) modeAgrees(r *rosterBody) error {
	if n.hosting && r.Lobby == n.lobby || n.restarted {
		// Our own roster; or a restarted peer, which chose when it joined.
		return nil
	}
	wantOpen := n.cfg.OpenHands || n.cfg.Cards == nil
	if r.Secret && wantOpen {
		if n.cfg.Cards == nil {
			return fmt.Errorf("%w: the host opened a secret table, and this peer has no hidden-card layer", ErrRefused)
		}
		return fmt.Errorf("%w: the host opened a secret table, and you asked for open hands (join without --open-hands to sit at it)", ErrRefused)
	}
	if !r.Secret && !wantOpen && n.cfg.Games != nil {
		if g, err := n.cfg.Games(r.Game); err == nil {
			if st, err := g.Setup(g.MinPlayers, r.Options); err == nil {
				if _, ok := st.(engine.CardState); ok {
					return fmt.Errorf("%w: the host opened %s with open hands: every peer would see every card; join with --open-hands to sit at it", ErrRefused, g.Title)
				}
			}
		}
	}
	return nil
}

// maxOpenedGuesses bounds the values openedByHash tries.
const maxOpenedGuesses = 1024

// openedByHash finds the cards opened to everyone during the current wait
// for cards from want, the state hash an entry signed for the state after
// the wait, when no action's list tells them (the log ends before the next
// action, or the game ended at the wait). Every value the state allows for
// each public opening is tried, in the order of the game's card space; a
// value is taken only if the state it makes has exactly the hash every
// seat signed (SHA-256 binds it). It returns nil when the wait has no
// public opening, when no guess matches or when there are too many
// guesses: observeCards then says which card the log does not tell.
func (m *machine) openedByHash(want crypto.Hash) []pubCard {
	cs := m.st.(engine.CardState)
	dropped := m.openedDropped()
	var pub []engine.Opening
	for _, o := range cs.Openings(nil) {
		// Openings for a dropped seat are made public (observeCardsOn).
		if o.To == engine.Public || o.To >= 0 && o.To < len(dropped) && dropped[o.To] {
			pub = append(pub, o)
		}
	}
	if len(pub) == 0 || want.IsZero() {
		return nil
	}
	c := cs.Cards()
	var values []uint16
	seen := make([]bool, 1<<16)
	for _, list := range c.Decks() {
		for _, v := range list {
			if !seen[v] {
				seen[v] = true
				values = append(values, v)
			}
		}
	}
	cands := make([][]uint16, len(pub))
	total := 1
	for i, o := range pub {
		for _, v := range values {
			if c.Check(o, int(v)) == nil {
				cands[i] = append(cands[i], v)
			}
		}
		if total *= len(cands[i]); total == 0 || total > maxOpenedGuesses {
			return nil
		}
	}
	guess := make([]pubCard, len(pub))
	for k := 0; k < total; k++ {
		r := k
		for i, o := range pub {
			guess[i] = pubCard{o.Handle(), cands[i][r%len(cands[i])]}
			r /= len(cands[i])
		}
		try := cs.Clone().(engine.CardState)
		if observeCardsOn(try, guess, dropped, nil) != nil || try.ToAct().Kind == engine.ActorCards {
			continue
		}
		if crypto.Hash(engine.HashWith(m.enc, try)) == want {
			return append([]pubCard(nil), guess...)
		}
	}
	return nil
}

// A restarted seat's card layer is held (CardConfig.Hold): its disk may
// have lost card envelopes it signed and sent, and a second, different one
// for such a slot is an equivocation every peer would rightly name. Own
// envelopes come back in the peers' catch-up answers (cardsFor serves the
// asker's own too) and bind the layer. It is released once every other
// seat still in play has shown, in a gap answer, that it is not ahead of
// this node's log, in an answer short enough (cardServeAhead entries at
// most) that the card envelopes it carried, those near the asker's
// position (cardsFor), are all it holds of the stretch of log the asker
// lacked (unless maxCardServe cut it short). At a secret table every
// opening needs every seat, so no peer can hold an envelope of ours that
// the deal still has to reach, and waiting for all of them loses no
// liveness (the cards could not go on without each of them anyway).

// cardsHeld reports whether the card layer waits for releaseCards.
func (n *Node) cardsHeld() bool { return n.m.cards != nil && n.m.cards.Held() }

// cardHeardFrom notes a gap answer of p showing it is not ahead of us.
func (n *Node) cardHeardFrom(p crypto.PeerID) {
	if !n.cardsHeld() || p == n.id.ID() || containsID(n.cardHeard, p) {
		return
	}
	if seat := n.m.seatOfPeer(p); seat < 0 || n.m.dropped[seat] {
		return
	}
	n.cardHeard = append(n.cardHeard, p)
}

// releaseCards releases a held card layer once every other seat in play
// has answered (see above).
func (n *Node) releaseCards() {
	if !n.cardsHeld() || n.replaying || n.m.phase != PhasePlaying {
		return
	}
	for _, mi := range n.m.activeMembers() {
		if p := n.m.members[mi].ID; p != n.id.ID() && !containsID(n.cardHeard, p) {
			return
		}
	}
	n.cardHeard = nil
	n.m.cards.Release()
	n.pumpCards()
}
