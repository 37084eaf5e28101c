package infinitecity

import (
	"fmt"
	"strings"

	"github.com/boardmesh/boardmesh/engine"
)

// RenderCompact draws the essentials in height lines (engine.Compact): the
// city one line per row, each tile as its three letters, then a digit per
// marker (two markers of seat 2 are "22"), * when protected, the tile of
// the last move in reverse video, [] where a tile may go; then the
// players, your hand and what is asked.
func (v *View) RenderCompact(width, height int, color bool, mark []engine.Target) string {
	width = max(width, 40)
	last := map[[2]int]bool{}
	for _, m := range mark {
		if m.Kind == engine.TargetSquare {
			last[[2]int{m.X, m.Y}] = true
		}
	}
	spot := map[[2]int]bool{}
	for _, s := range v.Spots {
		spot[s] = true
	}
	minX, maxX, minY, maxY := 0, 0, 0, 0
	first := true
	grow := func(x, y int) {
		if first {
			minX, maxX, minY, maxY, first = x, x, y, y, false
		}
		minX, maxX, minY, maxY = min(minX, x), max(maxX, x), min(minY, y), max(maxY, y)
	}
	at := map[[2]int]ViewTile{}
	for _, t := range v.Tiles {
		at[[2]int{t.X, t.Y}] = t
		grow(t.X, t.Y)
	}
	for s := range spot {
		grow(s[0], s[1])
	}
	// The cell width: the longest tile text, at least 4.
	cw := 4
	cell := func(t ViewTile) string {
		s := t.Abbr
		if t.FaceDown {
			s = "???"
		}
		for p, n := range t.Markers {
			s += strings.Repeat(fmt.Sprint(p+1), n)
		}
		if t.Protected {
			s += "*"
		}
		return s
	}
	for _, t := range v.Tiles {
		cw = max(cw, len(cell(t))+1)
	}
	cols := maxX - minX + 1
	if 4+cols*cw > width {
		cw = max(4, (width-4)/cols)
	}
	var lines []string
	head := "    "
	for x := minX; x <= maxX; x++ {
		head += fmt.Sprintf("%-*d", cw, x)
	}
	lines = append(lines, strings.TrimRight(head, " "))
	for y := minY; y <= maxY; y++ {
		var b strings.Builder
		fmt.Fprintf(&b, "%3d ", y)
		for x := minX; x <= maxX; x++ {
			k := [2]int{x, y}
			t, ok := at[k]
			var text string
			switch {
			case ok:
				text = cell(t)
			case spot[k]:
				text = "[]"
			default:
				text = "."
			}
			if len(text) > cw-1 {
				text = text[:cw-1]
			}
			pad := strings.Repeat(" ", cw-len(text))
			switch {
			case color && ok && last[k]:
				text = "\x1b[7m" + text + "\x1b[0m"
			case color && ok && len(t.Markers) > 0:
				for p, n := range t.Markers {
					if n > 0 {
						text = fmt.Sprintf("\x1b[%dm%s\x1b[0m", seatColor[p%len(seatColor)], text)
						break
					}
				}
			case !color && ok && last[k]:
				text = strings.TrimRight(text, " ")
				if len(text) < cw-1 {
					text += "<"
					pad = pad[1:]
				}
			}
			b.WriteString(text + pad)
		}
		lines = append(lines, strings.TrimRight(b.String(), " "))
	}
	var ps []string
	for p := 0; p < v.Players; p++ {
		s := fmt.Sprintf("S%d", p+1)
		if p == v.Seat {
			s += "(you)"
		}
		if p == v.Current && !v.Over {
			s = "▶" + s
		}
		s += fmt.Sprintf(" %dpt %dmk %dh", v.Scores[p].Total, v.Supply[p], v.HandSizes[p])
		if v.Left[p] {
			s += " (left)"
		}
		ps = append(ps, s)
	}
	lines = append(lines, strings.Join(ps, " · ")+fmt.Sprintf(" · pile %d", v.Pile))
	if len(v.Hand) > 0 {
		var hs []string
		for _, t := range v.Hand {
			hs = append(hs, t.Name)
		}
		lines = append(lines, "Your hand: "+strings.Join(hs, ", "))
	}
	if len(v.Peek) > 0 {
		var hs []string
		for _, t := range v.Peek {
			hs = append(hs, t.Name)
		}
		lines = append(lines, "Library shows: "+strings.Join(hs, ", "))
	}
	if v.Prompt != "" {
		lines = append(lines, v.Prompt)
	}
	lines = append(lines, "digits: markers by seat · * protected · [] where a tile may go")
	if len(lines) > height {
		// Keep the rows around the middle of the city, then the rest.
		tail := lines[len(lines)-min(len(lines)-1, 4):]
		grid := lines[:len(lines)-len(tail)]
		room := max(height-len(tail), 1)
		if len(grid) > room {
			from := (len(grid) - room) / 2
			grid = grid[from : from+room]
		}
		lines = append(grid, tail...)
		if len(lines) > height {
			lines = lines[:height]
		}
	}
	return strings.Join(lines, "\n")
}
