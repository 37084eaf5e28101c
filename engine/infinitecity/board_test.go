package infinitecity

import "testing"

// TestNeighbourIndexMatchesLookups checks the one-pass neighbour index
// against plain lookups on a ragged city.
func TestNeighbourIndexMatchesLookups(t *testing.T) {
	s := fullCity(t)
	// Punch holes so rows differ in length and neighbours go missing.
	var keep []cell
	for i, c := range s.board {
		if i%7 != 3 && i%11 != 5 {
			keep = append(keep, c)
		}
	}
	s.board = keep
	nb := s.nbIndex(nil)
	for i, c := range s.board {
		for k, d := range dirs {
			if want := s.find(c.x+d[0], c.y+d[1]); nb[i][k] != want {
				t.Fatalf("tile (%d,%d) direction %v: index %d, lookup %d", c.x, c.y, d, nb[i][k], want)
			}
		}
	}
}
