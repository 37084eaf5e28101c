package infinitecity

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/boardmesh/boardmesh/engine"
)

// View is what one seat may see: the whole table, every player's supply
// and hand size, its own hand, and the Library's tiles while it uses one.
type View struct {
	Seat      int        `json:"seat"`
	Players   int        `json:"players"`
	Turn      int        `json:"turn"`
	Current   int        `json:"current"`
	ToAct     string     `json:"to_act"`
	Prompt    string     `json:"prompt"`
	Over      bool       `json:"over"`
	Winners   []int      `json:"winners,omitempty"`
	EndSeat   int        `json:"end_seat"` // the player who used their last marker, or -1
	Tiles     []ViewTile `json:"tiles"`
	Hand      []TileInfo `json:"hand,omitempty"`
	Peek      []TileInfo `json:"peek,omitempty"`
	HandSizes []int      `json:"hand_sizes"`
	Supply    []int      `json:"supply"`
	Lost      []int      `json:"lost"`
	Left      []bool     `json:"left"`
	Pile      int        `json:"pile"`
	Spots     [][2]int   `json:"spots,omitempty"` // where a tile may be laid now
	Scores    []Score    `json:"scores"`
	Legend    []TileInfo `json:"legend"` // the kinds face up on the table
}

// ViewTile is one tile on the table.
type ViewTile struct {
	X         int    `json:"x"`
	Y         int    `json:"y"`
	Name      string `json:"name,omitempty"` // empty while face down
	Abbr      string `json:"abbr,omitempty"`
	FaceDown  bool   `json:"face_down,omitempty"`
	Protected bool   `json:"protected,omitempty"`
	Markers   []int  `json:"markers"` // per seat
}

// TileInfo is what is printed on a tile.
type TileInfo struct {
	Name  string `json:"name"`
	Abbr  string `json:"abbr"`
	Text  string `json:"text"`
	Bonus int    `json:"bonus,omitempty"`
	Rings bool   `json:"rings,omitempty"`
}

func (s *State) info(k int) TileInfo {
	t := s.set.Kinds[k]
	return TileInfo{Name: t.Name, Abbr: t.Abbr, Text: t.Instr.Text(), Bonus: t.Bonus, Rings: t.Rings}
}

// infos returns what seat knows of the tiles (handles) from, by kind.
func (s *State) infos(from []int, seat int) []TileInfo {
	var kinds []int
	for _, pos := range from {
		if k := s.tileOf(pos, seat); k >= 0 {
			kinds = insertSorted(kinds, k)
		}
	}
	var out []TileInfo
	for _, k := range kinds {
		out = append(out, s.info(k))
	}
	return out
}

// View returns what seat may see; -1 is a spectator.
func (s *State) View(seat int) engine.View {
	v := &View{
		Seat: seat, Players: s.players, Turn: s.turn, Current: s.current,
		ToAct: s.ToAct().String(), Prompt: s.prompt(), Over: s.reason != endNone,
		EndSeat: s.endSeat, Pile: len(s.pile),
		Supply: append([]int(nil), s.supply...), Lost: append([]int(nil), s.lost...),
		Left: append([]bool(nil), s.dropped...), Scores: s.Scores(),
	}
	if v.Over {
		v.Winners = s.Result().Winners
	}
	for _, h := range s.hands {
		v.HandSizes = append(v.HandSizes, len(h))
	}
	if seat >= 0 && seat < s.players {
		// A seat sees its own tiles (on a secret table, on its own peer
		// only: from its Knowledge), sorted by kind.
		v.Hand = s.infos(s.hands[seat], seat)
		if seat == s.current {
			v.Peek = s.infos(s.peek, seat)
		}
	}
	onTable := make([]bool, len(s.set.Kinds))
	for i, c := range s.board {
		t := ViewTile{X: c.x, Y: c.y, FaceDown: c.kind == faceDown, Protected: s.protected(i),
			Markers: append([]int(nil), c.marks...)}
		if c.kind != faceDown {
			t.Name, t.Abbr = s.set.Kinds[c.kind].Name, s.set.Kinds[c.kind].Abbr
			onTable[c.kind] = true
		}
		v.Tiles = append(v.Tiles, t)
	}
	for k, on := range onTable {
		if on {
			v.Legend = append(v.Legend, s.info(k))
		}
	}
	if !v.Over && len(s.stack) > 0 && (s.top().kind == tkPlay || s.top().kind == tkPlayPeek) {
		v.Spots = s.spots(nil)
	}
	return v
}

// seatColor is the ANSI colour of each seat's markers.
var seatColor = [6]int{31, 34, 32, 33, 35, 36}

// seg is a run of text in one colour (0: none); rendering pads by the
// visible length, so colour codes never shift the grid.
type seg struct {
	text  string
	color int
}

type line []seg

func (l line) width() int {
	n := 0
	for _, s := range l {
		n += len(s.text)
	}
	return n
}

func (l line) render(b *strings.Builder, color bool) {
	for _, s := range l {
		if color && s.color != 0 && s.text != "" {
			fmt.Fprintf(b, "\x1b[%dm%s\x1b[0m", s.color, s.text)
		} else {
			b.WriteString(s.text)
		}
	}
}

// fit cuts or pads l to exactly w visible columns.
func (l line) fit(w int) line {
	var out line
	n := 0
	for _, s := range l {
		if n+len(s.text) > w {
			s.text = s.text[:w-n]
		}
		out = append(out, s)
		n += len(s.text)
		if n == w {
			break
		}
	}
	if n < w {
		out = append(out, seg{text: strings.Repeat(" ", w-n)})
	}
	return out
}

// Render draws the table as a grid with coordinates, then the players, the
// pile, the seat's hand and what is to be done. The grid uses wide cells
// with full tile names when they fit in width, else a compact grid of
// three-letter names (explained in a legend) cut into bands of columns.
func (v *View) Render(width int, color bool) string {
	if width < 40 {
		width = 40
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Infinite City - turn %d - %s\n", v.Turn+1, v.status())
	compact := v.renderGrid(&b, width, color)
	b.WriteString("\n")
	for p := 0; p < v.Players; p++ {
		l := line{{text: "  "}, {text: seatName(p), color: seatColor[p]}}
		if p == v.Seat {
			l = append(l, seg{text: " (you)"})
		}
		sc := v.Scores[p]
		text := fmt.Sprintf(":  %d markers left", v.Supply[p])
		if v.Lost[p] > 0 {
			text += fmt.Sprintf(" (%d removed)", v.Lost[p])
		}
		text += fmt.Sprintf(", %d tiles in hand, %d points (groups %d, bonus %d, rings %d", v.HandSizes[p], sc.Total, sc.Groups, sc.Bonus, sc.Rings)
		if sc.RingBonus > 0 {
			text += fmt.Sprintf(", ring bonus %d", sc.RingBonus)
		}
		text += ")"
		if v.Left[p] {
			text += " - has left"
		}
		if !v.Over && p == v.Current {
			text += "  <- to play"
		}
		l.render(&b, color)
		writeWrappedFrom(&b, text, width, l.width(), 4)
	}
	fmt.Fprintf(&b, "Draw pile: %d tiles.", v.Pile)
	if v.EndSeat >= 0 && !v.Over {
		fmt.Fprintf(&b, " Last round: %s has used all their markers.", seatName(v.EndSeat))
	}
	b.WriteString("\n")
	if compact && len(v.Legend) > 0 {
		b.WriteString("Tiles on the table:\n")
		for _, t := range v.Legend {
			writeWrapped(&b, "  "+t.Abbr+"  "+t.describe(), width)
		}
	}
	if len(v.Hand) > 0 {
		b.WriteString("Your hand:\n")
		for _, t := range v.Hand {
			writeWrapped(&b, "  "+t.describe(), width)
		}
	} else if v.Seat >= 0 && v.Seat < v.Players {
		b.WriteString("Your hand is empty.\n")
	}
	if len(v.Peek) > 0 {
		b.WriteString("The Library shows:\n")
		for _, t := range v.Peek {
			writeWrapped(&b, "  "+t.describe(), width)
		}
	}
	writeWrapped(&b, v.Prompt, width)
	return b.String()
}

func (v *View) status() string {
	if v.Over {
		w := make([]string, len(v.Winners))
		for i, p := range v.Winners {
			w[i] = seatName(p)
		}
		return "game over, won by " + strings.Join(w, " and ")
	}
	if v.ToAct == "chance" {
		return "drawing"
	}
	return seatName(v.Current) + " to play"
}

func (t TileInfo) describe() string {
	s := t.Name
	var extra []string
	if t.Bonus > 0 {
		extra = append(extra, fmt.Sprintf("+%d", t.Bonus))
	}
	if t.Rings {
		extra = append(extra, "rings")
	}
	if len(extra) > 0 {
		s += " (" + strings.Join(extra, ", ") + ")"
	}
	return s + ": " + t.Text
}

// writeWrapped writes text in lines of at most width columns; lines after
// the first are indented two more than the text's own indent.
func writeWrapped(b *strings.Builder, text string, width int) {
	indent := len(text) - len(strings.TrimLeft(text, " "))
	b.WriteString(strings.Repeat(" ", indent))
	writeWrappedFrom(b, strings.TrimLeft(text, " "), width, indent, indent+2)
}

// writeWrappedFrom continues a line already col columns long with text,
// wrapping at width and indenting continuation lines by indent.
func writeWrappedFrom(b *strings.Builder, text string, width, col, indent int) {
	for i, w := range strings.Fields(text) {
		switch {
		case i == 0 && (text[0] != ' ' || col == 0):
		case col+1+len(w) > width:
			b.WriteString("\n" + strings.Repeat(" ", indent))
			col = indent
		default:
			b.WriteString(" ")
			col++
		}
		if len(w) > width-col {
			w = w[:max(width-col, 1)]
		}
		b.WriteString(w)
		col += len(w)
	}
	b.WriteString("\n")
}

// grid geometry of the two layouts.
const (
	wideCell    = 12
	compactCell = 3
)

// renderGrid draws the table and reports whether it used the compact
// layout.
func (v *View) renderGrid(b *strings.Builder, width int, color bool) bool {
	if len(v.Tiles) == 0 {
		b.WriteString("(no tiles on the table)\n")
		return false
	}
	minX, maxX, minY, maxY := v.Tiles[0].X, v.Tiles[0].X, v.Tiles[0].Y, v.Tiles[0].Y
	for _, t := range v.Tiles {
		minX, maxX = min(minX, t.X), max(maxX, t.X)
		minY, maxY = min(minY, t.Y), max(maxY, t.Y)
	}
	// One free square around the city, where new tiles go.
	minX, maxX, minY, maxY = minX-1, maxX+1, minY-1, maxY+1
	label := max(len(strconv.Itoa(minY)), len(strconv.Itoa(maxY))) + 1
	cols := maxX - minX + 1
	compact := label+1+cols*(wideCell+1) > width
	cw := wideCell
	if compact {
		cw = compactCell
	}
	perBand := max(1, (width-label-1)/(cw+1))
	at := make(map[[2]int]int, len(v.Tiles)) // lookup only; drawing order comes from the loops
	for i, t := range v.Tiles {
		at[[2]int{t.X, t.Y}] = i
	}
	spot := make(map[[2]int]bool, len(v.Spots))
	for _, p := range v.Spots {
		spot[p] = true
	}
	for x0 := minX; x0 <= maxX; x0 += perBand {
		x1 := min(maxX, x0+perBand-1)
		if x0 > minX {
			b.WriteString("\n")
		}
		// Column numbers.
		var hdr line
		hdr = append(hdr, seg{text: strings.Repeat(" ", label+1)})
		for x := x0; x <= x1; x++ {
			n := strconv.Itoa(x)
			pad := (cw - len(n)) / 2
			hdr = append(hdr, line{{text: strings.Repeat(" ", max(pad, 0)) + n}}.fit(cw)...)
			hdr = append(hdr, seg{text: " "})
		}
		hdr.render(b, false)
		b.WriteString("\n")
		rule := strings.Repeat(" ", label) + "+" + strings.Repeat(strings.Repeat("-", cw)+"+", x1-x0+1) + "\n"
		if !compact {
			b.WriteString(rule)
		}
		for y := minY; y <= maxY; y++ {
			rows := 3
			if compact {
				rows = 2
			}
			cells := make([][]line, x1-x0+1)
			for x := x0; x <= x1; x++ {
				i, ok := at[[2]int{x, y}]
				var t *ViewTile
				if ok {
					t = &v.Tiles[i]
				}
				cells[x-x0] = v.cellLines(t, spot[[2]int{x, y}], compact, rows)
			}
			for r := 0; r < rows; r++ {
				// A line no square of this row uses (a second line of
				// a name, the markers) is left out: the grid stays short.
				used := r == 0
				for _, c := range cells {
					used = used || c[r].width() > 0
				}
				if !used {
					continue
				}
				lab := ""
				if r == 0 {
					lab = strconv.Itoa(y)
				}
				var l line
				l = append(l, seg{text: strings.Repeat(" ", label-len(lab)) + lab})
				sep := "|"
				if compact {
					sep = " "
				}
				l = append(l, seg{text: sep})
				for _, c := range cells {
					l = append(l, c[r].fit(cw)...)
					l = append(l, seg{text: sep})
				}
				l.render(b, color)
				b.WriteString("\n")
			}
			if !compact {
				b.WriteString(rule)
			}
		}
	}
	if !compact {
		writeWrapped(b, "Markers show the seat numbers of their owners; * marks a tile protected by a Power Station; . is a square where a tile may go.", width)
	} else {
		writeWrapped(b, "Under each tile: the seats that control it; . is a square where a tile may go.", width)
	}
	return compact
}

// cellLines draws one square of the grid.
func (v *View) cellLines(t *ViewTile, spot, compact bool, rows int) []line {
	out := make([]line, rows)
	if t == nil {
		if spot {
			mid := wideCell / 2
			if compact {
				mid = 1
			}
			out[0] = line{{text: strings.Repeat(" ", mid) + "."}}
		}
		return out
	}
	if compact {
		if t.FaceDown {
			out[0] = line{{text: "???"}}
		} else {
			out[0] = line{{text: t.Abbr}}
		}
		n := 0
		for p, m := range t.Markers {
			if m == 0 {
				continue
			}
			if n == 2 && countOwners(t.Markers) > 3 {
				out[1] = append(out[1], seg{text: "+"})
				break
			}
			out[1] = append(out[1], seg{text: strconv.Itoa(p + 1), color: seatColor[p]})
			n++
		}
		return out
	}
	name := t.Name
	if t.FaceDown {
		name = "(face down)"
	}
	if t.Protected {
		name = "*" + name
	}
	l1, l2 := wrapName(name, wideCell)
	out[0], out[1] = line{{text: l1}}, line{{text: l2}}
	for p, m := range t.Markers {
		if m == 0 {
			continue
		}
		if len(out[2]) > 0 {
			out[2] = append(out[2], seg{text: " "})
		}
		text := strings.Repeat(strconv.Itoa(p+1), m)
		if m > 3 {
			text = strconv.Itoa(p+1) + "x" + strconv.Itoa(m)
		}
		out[2] = append(out[2], seg{text: text, color: seatColor[p]})
	}
	return out
}

func countOwners(m []int) int {
	n := 0
	for _, x := range m {
		if x > 0 {
			n++
		}
	}
	return n
}

// wrapName splits a tile name over two lines of w columns at a space.
func wrapName(name string, w int) (string, string) {
	if len(name) <= w {
		return name, ""
	}
	cut := strings.LastIndex(name[:w+1], " ")
	if cut <= 0 {
		return name[:w], name[w:]
	}
	return name[:cut], strings.TrimSpace(name[cut+1:])
}
