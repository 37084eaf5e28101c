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

func (s *State) drawNow(i, n int, r *engine.Rand)   { s.take(i, n, r, false) }
func (s *State) revealNow(i, n int, r *engine.Rand) { s.take(i, n, r, true) }

// take moves the top n cards of seat i's deck to hand (or aside): first
// the known top, then cards of the pool, reshuffling the discard pile into
// the pool only when the deck is empty; it stops early if seat i runs out
// of cards. r may be nil only when needsChance said no.
//
// Every card taken from the pool is equally likely. The picks of one step
// are planned first (pool sizes are known in advance: the discard pile
// does not change during a draw) and drawn as the digits of one uniform
// number in mixed radix, which costs one random word for a whole hand.
func (s *State) take(i, n int, r *engine.Rand, toAside bool) {
	p := &s.p[i]
	var buf [64]uint64
	picks := buf[:0]
	top, pool, disc := len(p.top), p.pool.total(), p.disc.total()
	for k := 0; k < n; k++ {
		if top > 0 {
			top--
			continue
		}
		if pool == 0 {
			if disc == 0 {
				break
			}
			pool, disc = disc, 0
		}
		picks = append(picks, uint64(pool))
		pool--
	}
	if len(picks) > 0 {
		if r == nil {
			panic("dominion: an unknown card drawn without a chance step")
		}
		mixedRadix(r, picks)
	}
	pool = -1
	for k := 0; k < n; k++ {
		c := -1
		if m := len(p.top); m > 0 {
			c = int(p.top[m-1])
			p.top = p.top[:m-1]
		} else {
			if pool < 0 {
				pool = p.pool.total()
			}
			if pool == 0 {
				if p.disc.total() == 0 {
					return
				}
				p.pool, p.disc = p.disc, counts{}
				pool = p.pool.total()
			}
			c = nth(&p.pool, int(picks[0]))
			picks = picks[1:]
			p.pool[c]--
			pool--
		}
		if toAside {
			s.aside = append(s.aside, int8(c))
		} else {
			p.hand[c]++
		}
	}
}

// nth returns the card at index x of the multiset z in card order.
func nth(z *counts, x int) int {
	for c, v := range z {
		if x < int(v) {
			return c
		}
		x -= int(v)
	}
	panic("dominion: pool count out of step")
}

// mixedRadix replaces each size v[k] by a uniform index below it, all
// independent: it draws one uniform number below the product of a run of
// sizes (as many as fit in 62 bits) and takes its mixed-radix digits.
// Only Uint64 is used, so the result is the same on 32-bit platforms.
func mixedRadix(r *engine.Rand, v []uint64) {
	for i := 0; i < len(v); {
		prod, j := uint64(1), i
		for j < len(v) && prod <= (1<<62)/v[j] {
			prod *= v[j]
			j++
		}
		x := uint64(0)
		if prod > 1 {
			// Rejection keeps every value equally likely, as Rand.Intn does.
			limit := ^uint64(0) - ^uint64(0)%prod
			for x = r.Uint64(); x >= limit; x = r.Uint64() {
			}
			x %= prod
		}
		for k := i; k < j; k++ {
			v[k], x = x%v[k], x/v[k]
		}
		i = j
	}
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
