package serpentcity

import (
	"fmt"
	"math"

	"github.com/boardmesh/boardmesh/engine"
)

// Stats collects the balance report of `boardmesh sim serpentcity`: win
// rate by seat with 95% confidence intervals, game length, how games end,
// and where Influence comes from.
type Stats struct {
	games     int
	players   int
	seatWins  []int
	rounds    int
	turns     int
	byIP      int
	conflicts int
	forced    int
	srcAll    [nSrc]int
	srcWin    [nSrc]int
	passes    int
}

// NewStats returns an empty collector.
func NewStats() *Stats { return &Stats{} }

// Observe counts conflicts and passes as they happen.
func (st *Stats) Observe(prev, next engine.State, who engine.Actor, a engine.Action) {
	if who.Kind != engine.ActorSeat {
		return
	}
	switch a.Op {
	case opAttack:
		st.conflicts++
	case opForced:
		st.conflicts++
		st.forced++
	case opPass:
		st.passes++
	}
}

// Finish records one finished game.
func (st *Stats) Finish(final engine.State) {
	s, ok := final.(*State)
	if !ok {
		return
	}
	st.games++
	if s.n > len(st.seatWins) {
		st.seatWins = append(st.seatWins, make([]int, s.n-len(st.seatWins))...)
	}
	st.players = s.n
	for _, w := range s.winners {
		st.seatWins[w]++
	}
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

// wilson is the 95% Wilson score interval of k successes in n trials.
func wilson(k, n int) (lo, hi float64) {
	if n == 0 {
		return 0, 1
	}
	const z = 1.96
	p := float64(k) / float64(n)
	N := float64(n)
	den := 1 + z*z/N
	centre := (p + z*z/(2*N)) / den
	half := z * math.Sqrt(p*(1-p)/N+z*z/(4*N*N)) / den
	return centre - half, centre + half
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
	var out []engine.Metric
	for seat, w := range st.seatWins {
		lo, hi := wilson(w, st.games)
		out = append(out, engine.Metric{Name: fmt.Sprintf("win rate seat %d", seat+1), Value: div(w), Count: g,
			Help: fmt.Sprintf("95%% CI %.3f–%.3f (fair share %.3f)", lo, hi, 1/float64(max(st.players, 1)))})
	}
	out = append(out,
		engine.Metric{Name: "mean rounds", Value: div(st.rounds), Count: g, Help: "rounds played per game"},
		engine.Metric{Name: "mean turns", Value: div(st.turns), Count: g, Help: "player turns per game"},
		engine.Metric{Name: "ended by IP", Value: div(st.byIP), Count: g, Help: "share of games won by reaching the IP target"},
		engine.Metric{Name: "ended by round limit", Value: div(st.games - st.byIP), Count: g, Help: "share of games decided after the last round"},
		engine.Metric{Name: "conflicts per game", Value: div(st.conflicts), Count: g},
		engine.Metric{Name: "forced conflicts per game", Value: div(st.forced), Count: g},
		engine.Metric{Name: "passes per game", Value: div(st.passes), Count: g},
	)
	total, totalW := 0, 0
	for i := range st.srcAll {
		total += st.srcAll[i]
		totalW += st.srcWin[i]
	}
	for i, name := range srcNames {
		share, shareW := 0.0, 0.0
		if total > 0 {
			share = float64(st.srcAll[i]) / float64(total)
		}
		if totalW > 0 {
			shareW = float64(st.srcWin[i]) / float64(totalW)
		}
		out = append(out, engine.Metric{Name: "IP share " + name, Value: share, Count: int64(total), Help: "of all players' final IP"})
		out = append(out, engine.Metric{Name: "winner IP share " + name, Value: shareW, Count: int64(totalW), Help: "of the winners' final IP"})
	}
	return out
}
