package infinitecity

import "sort"

// dirs are the four edge neighbours; tiles touching only at a corner are
// not connected.
var dirs = [4][2]int{{0, -1}, {-1, 0}, {1, 0}, {0, 1}}

func less(ax, ay, bx, by int) bool { return ay < by || ay == by && ax < bx }

// find returns the index of the tile at (x, y), or -1.
func (s *State) find(x, y int) int {
	i := sort.Search(len(s.board), func(i int) bool { return !less(s.board[i].x, s.board[i].y, x, y) })
	if i < len(s.board) && s.board[i].x == x && s.board[i].y == y {
		return i
	}
	return -1
}

// insert puts a tile on an empty square, keeping the board sorted.
func (s *State) insert(c cell) {
	i := sort.Search(len(s.board), func(i int) bool { return !less(s.board[i].x, s.board[i].y, c.x, c.y) })
	s.board = append(s.board, cell{})
	copy(s.board[i+1:], s.board[i:])
	s.board[i] = c
}

func (s *State) instrAt(i int) Instr {
	if k := s.board[i].kind; k != faceDown {
		return s.set.Kinds[k].Instr
	}
	return InNone
}

// touches reports whether (x, y) shares an edge with a tile on the table.
func (s *State) touches(x, y int) bool {
	for _, d := range dirs {
		if s.find(x+d[0], y+d[1]) >= 0 {
			return true
		}
	}
	return false
}

// nextToInstr reports whether (x, y) shares an edge with a face-up tile
// with instruction in.
func (s *State) nextToInstr(x, y int, in Instr) bool {
	for _, d := range dirs {
		if j := s.find(x+d[0], y+d[1]); j >= 0 && s.instrAt(j) == in {
			return true
		}
	}
	return false
}

// protected reports whether tile i is a face-up Power Station or next to
// one, so that no tile or marker action may affect it.
func (s *State) protected(i int) bool {
	c := s.board[i]
	return s.instrAt(i) == InProtect || s.nextToInstr(c.x, c.y, InProtect)
}

// spots returns the empty squares where a new tile may go, sorted by
// (y, x): next to a tile on the table and, while a face-up Plaza has a
// free square next to it, next to a Plaza.
func (s *State) spots(dst [][2]int) [][2]int {
	dst = dst[:0]
	collect := func(onlyPlaza bool) {
		for i, c := range s.board {
			if onlyPlaza && s.instrAt(i) != InPlaza {
				continue
			}
			for _, d := range dirs {
				x, y := c.x+d[0], c.y+d[1]
				if s.find(x, y) < 0 {
					dst = append(dst, [2]int{x, y})
				}
			}
		}
	}
	collect(true)
	if len(dst) == 0 {
		collect(false)
	}
	sort.Slice(dst, func(a, b int) bool { return less(dst[a][0], dst[a][1], dst[b][0], dst[b][1]) })
	out := dst[:0]
	for i, p := range dst {
		if i == 0 || p != dst[i-1] {
			out = append(out, p)
		}
	}
	return out
}

// plazaOpen reports whether a face-up Plaza has a free square next to it,
// which is when the Plaza rule restricts placement.
func (s *State) plazaOpen() bool {
	for i, c := range s.board {
		if s.instrAt(i) != InPlaza {
			continue
		}
		for _, d := range dirs {
			if s.find(c.x+d[0], c.y+d[1]) < 0 {
				return true
			}
		}
	}
	return false
}

// spotOK says why a tile may not go on (x, y), or "" if it may.
func (s *State) spotOK(x, y int) string {
	if s.find(x, y) >= 0 {
		return "that square is already built on"
	}
	if !s.touches(x, y) {
		return "a new tile must share an edge with a tile on the table"
	}
	if !s.nextToInstr(x, y, InPlaza) && s.plazaOpen() {
		return "while a Plaza is face up, every new tile must be placed next to a Plaza"
	}
	return ""
}

// nbIndex returns, for every tile, the indexes of its four neighbours in
// the order of dirs (-1 where the square is empty). The board is sorted by
// (y, x), so the squares above and below the tiles come in the same order
// as the tiles: two pointers that only move forward find them in one pass.
func (s *State) nbIndex(dst [][4]int) [][4]int {
	dst = dst[:0]
	b := s.board
	up, down := 0, 0
	for i, c := range b {
		nb := [4]int{-1, -1, -1, -1}
		for up < len(b) && less(b[up].x, b[up].y, c.x, c.y-1) {
			up++
		}
		if up < len(b) && b[up].x == c.x && b[up].y == c.y-1 {
			nb[0] = up
		}
		if i > 0 && b[i-1].y == c.y && b[i-1].x == c.x-1 {
			nb[1] = i - 1
		}
		if i+1 < len(b) && b[i+1].y == c.y && b[i+1].x == c.x+1 {
			nb[2] = i + 1
		}
		for down < len(b) && less(b[down].x, b[down].y, c.x, c.y+1) {
			down++
		}
		if down < len(b) && b[down].x == c.x && b[down].y == c.y+1 {
			nb[3] = down
		}
		dst = append(dst, nb)
	}
	return dst
}

// connected reports whether every tile on the table is joined to every
// other by edges.
func (s *State) connected() bool {
	if len(s.board) == 0 {
		return true
	}
	nb := s.nbIndex(nil)
	seen := make([]bool, len(s.board))
	queue := []int{0}
	seen[0] = true
	for len(queue) > 0 {
		i := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		for _, j := range nb[i] {
			if j >= 0 && !seen[j] {
				seen[j] = true
				queue = append(queue, j)
			}
		}
	}
	for _, v := range seen {
		if !v {
			return false
		}
	}
	return true
}
