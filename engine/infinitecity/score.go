package infinitecity

import "github.com/boardmesh/boardmesh/engine"

// Score is one player's points, as the rules add them up.
type Score struct {
	Groups    int `json:"groups"`     // tiles in connected groups of 3 or more
	Bonus     int `json:"bonus"`      // printed bonus points of controlled tiles
	Rings     int `json:"rings"`      // controlled tiles with a silver ring border
	RingBonus int `json:"ring_bonus"` // Rings again, for the player(s) with the most
	Total     int `json:"total"`
	Largest   int `json:"largest"` // the largest connected group, the tie-break
}

// minGroup is the smallest group that scores.
const minGroup = 3

// Scores counts every player's points on the current table. A tile with
// markers of several players counts for each of them, however many
// markers each has on it.
func (s *State) Scores() []Score {
	return scoreBoard(s.set, s.board, s.players, s.nbIndex(nil))
}

func scoreBoard(set *TileSet, board []cell, players int, nb [][4]int) []Score {
	out := make([]Score, players)
	seen := make([]int, len(board))
	stack := make([]int, 0, len(board))
	for p := 0; p < players; p++ {
		sc := &out[p]
		stamp := p + 1
		for i, c := range board {
			if c.marks[p] == 0 || seen[i] == stamp {
				continue
			}
			size := 0
			seen[i] = stamp
			stack = append(stack[:0], i)
			for len(stack) > 0 {
				j := stack[len(stack)-1]
				stack = stack[:len(stack)-1]
				size++
				if k := board[j].kind; k != faceDown {
					sc.Bonus += set.Kinds[k].Bonus
					if set.Kinds[k].Rings {
						sc.Rings++
					}
				}
				for _, n := range nb[j] {
					if n >= 0 && seen[n] != stamp && board[n].marks[p] > 0 {
						seen[n] = stamp
						stack = append(stack, n)
					}
				}
			}
			if size >= minGroup {
				sc.Groups += size
			}
			sc.Largest = max(sc.Largest, size)
		}
	}
	most := 0
	for _, sc := range out {
		most = max(most, sc.Rings)
	}
	for p := range out {
		sc := &out[p]
		if most > 0 && sc.Rings == most {
			sc.RingBonus = sc.Rings
		}
		sc.Total = sc.Groups + sc.Bonus + sc.RingBonus
	}
	return out
}

// Result is the outcome: the most points wins; a tie goes to the largest
// single group; a tie in that too is a shared win.
func (s *State) Result() engine.Result {
	sc := s.Scores()
	r := engine.Result{Scores: make([]int, s.players), Reason: endText[s.reason]}
	if s.reason == endNone {
		r.Reason = "the game is not over"
	}
	best, big := -1, -1
	for p, x := range sc {
		r.Scores[p] = x.Total
		if x.Total > best || x.Total == best && x.Largest > big {
			best, big = x.Total, x.Largest
		}
	}
	for p, x := range sc {
		if x.Total == best && x.Largest == big {
			r.Winners = append(r.Winners, p)
		}
	}
	return r
}
