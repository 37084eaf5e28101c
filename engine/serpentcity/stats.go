package serpentcity

import (
	"fmt"

	"github.com/boardmesh/boardmesh/engine"
)

// Stats collects the Serpent City part of the balance report of
// `boardmesh sim serpentcity`: game length, how games end, where Influence
// comes from, conflicts and trades. Win rates by seat and by bot, with
// their confidence intervals, are printed by `boardmesh sim` itself.
type Stats struct {
	games, rounds, turns, byIP int
	srcAll, srcWin             [nSrc]int
	passes                     int
	// Conflicts.
	voluntary, forced int
	attackerWins      int
	ambush, retreat   int
	sabotage          int
	retreatUsed       int // Tactical Retreats played by the loser, which saved pawns
	sabotageUsed      int // Sabotages played by the loser of a Territory
	// Trades.
	offers, accepted, bank int
}

// NewStats returns an empty collector.
func NewStats() *Stats { return &Stats{} }

// Observe counts conflicts, their cards and outcomes, trades and passes
// as they happen.
func (st *Stats) Observe(prev, next engine.State, who engine.Actor, a engine.Action) {
	if who.Kind != engine.ActorSeat {
		return
	}
	switch a.Op {
	case opAttack:
		st.voluntary++
	case opForced:
		st.forced++
	case opPass:
		st.passes++
	case opOffer:
		st.offers++
	case opAccept:
		st.accepted++
	case opBank:
		st.bank++
	case opMil, opNoCard:
		st.conflictStep(prev, next, a)
	}
}

// conflictStep counts a Military Card choice and, once the defender has
// chosen, the outcome: the attacker won if it still has pawns there.
func (st *Stats) conflictStep(prev, next engine.State, a engine.Action) {
	s, ok := prev.(*State)
	n, ok2 := next.(*State)
	if !ok || !ok2 {
		return
	}
	if a.Op == opMil {
		// The card is public after the move (an ambushed defender's card,
		// never shown, counts as none).
		k := n.cAttCard
		if s.ph == phDefCard {
			k = n.cDefCard
		}
		switch s.cardKey(k) {
		case kAmbush:
			st.ambush++
		case kRetreat:
			st.retreat++
		case kSabotage:
			st.sabotage++
		}
	}
	if s.ph != phDefCard {
		return
	}
	attWon := n.pawnsAt(s.cAtt, s.cLoc) > 0
	if attWon {
		st.attackerWins++
	}
	// The loser's card is the one whose effect applies.
	loserCard := s.cAttCard
	if attWon {
		loserCard = -1
		if a.Op == opMil && s.cardKey(s.cAttCard) != kAmbush {
			loserCard = n.cDefCard
		}
	}
	switch s.cardKey(loserCard) {
	case kRetreat:
		st.retreatUsed++
	case kSabotage:
		if s.cLoc < s.cfg.T {
			st.sabotageUsed++
		}
	}
}

// Finish records one finished game.
func (st *Stats) Finish(final engine.State) {
	s, ok := final.(*State)
	if !ok {
		return
	}
	st.games++
	r := s.round
	if r > s.rounds {
		r = s.rounds
	}
	st.rounds += r
	st.turns += s.turns
	for p := range s.pl {
		if s.pl[p].ip >= s.winIP {
			st.byIP++
			break
		}
	}
	for p := range s.pl {
		for i, x := range s.pl[p].src {
			st.srcAll[i] += x
			for _, w := range s.winners {
				if w == p {
					st.srcWin[i] += x
				}
			}
		}
	}
}

// Report returns the balance figures in a fixed order.
func (st *Stats) Report() []engine.Metric {
	g := int64(st.games)
	div := func(a int) float64 {
		if st.games == 0 {
			return 0
		}
		return float64(a) / float64(st.games)
	}
	ratio := func(a, b int) float64 {
		if b == 0 {
			return 0
		}
		return float64(a) / float64(b)
	}
	conflicts := st.voluntary + st.forced
	out := []engine.Metric{
		{Name: "mean rounds", Value: div(st.rounds), Count: g, Help: "rounds played per game"},
		{Name: "mean turns", Value: div(st.turns), Count: g, Help: "player turns per game"},
		{Name: "ended by IP", Value: div(st.byIP), Count: g, Help: "share of games won by reaching the IP target"},
		{Name: "ended by round limit", Value: div(st.games - st.byIP), Count: g, Help: "share of games decided after the last round"},
		{Name: "conflicts per game", Value: div(conflicts), Count: g},
		{Name: "voluntary conflicts per game", Value: div(st.voluntary), Count: g},
		{Name: "forced conflicts per game", Value: div(st.forced), Count: g},
		{Name: "attacker win rate", Value: ratio(st.attackerWins, conflicts), Count: int64(conflicts), Help: "of all conflicts (the defender wins ties)"},
		{Name: "Ambush plays per game", Value: div(st.ambush), Count: g},
		{Name: "Tactical Retreat plays per game", Value: div(st.retreat), Count: g, Help: fmt.Sprintf("played; %.2f a game by the loser, saving pawns", div(st.retreatUsed))},
		{Name: "Sabotage plays per game", Value: div(st.sabotage), Count: g, Help: fmt.Sprintf("played; %.2f a game by the loser of a Territory", div(st.sabotageUsed))},
		{Name: "trade offers per game", Value: div(st.offers), Count: g, Help: "offers between players"},
		{Name: "trades per game", Value: div(st.accepted), Count: g, Help: "offers accepted"},
		{Name: "bank trades per game", Value: div(st.bank), Count: g},
		{Name: "passes per game", Value: div(st.passes), Count: g},
	}
	total, totalW := 0, 0
	for i := range st.srcAll {
		total += st.srcAll[i]
		totalW += st.srcWin[i]
	}
	for i, name := range srcNames {
		out = append(out, engine.Metric{Name: "IP share " + name, Value: ratio(st.srcAll[i], total), Count: int64(total), Help: "of all players' final IP"})
		out = append(out, engine.Metric{Name: "winner IP share " + name, Value: ratio(st.srcWin[i], totalW), Count: int64(totalW), Help: "of the winners' final IP"})
	}
	return out
}
