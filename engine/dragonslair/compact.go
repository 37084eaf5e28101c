package dragonslair

import (
	"fmt"
	"strings"

	"github.com/boardmesh/boardmesh/engine"
)

// RenderCompact draws the essentials in height lines (engine.Compact):
// the dragon, the hall reached and its bonus, the bag, every player's gold,
// eggs and hero with its power, and the last card turned over, marked.
func (v *View) RenderCompact(width, height int, color bool, mark []engine.Target) string {
	width = max(width, 40)
	paint := func(code, s string) string {
		if !color {
			return s
		}
		return code + s + ansiReset
	}
	cut := func(s string) string {
		if r := []rune(s); len(r) > width && !color {
			return string(r[:width-1]) + "…"
		}
		return s
	}
	var lines []string
	add := func(s string) { lines = append(lines, cut(s)) }
	state := "asleep"
	switch {
	case v.Dragon >= v.RedField:
		state = paint(ansiRed, "AWAKE: the last round")
	case v.RedField-v.Dragon <= 3:
		state = paint(ansiRed, "stirring")
	}
	add(fmt.Sprintf("Round %d · dragon %d/%d %s · deck %d, discards %d", v.Round, v.Dragon, v.RedField, state, v.Deck, v.Discards))
	if !v.Over {
		hall := "at the Exit"
		if v.Hall > 0 {
			hall = fmt.Sprintf("in hall %d of %d (escape bonus %+d)", v.Hall, nest, hallBonus[v.Hall])
		}
		add(fmt.Sprintf("seat %d is %s; the next card leads to hall %d (%+d)", v.TurnSeat+1, hall, min(v.Hall+1, nest), hallBonus[min(v.Hall+1, nest)]))
		bag := "empty"
		if len(v.Bag) > 0 {
			bag = strings.Join(v.Bag, ", ")
		}
		s := fmt.Sprintf("Bag: %s (%d gold)", bag, v.BagValue)
		if v.Noise != "" {
			s += " · noise beside it: " + paint(ansiRed, v.Noise)
		}
		if len(v.Played) > 0 {
			s += " · also: " + strings.Join(v.Played, ", ")
		}
		add(s)
	}
	for _, sv := range v.Seats {
		m := "  "
		if sv.Seat == v.TurnSeat && !v.Over {
			m = "> "
		}
		s := fmt.Sprintf("%sseat %d%s %3d gold", m, sv.Seat+1, you(sv.Seat == v.Seat), sv.Score)
		if sv.Eggs > 0 {
			s += fmt.Sprintf(", %d egg(s)", sv.Eggs)
		}
		if sv.Hero != "" {
			h := sv.Hero
			if sv.HeroUsed {
				h += " (used)"
			} else if sv.HeroPower != "" {
				h += ": " + sv.HeroPower
			}
			s += " · " + h
		}
		if sv.Left {
			s += " (left)"
		}
		add(s)
	}
	if len(v.KnownTop) > 0 {
		add("You saw on top: " + strings.Join(v.KnownTop, ", "))
	}
	if len(v.Recent) > 0 {
		add("Last: " + paint(ansiBold, v.Recent[0]))
	}
	if v.Over {
		add(paint(ansiBold, "Game over: ") + v.Result.Reason)
	} else if v.Waiting != "" {
		add(v.Waiting)
	}
	if len(lines) > height {
		lines = lines[:height]
	}
	return strings.Join(lines, "\n")
}

func you(b bool) string {
	if b {
		return " (you)"
	}
	return ""
}
