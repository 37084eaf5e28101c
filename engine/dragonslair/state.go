package dragonslair

import "github.com/boardmesh/boardmesh/engine"

// phase is the step of the game the state waits in.
type phase uint8

const (
	phaseDealHeroes phase = iota // chance: deal one hero to every player
	phaseChooseHero              // seat: choose a hero (heroes=chosen)
	phaseStart                   // seat: start of a turn, before the first card
	phaseDraw                    // cards: the card turned over is opened to everyone
	phaseElf                     // cards: the top cards are opened to the Elf's player
	phasePeek                    // cards: the top card is opened to the Sphere's player
	phaseSphere                  // seat: keep the peeked card on top or put it under
	phaseElfPut                  // seat: the Elf's player sends the noises it saw under
	phaseCard                    // seat: after a card, draw again or escape
	phaseDwarf                   // seat: a bust with the Dwarf's power unused
	phaseWizard                  // seat: end of a round with the Wizard's power unused
	phaseOver
	numPhases
)

// maxPlayers bounds the seats; masks of seats are uint8.
const maxPlayers = 8

// pileCap bounds the known top and bottom parts of the deck. The Elf adds
// at most 4 cards and each Sphere one, so a pass through the deck cannot
// come near it; tests stack more cards on top than play ever does.
const pileCap = 24

// slot is a card in the known-order parts of the pile: its handle, and
// what the Elf Tracker's player said of it (claimNoise: sent under as a
// noise; claimSafe: left on top as no noise), which nobody else can check
// until it is turned over, when it is (see Open).
type slot struct {
	h     engine.Handle
	claim uint8
	by    uint8 // the seat that claimed
}

// Elf claims.
const (
	claimNone uint8 = iota
	claimNoise
	claimSafe
)

// seatState is one player.
type seatState struct {
	score   int32
	eggs    uint8 // Dragon Eggs kept after escapes
	hero    hero
	used    bool // the once-per-game power has been used
	dropped bool // the player left the table
	tied    bool // plays a tie-break turn
	tieGain int32
}

// event is what happened last, for the table to read.
type event uint8

const (
	evNone event = iota
	evCard
	evEscape
	evBust
	evRaven
	evHideout
	evCapSaved
	evThief
	evElf
	evSphereKeep
	evSphereBottom
	evWizard
	evDwarf
	evDragonMoves
	evHeroChosen
	evHeroesDealt
	evDropped
	numEvents
)

// last describes the last thing that happened.
type last struct {
	ev     event
	seat   int8
	card   card
	amount int32
	other  int8 // a second seat (raven victim, thief target)
}

// State is a game of The Sleeping Dragon's Lair. Its slices (the card
// bookkeeping, the handles in front and in the discards) are copied by
// Clone.
type State struct {
	// Options, fixed at setup.
	n        uint8
	full     bool
	heroMode uint8
	ravens   bool
	red      uint8
	eggBonus uint8

	phase    phase
	cur      uint8 // the seat to act
	turnSeat uint8 // whose turn it is (the Wizard may act outside it)
	round    uint16
	turns    uint32 // turns ended
	draws    uint32 // cards turned over in the game
	dragon   uint8
	hall     uint8
	ending   bool // the dragon reached the red field: this round is the last
	tiebreak bool
	tieNext  uint8 // tie-break turns played so far, in reverse seat order
	turnBase int32 // the turn player's score when the turn began
	heroPool uint16

	cards   engine.Cards    // the decks: deck 0 the game's cards, then one per reshuffle
	pd      uint8           // the deck the pile's untouched middle is in
	mid     uint16          // the pile's next untouched position of deck pd
	deck    [numCards]uint8 // the composition of the whole pile (public)
	top     [pileCap]slot   // top[0] is the top card
	topN    uint8
	bottom  [pileCap]slot // bottom[botN-1] is the bottom card
	botN    uint8
	discard [numCards]uint8
	discH   []engine.Handle // the discards' handles (all public)
	front   [numCards]uint8 // cards the turn player has turned over and still has in front
	frontH  []engine.Handle // their handles (all public)

	seats  [maxPlayers]seatState
	winner uint8 // mask of winning seats, once over
	reason uint8
	log    [logLen]last // the newest first
}

// logLen is how many recent events the state keeps for the table.
const logLen = 4

// Hero modes.
const (
	heroesDealt uint8 = iota
	heroesChosen
	heroesNone
)

var heroModeNames = []string{"dealt", "chosen", "none"}

// newState sets up a game; it waits for the hero deal or for the first
// player's first card.
func newState(players int, opts engine.Options) (*State, error) {
	s := &State{n: uint8(players), eggBonus: uint8(opts.Int(optEggBonus))}
	ed, _ := opts.Get(optEdition)
	s.full = ed != "free"
	children := opts.Bool(optChildren)
	s.ravens = !children
	mode, _ := opts.Get(optHeroes)
	for i, m := range heroModeNames {
		if m == mode {
			s.heroMode = uint8(i)
		}
	}
	if !s.full || children || opts.Bool(optFirstGame) {
		s.heroMode = heroesNone
	}
	red := opts.Int(optRedField)
	if red == 0 {
		red = redFieldByPlayers(players)
		if opts.Bool(optShortGame) {
			red -= shortBy
		}
	}
	s.red = uint8(red)
	s.deck = deckCounts(s.full, s.ravens)
	cs, err := engine.NewCards([][]uint16{declaredDeck(s.full, s.ravens)})
	if err != nil {
		return nil, err
	}
	s.cards = cs
	for i := range s.seats {
		s.seats[i].hero = noHero
	}
	s.round = 1
	switch s.heroMode {
	case heroesDealt:
		s.phase = phaseDealHeroes
	case heroesChosen:
		s.phase = phaseChooseHero
		s.heroPool = 1<<numHeroes - 1
	default:
		s.startTurn(0)
	}
	return s, nil
}

// Players is the number of seats.
func (s *State) Players() int { return int(s.n) }

// Turn counts the turns that have ended.
func (s *State) Turn() int { return int(s.turns) }

// ToAct says who must act next.
func (s *State) ToAct() engine.Actor {
	switch s.phase {
	case phaseDealHeroes:
		return engine.ChanceActor()
	case phaseDraw, phaseElf, phasePeek:
		if s.cards.Mode() == engine.CardsSecret {
			return engine.CardsActor()
		}
		return engine.ChanceActor()
	case phaseOver:
		return engine.OverActor()
	}
	return engine.SeatActor(int(s.cur))
}

// Clone returns a deep copy.
func (s *State) Clone() engine.State {
	return s.clone()
}

func (s *State) clone() *State {
	c := *s
	c.cards = s.cards.Clone()
	c.discH = append([]engine.Handle(nil), s.discH...)
	c.frontH = append([]engine.Handle(nil), s.frontH...)
	return &c
}

// deckSize is the number of cards in the draw pile.
func (s *State) deckSize() int {
	return int(s.topN) + int(s.botN) + s.midLeft()
}

// pileEmpty reports whether no card is left to draw.
func (s *State) pileEmpty() bool { return s.topN == 0 && s.botN == 0 && s.midLeft() == 0 }

// bagValue is the gold of the treasures and eggs in the bag.
func (s *State) bagValue() int {
	v := 0
	for c := cardCoin; c <= cardCrown; c++ {
		v += int(s.front[c]) * cards[c].value
	}
	return v + int(s.front[cardEgg])*cards[cardEgg].value
}

// bagCards counts the treasures and eggs in the bag.
func (s *State) bagCards() int {
	n := int(s.front[cardEgg])
	for c := cardCoin; c <= cardCrown; c++ {
		n += int(s.front[c])
	}
	return n
}

// bestTreasure is the value of the most valuable treasure in the bag.
func (s *State) bestTreasure() int {
	for c := cardCrown; ; c-- {
		if s.front[c] > 0 {
			return cards[c].value
		}
		if c == cardCoin {
			return 0
		}
	}
}

// noises counts the noises beside the bag (0 or 1).
func (s *State) noises() int {
	return int(s.front[cardClink]) + int(s.front[cardCrunch]) + int(s.front[cardSneeze])
}

// nextActive is the first seat after seat, clockwise, that has not left;
// it returns seat itself if nobody else is left.
func (s *State) nextActive(seat int) int {
	for k := 1; k <= int(s.n); k++ {
		o := (seat + k) % int(s.n)
		if !s.seats[o].dropped {
			return o
		}
	}
	return seat
}

func (s *State) activeCount() int {
	k := 0
	for i := 0; i < int(s.n); i++ {
		if !s.seats[i].dropped {
			k++
		}
	}
	return k
}
