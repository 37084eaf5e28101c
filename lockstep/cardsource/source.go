package cardsource

import (
	"errors"
	"fmt"

	"github.com/boardmesh/boardmesh/crypto"
	"github.com/boardmesh/boardmesh/engine"
	"github.com/boardmesh/boardmesh/lockstep"
	"github.com/boardmesh/boardmesh/lockstep/deal"
)

// Source is one seat's card source on a secret table.
type Source struct {
	m        *deal.Machine
	st       engine.CardState
	inflight bool // a batch is declared and not open yet
	// armed: the caller has said the state's wait for cards is due (Sync);
	// until then no batch is declared, so a move never opens cards inside
	// the step that applies it on one peer and in a later one on another.
	armed bool
	decks int // the decks the deal knows: the declared ones, then each reshuffle
	out   deal.Ready
	err   error
	// dropped: seats the table dropped (Drop). An opening the state asks
	// for one of them is made public instead (its key is rebuilt, so its
	// cards are everyone's); asked keeps the state's own openings of the
	// batch in flight, to answer them as asked.
	dropped []bool
	asked   []engine.Opening
	// shown: the cards dropped seats held, shown by the deal (its
	// EventDropReveal), kept until ShowDropped puts them into the state at
	// the point of the log lockstep chooses, the same on every peer.
	shown []dropShown
}

type dropShown struct {
	seat int
	h    engine.Handle
	card uint16
}

// ErrStopped is returned once the card layer has stopped: a cheat was
// named, or the engine refused what the deal opened.
var ErrStopped = errors.New("cardsource: the card layer has stopped")

// New makes st (a state fresh from Setup, before the deal) a secret
// table's state for the seat of cfg.Identity: it switches the state to
// secret cards, attaches the seat's Knowledge and starts the deal over the
// state's decks (cfg.Decks is filled in from the state; leave it empty).
func New(st engine.CardState, cfg deal.Config) (*Source, error) {
	if st == nil {
		return nil, errors.New("cardsource: no state")
	}
	if len(cfg.Decks) != 0 {
		return nil, errors.New("cardsource: the decks come from the state")
	}
	if err := st.UseSecretCards(); err != nil {
		return nil, err
	}
	c := st.Cards()
	for d, l := range c.Decks() {
		cfg.Decks = append(cfg.Decks, deal.Deck{ID: uint8(d), Cards: l, Open: c.OpenDeck(d)})
	}
	m, err := deal.New(cfg)
	if err != nil {
		return nil, err
	}
	c.SetKnowledge(engine.NewKnowledge(m.Seat()))
	s := &Source{m: m, st: st, armed: true, decks: len(c.Decks())}
	s.pump()
	return s, nil
}

// State is the seat's state: the shared part, with the seat's own
// Knowledge attached (Cards().Knowledge(): never encode, hash or send it).
func (s *Source) State() engine.CardState { return s.st }

// Deal is the seat's deal machine (for Waiting and queries).
func (s *Source) Deal() *deal.Machine { return s.m }

// Err is why the card layer stopped, or nil.
func (s *Source) Err() error { return s.err }

// Step takes one envelope of the card kinds (crypto.Kind.Card). A rejected
// envelope is named in an EventCheat of the next Ready.
func (s *Source) Step(env *crypto.Envelope) error {
	if s.err != nil {
		return s.err
	}
	err := s.m.Step(env)
	s.pump()
	return err
}

// Held reports whether the deal waits for Release to sign anew
// (deal.Config.Hold).
func (s *Source) Held() bool { return s.m.Held() }

// Release lets a held deal sign anew (deal.Machine.Release).
func (s *Source) Release() {
	if s.err != nil {
		return
	}
	s.m.Release()
	s.pump()
}

// HasWork reports whether a shuffle proof is waiting to be made or checked.
func (s *Source) HasWork() bool { return s.err == nil && s.m.HasWork() }

// Work makes or checks one shuffle proof (the slow part: a runner calls it
// between envelopes).
func (s *Source) Work() bool {
	if s.err != nil {
		return false
	}
	w := s.m.Work()
	s.pump()
	return w
}

// HasReady reports whether there is something to persist, send or show.
func (s *Source) HasReady() bool { return !s.out.IsEmpty() }

// Ready returns what to do: store Secret privately and Persist durably
// (fsync if MustSync) BEFORE broadcasting Messages; then show Events.
func (s *Source) Ready() deal.Ready { return s.out }

// Advance acknowledges the last Ready.
func (s *Source) Advance() { s.out = deal.Ready{} }

// Sync declares the openings the state waits for, if it does: the caller
// calls it at the same point of the shared history on every peer (lockstep
// does, once the step that made the state wait is counted). Batches after
// the first of one wait follow by themselves.
func (s *Source) Sync() {
	if s.err == nil && s.Waiting() {
		s.armed = true
		s.pump()
	}
}

// At tells the source the hash of the shared state after the step just
// counted (lockstep calls it after each step, on every peer alike): the
// deal's chains and batches declared from now on answer it, and every
// envelope of theirs carries it (deal.Machine.At). A reshuffle the step
// made (a move that shuffles a discard pile into a new deck) is declared
// here, with that state, so that a peer whose engine made another pile in
// that very step is found out by the hash, not by a shuffle proof that
// fails; a reshuffle made while the state waits for cards is declared at
// once, with the wait's state, since the wait cannot end without it.
func (s *Source) At(h crypto.Hash) {
	if s.err != nil {
		return
	}
	s.m.At(h)
	s.reshuffles()
	s.pump()
}

// Waiting reports whether the state waits for the card layer.
func (s *Source) Waiting() bool { return s.st.ToAct().Kind == engine.ActorCards }

func (s *Source) fail(err error) {
	if s.err == nil {
		s.err = fmt.Errorf("%w: %v", ErrStopped, err)
	}
}

// pump drains the deal's output into the engine, and declares the next
// batch when the state waits for cards and none is in flight.
func (s *Source) pump() {
	for guard := 0; s.err == nil && guard < 1<<16; guard++ {
		for s.m.HasReady() {
			rd := s.m.Ready()
			s.m.Advance()
			s.absorb(rd)
		}
		if s.armed {
			// In a wait for cards: a reshuffle its openings made answers
			// the wait's state. One made by a step is declared by At,
			// with the state after the step.
			s.reshuffles()
		}
		if !s.Waiting() {
			s.armed = false
		}
		if s.err != nil || s.m.Stopped() || s.inflight || !s.armed {
			return
		}
		want := s.st.Openings(nil)
		if len(want) == 0 {
			s.fail(errors.New("the state waits for cards but asks for none"))
			return
		}
		want = want[:min(len(want), deal.MaxBatch)]
		ops := make([]deal.Opening, len(want))
		for i, o := range want {
			ops[i] = deal.Opening{Deck: o.Deck, Pos: o.Pos, To: o.To}
			if o.To >= 0 && o.To < len(s.dropped) && s.dropped[o.To] {
				ops[i].To = deal.Public
			}
		}
		s.asked = append(s.asked[:0], want...)
		if _, err := s.m.Open(ops); err != nil {
			s.fail(err)
			return
		}
		s.inflight = true
	}
}

// reshuffles declares to the deal every deck the state made by a
// reshuffle since (engine.Cards.Reshuffle): a new shuffle chain over the
// current ciphertexts of its sources. The state makes them inside steps
// every peer takes alike, and the deal orders its chains and batches by
// the order of these calls, so every peer declares them at the same point
// (At, or within a wait for cards: pump).
func (s *Source) reshuffles() {
	c := s.st.Cards()
	for s.err == nil && s.decks < c.NumDecks() {
		d := s.decks
		var from []deal.Handle
		for _, h := range c.Sources(d) {
			from = append(from, deal.Handle{Deck: h.Deck, Pos: h.Pos})
		}
		if d > 255 {
			s.fail(fmt.Errorf("deck %d: more decks than the deal can name", d))
			return
		}
		if err := s.m.Reshuffle(uint8(d), from); err != nil {
			s.fail(fmt.Errorf("reshuffle into deck %d: %v", d, err))
			return
		}
		s.decks++
		for s.m.HasReady() {
			rd := s.m.Ready()
			s.m.Advance()
			s.absorb(rd)
		}
	}
}

func (s *Source) absorb(rd deal.Ready) {
	if rd.Secret != nil {
		s.out.Secret = rd.Secret
	}
	s.out.MustSync = s.out.MustSync || rd.MustSync
	s.out.Persist = append(s.out.Persist, rd.Persist...)
	s.out.Messages = append(s.out.Messages, rd.Messages...)
	s.out.Events = append(s.out.Events, rd.Events...)
	for _, ev := range rd.Events {
		switch ev.Kind {
		case deal.EventOpened:
			o := engine.Opening{Deck: ev.Opening.Deck, Pos: ev.Opening.Pos, To: ev.Opening.To}
			card := engine.NoCard
			if ev.Known {
				card = int(ev.Card)
			}
			if err := s.openAsked(o, card); err != nil {
				s.fail(fmt.Errorf("the game refused %s: %v", o, err))
				return
			}
		case deal.EventDropReveal:
			s.shown = append(s.shown, dropShown{seat: ev.Seat - 1, h: engine.Handle{Deck: ev.Opening.Deck, Pos: ev.Opening.Pos}, card: ev.Card})
		case deal.EventBatchDone:
			s.inflight = false
		case deal.EventCheat:
			if s.m.Stopped() {
				s.fail(errors.New(ev.Text))
			}
		}
	}
}

// openAsked answers the state's opening of o's card with card: as the
// deal opened it, or, for an opening the state asked for a dropped seat
// and the deal made public, as asked (this peer is not its recipient)
// and then to everyone.
func (s *Source) openAsked(o engine.Opening, card int) error {
	if o.To == engine.Public {
		for _, a := range s.asked {
			if a.Handle() == o.Handle() && a.To != engine.Public {
				if err := s.st.Open(a, engine.NoCard); err != nil {
					return err
				}
				return s.st.Cards().Open(o, card)
			}
		}
	}
	return s.st.Open(o, card)
}

// Drop tells the deal that the table dropped seat (0-based), at the same
// point of the log on every peer: the others publish their pieces of its
// key, and its cards become everyone's (ShowDropped, once DropDone).
func (s *Source) Drop(seat int) error {
	if s.err != nil {
		return s.err
	}
	if err := s.m.Drop(seat); err != nil {
		return err
	}
	if s.dropped == nil {
		s.dropped = make([]bool, s.m.Seats())
	}
	s.dropped[seat] = true
	s.pump()
	return nil
}

// DropDone reports whether the deal has rebuilt seat's key and shown the
// cards it held.
func (s *Source) DropDone(seat int) bool { return s.err == nil && s.m.DropDone(seat) }

// ShowDropped makes public in the state every card dropped seat held, as
// the deal showed them. Call it once DropDone, at the same point of the
// shared history on every peer.
func (s *Source) ShowDropped(seat int) error {
	if !s.DropDone(seat) {
		return fmt.Errorf("cardsource: seat %d's key is not rebuilt yet", seat+1)
	}
	c := s.st.Cards()
	keep := s.shown[:0]
	for _, x := range s.shown {
		if x.seat != seat {
			keep = append(keep, x)
			continue
		}
		if _, pub := c.Public(x.h); pub {
			continue
		}
		if err := c.Open(engine.Opening{Deck: x.h.Deck, Pos: x.h.Pos, To: engine.Public}, int(x.card)); err != nil {
			s.fail(fmt.Errorf("the game refused %s, which dropped seat %d held, as card %d: %v", x.h, seat+1, x.card, err))
			return s.err
		}
	}
	s.shown = keep
	return nil
}

// Revealed is one card a move shows from its mover's hand (its format is
// lockstep's: the action body carries it).
type Revealed = lockstep.Revealed

// Reveal is the mover's side: the cards action a of this seat shows, for
// its envelope at seq (the share is bound to seq).
func (s *Source) Reveal(a engine.Action, seq uint64) ([]Revealed, error) {
	if s.err != nil {
		return nil, s.err
	}
	var out []Revealed
	for _, h := range s.st.Reveals(a, nil) {
		dh := deal.Handle{Deck: h.Deck, Pos: h.Pos}
		if v, ok := s.m.PublicCard(dh); ok {
			out = append(out, Revealed{Handle: h, Card: v})
			continue
		}
		v, ok := s.st.Cards().Value(h, s.m.Seat())
		if !ok {
			return nil, fmt.Errorf("the move shows %s, which seat %d does not know", h, s.m.Seat()+1)
		}
		sh, err := s.m.RevealShare(dh, seq)
		if err != nil {
			return nil, err
		}
		out = append(out, Revealed{Handle: h, Card: v, Share: sh})
	}
	return out, nil
}

// Apply is every peer's side (the mover's too): it checks the cards seat's
// action a at seq shows against their ciphertexts, then applies the
// action with them. A reveal that does not match is a cheat (named in an
// EventCheat of the next Ready and returned); a move the engine refuses is
// returned and changes no state, though the cards it did show correctly
// stay public in the deal.
func (s *Source) Apply(seat int, a engine.Action, seq uint64, rs []Revealed) error {
	if s.err != nil {
		return s.err
	}
	hs := s.st.Reveals(a, nil)
	if len(hs) != len(rs) {
		return fmt.Errorf("seat %d's move shows %d cards, its envelope carries %d", seat+1, len(hs), len(rs))
	}
	vals := make([]int, len(rs))
	for i, r := range rs {
		if r.Handle != hs[i] {
			return fmt.Errorf("seat %d's move shows %s, its envelope carries %s", seat+1, hs[i], r.Handle)
		}
		err := s.m.CheckReveal(seat, deal.Handle{Deck: r.Handle.Deck, Pos: r.Handle.Pos}, seq, r.Card, r.Share)
		s.pump()
		if err != nil {
			return err
		}
		vals[i] = int(r.Card)
	}
	if err := s.st.ApplyRevealed(seat, a, vals); err != nil {
		return err
	}
	s.pump()
	return nil
}
