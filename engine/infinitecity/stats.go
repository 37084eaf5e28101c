package infinitecity

import "github.com/boardmesh/boardmesh/engine"

// stats collects what `boardmesh sim infinitecity` reports beyond win
// rates: which end condition fired, how often each tile's instruction was
// carried out, and where the points came from.
type stats struct {
	games    int
	ends     [numEnds]int
	names    []string
	ran      []int64
	groups   int64
	bonus    int64
	rings    int64
	winner   int64
	scores   int64
	seats    int64
	placed   int64
	lostMark int64
}

func newStats() *stats { return &stats{} }

// Observe needs nothing per step: the state keeps its own counts.
func (st *stats) Observe(prev, next engine.State, who engine.Actor, a engine.Action) {}

// Finish adds one finished game.
func (st *stats) Finish(final engine.State) {
	s, ok := final.(*State)
	if !ok {
		return
	}
	st.games++
	st.ends[s.reason]++
	for k, n := range s.ran {
		name := s.set.Kinds[k].Name
		i := 0
		for i < len(st.names) && st.names[i] != name {
			i++
		}
		if i == len(st.names) {
			st.names = append(st.names, name)
			st.ran = append(st.ran, 0)
		}
		st.ran[i] += int64(n)
	}
	best := 0
	for p, x := range s.Scores() {
		st.groups += int64(x.Groups)
		st.bonus += int64(x.Bonus)
		st.rings += int64(x.RingBonus)
		st.scores += int64(x.Total)
		st.lostMark += int64(s.lost[p])
		best = max(best, x.Total)
	}
	st.winner += int64(best)
	st.seats += int64(s.players)
	for _, c := range s.board {
		if c.kind != faceDown {
			st.placed++
		}
	}
}

// Report returns the figures in a fixed order.
func (st *stats) Report() []engine.Metric {
	g := float64(max(st.games, 1))
	seats := float64(max(st.seats, 1))
	var out []engine.Metric
	for r := endMarkers; r < numEnds; r++ {
		out = append(out, engine.Metric{Name: "end: " + endShort[r], Value: float64(st.ends[r]) / g,
			Count: int64(st.games), Help: "share of games that ended because " + endText[r]})
	}
	out = append(out,
		engine.Metric{Name: "mean score", Value: float64(st.scores) / seats, Count: st.seats, Help: "points per player"},
		engine.Metric{Name: "mean winning score", Value: float64(st.winner) / g, Count: int64(st.games)},
		engine.Metric{Name: "mean group points", Value: float64(st.groups) / seats, Count: st.seats, Help: "per player, from groups of 3 or more"},
		engine.Metric{Name: "mean bonus points", Value: float64(st.bonus) / seats, Count: st.seats, Help: "per player, printed on tiles"},
		engine.Metric{Name: "mean ring bonus", Value: float64(st.rings) / seats, Count: st.seats, Help: "per player, for the most ring tiles"},
		engine.Metric{Name: "mean face-up tiles", Value: float64(st.placed) / g, Count: int64(st.games), Help: "on the table at the end"},
		engine.Metric{Name: "mean markers removed", Value: float64(st.lostMark) / seats, Count: st.seats, Help: "per player, by Disaster Sites"},
	)
	for i, name := range st.names {
		out = append(out, engine.Metric{Name: "instruction ran: " + name, Value: float64(st.ran[i]) / g,
			Count: int64(st.games), Help: "times per game"})
	}
	return out
}

var endShort = [numEnds]string{"", "markers used", "power stations", "no tiles", "players left"}
