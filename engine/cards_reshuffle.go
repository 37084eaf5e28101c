package engine

import "fmt"

// Reshuffle takes the cards at from into a new deck, shuffled jointly (a
// Dominion discard pile becoming a draw pile), and returns its id: the next
// deck. Its cards are then (id, 0…len(from)-1); the handles in from name
// nothing any more (opening one is refused). The card layer sees the new
// deck in NumDecks and Sources after the step and shuffles it (on a secret
// table, before it answers an opening of it); the engine goes on at once.
// On an open table, like a declared deck, a position gets its card at the
// first opening: one of the sources not yet taken, uniformly.
func (c *Cards) Reshuffle(from []Handle) (uint8, error) {
	if len(c.slots) >= MaxDecks {
		return 0, fmt.Errorf("a game has at most %d decks", MaxDecks)
	}
	if len(from) == 0 || len(from) > MaxDeckSize {
		return 0, fmt.Errorf("a reshuffle of %d cards", len(from))
	}
	// Each card is marked dead as it is taken, so a card named twice is
	// found dead the second time; a refusal undoes the marks (nothing
	// changes).
	for i, h := range from {
		s := c.slot(h)
		if s == nil || s.dead {
			twice := s != nil && index(from[:i], h) >= 0
			for _, g := range from[:i] {
				c.slot(g).dead = false
			}
			if twice {
				return 0, fmt.Errorf("%s is in the reshuffle twice", h)
			}
			return 0, fmt.Errorf("%w: no card %s to reshuffle", ErrNotWaiting, h)
		}
		s.dead = true
	}
	id := uint8(len(c.slots))
	c.sources = append(c.sources, append([]Handle(nil), from...))
	ss := make([]slot, len(from))
	for i := range ss {
		ss[i] = slot{val: -1, src: -1}
	}
	c.slots = append(c.slots, ss)
	f := make([]int16, len(from))
	for i := range f {
		f[i] = int16(i)
	}
	c.free = append(c.free, f)
	return id, nil
}

// possible reports whether card may be at an unbound position of deck d:
// a declared deck has a copy of it not yet bound (only public values count
// when onlyPub); a reshuffled deck has a source that is, or may be, it.
func (c *Cards) possible(d uint8, card int, onlyPub bool) bool {
	// The answer for a deck depends on the deck alone: memoized, a chain of
	// reshuffles (a Dominion game makes dozens) costs one pass per deck,
	// where the plain recursion grew with the product of their sizes.
	memo := make([]int8, len(c.slots))
	return c.possibleIn(d, card, onlyPub, memo)
}

func (c *Cards) possibleIn(d uint8, card int, onlyPub bool, memo []int8) bool {
	if memo[d] != 0 {
		return memo[d] > 0
	}
	ok := c.possibleOnce(d, card, onlyPub, memo)
	memo[d] = -1
	if ok {
		memo[d] = 1
	}
	return ok
}

func (c *Cards) possibleOnce(d uint8, card int, onlyPub bool, memo []int8) bool {
	if int(d) < len(c.decks) {
		w := c.rem[d]
		if onlyPub {
			w = c.remPub[d]
		}
		return card >= 0 && card < len(w) && w[card] > 0
	}
	src := c.Sources(int(d))
	taken := 0 // positions of d that show card
	for _, s := range c.slots[d] {
		if s.val == int32(card) && (!onlyPub || s.pub) {
			taken++
		}
	}
	could := 0 // sources that are or may be card
	for _, h := range src {
		s := c.slot(h)
		switch {
		case s.val == int32(card) && (!onlyPub || s.pub):
			could++
		case s.val < 0 || onlyPub && !s.pub:
			if c.possibleIn(h.Deck, card, onlyPub, memo) {
				could++
			}
		}
	}
	return could > taken
}

// bind returns the card of h on an open table, drawing it with r at its
// first opening: for a declared deck, uniformly among the copies not yet
// bound; for a reshuffled deck, a uniform source among those not yet taken
// (bound in turn if need be), which is the card that position took.
func (c *Cards) bind(h Handle, r *Rand, depth int) (int, error) {
	s := c.slot(h)
	if s == nil {
		return 0, fmt.Errorf("%w: there is no card %s", ErrNotWaiting, h)
	}
	if s.val >= 0 {
		return int(s.val), nil
	}
	if depth > MaxDecks {
		return 0, fmt.Errorf("reshuffles nest too deep")
	}
	if int(h.Deck) < len(c.decks) {
		card := r.Pick(c.rem[h.Deck])
		if card < 0 {
			return 0, fmt.Errorf("deck %d has more positions than cards", h.Deck)
		}
		return card, nil
	}
	src := c.Sources(int(h.Deck))
	free := c.free[int(h.Deck)-len(c.decks)]
	if len(free) == 0 {
		return 0, fmt.Errorf("deck %d has more positions than sources", h.Deck)
	}
	k := r.Intn(len(free))
	i := free[k]
	card, err := c.bind(src[i], r, depth+1)
	if err != nil {
		return 0, err
	}
	if so := c.slot(src[i]); so.val < 0 {
		c.setVal(src[i], so, card)
	}
	c.take(h.Deck, s, k)
	// The position shows its source's card from now on: the opening that
	// follows finds it bound and checks nothing more.
	s.val = int32(card)
	return card, nil
}

// take records that position s of reshuffled deck d took the free source
// free[k], keeping the free list in order.
func (c *Cards) take(d uint8, s *slot, k int) {
	f := c.free[int(d)-len(c.decks)]
	s.src = f[k]
	c.free[int(d)-len(c.decks)] = append(f[:k], f[k+1:]...)
}

// takeSource records, on an open table, which source a position of a
// reshuffled deck took when its card was given rather than drawn (a test's
// dealer, a replay): the first free source that is that card, else the
// first free one not bound yet.
func (c *Cards) takeSource(d uint8, s *slot, card int) {
	src := c.Sources(int(d))
	free := c.free[int(d)-len(c.decks)]
	for k, i := range free {
		if c.slot(src[i]).val == int32(card) {
			c.take(d, s, k)
			return
		}
	}
	for k, i := range free {
		if so := c.slot(src[i]); so.val < 0 {
			c.setVal(src[i], so, card)
			c.take(d, s, k)
			return
		}
	}
}

// index is where h is in hs, or -1.
func index(hs []Handle, h Handle) int {
	for i, g := range hs {
		if g == h {
			return i
		}
	}
	return -1
}
