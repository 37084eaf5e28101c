package dominion

import "github.com/boardmesh/boardmesh/engine"

// counts holds how many of each card a zone has.
type counts [NumCards]int16

func (c *counts) total() int {
	n := 0
	for _, v := range c {
		n += int(v)
	}
	return n
}

// kinds returns how many distinct cards the zone holds that match keep
// (nil keeps all), and one of them.
func (c *counts) kinds(keep func(int) bool) (n, one int) {
	one = -1
	for id, v := range c {
		if v > 0 && (keep == nil || keep(id)) {
			n++
			one = id
		}
	}
	return n, one
}

// player is one seat's cards. The hidden zones (hand, deck, discard pile)
// and the play area hold handles (docs/hidden-cards.md): the top of the
// deck is the last handle. own counts every card the seat owns, wherever
// it is: gains and trashes are public, so it is public too, and scores
// need no card revealed.
type player struct {
	hand, deck, disc, play []engine.Handle
	own                    counts
	turns                  int // turns this player has taken, for ties
}

func (p *player) deckSize() int { return len(p.deck) }

// Phases of the state machine outside card effects.
const (
	phaseSetup  = iota // waiting for the Kingdom and the first hands
	phaseAction        // the current player may play Actions
	phaseBuy           // Treasures played or a card bought: no more Actions
	phaseEnd           // the current turn's cleanup is done
	phaseOver
)

// frame is one card's instructions being carried out. Its fields are the
// card's progress: step is where to resume after a choice or draw, target
// the offset (1..n-1) of the opponent being dealt with, mask the seats a
// Moat protects, n a counter and arg a remembered card or cost.
type frame struct {
	card, step, target, n, arg int8
	mask                       uint8
}

// State is a game of Dominion in progress.
type State struct {
	n       int
	kingdom [10]int8 // sorted card ids; all -1 until drawn at random
	piles   uint64   // bit c set: card c has a Supply pile (derived from kingdom)
	supply  counts
	trash   counts
	p       []player

	cur                  int
	phase                int
	turn                 int // turns ended
	actions, buys, coins int
	merchants            int  // Merchants played this turn
	silver               bool // a Silver was played this turn
	bought               bool // a card was bought this turn (no more Treasures)

	stack []frame

	// ask is the choice being asked of askSeat; askNone when none.
	ask, askSeat int
	// req is the pending chance step: reqWho draws or reveals reqN cards.
	req, reqWho, reqN int

	// aside holds cards set aside, revealed or looked at, all of asideOwner.
	aside      []engine.Handle
	asideOwner int

	// cards are the decks (decks.go) and what the state holds of each card.
	cards engine.Cards

	dropped uint8 // bit per seat that left the game
	reason  string
}

var _ engine.State = (*State)(nil)

// Players returns the number of seats.
func (s *State) Players() int { return s.n }

// Turn counts the turns that have ended.
func (s *State) Turn() int { return s.turn }

// ToAct says who must act next.
func (s *State) ToAct() engine.Actor {
	switch {
	case s.phase == phaseOver:
		return engine.OverActor()
	case s.req != reqNone:
		return engine.ChanceActor()
	case s.waiting():
		if s.cards.Mode() == engine.CardsSecret {
			return engine.CardsActor()
		}
		return engine.ChanceActor() // the open card source
	default:
		return engine.SeatActor(s.askSeat)
	}
}

// Clone returns a deep copy.
func (s *State) Clone() engine.State { return s.clone() }

func (s *State) clone() *State {
	c := *s
	c.p = make([]player, len(s.p))
	copy(c.p, s.p)
	// Every zone's handles in one allocation, each zone capped at its
	// length so that an append to one moves it out rather than over the
	// next.
	n := len(s.aside)
	for i := range s.p {
		q := &s.p[i]
		n += len(q.hand) + len(q.deck) + len(q.disc) + len(q.play)
	}
	back := make([]engine.Handle, 0, n)
	zone := func(z []engine.Handle) []engine.Handle {
		if len(z) == 0 {
			return nil
		}
		at := len(back)
		back = append(back, z...)
		return back[at:len(back):len(back)]
	}
	for i := range c.p {
		q := &c.p[i]
		q.hand, q.deck, q.disc, q.play = zone(q.hand), zone(q.deck), zone(q.disc), zone(q.play)
	}
	c.aside = zone(s.aside)
	c.stack = append([]frame(nil), s.stack...)
	c.cards = s.cards.Clone()
	return &c
}

func (s *State) inKingdom(c int) bool { return c >= firstKingdom && s.inSupply(c) }

// inSupply reports whether card c has a pile in this game.
func (s *State) inSupply(c int) bool { return s.piles&(1<<c) != 0 }

// setPiles derives piles from the Kingdom.
func (s *State) setPiles() {
	s.piles = 1<<firstKingdom - 1
	for _, k := range s.kingdom {
		if k >= 0 {
			s.piles |= 1 << k
		}
	}
}

func (s *State) isDropped(seat int) bool { return s.dropped&(1<<seat) != 0 }

// seatAt returns the seat k places after the current player.
func (s *State) seatAt(k int) int { return (s.cur + k) % s.n }

// emptyPiles counts the Supply piles of this game that are empty.
func (s *State) emptyPiles() int {
	n := 0
	for c := 0; c < NumCards; c++ {
		if s.supply[c] == 0 && s.inSupply(c) {
			n++
		}
	}
	return n
}

// owned counts every card of seat i, wherever it is (public).
func (s *State) owned(i int) counts { return s.p[i].own }

// card is the card of h as seat may know it, or -1.
func (s *State) card(h engine.Handle, seat int) int {
	if c, ok := s.cards.Value(h, seat); ok {
		return int(c)
	}
	return -1
}

// zc counts the cards of zone z that seat may know.
func (s *State) zc(seat int, z []engine.Handle) counts {
	var out counts
	for _, h := range z {
		if c := s.card(h, seat); c >= 0 {
			out[c]++
		}
	}
	return out
}

// handOf counts seat's hand as seat knows it.
func (s *State) handOf(seat int) counts { return s.zc(seat, s.p[seat].hand) }

// first returns the first handle of z holding card c as seat knows it.
func (s *State) first(seat int, z []engine.Handle, c int) (engine.Handle, bool) {
	for _, h := range z {
		if s.card(h, seat) == c {
			return h, true
		}
	}
	return engine.Handle{}, false
}

// index is where h is in z, or -1.
func index(z []engine.Handle, h engine.Handle) int {
	for i, g := range z {
		if g == h {
			return i
		}
	}
	return -1
}

// remove takes h out of *z (keeping the order); it reports whether h was
// there.
func remove(z *[]engine.Handle, h engine.Handle) bool {
	i := index(*z, h)
	if i < 0 {
		return false
	}
	*z = append((*z)[:i], (*z)[i+1:]...)
	return true
}

// score is seat i's victory points.
func (s *State) score(i int) int {
	all := s.owned(i)
	vp := 0
	for c := 0; c < NumCards; c++ {
		vp += int(all[c]) * cards[c].vp
	}
	vp += int(all[Gardens]) * (all.total() / 10)
	return vp
}

// Result is the outcome: most VP wins, ties go to fewer turns, then share.
func (s *State) Result() engine.Result {
	r := engine.Result{Scores: make([]int, s.n), Reason: s.reason}
	best, bestTurns := 0, 0
	for i := 0; i < s.n; i++ {
		r.Scores[i] = s.score(i)
		t := s.p[i].turns
		if i == 0 || r.Scores[i] > best || (r.Scores[i] == best && t < bestTurns) {
			best, bestTurns = r.Scores[i], t
		}
	}
	for i := 0; i < s.n; i++ {
		if r.Scores[i] == best && s.p[i].turns == bestTurns {
			r.Winners = append(r.Winners, i)
		}
	}
	return r
}
