package dragonslair

import "github.com/boardmesh/boardmesh/engine"

// stats collects what a simulation of many games says about the game.
type stats struct {
	games, turns, busts, draws, escapes  int64
	escapeGold, escapeHall               int64
	oneNoiseDraws, oneNoiseNoise         int64
	oneNoiseBareDraws, oneNoiseBareBusts int64
	rounds, bustMoves, dragonMoves       int64
	tiebreaks, shared, eggBonus          int64
	heroGames, heroWins                  [numHeroes]int64
}

func newStats() *stats { return &stats{} }

// Observe counts turns, busts, escapes and the draws made with exactly
// one noise beside the bag.
func (t *stats) Observe(prevS, nextS engine.State, who engine.Actor, a engine.Action) {
	prev, ok1 := prevS.(*State)
	next, ok2 := nextS.(*State)
	if !ok1 || !ok2 {
		return
	}
	if next.draws > prev.draws {
		t.draws++
		if prev.noises() == 1 {
			c := newestCard(next)
			t.oneNoiseDraws++
			if c.isNoise() {
				t.oneNoiseNoise++
			}
			if prev.front[cardCap] == 0 {
				t.oneNoiseBareDraws++
				if c.isNoise() {
					t.oneNoiseBareBusts++
				}
			}
		}
	}
	if next.turns > prev.turns {
		t.turns++
		if who.Kind == engine.ActorSeat && (a.Op == opEscape || a.Op == opEscapePower) {
			seat := int(prev.turnSeat)
			t.escapes++
			t.escapeGold += int64(next.seats[seat].score - prev.seats[seat].score)
			t.escapeHall += int64(prev.hall)
		} else {
			t.busts++
			t.bustMoves++
		}
	}
	if next.dragon > prev.dragon {
		t.dragonMoves += int64(next.dragon - prev.dragon)
	}
}

// newestCard is the card of the newest card event in the log.
func newestCard(s *State) card {
	for _, l := range s.log {
		if l.ev == evCard {
			return l.card
		}
	}
	return numCards
}

// Finish counts the game's length, tie-breaks and the heroes' wins.
func (t *stats) Finish(final engine.State) {
	s, ok := final.(*State)
	if !ok {
		return
	}
	t.games++
	t.rounds += int64(s.round)
	if s.tiebreak {
		t.tiebreaks++
	}
	w := 0
	for i := 0; i < int(s.n); i++ {
		if s.winner&(1<<i) != 0 {
			w++
		}
		if h := s.seats[i].hero; h != noHero {
			t.heroGames[h]++
			if s.winner&(1<<i) != 0 {
				t.heroWins[h]++
			}
		}
	}
	if w > 1 {
		t.shared++
	}
	most := uint8(0)
	for i := 0; i < int(s.n); i++ {
		most = max(most, s.seats[i].eggs)
	}
	if most > 0 && s.eggBonus > 0 {
		t.eggBonus++
	}
}

func ratio(a, b int64) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// Report returns the figures in a fixed order.
func (t *stats) Report() []engine.Metric {
	m := []engine.Metric{
		{Name: "bust rate", Value: ratio(t.busts, t.turns), Count: t.turns,
			Help: "share of turns that ended with a second noise"},
		{Name: "bust chance after one noise", Value: ratio(t.oneNoiseBareBusts, t.oneNoiseBareDraws), Count: t.oneNoiseBareDraws,
			Help: "share of cards turned over with exactly one noise beside the bag and no Invisibility Cap that were a second noise (the rules say about 1 in 4)"},
		{Name: "noise chance after one noise", Value: ratio(t.oneNoiseNoise, t.oneNoiseDraws), Count: t.oneNoiseDraws,
			Help: "share of cards turned over with exactly one noise beside the bag that were noises, caps or not"},
		{Name: "mean escape gold", Value: ratio(t.escapeGold, t.escapes), Count: t.escapes,
			Help: "gold scored per escape: bag, hall bonus and heroes"},
		{Name: "mean escape hall", Value: ratio(t.escapeHall, t.escapes), Count: t.escapes,
			Help: "how deep players were when they escaped (8 is the Nest)"},
		{Name: "cards per turn", Value: ratio(t.draws, t.turns), Count: t.turns},
		{Name: "rounds per game", Value: ratio(t.rounds, t.games), Count: t.games},
		{Name: "dragon moves from busts", Value: ratio(t.bustMoves, t.dragonMoves), Count: t.dragonMoves,
			Help: "share of the dragon's moves caused by busts rather than round ends"},
		{Name: "games with a tie-break", Value: ratio(t.tiebreaks, t.games), Count: t.games},
		{Name: "shared wins", Value: ratio(t.shared, t.games), Count: t.games},
		{Name: "games with an egg majority bonus", Value: ratio(t.eggBonus, t.games), Count: t.games},
	}
	for h := hero(0); h < numHeroes; h++ {
		if t.heroGames[h] > 0 {
			m = append(m, engine.Metric{Name: "win rate with the " + h.String(), Value: ratio(t.heroWins[h], t.heroGames[h]),
				Count: t.heroGames[h]})
		}
	}
	return m
}
