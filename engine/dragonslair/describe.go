package dragonslair

import (
	"fmt"

	"github.com/boardmesh/boardmesh/engine"
)

// Describe says in a player's words what a would do in this state.
func (s *State) Describe(a engine.Action) string {
	switch a.Op {
	case opDraw:
		h := min(int(s.hall)+1, nest)
		return fmt.Sprintf("Turn over the next card (into hall %d, escape bonus %+d)", h, hallBonus[h])
	case opEscape:
		return fmt.Sprintf("Escape with %d gold (bag %d + hall bonus %d%s)",
			s.escapeValue(false), s.bagValue(), hallBonus[s.hall], s.hunterNote())
	case opEscapePower:
		h := s.seats[s.turnSeat].hero
		return fmt.Sprintf("Escape using the %s: %d gold (%s)", h, s.escapeValue(true), s.powerNote(h))
	case opElf:
		return fmt.Sprintf("Use the Elf Tracker: look at the top %d cards and send their noises under the deck", min(elfLook, s.deckSize()))
	case opThief:
		if len(a.Args) == 1 && a.Args[0] >= 0 && int(a.Args[0]) < int(s.n) {
			t := int(a.Args[0])
			return fmt.Sprintf("Use the Night Thief: take %d gold from %s", min(int32(thiefGold), s.seats[t].score), seatName(t))
		}
	case opElfUnder:
		if len(a.Args) == 1 {
			n := 0
			for m := a.Args[0]; m > 0; m &= m - 1 {
				n++
			}
			switch n {
			case 0:
				return "Send no noise under the deck"
			case 1:
				return "Send the noise among the cards you saw under the deck"
			}
			return fmt.Sprintf("Send the %d noises among the cards you saw under the deck", n)
		}
	case opSphereKeep:
		return "Leave the card you saw on top of the deck"
	case opSphereUnder:
		return "Put the card you saw under the deck"
	case opDwarfUse:
		return fmt.Sprintf("Use the Dwarf Digger: keep the %d gold of your bag (no hall bonus)", s.bagValue())
	case opDwarfDecline:
		return "Lose the bag and keep the Dwarf Digger for later"
	case opWizardUse:
		return fmt.Sprintf("Use the Sleepy Wizard: the dragon stays at %d and you take %d gold", s.dragon, wizardGold)
	case opWizardDecline:
		return fmt.Sprintf("Let the dragon move up to %d and keep the Sleepy Wizard for later", s.dragon+1)
	case opChooseHero:
		if len(a.Args) == 1 && a.Args[0] >= 0 && a.Args[0] < int32(numHeroes) {
			h := hero(a.Args[0])
			return fmt.Sprintf("Choose the %s (%s)", h, heroes[h].power)
		}
	}
	return fmt.Sprintf("unknown move %s", a)
}

func (s *State) hunterNote() string {
	p := &s.seats[s.turnSeat]
	if p.hero == heroHunter && s.bagCards() >= hunterCards {
		return fmt.Sprintf(" + Trophy Hunter %d", hunterGold)
	}
	return ""
}

func (s *State) powerNote(h hero) string {
	switch h {
	case heroBard:
		return fmt.Sprintf("+%d", bardGold)
	case heroAlchemist:
		return fmt.Sprintf("your best treasure counts twice: +%d", s.bestTreasure())
	case heroKnight:
		return fmt.Sprintf("a noise beside your bag: +%d", knightGold)
	}
	return "no effect"
}
