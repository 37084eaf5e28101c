package dragonslair

import "github.com/boardmesh/boardmesh/engine"

// bots are the bot kinds; the first is the default opponent.
var bots = []engine.BotSpec{
	{Name: "cautious", Help: "goes deeper while the gold one more card brings outweighs the bag a second noise would cost (weighed 5:8, the best ratio in simulation); in the last round it plays to win",
		New: func() engine.Bot { return &riskBot{caution: 5, per: 8, endgame: true} }},
	{Name: "bold", Help: "like cautious, but risks the bag more readily (1:4)",
		New: func() engine.Bot { return &riskBot{caution: 1, per: 4, endgame: true} }},
	{Name: "careful", Help: "weighs a lost bag heavier than the gold of one more card (5:4) and ignores the score",
		New: func() engine.Bot { return &riskBot{caution: 5, per: 4} }},
	engine.RandomBotSpec,
}

// riskBot weighs the gold it expects from one more card against the gold
// it would lose to a second noise, scaled by caution/per (more than 1 is
// careful, less is bold). The one-card look-ahead undervalues going on,
// which is why the best ratio in simulation is well below 1. It reads only what its seat can see: the
// counts of the cards left in the pile follow from the cards on the table
// and in the discards, and the top cards it peeked at itself.
type riskBot struct {
	caution, per int
	endgame      bool // plays the last round to win rather than for gold
}

// Choose picks among legal; it falls back to the first legal action for
// a state of another game.
func (b *riskBot) Choose(st engine.State, legal []engine.Action, _ *engine.Rand) engine.Action {
	s, ok := st.(*State)
	if !ok {
		return legal[0]
	}
	has := func(op uint16) (engine.Action, bool) {
		for _, a := range legal {
			if a.Op == op {
				return a, true
			}
		}
		return engine.Action{}, false
	}
	me := int(s.cur)
	if a, ok := b.thief(s, legal); ok {
		return a
	}
	switch s.phase {
	case phaseChooseHero:
		for _, h := range heroPreference {
			for _, a := range legal {
				if a.Op == opChooseHero && hero(a.Args[0]) == h {
					return a
				}
			}
		}
	case phaseStart:
		if a, ok := has(opElf); ok && b.noiseShare(s, me) >= 1 {
			return a
		}
		if a, ok := has(opDraw); ok {
			return a
		}
	case phaseSphere:
		if v, ok := s.cards.Value(s.top[0].h, me); ok && card(v).isNoise() {
			return act(opSphereUnder)
		}
		return act(opSphereKeep)
	case phaseDwarf:
		if s.bagValue() >= 5 || s.ending {
			return act(opDwarfUse)
		}
		return act(opDwarfDecline)
	case phaseWizard:
		if s.ending || (int(s.dragon)+1 >= int(s.red) && !b.leading(s, me)) {
			return act(opWizardUse)
		}
		return act(opWizardDecline)
	case phaseCard:
		if a, ok := has(opDraw); ok {
			switch b.lastTurn(s, me) {
			case mustPush:
				return a
			case canWin:
				// Escaping now wins unless a later player outdoes it.
			default:
				if b.goDeeper(s, me) {
					return a
				}
			}
		}
		if a, ok := has(opEscapePower); ok && (b.powerNow(s) || s.ending) {
			return a
		}
		if a, ok := has(opEscape); ok {
			return a
		}
	}
	return legal[0]
}

// Verdicts of lastTurn.
const (
	notLast  = iota
	mustPush // an escape now cannot win: only more cards can
	canWin   // the last player of the game, and an escape now wins
)

// lastTurn judges a turn in the last round, where gold is worth nothing
// unless it wins: a player behind must push on, and the last player of
// the game escapes as soon as that makes them the richest.
func (b *riskBot) lastTurn(s *State, me int) int {
	if !s.ending || s.tiebreak || !b.endgame {
		return notLast
	}
	best := int32(-1)
	for i := 0; i < int(s.n); i++ {
		if i != me && !s.seats[i].dropped {
			best = max(best, s.seats[i].score)
		}
	}
	v := s.escapeValue(false)
	if s.powerOnEscape() {
		v = s.escapeValue(true)
	}
	if s.seats[me].score+int32(v) <= best {
		return mustPush
	}
	if s.nextActive(me) <= me {
		return canWin
	}
	return notLast
}

// heroPreference is the order in which bots choose heroes.
var heroPreference = []hero{heroKnight, heroThief, heroDwarf, heroBard, heroWizard, heroAlchemist, heroHunter, heroElf}

// thief uses the Night Thief on the richest other player once they have
// the full 4 gold to lose.
func (b *riskBot) thief(s *State, legal []engine.Action) (engine.Action, bool) {
	best, target := int32(thiefGold-1), -1
	for _, a := range legal {
		if a.Op == opThief {
			if t := int(a.Args[0]); s.seats[t].score > best {
				best, target = s.seats[t].score, t
			}
		}
	}
	if target < 0 {
		return engine.Action{}, false
	}
	return actArg(opThief, target), true
}

func (b *riskBot) leading(s *State, me int) bool {
	for i := 0; i < int(s.n); i++ {
		if i != me && s.seats[i].score >= s.seats[me].score {
			return false
		}
	}
	return true
}

// powerNow decides whether to spend the escape power on this escape.
func (b *riskBot) powerNow(s *State) bool {
	switch s.seats[s.turnSeat].hero {
	case heroAlchemist:
		return s.bestTreasure() >= 4 || s.ending
	}
	return true
}

// pileOdds returns how many cards of the pile are noises and how many
// cards there are, as seat me can count them, and the top card if me has
// seen it (numCards if not).
func (b *riskBot) pileOdds(s *State, me int) (noises, total int, top card) {
	top = numCards
	if s.topN > 0 {
		if v, ok := s.cards.Value(s.top[0].h, me); ok {
			top = card(v)
		}
	}
	// The pile's composition is public: every card that left it was
	// turned over.
	for c := card(0); c < numCards; c++ {
		k := int(s.deck[c])
		if c.isNoise() {
			noises += k
		}
		total += k
	}
	return noises, total, top
}

// noiseShare is 1 when at least a fifth of the pile is noise, the point
// from which the Elf's look is worth spending.
func (b *riskBot) noiseShare(s *State, me int) int {
	n, t, _ := b.pileOdds(s, me)
	if t > 0 && 5*n >= t {
		return 1
	}
	return 0
}

// goDeeper compares, in whole numbers, the expected gain of one more card
// with the expected loss: draw while
//
//	(1-p) * gain * per > p * atStake * caution
//
// where p is the chance the next card is a second noise, gain the mean
// gold of the other cards plus the better hall bonus, and atStake what an
// escape now would bring.
func (b *riskBot) goDeeper(s *State, me int) bool {
	if s.noises() == 0 || s.front[cardCap] > 0 {
		return true // the next card cannot cost the bag
	}
	noises, total, top := b.pileOdds(s, me)
	if top != numCards {
		return !top.isNoise()
	}
	if total == 0 {
		return false
	}
	// Gold of the non-noise cards in the pile, times their count, scaled
	// as "sum"; the mean gold is sum/safe.
	sum := 0
	for c := card(0); c < numCards; c++ {
		sum += int(s.deck[c]) * cards[c].value
	}
	safe := total - noises
	next := min(int(s.hall)+1, nest)
	// (safe/total)*(sum/safe + dBonus)*per > (noises/total)*stake*caution
	// multiplied through by total:
	gain := (sum + safe*(hallBonus[next]-hallBonus[s.hall])) * b.per
	loss := noises * s.escapeValue(false) * b.caution
	return gain > loss
}
