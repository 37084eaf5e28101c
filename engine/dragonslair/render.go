package dragonslair

import (
	"fmt"
	"strings"
)

const (
	ansiRed   = "\x1b[31m"
	ansiBold  = "\x1b[1m"
	ansiDim   = "\x1b[2m"
	ansiReset = "\x1b[0m"
)

// Render draws the table: the Sleep Ladder, the cave with the turn
// player's figure, what lies in front of them, the pile, the players and
// what happened lately.
func (v *View) Render(width int, color bool) string {
	if width < 40 {
		width = 40
	}
	paint := func(code, s string) string {
		if !color {
			return s
		}
		return code + s + ansiReset
	}
	var b strings.Builder
	line := func(s string) {
		if len(s) > width && !color {
			s = s[:width]
		}
		b.WriteString(s)
		b.WriteByte('\n')
	}
	title := fmt.Sprintf("The Sleeping Dragon's Lair (%s) - round %d", v.Edition, v.Round)
	line(paint(ansiBold, title))

	// The Sleep Ladder: one mark per field up to the red field.
	var ladder strings.Builder
	for f := 1; f <= v.RedField; f++ {
		switch {
		case f <= v.Dragon:
			ladder.WriteByte('#')
		case f == v.RedField:
			ladder.WriteByte('R')
		default:
			ladder.WriteByte('.')
		}
	}
	state := "asleep"
	switch {
	case v.Dragon >= v.RedField:
		state = "AWAKE: this round is the last"
	case v.RedField-v.Dragon <= 3:
		state = "stirring"
	}
	line(fmt.Sprintf("Dragon %2d/%d [%s] %s", v.Dragon, v.RedField, paint(ansiRed, ladder.String()), state))
	if v.Tiebreak {
		line(paint(ansiBold, "Tie-break: the tied players play one more turn each, in reverse seat order"))
	}

	// The cave: Exit and halls 1..8 with their bonuses; the figure of the
	// turn player stands in one of them.
	var halls, bonus, fig strings.Builder
	halls.WriteString(fmt.Sprintf("%-6s%7s", "Cave", "Exit"))
	bonus.WriteString(fmt.Sprintf("%-6s%7s", "bonus", "-"))
	fig.WriteString("      ")
	for h := 0; h <= nest; h++ {
		if h > 0 {
			name := fmt.Sprint(h)
			halls.WriteString(fmt.Sprintf("%7s", name))
			if h == nest {
				halls.WriteString(" (Nest)")
			}
			bonus.WriteString(fmt.Sprintf("%7s", fmt.Sprintf("%+d", hallBonus[h])))
		}
		if h == v.Hall && !v.Over {
			fig.WriteString("     ^^")
		} else {
			fig.WriteString("       ")
		}
	}
	line(halls.String())
	line(bonus.String())
	if !v.Over {
		line(strings.TrimRight(fig.String(), " ") + " " + seatName(v.TurnSeat))
	}

	if !v.Over {
		v.renderFront(line, paint)
	}
	v.renderRest(&b, line, paint)
	return b.String()
}

// renderFront draws the cards in front of the turn player.
func (v *View) renderFront(line func(string), paint func(code, s string) string) {
	bag := "empty"
	if len(v.Bag) > 0 {
		bag = strings.Join(v.Bag, ", ")
	}
	line(fmt.Sprintf("Bag of %s: %s (%d gold)", seatName(v.TurnSeat), bag, v.BagValue))
	noise := "none yet"
	if v.Noise != "" {
		noise = paint(ansiRed, v.Noise) + " - one more noise wakes the dragon"
		if v.Caps > 0 {
			noise = paint(ansiRed, v.Noise) + fmt.Sprintf(" - but %d Invisibility Cap(s) muffle the next", v.Caps)
		}
	}
	line("Beside the bag: " + noise)
	if v.Caps > 0 || len(v.Played) > 0 {
		extra := append([]string(nil), v.Played...)
		if v.Caps > 0 {
			extra = append(extra, fmt.Sprintf("%d Invisibility Cap(s) kept", v.Caps))
		}
		line("Also in front: " + strings.Join(extra, ", "))
	}
}

// renderRest draws the pile, the players, the recent events and the
// state of the game.
func (v *View) renderRest(b *strings.Builder, line func(string), paint func(code, s string) string) {

	deck := fmt.Sprintf("Deck: %d cards, discards: %d", v.Deck, v.Discards)
	if v.Under > 0 {
		deck += fmt.Sprintf(", %d put under", v.Under)
	}
	line(deck)
	if len(v.KnownTop) > 0 {
		line("You saw on top: " + strings.Join(v.KnownTop, ", "))
	}
	if len(v.KnownUnder) > 0 {
		line("You saw go under: " + strings.Join(v.KnownUnder, ", "))
	}

	line("")
	for _, p := range v.Seats {
		mark := "  "
		if p.Seat == v.TurnSeat && !v.Over {
			mark = "> "
		}
		who := seatName(p.Seat)
		if p.Seat == v.Seat {
			who += " (you)"
		}
		s := fmt.Sprintf("%s%-12s %4d gold", mark, who, p.Score)
		if p.Eggs > 0 {
			s += fmt.Sprintf("  %d egg(s)", p.Eggs)
		}
		if p.Hero != "" {
			h := p.Hero
			if p.HeroUsed && p.Hero != heroHunter.String() {
				h += " (used)"
			}
			s += "  " + h
		}
		if p.Left {
			s += "  [left]"
		}
		if p.Tied {
			s += fmt.Sprintf("  tie-break gold %d", p.TieGain)
		}
		if p.Seat == v.TurnSeat && !v.Over {
			s = paint(ansiBold, s)
		}
		line(s)
	}
	if len(v.Recent) > 0 {
		line("")
		for i, r := range v.Recent {
			if i > 0 {
				r = paint(ansiDim, r)
			}
			line("- " + r)
		}
	}
	line("")
	if v.Over {
		w := make([]string, len(v.Result.Winners))
		for i, x := range v.Result.Winners {
			w[i] = seatName(x)
		}
		line(paint(ansiBold, fmt.Sprintf("Game over: %s. Winner: %s.", v.Result.Reason, strings.Join(w, " and "))))
	} else {
		line("Waiting for " + v.Waiting + ".")
	}
}
