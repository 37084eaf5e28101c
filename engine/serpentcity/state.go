package serpentcity

import (
	"github.com/boardmesh/boardmesh/engine"
)

// Rules given by the text itself; the designed tables live in Rules.
const (
	startPawns   = 3  // pawns on START at setup
	topUpPawns   = 2  // a player left with fewer active pawns is topped up to this
	maxBuildings = 2  // Buildings on one Territory
	resourceCap  = 16 // holding limit of each Resource type
	econDeck     = 0
	milDeck      = 1
)

// pawnLimit is the maximum of active pawns per player: 15/13/11.
func pawnLimit(players int) int {
	switch players {
	case 2:
		return 15
	case 3:
		return 13
	}
	return 11
}

type phase uint8

const (
	phRoll    phase = iota // chance: the turn-opening 2d6
	phMain                 // the current player moves and acts
	phPick                 // a seat chooses the deck of a card it receives
	phDraw                 // chance: a card is drawn from a deck
	phAttCard              // the attacker may play a Military Card
	phDefCard              // the defender may answer with one
	phReward               // chance: a Reward Roll
	phForced               // the current player picks whom to attack in a forced conflict
	phOffer                // the current player words a trade offer
	phAnswer               // the trade partner accepts or declines
	phOver
)

// config is the compiled form of Rules that every clone shares; it is
// never mutated after setup.
type config struct {
	r        Rules
	custom   bool   // not the default tables: the encoding carries raw
	raw      []byte // the JSON the state was built from (custom only)
	T        int    // number of Territories
	R        int    // Road spaces
	ttype    []int  // Resource a Territory produces
	troad    []int  // Road space a Territory touches
	twin     []int  // the other Territory of the same type (-1 if none)
	enter    [nRes]int
	leave    [nRes]int
	promote  [nRes]int
	pawn     [nRes]int
	building [nRes]int
	cards    [2][nRes]int
	buyIP    [nRes]int
	bonus    [nRes]int
	decks    [2][]CardSpec
}

func compile(r Rules, custom bool, raw []byte) *config {
	c := &config{r: r, custom: custom, raw: raw, T: len(r.Territories), R: r.RoadSpaces}
	for _, t := range r.Territories {
		c.ttype = append(c.ttype, typeIndex(t.Type))
		c.troad = append(c.troad, t.Road)
	}
	for i := range c.ttype {
		tw := -1
		for j := range c.ttype {
			if j != i && c.ttype[j] == c.ttype[i] && tw < 0 {
				tw = j
			}
		}
		c.twin = append(c.twin, tw)
	}
	c.enter, c.leave, c.promote = r.Enter.arr(), r.Leave.arr(), r.Promote.arr()
	c.pawn, c.building, c.buyIP, c.bonus = r.Pawn.arr(), r.Building.arr(), r.BuyIP.arr(), r.StartBonus.arr()
	c.cards = [2][nRes]int{r.EconCard.arr(), r.MilCard.arr()}
	c.decks = [2][]CardSpec{r.Economic, r.Military}
	return c
}

func (c *config) isMine(t int) bool { return c.ttype[t] == Diamond }

// player is one seat's holdings. Pawns are counts by place: pawns in one
// place are interchangeable, which keeps Legal short.
type player struct {
	res     [nRes]int
	start   int   // road-mode pawns waiting on START
	road    []int // road-mode pawns by Road space that may still move
	frozen  []int // road-mode pawns that came back from a Territory this turn
	terr    []int // occupying pawns by Territory
	fresh   []int // of those, pawns that entered this turn (cannot move again)
	capital int
	// hand holds the cards held, by handle (engine.Cards): their number is
	// public, their kinds are known to the holder only.
	hand [2][]engine.Handle
	// Permanent effects of Investor and Architect cards.
	investor  int
	architect bool
	// IP that no board change can take away: bought, and from cards.
	ipBought, ipCard int
	// ip is the total, recomputed after every change; src its parts.
	ip         int
	src        [nSrc]int
	passedLast bool
	dropped    bool
}

// IP sources, in the order the rules document lists them.
const (
	srcDominance = iota
	srcCapital
	srcSets
	srcBought
	srcCards
	nSrc
)

var srcNames = [nSrc]string{"dominance", "capital", "building sets", "bought", "cards"}

// State is a game of Serpent City.
type State struct {
	cfg *config
	n   int
	// Options.
	winIP, rounds             int
	luck, balance, doublePass bool

	pl  []player
	bld [][]int // owners of the Buildings on each Territory
	// cards is the hidden-card bookkeeping (docs/hidden-cards.md): deck
	// econDeck and milDeck as declared, then one deck per reshuffle.
	cards engine.Cards
	// pile is each deck's draw pile, top last: handles of positions not
	// yet drawn (the order is the joint shuffle's, unknown to all). disc
	// holds the spent cards, public, until a reshuffle makes them a pile.
	pile [2][]engine.Handle
	disc [2][]engine.Handle

	cur, round, turns int
	ph                phase
	mp                int
	dice              [2]int
	// Per-turn flags of the current player.
	acted, bonusTaken, conflictUsed, econPlayed, capitalEntered, passed bool
	ipBuys, offers                                                      int
	entered                                                             []bool // Territories the current player entered this turn
	ending                                                              bool   // the turn is ending: forced conflicts, then next player
	forcedDone                                                          []bool
	picks                                                               int // Pact card picks still owed to the current player

	who      int   // seat of a pick, draw or Reward Roll
	drawDk   int   // deck of the pending (or last) draw
	lastDrw  int32 // handle (Handle.Arg) of the last card drawn, -1 none (shown to its owner)
	drawSeat int   // who drew it
	lastRew  int   // last Reward Roll face, 0 none

	// The conflict being resolved.
	// cAttCard and cDefCard are the kinds of the cards played, once
	// public (-1: none, or the defender's card under Ambush, which is
	// never shown); cAttH and cDefH their handles (Handle.Arg, -1 none).
	cLoc, cAtt, cDef, cAttCard, cDefCard int
	cAttH, cDefH                         int32
	cForced                              bool
	lastFight                            string

	// The trade offer being worded or answered.
	tPartner, tGive, tGiveN, tGet int

	over      bool
	winners   []int
	endReason string
}

func newState(cfg *config, players int, opts engine.Options) *State {
	s := &State{cfg: cfg, n: players, winIP: opts.Int("win_ip"), rounds: opts.Int("rounds"),
		luck: opts.Bool("stroke_of_luck"), balance: opts.Bool("seat_balancing"), doublePass: opts.Bool("pass_twice")}
	T, R := cfg.T, cfg.R
	s.pl = make([]player, players)
	for i := range s.pl {
		p := &s.pl[i]
		p.start = startPawns
		p.res = [nRes]int{1, 1, 1, 0, 0}
		if s.balance && i == 2 {
			p.res[Coin]++
		}
		if s.balance && i == 3 {
			p.res[Coin]++
			p.res[Weapon]++
		}
		p.road, p.frozen = make([]int, R), make([]int, R)
		p.terr, p.fresh = make([]int, T), make([]int, T)
	}
	s.bld = make([][]int, T)
	s.cards = cfg.newCards()
	for d := 0; d < 2; d++ {
		n := len(s.cards.Decks()[d])
		s.pile[d] = make([]engine.Handle, n)
		for k := range s.pile[d] {
			s.pile[d][k] = engine.Handle{Deck: uint8(d), Pos: uint16(n - 1 - k)}
		}
	}
	s.entered, s.forcedDone = make([]bool, T), make([]bool, T)
	s.round = 1
	s.lastDrw = -1
	s.cAttCard, s.cDefCard, s.cAttH, s.cDefH = -1, -1, -1, -1
	s.beginTurn()
	return s
}

// Players is the number of seats.
func (s *State) Players() int { return s.n }

// Turn counts the turns that have ended.
func (s *State) Turn() int { return s.turns }

// ToAct says who must act next.
func (s *State) ToAct() engine.Actor {
	switch s.ph {
	case phOver:
		return engine.OverActor()
	case phDraw:
		// A card is being drawn: the open card source answers from the
		// beacon, a secret table's card layer opens it to its drawer.
		if s.cards.Mode() == engine.CardsSecret {
			return engine.CardsActor()
		}
		return engine.ChanceActor()
	case phRoll, phReward:
		return engine.ChanceActor()
	case phPick, phAttCard:
		if s.ph == phPick {
			return engine.SeatActor(s.who)
		}
		return engine.SeatActor(s.cAtt)
	case phDefCard:
		return engine.SeatActor(s.cDef)
	case phAnswer:
		return engine.SeatActor(s.tPartner)
	}
	return engine.SeatActor(s.cur)
}

// Clone returns a deep copy.
func (s *State) Clone() engine.State { return s.clone() }

func (s *State) clone() *State {
	c := *s
	c.pl = make([]player, len(s.pl))
	for i := range s.pl {
		p := s.pl[i]
		p.road = append([]int(nil), p.road...)
		p.frozen = append([]int(nil), p.frozen...)
		p.terr = append([]int(nil), p.terr...)
		p.fresh = append([]int(nil), p.fresh...)
		p.hand = [2][]engine.Handle{append([]engine.Handle(nil), p.hand[0]...), append([]engine.Handle(nil), p.hand[1]...)}
		c.pl[i] = p
	}
	c.bld = make([][]int, len(s.bld))
	for t := range s.bld {
		c.bld[t] = append([]int(nil), s.bld[t]...)
	}
	c.cards = s.cards.Clone()
	for d := 0; d < 2; d++ {
		c.pile[d] = append([]engine.Handle(nil), s.pile[d]...)
		c.disc[d] = append([]engine.Handle(nil), s.disc[d]...)
	}
	c.entered = append([]bool(nil), s.entered...)
	c.forcedDone = append([]bool(nil), s.forcedDone...)
	c.winners = append([]int(nil), s.winners...)
	return &c
}

// Helpers over the board.

func (s *State) active(p int) int {
	pl := &s.pl[p]
	n := pl.start + pl.capital
	for i := range pl.road {
		n += pl.road[i] + pl.frozen[i]
	}
	for _, x := range pl.terr {
		n += x
	}
	return n
}

func (s *State) roadPawns(p int) int {
	pl := &s.pl[p]
	n := pl.start
	for i := range pl.road {
		n += pl.road[i] + pl.frozen[i]
	}
	return n
}

// occupancy counts the shared occupation slots in use on a Territory:
// every player's pawns and every Building.
func (s *State) occupancy(t int) int {
	n := len(s.bld[t])
	for i := range s.pl {
		n += s.pl[i].terr[t]
	}
	return n
}

func (s *State) capitalUsed() int {
	n := 0
	for i := range s.pl {
		n += s.pl[i].capital
	}
	return n
}

// occupiers counts the players with pawns on Territory t.
func (s *State) occupiers(t int) int {
	n := 0
	for i := range s.pl {
		if s.pl[i].terr[t] > 0 {
			n++
		}
	}
	return n
}

func (s *State) shared(t int) bool { return s.occupiers(t) >= 2 }

// level is the dominance level (0 none, 1–3) that k own pawns give.
func (s *State) level(k int) int {
	lv := 0
	for i, need := range s.cfg.r.Levels {
		if k >= need {
			lv = i + 1
		}
	}
	return lv
}

func (s *State) ownBuildings(p, t int) int {
	n := 0
	for _, o := range s.bld[t] {
		if o == p {
			n++
		}
	}
	return n
}

// canPay says whether p can pay cost, using 2 Diamonds for each missing
// unit of a basic Resource.
func (s *State) canPay(p int, cost [nRes]int) bool {
	res := &s.pl[p].res
	missing := 0
	for r := 0; r < Diamond; r++ {
		if cost[r] > res[r] {
			missing += cost[r] - res[r]
		}
	}
	return cost[Diamond]+2*missing <= res[Diamond]
}

func (s *State) pay(p int, cost [nRes]int) {
	res := &s.pl[p].res
	for r := 0; r < Diamond; r++ {
		if cost[r] > res[r] {
			res[Diamond] -= 2 * (cost[r] - res[r])
			res[r] = 0
		} else {
			res[r] -= cost[r]
		}
	}
	res[Diamond] -= cost[Diamond]
}

// gain adds n of Resource r, trimmed at the holding limit.
func (s *State) gain(p, r, n int) {
	v := s.pl[p].res[r] + n
	if v > resourceCap {
		v = resourceCap
	}
	if v < 0 {
		v = 0
	}
	s.pl[p].res[r] = v
}

func (s *State) gainAll(p int, a [nRes]int) {
	for r, n := range a {
		if n > 0 {
			s.gain(p, r, n)
		}
	}
}

func (s *State) totalRes(p int) int {
	n := 0
	for _, x := range s.pl[p].res {
		n += x
	}
	return n
}

// deckLeft is the number of cards a draw from deck d can still reach: its
// pile and its spent cards.
func (s *State) deckLeft(d int) int { return len(s.pile[d]) + len(s.disc[d]) }

// cardOK says whether p holds a card of kind k of deck d, as p knows its
// own hand, and p's IP are within its range.
func (s *State) cardOK(p, d, k int) bool {
	return s.held(p, d, k) > 0 && s.inRange(p, d, k)
}

// inRange says whether p's IP are within the range printed on kind k.
func (s *State) inRange(p, d, k int) bool {
	c := s.cfg.decks[d][k]
	ip := s.pl[p].ip
	return ip >= c.MinIP && ip <= c.MaxIP
}
