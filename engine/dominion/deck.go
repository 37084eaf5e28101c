package dominion

import "github.com/boardmesh/boardmesh/engine"

// Pending chance steps.
const (
	reqNone    = iota
	reqKingdom // draw ten Kingdom cards at random, then deal
	reqDeal    // every player draws a first hand of 5
	reqDraw    // reqWho draws reqN cards into hand
	reqReveal  // reqWho reveals (or looks at) reqN cards into aside
)

// Where a gained card goes.
const (
	toDiscard = iota
	toHand
	toDeck
)

// needsChance reports whether taking n cards from seat i's deck fixes an
// unknown card: the known top part does not cover n, and the pool or the
// discard pile (which a reshuffle would turn into the pool) has cards.
func (s *State) needsChance(i, n int) bool {
	p := &s.p[i]
	return n > len(p.top) && (p.pool.total() > 0 || p.disc.total() > 0)
}

// draw makes seat i draw n cards into hand, now if no card is unknown,
// else by a chance step; it reports whether it must wait for chance.
func (s *State) draw(i, n int) (wait bool) {
	if n <= 0 {
		return false
	}
	if s.needsChance(i, n) {
		s.req, s.reqWho, s.reqN = reqDraw, i, n
		return true
	}
	s.drawNow(i, n, nil)
	return false
}

// reveal moves the top n cards of seat i's deck into aside, where the
// current effect deals with them; like draw it may wait for chance.
func (s *State) reveal(i, n int) (wait bool) {
	s.asideOwner = i
	if s.needsChance(i, n) {
		s.req, s.reqWho, s.reqN = reqReveal, i, n
		return true
	}
	s.revealNow(i, n, nil)
	return false
}

func (s *State) drawNow(i, n int, r *engine.Rand) {
	p := &s.p[i]
	pool := -1
	for k := 0; k < n; k++ {
		c := takeTop(p, r, &pool)
		if c < 0 {
			return
		}
		p.hand[c]++
	}
}

func (s *State) revealNow(i, n int, r *engine.Rand) {
	p := &s.p[i]
	pool := -1
	for k := 0; k < n; k++ {
		c := takeTop(p, r, &pool)
		if c < 0 {
			return
		}
		s.aside = append(s.aside, int8(c))
	}
}

// takeTop removes the top card of p's deck and returns it, reshuffling the
// discard pile into the pool only when the deck is empty; -1 if p has no
// cards to take. r may be nil only when needsChance said no. *pool caches
// the pool's size across the draws of one step (-1: not counted yet).
func takeTop(p *player, r *engine.Rand, pool *int) int {
	if k := len(p.top); k > 0 {
		c := int(p.top[k-1])
		p.top = p.top[:k-1]
		return c
	}
	if *pool < 0 {
		*pool = p.pool.total()
	}
	total := *pool
	if total == 0 {
		total = p.disc.total()
		if total == 0 {
			return -1
		}
		p.pool, p.disc = p.disc, counts{}
	}
	*pool = total - 1
	if r == nil {
		panic("dominion: an unknown card drawn without a chance step")
	}
	x := r.Intn(total)
	for c := range p.pool {
		if x < int(p.pool[c]) {
			p.pool[c]--
			return c
		}
		x -= int(p.pool[c])
	}
	panic("dominion: pool count out of step")
}

// gain moves one card c from the Supply to seat i; the caller has checked
// the pile is not empty.
func (s *State) gain(i, c, dest int) {
	s.supply[c]--
	p := &s.p[i]
	switch dest {
	case toHand:
		p.hand[c]++
	case toDeck:
		p.top = append(p.top, int8(c))
	default:
		p.disc[c]++
	}
}

// ApplyChance fixes the cards (or the Kingdom) the pending step needs.
func (s *State) ApplyChance(beacon []byte) error {
	if err := engine.CheckChance(s.ToAct(), beacon); err != nil {
		return err
	}
	r := engine.NewRand(beacon)
	req := s.req
	s.req = reqNone
	switch req {
	case reqKingdom:
		s.drawKingdom(r)
		s.deal(r)
	case reqDeal:
		s.deal(r)
	case reqDraw:
		s.drawNow(s.reqWho, s.reqN, r)
	case reqReveal:
		s.revealNow(s.reqWho, s.reqN, r)
	}
	s.reqWho, s.reqN = 0, 0
	s.run()
	return nil
}

func (s *State) deal(r *engine.Rand) {
	for i := range s.p {
		s.drawNow(i, 5, r)
	}
	s.phase = phaseAction
	s.startTurn()
}
