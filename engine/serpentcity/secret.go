package serpentcity

import (
	"fmt"

	"github.com/boardmesh/boardmesh/engine"
)

// This file is Serpent City's side of the hidden-card contract
// (engine.CardState, docs/hidden-cards.md): the two decks, the draw that
// moves a handle into a hand and waits for its opening, what a move shows,
// and how a peer that does not know the acting seat's cards checks it.

var _ engine.CardState = (*State)(nil)

// newCards declares the decks: deck econDeck and milDeck, each its kinds'
// copies in kind order (card id = kind), as the tables give them, so every
// peer declares the same decks from the options.
func (c *config) newCards() engine.Cards {
	var lists [2][]uint16
	for d := 0; d < 2; d++ {
		for k, spec := range c.decks[d] {
			for i := 0; i < spec.Count; i++ {
				lists[d] = append(lists[d], uint16(k))
			}
		}
	}
	// The tables allow at most 40 kinds of 50 copies (2,000 cards); a deck
	// of the card layer holds at most 1,024.
	cs, err := engine.NewCards(lists[:])
	if err != nil {
		panic("serpentcity: " + err.Error()) // Validate bounds the decks
	}
	return cs
}

// Cards is the state's card bookkeeping.
func (s *State) Cards() *engine.Cards { return &s.cards }

// UseSecretCards makes the card layer answer openings; allowed before any
// card is drawn.
func (s *State) UseSecretCards() error { return s.cards.UseSecret() }

// kind is the kind of the card at h as seat may know it, or -1.
func (s *State) kind(h engine.Handle, seat int) int {
	v, ok := s.cards.Value(h, seat)
	if !ok {
		return -1
	}
	return int(v)
}

// argKind is the kind of the card an action argument names, as seat may
// know it, or -1.
func (s *State) argKind(a int32, seat int) int {
	h, ok := engine.HandleArg(a)
	if !ok {
		return -1
	}
	return s.kind(h, seat)
}

// held counts p's cards of kind k of deck d, as p knows its own hand (on
// another seat's peer of a secret table: none known).
func (s *State) held(p, d, k int) int {
	n := 0
	for _, h := range s.pl[p].hand[d] {
		if s.kind(h, p) == k {
			n++
		}
	}
	return n
}

// firstCopy is the first card of kind k in p's hand of deck d: the one an
// open table's Legal names, so that one move has one encoding.
func (s *State) firstCopy(p, d, k int) (engine.Handle, bool) {
	for _, h := range s.pl[p].hand[d] {
		if s.kind(h, p) == k {
			return h, true
		}
	}
	return engine.Handle{}, false
}

// maxKinds bounds the kinds of a deck (Validate: at most 40).
const maxKinds = 40

// counts is how many cards of each kind of deck d p holds, as p knows its
// own hand (a value, so that Legal and the bots allocate nothing for it).
func (s *State) counts(p, d int) (c [maxKinds]uint8) {
	for _, h := range s.pl[p].hand[d] {
		if k := s.kind(h, p); k >= 0 && k < maxKinds {
			c[k]++
		}
	}
	return c
}

// cardAct is the action playing p's first card of kind k of deck d (op
// opMil or opEcon), with extra arguments after the handle.
func (s *State) cardAct(op uint16, p, d, k int, extra ...int32) (engine.Action, bool) {
	h, ok := s.firstCopy(p, d, k)
	if !ok {
		return engine.Action{}, false
	}
	return act(op, append([]int32{h.Arg()}, extra...)...), true
}

// inHand is the index of h in p's hand of deck d, or -1.
func (s *State) inHand(p, d int, h engine.Handle) int {
	for i, x := range s.pl[p].hand[d] {
		if x == h {
			return i
		}
	}
	return -1
}

// removeFromHand takes h out of p's hand of deck d (order kept) and
// reports whether it was there.
func (s *State) removeFromHand(p, d int, h engine.Handle) bool {
	i := s.inHand(p, d, h)
	if i < 0 {
		return false
	}
	hand := s.pl[p].hand[d]
	s.pl[p].hand[d] = append(hand[:i], hand[i+1:]...)
	return true
}

// startDraw draws the top card of deck d for seat who: its handle goes
// into the hand at once and the state waits for it to be opened to who
// (phDraw: the open card source's chance step, or the card layer). An
// empty pile is first refilled with the spent cards, reshuffled jointly
// (engine.Cards.Reshuffle). With no card to draw the turn goes on.
func (s *State) startDraw(who, d int) {
	s.who, s.drawDk = who, d
	if len(s.pile[d]) == 0 && len(s.disc[d]) > 0 {
		id, err := s.cards.Reshuffle(s.disc[d])
		if err == nil {
			n := len(s.disc[d])
			s.disc[d] = nil
			s.pile[d] = make([]engine.Handle, n)
			for k := range s.pile[d] {
				s.pile[d][k] = engine.Handle{Deck: id, Pos: uint16(n - 1 - k)}
			}
		}
		// Else the game has reshuffled engine.MaxDecks times: the card is
		// lost like a pick from two empty decks (never seen in bot games).
	}
	if len(s.pile[d]) == 0 {
		s.lastDrw = -1
		s.resume()
		return
	}
	h := s.pile[d][len(s.pile[d])-1]
	s.pile[d] = s.pile[d][:len(s.pile[d])-1]
	s.pl[who].hand[d] = append(s.pl[who].hand[d], h)
	s.lastDrw, s.drawSeat = h.Arg(), who
	s.ph = phDraw
}

// Openings appends what the state waits for: while a card is drawn
// (phDraw), every card in a hand its holder has not seen (the one drawn).
func (s *State) Openings(dst []engine.Opening) []engine.Opening {
	if s.ph != phDraw {
		return dst
	}
	for p := range s.pl {
		for d := 0; d < 2; d++ {
			for _, h := range s.pl[p].hand[d] {
				dst = s.cards.Want(dst, h, p)
			}
		}
	}
	return dst
}

// Open answers one of Openings; once the last is answered the turn goes
// on. A refused answer changes nothing.
func (s *State) Open(o engine.Opening, card int) error {
	if s.ToAct().Kind != engine.ActorCards {
		return fmt.Errorf("%w: %s", engine.ErrNotWaiting, o)
	}
	for _, w := range s.Openings(nil) {
		if w != o {
			continue
		}
		if err := s.cards.Open(o, card); err != nil {
			return err
		}
		if len(s.Openings(nil)) == 0 {
			s.resume()
			s.settle()
			s.autoplay()
		}
		return nil
	}
	return fmt.Errorf("%w: %s", engine.ErrNotWaiting, o)
}

// Reveals appends the cards the seat to act shows everyone with move a:
// an Economic Card played, the attacker's Military Card, and the
// defender's Military Card, unless the attacker played Ambush (the
// defender's card then has no effect and goes back to the hand unseen).
func (s *State) Reveals(a engine.Action, dst []engine.Handle) []engine.Handle {
	if len(a.Args) == 0 || s.ToAct().Kind != engine.ActorSeat {
		return dst
	}
	h, ok := engine.HandleArg(a.Args[0])
	if !ok {
		return dst
	}
	switch {
	case a.Op == opEcon && s.ph == phMain,
		a.Op == opMil && s.ph == phAttCard,
		a.Op == opMil && s.ph == phDefCard && s.cardKey(s.cAttCard) != kAmbush:
		return append(dst, h)
	}
	return dst
}

// ApplyRevealed is Apply with the cards of Reveals(a), in order. On an open
// table, or on the acting seat's own peer, cards may be nil (the state or
// its knowledge holds them). On a secret table every peer, the acting one
// included, checks the move the same way, from the public state and the
// cards shown, so that all accept the same moves (any held copy of a
// card; an unshown card is checked only to be in the hand). Nothing
// changes unless the move is accepted.
func (s *State) ApplyRevealed(seat int, a engine.Action, vals []int) error {
	if err := engine.CheckTurn(s.ToAct(), seat); err != nil {
		return err
	}
	hs := s.Reveals(a, nil)
	open := s.cards.Mode() == engine.CardsOpen
	own := open || s.cards.Knowledge() != nil && s.cards.Knowledge().Seat == seat
	if vals == nil && own {
		vals = make([]int, len(hs))
		for i, h := range hs {
			if vals[i] = s.kind(h, seat); vals[i] < 0 {
				return engine.Illegal("that card is not yours to show")
			}
		}
	}
	if len(vals) != len(hs) {
		return fmt.Errorf("%w: the move shows %d cards and %d values came with it", engine.ErrBadCard, len(hs), len(vals))
	}
	for i, h := range hs {
		if err := s.cards.Check(engine.Opening{Deck: h.Deck, Pos: h.Pos, To: engine.Public}, vals[i]); err != nil {
			return err
		}
		// A value this peer knows otherwise (its own card) is a lie.
		if k := s.kind(h, seat); k >= 0 && k != vals[i] {
			return fmt.Errorf("%w: %s is card %d, not %d", engine.ErrBadCard, h, k, vals[i])
		}
	}
	shown := vals
	if open {
		shown = nil // the state holds every value: check reads them
	} else if shown == nil {
		shown = []int{}
	}
	if why := s.check(seat, a, shown); why != "" {
		return engine.Illegal("%s", why)
	}
	for i, h := range hs {
		// Check passed above: this cannot fail.
		if err := s.cards.Open(engine.Opening{Deck: h.Deck, Pos: h.Pos, To: engine.Public}, vals[i]); err != nil {
			return err
		}
	}
	s.do(seat, a)
	s.autoplay()
	return nil
}

// deckOf is the declared deck (econDeck or milDeck) a handle's card came
// from, following reshuffles back to their first source.
func (s *State) deckOf(h engine.Handle) int {
	d := int(h.Deck)
	for guard := 0; d >= 2 && guard < engine.MaxDecks; guard++ {
		src := s.cards.Sources(d)
		if len(src) == 0 {
			break
		}
		d = int(src[0].Deck)
	}
	if d > 1 {
		return 0
	}
	return d
}
