package dragonslair

// hero is a hero card of the full version; noHero means none.
type hero int8

const (
	noHero hero = iota - 1
	heroDwarf
	heroElf
	heroWizard
	heroThief
	heroBard
	heroAlchemist
	heroKnight
	heroHunter
	numHeroes
)

type heroInfo struct {
	name  string
	power string
}

var heroes = [numHeroes]heroInfo{
	heroDwarf:     {"Dwarf Digger", "once: when a second noise makes you lose your bag, you still take its gold, without the hall bonus"},
	heroElf:       {"Elf Tracker", "once: at the start of your turn, look at the top 4 cards; noises among them go to the bottom of the deck, the rest stay on top"},
	heroWizard:    {"Sleepy Wizard", "once: at the end of a round the dragon does not move up, and you take 4 gold"},
	heroThief:     {"Night Thief", "once, from round 3 on: take up to 4 gold from any player"},
	heroBard:      {"Wandering Bard", "once: when you escape, take 4 more gold"},
	heroAlchemist: {"Alchemist", "once: when you escape, the most valuable treasure in your bag counts twice"},
	heroKnight:    {"Fearless Knight", "once: when you escape with a noise from this turn beside your bag, take 6 more gold"},
	heroHunter:    {"Trophy Hunter", "always: whenever you escape with 4 or more treasures and eggs, take 2 more gold"},
}

func (h hero) String() string {
	if h < 0 || h >= numHeroes {
		return "no hero"
	}
	return heroes[h].name
}

// Gold amounts of the heroes' powers, named so the rules document and the
// code say the same.
const (
	wizardGold     = 4
	thiefGold      = 4
	thiefFromRound = 3
	bardGold       = 4
	knightGold     = 6
	hunterGold     = 2
	hunterCards    = 4
	ravenGold      = 2
	elfLook        = 4
)
