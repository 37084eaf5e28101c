package dragonslair

import "github.com/boardmesh/boardmesh/engine"

// Result is the outcome; meaningful once the game is over.
func (s *State) Result() engine.Result {
	r := engine.Result{Scores: make([]int, s.n)}
	for i := range r.Scores {
		r.Scores[i] = int(s.seats[i].score)
	}
	for i := 0; i < int(s.n); i++ {
		if s.winner&(1<<i) != 0 {
			r.Winners = append(r.Winners, i)
		}
	}
	r.Reason = s.reasonText()
	return r
}

func (s *State) reasonText() string {
	switch s.reason {
	case reasonWoke:
		if len(s.winnerSeats()) > 1 {
			return "the dragon woke up; shared win"
		}
		return "the dragon woke up; the richest player wins"
	case reasonTie:
		if len(s.winnerSeats()) > 1 {
			return "the dragon woke up; a tie, still tied after one more turn each: shared win"
		}
		return "the dragon woke up; a tie, broken by one more turn each"
	case reasonLeft:
		return "every player left the table"
	}
	return ""
}

func (s *State) winnerSeats() []int {
	var w []int
	for i := 0; i < int(s.n); i++ {
		if s.winner&(1<<i) != 0 {
			w = append(w, i)
		}
	}
	return w
}
