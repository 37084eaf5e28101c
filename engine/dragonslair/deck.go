package dragonslair

import "github.com/boardmesh/boardmesh/engine"

// The draw pile, from top to bottom, is top[0..topN), then the unordered
// middle (deck counts), then bottom[0..botN). Cards become known (enter
// top) only through a chance step or because the middle is empty.

// topNeedsChance reports whether making k cards of the pile known needs
// random bytes: it does when fewer than k are known on top and the middle
// still has cards to fix.
func (s *State) topNeedsChance(k int) bool {
	return int(s.topN) < k && !s.middleEmpty()
}

// fillTop makes the top k cards of the pile known (as far as the pile
// goes), fixing cards from the middle with r and then taking the bottom
// part, which lies under the middle. r may be nil when !topNeedsChance(k).
func (s *State) fillTop(k int, r *engine.Rand) {
	for int(s.topN) < k && int(s.topN) < pileCap {
		if !s.middleEmpty() {
			var w [numCards]int
			for i, c := range s.deck {
				w[i] = int(c)
			}
			c := card(r.Pick(w[:]))
			s.deck[c]--
			s.top[s.topN] = slot{card: c}
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

// popTop removes and returns the known top card; fillTop(1) must have
// made one known.
func (s *State) popTop() card {
	c := s.top[0].card
	copy(s.top[:], s.top[1:s.topN])
	s.topN--
	s.top[s.topN] = slot{}
	return c
}

// putUnder moves the known card i of the top part under the pile. It
// returns false, moving nothing, only if the bottom part is full, which
// play cannot reach (see pileCap).
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
// run out. The new pile is an unordered multiset: nothing is shuffled up
// front, each card is fixed when it is drawn.
func (s *State) reshuffleIfEmpty() bool {
	if !s.pileEmpty() {
		return false
	}
	s.deck = s.discard
	s.discard = [numCards]uint8{}
	return true
}

// discardFront moves every card in front of the turn player to the
// discards.
func (s *State) discardFront() {
	for c := range s.front {
		s.discard[c] += s.front[c]
		s.front[c] = 0
	}
}
