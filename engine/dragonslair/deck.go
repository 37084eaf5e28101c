package dragonslair

import "github.com/boardmesh/boardmesh/engine"

// The draw pile, from top to bottom, is top[0..topN), then the positions
// mid… of the current deck pd (the shuffled deck, untouched), then
// bottom[0..botN). Every place holds card handles (engine.Handle): which
// card a handle is, is known only where the Cards bookkeeping says so (a
// card turned over is public; a peeked one is known to its seer). The
// composition of the pile (deck) is public: every card that leaves it is
// turned over for all to see.

// declaredDeck is deck 0: every copy of every card of the game, in kind
// order. Every peer derives it from the options.
func declaredDeck(full, ravens bool) []uint16 {
	counts := deckCounts(full, ravens)
	var out []uint16
	for c, k := range counts {
		for range k {
			out = append(out, uint16(c))
		}
	}
	return out
}

// midLeft is how many untouched positions of the current deck are left.
func (s *State) midLeft() int {
	if s.cards.NumDecks() == 0 {
		return 0
	}
	return s.deckLen(int(s.pd)) - int(s.mid)
}

// fillTop moves handles onto the known-order top part until it holds k
// (as far as the pile goes): from the untouched middle, then the bottom
// part, which lies under the middle. Naming a handle needs no randomness.
func (s *State) fillTop(k int) {
	for int(s.topN) < k && int(s.topN) < pileCap {
		if s.midLeft() > 0 {
			s.top[s.topN] = slot{h: engine.Handle{Deck: s.pd, Pos: s.mid}}
			s.mid++
			s.topN++
			continue
		}
		if s.botN == 0 {
			return
		}
		s.top[s.topN] = s.bottom[0]
		s.topN++
		copy(s.bottom[:], s.bottom[1:s.botN])
		s.botN--
		s.bottom[s.botN] = slot{}
	}
}

// popTop removes and returns the top slot; fillTop(1) must have put one
// there.
func (s *State) popTop() slot {
	sl := s.top[0]
	copy(s.top[:], s.top[1:s.topN])
	s.topN--
	s.top[s.topN] = slot{}
	return sl
}

// putUnder moves slot i of the top part under the pile. It returns false,
// moving nothing, only if the bottom part is full, which play cannot reach
// (see pileCap).
func (s *State) putUnder(i int) bool {
	if s.botN >= pileCap {
		return false
	}
	sl := s.top[i]
	copy(s.top[i:], s.top[i+1:s.topN])
	s.topN--
	s.top[s.topN] = slot{}
	s.bottom[s.botN] = sl
	s.botN++
	return true
}

// reshuffleIfEmpty turns the discards into a new pile when the pile has
// run out: the discards' handles become a new deck (engine.Cards.Reshuffle),
// shuffled by the card source before its first card is opened.
func (s *State) reshuffleIfEmpty() bool {
	if !s.pileEmpty() || len(s.discH) == 0 {
		return false
	}
	d, err := s.cards.Reshuffle(s.discH)
	if err != nil {
		// Only MaxDecks reshuffles in one game could get here; play
		// goes on with an empty pile (escape only).
		return false
	}
	s.pd, s.mid = d, 0
	s.deck = s.discard
	s.discard = [numCards]uint8{}
	s.discH = nil
	return true
}

// discardFront moves every card in front of the turn player to the
// discards.
func (s *State) discardFront() {
	for c := range s.front {
		s.discard[c] += s.front[c]
		s.front[c] = 0
	}
	s.discH = append(s.discH, s.frontH...)
	s.frontH = s.frontH[:0]
}

// frontToDiscard moves one card of kind c from the front to the discards.
func (s *State) frontToDiscard(c card) {
	if h, ok := s.takeFront(c); ok {
		s.discH = append(s.discH, h)
	}
	s.discard[c]++
}

// takeFront removes one card of kind c from the front, handle and count,
// and returns its handle (for the discards, or nowhere: a kept egg).
func (s *State) takeFront(c card) (engine.Handle, bool) {
	s.front[c]--
	for i, h := range s.frontH {
		if v, _ := s.cards.Public(h); card(v) == c {
			s.frontH = append(s.frontH[:i], s.frontH[i+1:]...)
			return h, true
		}
	}
	return engine.Handle{}, false
}

// deckLen is the number of positions of deck d.
func (s *State) deckLen(d int) int {
	if ds := s.cards.Decks(); d < len(ds) {
		return len(ds[d])
	}
	return len(s.cards.Sources(d))
}
