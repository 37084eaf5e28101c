package serpentcity

import (
	"fmt"
	"strings"

	"github.com/boardmesh/boardmesh/engine"
)

// RenderCompact draws the essentials in height lines (engine.Compact): the
// roll and Movement Points, the pawns on the Road, START and the Capital,
// the Territories someone holds, every player's IP, Resources, pawns and
// cards, your cards with their effects, the last draw or conflict and the
// question.
func (v *View) RenderCompact(width, height int, color bool, mark []engine.Target) string {
	width = max(width, 40)
	var lines []string
	add := func(s string) { lines = append(lines, wrap(s, width)...) }
	head := fmt.Sprintf("Round %d/%d · Seat %d to play · first to %d IP", v.Round, v.Rounds, v.Current+1, v.WinIP)
	if v.Dice[0] > 0 {
		head += fmt.Sprintf(" · rolled %d+%d, %d MP left", v.Dice[0], v.Dice[1], v.MP)
	}
	add(head)
	var road []string
	for i, c := range v.Road {
		if p := pawnList(c, color); p != "·" {
			road = append(road, fmt.Sprintf("%d:%s", i+1, p))
		}
	}
	if len(road) == 0 {
		road = []string{"empty"}
	}
	add("Road " + strings.Join(road, " ") + " · START " + pawnList(v.Start, color) + " · Capital " + pawnList(v.Capital, color))
	var held []string
	for _, t := range v.Territories {
		if p := pawnList(t.Pawns, color); p != "·" || len(t.Buildings) > 0 {
			s := fmt.Sprintf("%s(%d) %s", short(t.Name), t.Road, p)
			if t.Dominance != "" {
				s += " " + t.Dominance
			}
			if len(t.Buildings) > 0 {
				s += " b:"
				for _, o := range t.Buildings {
					s += letter(o)
				}
			}
			held = append(held, s)
		}
	}
	if len(held) > 0 {
		add("Held: " + strings.Join(held, " · "))
	}
	for _, p := range v.Players {
		s := fmt.Sprintf("%s Seat %d", letter(p.Seat), p.Seat+1)
		if p.Seat == v.Seat {
			s += " (you)"
		}
		if p.Seat == v.Current && !v.Over {
			s = "▶" + s
		}
		var res []string
		for r, n := range p.Resources {
			res = append(res, fmt.Sprintf("%d %s", n, resNames[r][:2]))
		}
		s += fmt.Sprintf(": %d IP · %s · pawns %d/%d · cards %dE %dM", p.IP, strings.Join(res, " "), p.Active, p.Limit, p.Economic, p.Military)
		if p.Left {
			s += " (left)"
		}
		lines = append(lines, s)
	}
	if v.Seat >= 0 && v.Seat < len(v.Players) {
		for _, c := range v.Players[v.Seat].Cards {
			lines = append(lines, fmt.Sprintf("  %d× %s: %s", c.Count, c.Name, cardTexts[keyOf(c.Name)]))
		}
	}
	if v.LastDraw != "" {
		add("Last card: " + v.LastDraw)
	}
	if v.Conflict != "" {
		add("Conflict: " + v.Conflict)
	} else if v.LastFight != "" {
		add("Last conflict: " + v.LastFight)
	}
	if v.Asking != "" {
		add(v.Asking)
	}
	if len(lines) > height {
		lines = lines[:height]
	}
	return strings.Join(lines, "\n")
}

// short abbreviates a Territory's name: "North Market" is "N.Market".
func short(name string) string {
	for _, side := range []string{"North ", "South "} {
		if strings.HasPrefix(name, side) {
			return side[:1] + "." + strings.TrimPrefix(name, side)
		}
	}
	return name
}

// keyOf is the effect key of a card of the default decks by name.
func keyOf(name string) string {
	r := DefaultRules()
	for _, d := range [][]CardSpec{r.Economic, r.Military} {
		for _, c := range d {
			if c.Name == name {
				return c.Key
			}
		}
	}
	return ""
}
