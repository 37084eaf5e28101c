package dragonslair

import (
	"fmt"

	"github.com/boardmesh/boardmesh/engine"
)

// View is what one seat may see: everything on the table, and the cards
// of the pile that this seat has peeked at. It marshals to JSON.
type View struct {
	Seat     int    `json:"seat"` // -1 for a spectator
	Players  int    `json:"players"`
	Edition  string `json:"edition"`
	Round    int    `json:"round"`
	Dragon   int    `json:"dragon"`
	RedField int    `json:"red_field"`
	Ending   bool   `json:"ending"`   // the dragon is awake: this round is the last
	Tiebreak bool   `json:"tiebreak"` // tied players are playing one more turn each
	ToAct    string `json:"to_act"`   // engine.Actor text: "seat 2" (counted from 0), "chance" or "over"
	Waiting  string `json:"waiting"`  // what the game waits for, in words
	TurnSeat int    `json:"turn_seat"`
	Hall     int    `json:"hall"` // 0 is the Exit, 8 the Nest

	Bag      []string `json:"bag"`       // treasures and eggs in the turn player's bag
	BagValue int      `json:"bag_value"` // their gold
	Noise    string   `json:"noise"`     // the noise beside the bag, if any
	Caps     int      `json:"caps"`
	Played   []string `json:"played"` // other cards in front of the turn player

	Deck       int      `json:"deck"`
	Discards   int      `json:"discards"`
	KnownTop   []string `json:"known_top"`   // the top cards, in order, as far as this seat has seen them
	KnownUnder []string `json:"known_under"` // cards this seat saw go under the deck, bottom last
	Under      int      `json:"under"`       // cards put under the deck, seen by anyone

	Seats  []SeatView    `json:"seats"`
	Recent []string      `json:"recent"` // what happened lately, newest first
	Over   bool          `json:"over"`
	Result engine.Result `json:"result"`
}

// SeatView is one player as the table sees them.
type SeatView struct {
	Seat      int    `json:"seat"`
	Score     int    `json:"score"`
	Eggs      int    `json:"eggs"`
	Hero      string `json:"hero,omitempty"`
	HeroPower string `json:"hero_power,omitempty"`
	HeroUsed  bool   `json:"hero_used"`
	Left      bool   `json:"left"`
	Tied      bool   `json:"tied"`
	TieGain   int    `json:"tie_gain"`
}

// View returns what seat may see; seat -1 is a spectator.
func (s *State) View(seat int) engine.View {
	v := &View{
		Seat: seat, Players: int(s.n), Edition: "full", Round: int(s.round), Dragon: int(s.dragon),
		RedField: int(s.red), Ending: s.ending, Tiebreak: s.tiebreak, ToAct: s.ToAct().String(),
		Waiting: s.waiting(), TurnSeat: int(s.turnSeat), Hall: int(s.hall),
		BagValue: s.bagValue(), Caps: int(s.front[cardCap]), Deck: s.deckSize(), Under: int(s.botN),
		Over: s.phase == phaseOver,
	}
	if !s.full {
		v.Edition = "free"
	}
	for c := card(0); c < numCards; c++ {
		for k := 0; k < int(s.front[c]); k++ {
			switch {
			case c.inBag():
				v.Bag = append(v.Bag, c.String())
			case c.isNoise():
				v.Noise = c.String()
			case c != cardCap:
				v.Played = append(v.Played, c.String())
			}
		}
		v.Discards += int(s.discard[c])
	}
	for _, sl := range s.top[:s.topN] {
		c, ok := s.seenBy(sl.h, seat)
		if !ok {
			break
		}
		v.KnownTop = append(v.KnownTop, c.String())
	}
	for _, sl := range s.bottom[:s.botN] {
		if c, ok := s.seenBy(sl.h, seat); ok {
			v.KnownUnder = append(v.KnownUnder, c.String())
		}
	}
	for i := 0; i < int(s.n); i++ {
		p := &s.seats[i]
		sv := SeatView{Seat: i, Score: int(p.score), Eggs: int(p.eggs), HeroUsed: p.used,
			Left: p.dropped, Tied: p.tied, TieGain: int(p.tieGain)}
		if p.hero != noHero {
			sv.Hero = p.hero.String()
			sv.HeroPower = heroes[p.hero].power
		}
		v.Seats = append(v.Seats, sv)
	}
	for _, l := range s.log {
		if l.ev != evNone {
			v.Recent = append(v.Recent, s.eventText(l))
		}
	}
	if v.Over {
		v.Result = s.Result()
	}
	return v
}

// seatName is how players read a seat: counted from 1, as the rest of
// boardmesh shows them.
func seatName(i int) string { return fmt.Sprintf("seat %d", i+1) }

// waiting says in words what the game waits for.
func (s *State) waiting() string {
	who := seatName(int(s.cur))
	switch s.phase {
	case phaseDealHeroes:
		return "dealing the heroes"
	case phaseChooseHero:
		return who + " to choose a hero"
	case phaseStart:
		return who + " to start the turn"
	case phaseDraw:
		return "the next card to be turned over"
	case phaseElf, phasePeek:
		return who + " to look at the top of the deck"
	case phaseElfPut:
		return who + " to send the noises seen under the deck"
	case phaseSphere:
		return who + " to leave the card seen on top or put it under the deck"
	case phaseCard:
		if s.hall >= nest {
			return who + " to escape from the Nest"
		}
		return who + " to go deeper or escape"
	case phaseDwarf:
		return who + " to decide on the Dwarf Digger"
	case phaseWizard:
		return who + " to decide on the Sleepy Wizard"
	}
	return "nothing: the game is over"
}

func (s *State) eventText(l last) string {
	who := seatName(int(l.seat))
	switch l.ev {
	case evCard:
		return fmt.Sprintf("%s turned over %s", who, l.card)
	case evEscape:
		return fmt.Sprintf("%s escaped with %d gold", who, l.amount)
	case evBust:
		return fmt.Sprintf("%s heard a second noise: the dragon stirs, the bag is lost", who)
	case evRaven:
		if l.amount == 0 {
			return fmt.Sprintf("%s's raven found no gold on %s", who, seatName(int(l.other)))
		}
		return fmt.Sprintf("%s's raven took %d gold from %s", who, l.amount, seatName(int(l.other)))
	case evHideout:
		if l.amount == 0 {
			return fmt.Sprintf("%s had no gold to hide in the hideout", who)
		}
		return fmt.Sprintf("%s hid %d gold in the hideout", who, l.amount)
	case evCapSaved:
		return fmt.Sprintf("%s's Invisibility Cap muffled %s", who, l.card)
	case evThief:
		return fmt.Sprintf("%s's Night Thief took %d gold from %s", who, l.amount, seatName(int(l.other)))
	case evElf:
		switch l.amount {
		case 0:
			return fmt.Sprintf("%s's Elf Tracker sent no noise under the deck", who)
		case 1:
			return fmt.Sprintf("%s's Elf Tracker sent 1 noise under the deck", who)
		}
		return fmt.Sprintf("%s's Elf Tracker sent %d noises under the deck", who, l.amount)
	case evSphereKeep:
		return fmt.Sprintf("%s left the card seen in the Crystal Sphere on top", who)
	case evSphereBottom:
		return fmt.Sprintf("%s put the card seen in the Crystal Sphere under the deck", who)
	case evWizard:
		return fmt.Sprintf("%s's Sleepy Wizard kept the dragon asleep and took %d gold", who, l.amount)
	case evDwarf:
		return fmt.Sprintf("%s's Dwarf Digger saved %d gold from the bag", who, l.amount)
	case evDragonMoves:
		return fmt.Sprintf("the round ends: the dragon moves up to %d", l.amount)
	case evHeroChosen:
		return fmt.Sprintf("%s chose the %s", who, hero(l.amount))
	case evHeroesDealt:
		return "the heroes were dealt"
	case evDropped:
		return fmt.Sprintf("%s left the table", who)
	}
	return ""
}

// seenBy is the card of h if seat has seen it (a spectator, seat -1, has
// seen none of the pile).
func (s *State) seenBy(h engine.Handle, seat int) (card, bool) {
	if seat < 0 || seat >= int(s.n) {
		return 0, false
	}
	v, ok := s.cards.Value(h, seat)
	return card(v), ok
}
