package engine

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sort"
)

// This file is the engine's side of hidden cards (docs/hidden-cards.md):
// handles, openings, a seat's private Knowledge, and Cards, the bookkeeping
// a card game's state embeds. The card layer (mental poker on a secret
// table) or the open card source (the beacon, everywhere else) answers what
// the state asks for; the rules never see a card they may not see.

// MaxDecks and MaxDeckSize bound what a game may declare and what a decoder
// accepts. Card values travel as (value+1)·G in the card layer, which takes
// decks of at most 1024 cards.
const (
	MaxDecks    = 256
	MaxDeckSize = 1024
	// MaxCardSeats is the number of seats the seen-by masks can hold.
	MaxCardSeats = 16
)

// Handle names one card of a jointly shuffled deck by its position. Nobody
// knows which card a position holds until it is opened: the engine moves
// handles between zones and refers to cards only by them.
type Handle struct {
	Deck uint8
	Pos  uint16
}

func (h Handle) String() string { return fmt.Sprintf("%d:%d", h.Deck, h.Pos) }

// Arg is the handle as one action argument: Deck<<16 | Pos (for deck 0,
// the position itself).
func (h Handle) Arg() int32 { return int32(h.Deck)<<16 | int32(h.Pos) }

// HandleArg reads an argument written by Handle.Arg; ok is false for a
// number that is no handle.
func HandleArg(a int32) (h Handle, ok bool) {
	if a < 0 || a>>16 >= MaxDecks {
		return Handle{}, false
	}
	return Handle{Deck: uint8(a >> 16), Pos: uint16(a)}, true
}

func handleLess(a, b Handle) bool { return a.Deck < b.Deck || a.Deck == b.Deck && a.Pos < b.Pos }

// Public is the To of an opening that every seat learns.
const Public = -1

// NoCard is the card value passed to Open by a peer that is not the
// recipient of a private opening: it learns that the opening happened,
// never what it showed.
const NoCard = -1

// Opening is a card the state waits to see opened: the card at (Deck, Pos)
// shown to seat To only (a draw into a hand, a peek that leaves the card
// where it is), or to everyone (To = Public: a tile turned over).
type Opening struct {
	Deck uint8
	Pos  uint16
	To   int
}

// Handle is the card the opening opens.
func (o Opening) Handle() Handle { return Handle{Deck: o.Deck, Pos: o.Pos} }

func (o Opening) String() string {
	if o.To == Public {
		return fmt.Sprintf("open %s to everyone", o.Handle())
	}
	return fmt.Sprintf("open %s to seat %d", o.Handle(), o.To+1)
}

// CardMode says who answers a state's openings.
type CardMode uint8

const (
	// CardsOpen: the open card source. Every opening is answered at once
	// from the next beacon (a chance step) and its value is written into
	// the shared state, so every peer's engine holds every card drawn;
	// views still show each seat only what the rules let it see. This is
	// sim, the bots' searches, the tests and --open-hands tables.
	CardsOpen CardMode = iota
	// CardsSecret: the card layer (mental poker) answers openings; the
	// state waits with ActorCards, holds only public values, and a
	// private value reaches only its recipient's Knowledge.
	CardsSecret
)

// Errors of the card contract.
var (
	// ErrNotWaiting: an opening was answered that the state did not ask for.
	ErrNotWaiting = errors.New("the game is not waiting for that card")
	// ErrBadCard: a card value that cannot be the card asked for.
	ErrBadCard = errors.New("impossible card")
)

// Knowledge is what one seat knows privately: the cards opened to it
// (handle → card). It lives beside the shared state, never in it: it is
// not encoded into the state, not hashed and never sent. It is kept
// sorted by handle (no map), so it encodes canonically for tests.
type Knowledge struct {
	Seat  int
	cards []known
}

type known struct {
	h    Handle
	card uint16
}

// NewKnowledge returns the empty knowledge of seat.
func NewKnowledge(seat int) *Knowledge { return &Knowledge{Seat: seat} }

func (k *Knowledge) find(h Handle) (int, bool) {
	i := sort.Search(len(k.cards), func(i int) bool { return !handleLess(k.cards[i].h, h) })
	return i, i < len(k.cards) && k.cards[i].h == h
}

// Learn records that handle h holds card. A seat learns a handle once;
// learning it again with another value is the card layer's bug.
func (k *Knowledge) Learn(h Handle, card uint16) error {
	i, ok := k.find(h)
	if ok {
		if k.cards[i].card != card {
			return fmt.Errorf("%w: %s was %d and is now said to be %d", ErrBadCard, h, k.cards[i].card, card)
		}
		return nil
	}
	k.cards = append(k.cards, known{})
	copy(k.cards[i+1:], k.cards[i:])
	k.cards[i] = known{h: h, card: card}
	return nil
}

// Card returns the card of h if the seat knows it.
func (k *Knowledge) Card(h Handle) (uint16, bool) {
	if k == nil {
		return 0, false
	}
	i, ok := k.find(h)
	if !ok {
		return 0, false
	}
	return k.cards[i].card, true
}

// Len is the number of cards the seat knows.
func (k *Knowledge) Len() int { return len(k.cards) }

// Clone returns a copy.
func (k *Knowledge) Clone() *Knowledge {
	if k == nil {
		return nil
	}
	return &Knowledge{Seat: k.Seat, cards: append([]known(nil), k.cards...)}
}

// Encode writes the knowledge canonically (for a seat's own records and
// for tests that compare what a seat holds; it is never part of a state).
func (k *Knowledge) Encode(e *Encoder) {
	e.Int("seat", k.Seat)
	e.Len("cards", len(k.cards))
	for i, c := range k.cards {
		e.BeginItem("cards", i)
		e.Uint("deck", uint64(c.h.Deck))
		e.Uint("pos", uint64(c.h.Pos))
		e.Uint("card", uint64(c.card))
		e.End()
	}
}

// slot is what the shared state holds about one position of a deck.
type slot struct {
	val  int32  // the card, or -1 when the shared state does not hold it
	pub  bool   // opened to everyone
	seen uint16 // the seats it was opened to (public knowledge: who saw what, never what); on a secret table only the last one, its holder in the deal
	dead bool   // reshuffled into a later deck: the handle names nothing any more
	src  int16  // open tables, reshuffled decks: the source this position took, or -1
}

// Deck is one declared deck: its cards before the shuffle. An Open deck is
// never shuffled: its cards lie face up in list order (a supply), public
// from the start, from where a reshuffle may take them into a hidden deck.
type Deck struct {
	Cards []uint16
	Open  bool
}

// Cards is the card bookkeeping a card game's state embeds: the decks it
// declared (public, deterministic from its options), what the shared state
// knows of each position, and, not encoded, the local seat's Knowledge.
//
// The rules use Public for effects (only public cards have effects on
// everyone's engine), Value for what one seat may see (its own legal moves,
// its view), Want to list the openings a step waits for, and Open to take
// an answer.
type Cards struct {
	mode  CardMode
	decks [][]uint16 // the declared decks' lists
	open  []bool     // per declared deck: face up, never shuffled
	// sources lists, per deck after the declared ones, the handles a
	// reshuffle took its cards from (deck d's are sources[d-len(decks)]).
	sources [][]Handle
	slots   [][]slot
	know    *Knowledge // the local seat's; nil on open tables and for spectators

	// Derived from slots (never encoded; rebuilt by derive after a decode)
	// so that an opening costs no pass over its deck and no allocation:
	// rem[d][v] and remPub[d][v] are the copies of card v of declared deck
	// d not bound to a position, and not public; free[d-len(decks)] lists,
	// ascending, the sources of reshuffled deck d no position took yet.
	rem, remPub [][]int
	free        [][]int16
}

// NewCards declares hidden decks: deck d is the ordered list decks[d] of
// card ids before the joint shuffle. The lists are copied.
func NewCards(decks [][]uint16) (Cards, error) {
	ds := make([]Deck, len(decks))
	for i, l := range decks {
		ds[i] = Deck{Cards: l}
	}
	return NewDecks(ds)
}

// NewDecks declares decks, hidden or open.
func NewDecks(decks []Deck) (Cards, error) {
	if len(decks) > MaxDecks {
		return Cards{}, fmt.Errorf("%d decks, at most %d", len(decks), MaxDecks)
	}
	c := Cards{decks: make([][]uint16, len(decks)), open: make([]bool, len(decks)), slots: make([][]slot, len(decks))}
	for d, dk := range decks {
		if len(dk.Cards) > MaxDeckSize {
			return Cards{}, fmt.Errorf("deck %d has %d cards, at most %d", d, len(dk.Cards), MaxDeckSize)
		}
		c.decks[d] = append([]uint16(nil), dk.Cards...)
		c.open[d] = dk.Open
		c.slots[d] = make([]slot, len(dk.Cards))
		for i := range c.slots[d] {
			c.slots[d][i] = slot{val: -1, src: -1}
			if dk.Open {
				c.slots[d][i].val, c.slots[d][i].pub = int32(dk.Cards[i]), true
			}
		}
	}
	c.derive()
	return c, nil
}

// derive rebuilds rem, remPub and free from the slots.
func (c *Cards) derive() {
	c.rem, c.remPub = make([][]int, len(c.decks)), make([][]int, len(c.decks))
	for d := range c.decks {
		c.rem[d], c.remPub[d] = c.remaining(uint8(d), false), c.remaining(uint8(d), true)
	}
	c.free = make([][]int16, len(c.slots)-len(c.decks))
	for d := len(c.decks); d < len(c.slots); d++ {
		taken := make([]bool, len(c.sources[d-len(c.decks)]))
		for _, s := range c.slots[d] {
			if s.src >= 0 {
				taken[s.src] = true
			}
		}
		f := make([]int16, 0, len(taken))
		for i, t := range taken {
			if !t {
				f = append(f, int16(i))
			}
		}
		c.free[d-len(c.decks)] = f
	}
}

// setVal binds the card of s, position h, which holds none yet.
func (c *Cards) setVal(h Handle, s *slot, card int) {
	s.val = int32(card)
	if int(h.Deck) < len(c.decks) {
		c.rem[h.Deck][card]--
	}
}

// setPub makes the bound card of s, position h, public.
func (c *Cards) setPub(h Handle, s *slot) {
	if !s.pub && int(h.Deck) < len(c.decks) {
		c.remPub[h.Deck][s.val]--
	}
	s.pub = true
}

// Decks returns the declared decks' lists (for the card layer's setup
// shuffle; Open says which are not shuffled). The caller must not change
// them.
func (c *Cards) Decks() [][]uint16 { return c.decks }

// Open reports whether declared deck d lies face up.
func (c *Cards) OpenDeck(d int) bool { return d < len(c.open) && c.open[d] }

// NumDecks is the number of decks: the declared ones, then one per
// reshuffle.
func (c *Cards) NumDecks() int { return len(c.slots) }

// Sources returns the handles deck d was reshuffled from, or nil for a
// declared deck. The caller must not change them.
func (c *Cards) Sources(d int) []Handle {
	if d < len(c.decks) || d >= len(c.slots) {
		return nil
	}
	return c.sources[d-len(c.decks)]
}

// Mode says who answers the openings.
func (c *Cards) Mode() CardMode { return c.mode }

// UseSecret switches to the secret card layer. It is allowed only before any
// card has been opened (at setup), so that no value is ever in the state.
func (c *Cards) UseSecret() error {
	for d, ss := range c.slots {
		for _, s := range ss {
			if d < len(c.open) && c.open[d] {
				continue
			}
			if s.seen != 0 || s.pub || s.val >= 0 || len(c.slots) > len(c.decks) {
				return errors.New("cards were already opened; a table chooses secret cards before the first deal")
			}
		}
	}
	c.mode = CardsSecret
	return nil
}

// SetKnowledge attaches the local seat's private knowledge (secret tables).
// It is not part of the state: Encode leaves it out.
func (c *Cards) SetKnowledge(k *Knowledge) { c.know = k }

// Knowledge returns the attached knowledge, or nil.
func (c *Cards) Knowledge() *Knowledge { return c.know }

func (c *Cards) slot(h Handle) *slot {
	if int(h.Deck) >= len(c.slots) || int(h.Pos) >= len(c.slots[h.Deck]) {
		return nil
	}
	return &c.slots[h.Deck][h.Pos]
}

// Valid reports whether h names a position of a declared deck.
func (c *Cards) Valid(h Handle) bool { return c.slot(h) != nil }

// Public returns the card of h if it has been opened to everyone.
func (c *Cards) Public(h Handle) (uint16, bool) {
	s := c.slot(h)
	if s == nil || !s.pub {
		return 0, false
	}
	return uint16(s.val), true
}

// Seen reports whether seat has been shown h (or h is public). On a
// secret table it is the seat the last private opening of h went to (the
// deal's holder, the one seat able to show it): a seat shown h before
// another was is not counted any more, and Want opens h to it again.
func (c *Cards) Seen(h Handle, seat int) bool {
	s := c.slot(h)
	return s != nil && (s.pub || seat >= 0 && seat < MaxCardSeats && s.seen&(1<<seat) != 0)
}

// Value returns the card of h as seat may know it: a public card, or one
// opened to seat, read from the shared state on an open table and from the
// seat's Knowledge on a secret one (known only on that seat's own peer).
func (c *Cards) Value(h Handle, seat int) (uint16, bool) {
	s := c.slot(h)
	if s == nil {
		return 0, false
	}
	if s.pub {
		return uint16(s.val), true
	}
	if seat < 0 || seat >= MaxCardSeats || s.seen&(1<<seat) == 0 {
		return 0, false // not seen (Seen, without finding the slot again)
	}
	if c.mode == CardsOpen {
		return uint16(s.val), s.val >= 0
	}
	if c.know != nil && c.know.Seat == seat {
		return c.know.Card(h)
	}
	return 0, false
}

// Unlearned appends to dst the cards opened to k's seat alone in c, and
// not in before (the state of the step before), that k lacks: private
// openings that this seat's peer has not read yet. A front end that names
// the seat's own cards waits for them. Open tables hold every value in the
// state, so nothing there is ever unlearned.
func (c *Cards) Unlearned(dst []Handle, before *Cards, k *Knowledge) []Handle {
	if c.mode == CardsOpen || k == nil || k.Seat < 0 || k.Seat >= MaxCardSeats {
		return dst
	}
	bit := uint16(1) << k.Seat
	for d := range c.slots {
		for p := range c.slots[d] {
			s := &c.slots[d][p]
			if s.pub || s.dead || s.seen&bit == 0 {
				continue
			}
			h := Handle{Deck: uint8(d), Pos: uint16(p)}
			if b := before.slot(h); b != nil && b.seen&bit != 0 {
				continue
			}
			if _, ok := k.Card(h); !ok {
				dst = append(dst, h)
			}
		}
	}
	return dst
}

// Want appends the opening of h to to, unless it is already satisfied (to
// has seen h, as Seen counts it, or h is public).
func (c *Cards) Want(dst []Opening, h Handle, to int) []Opening {
	if c.Wants(h, to) {
		dst = append(dst, Opening{Deck: h.Deck, Pos: h.Pos, To: to})
	}
	return dst
}

// Wants reports whether Want would list the opening of h to to: a state
// asks it to learn whether it waits for a card at all without building
// the list (its ToAct is called at every step).
func (c *Cards) Wants(h Handle, to int) bool {
	if to == Public {
		s := c.slot(h)
		return s != nil && !s.pub
	}
	return !c.Seen(h, to)
}

// WantsAny reports whether Want would list the opening of any of hs to
// to: one call for a whole zone (a hand), which a state asks at every step.
func (c *Cards) WantsAny(hs []Handle, to int) bool {
	for _, h := range hs {
		if int(h.Deck) >= len(c.slots) || int(h.Pos) >= len(c.slots[h.Deck]) {
			if to != Public {
				return true // no such card: not seen, so Want lists it
			}
			continue
		}
		s := &c.slots[h.Deck][h.Pos]
		switch {
		case s.pub:
		case to == Public:
			return true
		case to < 0 || to >= MaxCardSeats || s.seen&(1<<to) == 0:
			return true
		}
	}
	return false
}

// Bound reports whether the shared state holds h's value (open tables, or
// a public card).
func (c *Cards) Bound(h Handle) bool {
	s := c.slot(h)
	return s != nil && s.val >= 0
}

// remaining returns, per card id, the copies of deck d not yet bound to a
// position (pub only: only public values when onlyPub).
func (c *Cards) remaining(d uint8, onlyPub bool) []int {
	n := 0
	for _, v := range c.decks[d] {
		n = max(n, int(v)+1)
	}
	w := make([]int, n)
	for _, v := range c.decks[d] {
		w[v]++
	}
	for _, s := range c.slots[d] {
		if s.val >= 0 && (!onlyPub || s.pub) {
			w[s.val]--
		}
	}
	return w
}

// Check says why card cannot answer o, or nil. It checks what the engine
// can know: the handle exists; a value the state holds is not contradicted;
// a public value is a card of the deck whose copies are not all public
// already; a private answer on a secret table reaches only its recipient.
// The card layer's proofs check the rest (that the value is the card).
func (c *Cards) Check(o Opening, card int) error {
	h := o.Handle()
	s := c.slot(h)
	if s == nil {
		return fmt.Errorf("%w: there is no card %s", ErrNotWaiting, h)
	}
	if o.To < Public || o.To >= MaxCardSeats {
		return fmt.Errorf("%w: seat %d", ErrNotWaiting, o.To+1)
	}
	if s.dead {
		return fmt.Errorf("%w: %s was reshuffled into another deck", ErrNotWaiting, h)
	}
	secretOther := c.mode == CardsSecret && o.To != Public && (c.know == nil || c.know.Seat != o.To)
	if secretOther {
		if card != NoCard {
			return fmt.Errorf("%w: a card opened to seat %d was given to another seat's engine", ErrBadCard, o.To+1)
		}
		return nil
	}
	if card < 0 || card > 0xffff {
		return fmt.Errorf("%w: %s needs its value", ErrBadCard, o)
	}
	if s.val >= 0 {
		if int(s.val) != card {
			return fmt.Errorf("%w: %s holds card %d, not %d", ErrBadCard, h, s.val, card)
		}
		return nil
	}
	if !c.possible(o.Deck, card, c.mode == CardsSecret) {
		return fmt.Errorf("%w: deck %d has no card %d left to be at %s", ErrBadCard, o.Deck, card, h)
	}
	return nil
}

// Open records the answer to o, checked by Check: a public card goes into
// the shared state; a private one marks who saw it, and its value goes into
// the shared state on an open table, into the recipient's Knowledge on a
// secret one (card = NoCard on every other peer).
func (c *Cards) Open(o Opening, card int) error {
	if err := c.Check(o, card); err != nil {
		return err
	}
	h := o.Handle()
	s := c.slot(h)
	if o.To == Public {
		if s.val < 0 {
			c.setVal(h, s, card)
		}
		c.setPub(h, s)
		if c.mode == CardsOpen && s.src < 0 && int(o.Deck) >= len(c.decks) {
			c.takeSource(o.Deck, s, card)
		}
		return nil
	}
	if c.mode == CardsOpen && s.src < 0 && int(o.Deck) >= len(c.decks) {
		c.takeSource(o.Deck, s, card)
	}
	if c.mode == CardsSecret {
		// The deal's rule (lockstep/deal, finishBatch): a private opening
		// to a seat re-masks the card for it, and the seat shown it
		// before can no longer show it (its shares of the new ciphertext
		// are the ones the new holder used). So the opening in force is
		// the last one: if the card comes back to an earlier seat, Want
		// must ask to open it to that seat again, which hands it back
		// with proof. Seen follows the holder, not the history.
		s.seen = 1 << o.To
	} else {
		s.seen |= 1 << o.To
	}
	switch {
	case c.mode == CardsOpen:
		if s.val < 0 {
			c.setVal(h, s, card)
		}
	case card != NoCard:
		return c.know.Learn(o.Handle(), uint16(card))
	}
	return nil
}

// AnswerBound answers, on an open table, every opening of want whose value
// the state already holds, and returns the ones left (in order, reusing
// want). On a secret table it answers only public re-openings of public
// cards and returns the rest.
func (c *Cards) AnswerBound(want []Opening) []Opening {
	out := want[:0]
	for _, o := range want {
		s := c.slot(o.Handle())
		if s != nil && s.val >= 0 && (c.mode == CardsOpen || s.pub) {
			// Check cannot fail: the value is the one held.
			_ = c.Open(o, int(s.val))
			continue
		}
		out = append(out, o)
	}
	return out
}

// OpenFromBeacon is the open card source: it answers every opening of want
// from beacon. A position not yet bound gets a card drawn uniformly among
// the deck's cards not yet bound to any position, in the order of want, so
// a deck behaves exactly as a uniformly shuffled one, and no card is fixed
// before the step that shows it (late-bound: nobody can foresee a draw).
func (c *Cards) OpenFromBeacon(want []Opening, beacon []byte) error {
	if c.mode != CardsOpen {
		return errors.New("the open card source cannot answer a secret table")
	}
	// On the stack: an opening costs no allocation.
	var room [64]byte
	r := randIn(beacon, room[:])
	for _, o := range want {
		s := c.slot(o.Handle())
		if s == nil || s.dead || o.To < Public || o.To >= MaxCardSeats {
			// Refused before bind draws anything (Open would refuse it too).
			return fmt.Errorf("%w: %s", ErrNotWaiting, o)
		}
		card, err := c.bind(o.Handle(), &r, 0)
		if err != nil {
			return err
		}
		if err := c.Open(o, card); err != nil {
			return err
		}
	}
	return nil
}

// Clone returns a deep copy (the knowledge too, so that a bot's trial moves
// on a copy never touch the peer's own). The lists that never change once
// made (the declared decks, each reshuffle's sources) are shared; every
// deck's positions are copied into one allocation, and so are the counts
// and the free sources: a clone costs the same few allocations however
// many reshuffles the game made (lockstep clones the state at every step).
func (c *Cards) Clone() Cards {
	out := Cards{mode: c.mode, decks: c.decks, open: c.open, know: c.know.Clone(),
		// Capped: a reshuffle on one copy appends to its own list.
		sources: c.sources[:len(c.sources):len(c.sources)]}
	out.slots = cloneEach(c.slots)
	out.rem, out.remPub = cloneEach(c.rem), cloneEach(c.remPub)
	out.free = cloneEach(c.free)
	return out
}

// cloneEach copies every list of ls into one backing array; each copy is
// capped at its length, so that no append to one can reach the next.
func cloneEach[T any](ls [][]T) [][]T {
	n := 0
	for _, l := range ls {
		n += len(l)
	}
	back := make([]T, n)
	out := make([][]T, len(ls))
	at := 0
	for i, l := range ls {
		copy(back[at:], l)
		out[i] = back[at : at+len(l) : at+len(l)]
		at += len(l)
	}
	return out
}

// Encode writes the shared part: the mode and, per deck, the handles it was
// reshuffled from (deck, then position), then its positions column by
// column: the value the state holds at each (-1 for none), the flags of
// every position as runs, and on an open table the source each position of
// a reshuffled deck took (-1: none yet). The flags of a position are one
// number: public (bit 0), reshuffled away (bit 1), the seats that saw it
// (bits 2 and up); runs of equal flags are written as a count and the
// flags (a whole deck reshuffled away, or a supply, is a few runs). A
// value is not written where the state knows it otherwise: an open deck
// lies face up as declared, and on an open table a position of a
// reshuffled deck shows the card of the source it took. The decks' lists
// are not written: the game derives them from its options. The knowledge
// is never written.
func (c *Cards) Encode(e *Encoder) {
	if !e.trace {
		c.encodeFast(e)
		return
	}
	e.Begin("cards")
	e.Uint("mode", uint64(c.mode))
	e.Len("decks", len(c.slots))
	for d, ss := range c.slots {
		e.BeginItem("deck", d)
		src := c.Sources(d)
		e.Len("sources", len(src))
		for _, h := range src {
			// Deck and position apart: two bytes for a position below
			// 128, where the handle's argument takes three.
			e.Uint("source.deck", uint64(h.Deck))
			e.Uint("source.pos", uint64(h.Pos))
		}
		e.Len("slots", len(ss))
		if c.writesVal(d) {
			for i := range ss {
				e.BeginItem("slot", i)
				e.Int("val", int(ss[i].val))
				e.End()
			}
		}
		e.Len("runs", countRuns(ss))
		for i := 0; i < len(ss); {
			j := i + 1
			for j < len(ss) && sameFlags(&ss[j], &ss[i]) {
				j++
			}
			f := ss[i].flags()
			e.BeginItem("slot", i)
			e.Uint("run", uint64(j-i))
			e.Uint("flags", f)
			e.End()
			i = j
		}
		if c.writesSrc(d) {
			for i := range ss {
				e.BeginItem("slot", i)
				e.Int("src", int(ss[i].src))
				e.End()
			}
		}
		e.End()
	}
	e.End()
}

// encodeFast writes exactly the bytes of Encode, without the field names a
// trace encoder records: the state is hashed at every step, and its card
// bookkeeping is most of it (TestCardsFastEncodingIsTheTraced).
func (c *Cards) encodeFast(e *Encoder) {
	b := e.buf
	b = binary.AppendUvarint(b, uint64(c.mode))
	b = binary.AppendUvarint(b, uint64(len(c.slots)))
	var runs [128]struct {
		n int
		f uint64
	}
	for d, ss := range c.slots {
		src := c.Sources(d)
		b = binary.AppendUvarint(b, uint64(len(src)))
		for _, h := range src {
			b = binary.AppendUvarint(b, uint64(h.Deck))
			b = binary.AppendUvarint(b, uint64(h.Pos))
		}
		b = binary.AppendUvarint(b, uint64(len(ss)))
		if c.writesVal(d) {
			for i := range ss {
				b = appendInt(b, int(ss[i].val))
			}
		}
		// The runs, gathered in one pass while they fit in runs, else
		// counted first.
		k := 0
		for i := 0; i < len(ss) && k <= len(runs); {
			j := i + 1
			for j < len(ss) && sameFlags(&ss[j], &ss[i]) {
				j++
			}
			if k < len(runs) {
				runs[k].n, runs[k].f = j-i, ss[i].flags()
			}
			k++
			i = j
		}
		if k <= len(runs) {
			b = binary.AppendUvarint(b, uint64(k))
			for _, r := range runs[:k] {
				b = binary.AppendUvarint(b, uint64(r.n))
				b = binary.AppendUvarint(b, r.f)
			}
		} else {
			b = binary.AppendUvarint(b, uint64(countRuns(ss)))
			for i := 0; i < len(ss); {
				j := i + 1
				for j < len(ss) && sameFlags(&ss[j], &ss[i]) {
					j++
				}
				b = binary.AppendUvarint(b, uint64(j-i))
				b = binary.AppendUvarint(b, ss[i].flags())
				i = j
			}
		}
		if c.writesSrc(d) {
			for i := range ss {
				b = appendInt(b, int(ss[i].src))
			}
		}
	}
	e.buf = b
}

// appendInt appends v as Encoder.Int writes it (zig-zag varint), one byte
// without a call in the usual case.
func appendInt(b []byte, v int) []byte {
	if uint(v+64) < 0x80 {
		return append(b, byte(v<<1)^byte(v>>63))
	}
	return binary.AppendVarint(b, int64(v))
}

// writesVal reports whether the encoding holds deck d's values: not for an
// open declared deck (face up as declared), nor for a reshuffled deck on
// an open table (each position shows the source it took).
func (c *Cards) writesVal(d int) bool {
	if d < len(c.decks) {
		return !c.open[d]
	}
	return c.mode == CardsSecret
}

// writesSrc reports whether the encoding holds the sources deck d's
// positions took: a reshuffled deck on an open table.
func (c *Cards) writesSrc(d int) bool { return d >= len(c.decks) && c.mode == CardsOpen }

// flags is the position's flags as Encode writes them.
func (s *slot) flags() uint64 {
	f := uint64(s.seen) << 2
	if s.pub {
		f |= 1
	}
	if s.dead {
		f |= 2
	}
	return f
}

// sameFlags reports whether a and b have the same flags.
func sameFlags(a, b *slot) bool { return a.pub == b.pub && a.dead == b.dead && a.seen == b.seen }

// countRuns is the number of runs of equal flags in ss.
func countRuns(ss []slot) int {
	n := 0
	for i := range ss {
		if i == 0 || !sameFlags(&ss[i], &ss[i-1]) {
			n++
		}
	}
	return n
}

// DecodeCards reads what Encode wrote for the hidden decks the game
// declares (DecodeDecks for open ones too).
func DecodeCards(d *Decoder, decks [][]uint16) (Cards, error) {
	ds := make([]Deck, len(decks))
	for i, l := range decks {
		ds[i] = Deck{Cards: l}
	}
	return DecodeDecks(d, ds)
}

// DecodeDecks reads what Encode wrote for the decks the game declares, and
// checks it: sizes match; values are cards of their deck; no declared
// card is bound to more positions than the deck has copies; open decks lie
// face up as declared; runs of flags are maximal and cover the deck; every
// reshuffled deck takes each of its sources, all of earlier decks, once,
// and every reshuffled handle is a source of exactly one deck; a position
// of a reshuffled deck took a source whose card it shows (open tables); a
// secret table holds no private value.
func DecodeDecks(d *Decoder, decks []Deck) (Cards, error) {
	c, err := NewDecks(decks)
	if err != nil {
		return Cards{}, err
	}
	bad := func(format string, args ...any) (Cards, error) {
		return Cards{}, fmt.Errorf("%w: %s", ErrDecode, fmt.Sprintf(format, args...))
	}
	mode := d.Uint()
	if d.Err() == nil && mode > uint64(CardsSecret) {
		return bad("card mode %d", mode)
	}
	c.mode = CardMode(mode)
	n := d.Len(MaxDecks)
	if d.Err() != nil {
		return Cards{}, d.Err()
	}
	if n < len(decks) {
		return bad("%d decks, the game has %d", n, len(decks))
	}
	top := 0 // every card id is below top
	for _, dk := range decks {
		for _, v := range dk.Cards {
			top = max(top, int(v)+1)
		}
	}
	// One position's columns, read before they are checked together.
	vals, flags, srcs := make([]int, MaxDeckSize), make([]uint64, MaxDeckSize), make([]int, MaxDeckSize)
	for di := 0; di < n; di++ {
		ns := d.Len(MaxDeckSize)
		var src []Handle
		for i := 0; i < ns && d.Err() == nil; i++ {
			sd, sp := d.Uint(), d.Uint()
			if d.Err() == nil && (sd >= uint64(di) || sp >= uint64(len(c.slots[sd]))) {
				return bad("deck %d takes a card that is not in an earlier deck", di)
			}
			src = append(src, Handle{Deck: uint8(sd), Pos: uint16(sp)})
		}
		m := d.Len(MaxDeckSize)
		if d.Err() != nil {
			return Cards{}, d.Err()
		}
		if di < len(decks) {
			if ns != 0 || m != len(decks[di].Cards) {
				return bad("deck %d has %d positions, the game has %d", di, m, len(decks[di].Cards))
			}
		} else {
			if m != ns || m == 0 {
				return bad("reshuffled deck %d has %d positions and %d sources", di, m, ns)
			}
			c.sources = append(c.sources, src)
			c.slots = append(c.slots, make([]slot, m))
		}
		for i := 0; i < m; i++ {
			vals[i], srcs[i] = -1, -1
			if di < len(decks) && decks[di].Open {
				vals[i] = int(decks[di].Cards[i])
			}
		}
		if c.writesVal(di) {
			for i := 0; i < m; i++ {
				vals[i] = d.Int()
			}
		}
		runs := d.Len(m)
		at := 0
		for r := 0; r < runs && d.Err() == nil; r++ {
			k, f := d.Uint(), d.Uint()
			if d.Err() != nil {
				break
			}
			if k == 0 || k > uint64(m-at) || r > 0 && f == flags[at-1] {
				return bad("deck %d: runs of flags that are not maximal or do not fit", di)
			}
			for j := 0; j < int(k); j++ {
				flags[at] = f
				at++
			}
		}
		if d.Err() == nil && at != m {
			return bad("deck %d: runs of flags cover %d of %d positions", di, at, m)
		}
		if c.writesSrc(di) {
			for i := 0; i < m; i++ {
				srcs[i] = d.Int()
			}
		}
		if d.Err() != nil {
			return Cards{}, d.Err()
		}
		reshuffledOpen := c.writesSrc(di)
		// A declared deck's slots hold its own cards only: remaining
		// counts them against its card list, by card.
		deckTop := 0
		if di < len(decks) {
			for _, v := range c.decks[di] {
				deckTop = max(deckTop, int(v)+1)
			}
		}
		used := make([]bool, ns)
		for i := range c.slots[di] {
			s := &c.slots[di][i]
			v, f, sv := vals[i], flags[i], srcs[i]
			if reshuffledOpen && sv >= 0 && sv < ns {
				// The card of the source it took (checked below).
				v = int(c.slot(src[sv]).val)
				if v < 0 {
					return bad("card %d:%d took a source with no card", di, i)
				}
			}
			seen := f >> 2
			s.pub, s.dead = f&1 != 0, f&2 != 0
			if v < -1 || v >= top || seen > 0xffff || s.pub && v < 0 || c.mode == CardsSecret && !s.pub && v >= 0 {
				return bad("card %d:%d", di, i)
			}
			if di < len(decks) && decks[di].Open && !s.pub {
				return bad("card %d:%d of a face-up deck", di, i)
			}
			if di < len(decks) && v >= deckTop {
				return bad("card %d:%d is no card of its deck", di, i)
			}
			if sv < -1 || sv >= ns || (sv >= 0) != (v >= 0 && reshuffledOpen) {
				return bad("card %d:%d names source %d", di, i, sv)
			}
			if sv >= 0 {
				if used[sv] {
					return bad("card %d:%d takes a source twice", di, i)
				}
				used[sv] = true
				if o := c.slot(src[sv]); o.val != int32(v) {
					return bad("card %d:%d is not the card it took", di, i)
				}
			}
			s.val, s.seen, s.src = int32(v), uint16(seen), int16(sv)
		}
		if di < len(decks) {
			for _, w := range c.remaining(uint8(di), false) {
				if w < 0 {
					return bad("deck %d holds more copies of a card than it has", di)
				}
			}
		}
	}
	// Every dead handle is the source of exactly one reshuffle.
	as := make([][]int, len(c.slots))
	for di := range c.slots {
		as[di] = make([]int, len(c.slots[di]))
	}
	for _, src := range c.sources {
		for _, h := range src {
			as[h.Deck][h.Pos]++
		}
	}
	for di := range c.slots {
		for i, s := range c.slots[di] {
			if (as[di][i] == 1) != s.dead || as[di][i] > 1 {
				return bad("card %d:%d is reshuffled %d times", di, i, as[di][i])
			}
		}
	}
	c.derive()
	return c, nil
}

// CardState is implemented by the states of games with hidden cards. It is
// what the card layer drives on a secret table; on an open one the state
// answers itself from the beacon and looks like any other State.
type CardState interface {
	State
	// Cards is the state's card bookkeeping: the declared decks, the mode,
	// the local knowledge (SetKnowledge).
	Cards() *Cards
	// UseSecretCards makes the card layer answer openings (before the deal).
	UseSecretCards() error
	// Openings appends what the state waits for; ToAct is ActorCards (or,
	// on an open table, chance) while it is not empty.
	Openings(dst []Opening) []Opening
	// Open answers one of Openings (card: the value, or NoCard on a peer
	// that is not a private opening's recipient). The state moves on when
	// the last one is answered. A refused answer changes nothing.
	Open(o Opening, card int) error
	// Reveals appends the handles action a of the seat to act makes public:
	// its envelope carries their openings.
	Reveals(a Action, dst []Handle) []Handle
	// ApplyRevealed is Apply with the values of Reveals(a), in order; on an
	// open table the values may be nil (the state holds them).
	ApplyRevealed(seat int, a Action, cards []int) error
}

// Bind fixes, on an open table, the card at a position no card is bound
// to yet, without showing it to anyone: a stacked deck for a test, or a
// dealer's order. It refuses a secret table, a bound or dead position, and
// a card the deck has no unbound copy of.
func (c *Cards) Bind(h Handle, card int) error {
	s := c.slot(h)
	switch {
	case c.mode != CardsOpen:
		return errors.New("only an open table's state holds card values")
	case s == nil || s.dead || int(h.Deck) >= len(c.decks):
		return fmt.Errorf("%w: %s is no position of a declared deck", ErrNotWaiting, h)
	case s.val >= 0:
		return fmt.Errorf("%w: %s is already card %d", ErrBadCard, h, s.val)
	case !c.possible(h.Deck, card, false):
		return fmt.Errorf("%w: deck %d has no card %d left to be at %s", ErrBadCard, h.Deck, card, h)
	}
	c.setVal(h, s, card)
	return nil
}

// Dead reports whether h was reshuffled into a later deck.
func (c *Cards) Dead(h Handle) bool {
	s := c.slot(h)
	return s != nil && s.dead
}
