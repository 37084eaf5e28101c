package dominion

import (
	"fmt"
	"strings"

	"github.com/boardmesh/boardmesh/engine"
)

// RenderCompact draws the essentials in height lines (engine.Compact):
// the phase, your hand and what is in play, the whole Supply with costs
// and counts, every player (your VP, everyone's at the end), what is
// aside or asked. The cards' texts are in the help (?) and beside the
// highlighted move.
func (v *View) RenderCompact(width, height int, color bool, mark []engine.Target) string {
	width = max(width, 40)
	var lines []string
	add := func(s string) { lines = append(lines, s) }
	bold := func(s string) string { return paint(color, "1", s) }
	who := fmt.Sprintf("Seat %d", v.Current+1)
	if v.Current == v.Seat {
		who += " (you)"
	}
	switch {
	case v.Over:
		add(bold("Game over") + fmt.Sprintf(" after %d turns", v.Turn+1))
	case v.Phase == "action" || v.Phase == "buy":
		add(fmt.Sprintf("Turn %d · %s · %s phase: %d Action(s), %d Buy(s), %s", v.Turn+1, who,
			strings.ToUpper(v.Phase[:1])+v.Phase[1:], v.Actions, v.Buys, bold(fmt.Sprintf("$%d", v.Coins))))
	default:
		add(fmt.Sprintf("Turn %d · %s", v.Turn+1, who))
	}
	if v.Seat >= 0 && v.Seat < len(v.Players) {
		add(bold("Hand: ") + joinCounts(v.Hand, color) + " · " + bold("In play: ") + joinCounts(v.InPlay, color))
	} else {
		add(bold("In play: ") + joinCounts(v.InPlay, color))
	}
	marked := map[string]bool{}
	for _, m := range mark {
		marked[m.ID] = true
	}
	for _, kingdom := range []bool{false, true} {
		var cells []string
		for _, p := range v.Supply {
			if p.Kingdom != kingdom {
				continue
			}
			name := paint(color, cardColor(p.Card), p.Card)
			if marked[p.Card] {
				name = paint(color, "7", p.Card) // the pile of the last gain
			}
			cell := fmt.Sprintf("%s $%d[%d]", name, p.Cost, p.Count)
			if p.Count == 0 {
				cell = paint(color, "2", fmt.Sprintf("%s $%d[0]", p.Card, p.Cost))
			}
			cells = append(cells, cell)
		}
		lines = append(lines, flow(cells, width, "  ")...)
	}
	var ps []string
	for _, p := range v.Players {
		s := fmt.Sprintf("S%d", p.Seat+1)
		if p.Seat == v.Seat {
			s += "(you)"
		}
		if p.Seat == v.Current && !v.Over {
			s = "▶" + s
		}
		s += fmt.Sprintf(" %dh %dd %dx", p.Hand, p.Deck, p.Discard)
		if p.VP != nil {
			s += bold(fmt.Sprintf(" %dVP", *p.VP))
		}
		if p.Left {
			s += " (left)"
		}
		ps = append(ps, s)
	}
	lines = append(lines, flow(ps, width, " · ")...)
	if len(v.Trash) > 0 {
		add(bold("Trash: ") + joinCounts(v.Trash, color))
	}
	if len(v.Aside) > 0 {
		add(bold(fmt.Sprintf("%s by seat %d: ", v.AsideWhat, v.AsideOwner+1)) + strings.Join(v.Aside, ", "))
	}
	if !strings.Contains(v.Prompt, "phase —") && v.Prompt != "" {
		add(v.Prompt)
	}
	if len(lines) > height {
		// The Players line and the question matter more than the rest of
		// the Supply: drop Supply lines from the end of the kingdom.
		keep := append([]string(nil), lines[:2]...)
		rest := lines[2:]
		for len(keep)+len(rest) > height && len(rest) > 0 {
			rest = rest[1:]
		}
		lines = append(keep, rest...)
	}
	return strings.Join(lines, "\n")
}

// flow lays cells out on as few lines of width as it can.
func flow(cells []string, width int, sep string) []string {
	var out []string
	line := ""
	for _, c := range cells {
		if line != "" && visible(line)+len(sep)+visible(c) > width {
			out = append(out, line)
			line = ""
		}
		if line != "" {
			line += sep
		}
		line += c
	}
	if line != "" {
		out = append(out, line)
	}
	return out
}

// visible is the length of s without its ANSI colour codes.
func visible(s string) int {
	n, esc := 0, false
	for _, r := range s {
		switch {
		case r == '\x1b':
			esc = true
		case esc && r == 'm':
			esc = false
		case !esc:
			n++
		}
	}
	return n
}
