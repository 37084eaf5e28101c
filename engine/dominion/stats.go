package dominion

import (
	"math"
	"strings"

	"github.com/boardmesh/boardmesh/engine"
)

// stats collects what `boardmesh sim dominion` reports beyond win rates:
// buys per card, game length in turns, how games end, and the first
// seat's win rate with a 95% confidence interval.
type stats struct {
	games      int64
	buys       [NumCards]int64
	turns      int64
	provinces  int64 // games ended by the Province pile
	piles      int64 // games ended by empty piles
	firstWins  float64
	curses     int64 // Curses owned at the end, all players
	trashed    int64
	totalCards int64
}

func newStats() *stats { return &stats{} }

// Observe counts buys.
func (t *stats) Observe(_, _ engine.State, who engine.Actor, a engine.Action) {
	if who.Kind == engine.ActorSeat && a.Op == opBuy && len(a.Args) == 1 && a.Args[0] >= 0 && a.Args[0] < NumCards {
		t.buys[a.Args[0]]++
	}
}

// Finish records the end of one game.
func (t *stats) Finish(final engine.State) {
	s, ok := final.(*State)
	if !ok {
		return
	}
	t.games++
	t.turns += int64(s.turn + 1)
	if strings.Contains(s.reason, "Province") {
		t.provinces++
	} else if strings.Contains(s.reason, "piles") {
		t.piles++
	}
	r := s.Result()
	for _, w := range r.Winners {
		if w == 0 {
			t.firstWins += 1 / float64(len(r.Winners))
		}
	}
	for i := 0; i < s.n; i++ {
		all := s.owned(i)
		t.curses += int64(all[Curse])
		t.totalCards += int64(all.total())
	}
	t.trashed += int64(s.trash.total())
}

// Report lists the figures in a fixed order.
func (t *stats) Report() []engine.Metric {
	if t.games == 0 {
		return nil
	}
	g := float64(t.games)
	p := t.firstWins / g
	half := 1.96 * math.Sqrt(p*(1-p)/g)
	out := []engine.Metric{
		{Name: "turns.mean", Value: float64(t.turns) / g, Count: t.games, Help: "turns per game, all players together"},
		{Name: "end.provinces", Value: float64(t.provinces) / g, Count: t.games, Help: "share of games ended by the Province pile"},
		{Name: "end.piles", Value: float64(t.piles) / g, Count: t.games, Help: "share of games ended by empty Supply piles"},
		{Name: "seat1.winrate", Value: p, Count: t.games, Help: "first player's win rate (shared wins split)"},
		{Name: "seat1.winrate.ci95.low", Value: math.Max(0, p-half), Count: t.games, Help: "95% confidence interval, normal approximation"},
		{Name: "seat1.winrate.ci95.high", Value: math.Min(1, p+half), Count: t.games},
		{Name: "curses.mean", Value: float64(t.curses) / g, Count: t.games, Help: "Curses owned at the end, per game"},
		{Name: "trashed.mean", Value: float64(t.trashed) / g, Count: t.games, Help: "cards in the trash at the end, per game"},
		{Name: "cards.mean", Value: float64(t.totalCards) / g, Count: t.games, Help: "cards owned at the end, all players, per game"},
	}
	for c := 0; c < NumCards; c++ {
		if t.buys[c] > 0 {
			out = append(out, engine.Metric{Name: "buys." + normName(cards[c].name), Value: float64(t.buys[c]) / g,
				Count: t.buys[c], Help: "bought per game"})
		}
	}
	return out
}
