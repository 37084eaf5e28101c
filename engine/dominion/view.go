package dominion

import (
	"fmt"
	"strings"

	"github.com/boardmesh/boardmesh/engine"
)

// CardCount is a number of copies of one card.
type CardCount struct {
	Card  string `json:"card"`
	Count int    `json:"count"`
}

// Pile is one Supply pile.
type Pile struct {
	Card    string `json:"card"`
	Cost    int    `json:"cost"`
	Count   int    `json:"count"`
	Kingdom bool   `json:"kingdom,omitempty"`
	Text    string `json:"text"`
}

// PlayerView is what everyone may see of a seat (plus, for the viewer's
// own seat, the known top of their deck and their victory points).
type PlayerView struct {
	Seat     int      `json:"seat"`
	Hand     int      `json:"hand"`
	Deck     int      `json:"deck"`
	Discard  int      `json:"discard"`
	Turns    int      `json:"turns"`
	Left     bool     `json:"left,omitempty"`
	KnownTop []string `json:"known_top,omitempty"`
	VP       *int     `json:"vp,omitempty"`
}

// View is what one seat may see.
type View struct {
	Seat    int          `json:"seat"`
	Turn    int          `json:"turn"`
	Current int          `json:"current"`
	Phase   string       `json:"phase"`
	Actions int          `json:"actions"`
	Buys    int          `json:"buys"`
	Coins   int          `json:"coins"`
	Hand    []CardCount  `json:"hand,omitempty"`
	Supply  []Pile       `json:"supply"`
	InPlay  []CardCount  `json:"in_play,omitempty"`
	Trash   []CardCount  `json:"trash,omitempty"`
	Players []PlayerView `json:"players"`
	// Aside lists cards revealed, set aside or looked at, with their owner.
	Aside      []string `json:"aside,omitempty"`
	AsideOwner int      `json:"aside_owner"`
	AsideWhat  string   `json:"aside_what,omitempty"` // "Revealed", "Set aside", "Looked at"
	Prompt     string   `json:"prompt"`
	ToAct      int      `json:"to_act"` // seat to choose, -1 for chance or over
	Over       bool     `json:"over,omitempty"`
	Scores     []int    `json:"scores,omitempty"`
	Winners    []int    `json:"winners,omitempty"`
}

func list(z *counts) []CardCount {
	var out []CardCount
	for c, v := range z {
		if v > 0 {
			out = append(out, CardCount{cards[c].name, int(v)})
		}
	}
	return out
}

// View returns what seat may see; -1 is a spectator.
func (s *State) View(seat int) engine.View {
	v := &View{Seat: seat, Turn: s.turn, Current: s.cur, Actions: s.actions, Buys: s.buys, Coins: s.coins,
		Prompt: s.promptFor(seat), ToAct: -1, AsideOwner: s.asideOwner}
	switch s.phase {
	case phaseSetup:
		v.Phase = "setup"
	case phaseAction:
		v.Phase = "action"
	case phaseBuy:
		v.Phase = "buy"
	case phaseEnd:
		v.Phase = "cleanup"
	default:
		v.Phase = "over"
	}
	if w := s.ToAct(); w.Kind == engine.ActorSeat {
		v.ToAct = w.Seat
	}
	if seat >= 0 && seat < s.n {
		h := s.handOf(seat)
		v.Hand = list(&h)
	}
	for c := 0; c < NumCards; c++ {
		if s.inSupply(c) {
			v.Supply = append(v.Supply, Pile{cards[c].name, cards[c].cost, int(s.supply[c]), c >= firstKingdom, cards[c].text})
		}
	}
	if s.phase != phaseSetup {
		pl := s.zc(engine.Public, s.p[s.cur].play)
		v.InPlay = list(&pl)
	}
	v.Trash = list(&s.trash)
	for i := range s.p {
		p := &s.p[i]
		pv := PlayerView{Seat: i, Hand: len(p.hand), Deck: p.deckSize(), Discard: len(p.disc), Turns: p.turns, Left: s.isDropped(i)}
		if i == seat || s.phase == phaseOver {
			// The top of the deck, down to the first card seat has not seen.
			for k := len(p.deck) - 1; k >= 0 && i == seat; k-- {
				c := s.card(p.deck[k], seat)
				if c < 0 {
					break
				}
				pv.KnownTop = append(pv.KnownTop, cards[c].name)
			}
			vp := s.score(i)
			pv.VP = &vp
		}
		v.Players = append(v.Players, pv)
	}
	// Sentry's look is private, and so is the card Library just drew until
	// it is set aside; everything else aside was revealed to all: each seat
	// sees the cards opened to it.
	v.AsideWhat = "Revealed"
	if len(s.stack) > 0 {
		switch s.top().card {
		case Sentry:
			v.AsideWhat = "Looked at"
		case Library:
			v.AsideWhat = "Set aside"
		}
	}
	for _, h := range s.aside {
		if c := s.card(h, seat); c >= 0 {
			v.Aside = append(v.Aside, cards[c].name)
		}
	}
	if s.ask == askVassal && len(v.Aside) == 0 {
		// Vassal discards the top card face up: everyone sees it.
		v.Aside, v.AsideWhat, v.AsideOwner = []string{CardName(s.topArg())}, "Discarded by Vassal", s.cur
	}
	if s.phase == phaseOver {
		v.Over = true
		r := s.Result()
		v.Scores, v.Winners = r.Scores, r.Winners
	}
	return v
}

func paint(color bool, code, s string) string {
	if !color {
		return s
	}
	return "\x1b[" + code + "m" + s + "\x1b[0m"
}

func cardColor(name string) string {
	c := CardByName(name)
	switch {
	case c < 0:
		return "0"
	case c == Curse:
		return "35"
	case isTreasure(c):
		return "33"
	case isVictory(c):
		return "32"
	case isAttack(c):
		return "31"
	case cards[c].types&tReaction != 0:
		return "36"
	}
	return "0"
}

func joinCounts(z []CardCount, color bool) string {
	if len(z) == 0 {
		return "—"
	}
	parts := make([]string, len(z))
	for i, x := range z {
		n := paint(color, cardColor(x.Card), x.Card)
		if x.Count > 1 {
			n = fmt.Sprintf("%d×%s", x.Count, n)
		}
		parts[i] = n
	}
	return strings.Join(parts, ", ")
}

// grid lays cells out in as many columns of cellWidth as width allows.
func grid(b *strings.Builder, cells, plain []string, width, cellWidth int) {
	cols := max(1, (width-2)/cellWidth)
	for i, c := range cells {
		if i%cols == 0 {
			b.WriteString("  ")
		}
		b.WriteString(c)
		if i%cols == cols-1 || i == len(cells)-1 {
			b.WriteString("\n")
		} else {
			b.WriteString(strings.Repeat(" ", max(1, cellWidth-len([]rune(plain[i])))))
		}
	}
}

// Render draws the view for a terminal of the given width.
func (v *View) Render(width int, color bool) string {
	if width < 40 {
		width = 40
	}
	var b strings.Builder
	bold := func(s string) string { return paint(color, "1", s) }
	seatName := func(i int) string {
		if i == v.Seat {
			return fmt.Sprintf("Seat %d (you)", i+1)
		}
		return fmt.Sprintf("Seat %d", i+1)
	}
	if v.Over {
		fmt.Fprintf(&b, "%s — game over after %d turns\n", bold("Dominion"), v.Turn+1)
	} else {
		fmt.Fprintf(&b, "%s — turn %d — %s to play\n", bold("Dominion"), v.Turn+1, seatName(v.Current))
	}
	if !v.Over && (v.Phase == "action" || v.Phase == "buy") {
		fmt.Fprintf(&b, "%s phase: %d Action(s), %d Buy(s), $%d\n", strings.ToUpper(v.Phase[:1])+v.Phase[1:], v.Actions, v.Buys, v.Coins)
	}
	// What the seat holds and what is in play come first: on a short
	// screen they are what a player reads.
	if v.Seat >= 0 && v.Seat < len(v.Players) {
		me := v.Players[v.Seat]
		fmt.Fprintf(&b, "%s %s\n", bold("Your hand:"), joinCounts(v.Hand, color))
		if len(me.KnownTop) > 0 {
			fmt.Fprintf(&b, "Your deck: %d cards, the top known: %s\n", me.Deck, strings.Join(me.KnownTop, ", "))
		}
		// The texts of the Action cards in hand, so the screen alone is
		// enough to play them.
		for _, x := range v.Hand {
			if c := CardByName(x.Card); c >= firstKingdom && isAction(c) {
				line := fmt.Sprintf("  %s: %s", x.Card, cards[c].text)
				if r := []rune(line); len(r) > width {
					line = string(r[:width-1]) + "…"
				}
				b.WriteString(paint(color, "2", line) + "\n")
			}
		}
	}
	fmt.Fprintf(&b, "%s %s\n", bold("In play:  "), joinCounts(v.InPlay, color))
	b.WriteString("\n" + bold("Supply") + " (cost [cards left])\n")
	for _, kingdom := range []bool{false, true} {
		var cells, plain []string
		for _, p := range v.Supply {
			if p.Kingdom != kingdom {
				continue
			}
			t := fmt.Sprintf("%s $%d [%d]", p.Card, p.Cost, p.Count)
			plain = append(plain, t)
			if p.Count == 0 {
				cells = append(cells, paint(color, "2", t))
			} else {
				cells = append(cells, paint(color, cardColor(p.Card), p.Card)+fmt.Sprintf(" $%d [%d]", p.Cost, p.Count))
			}
		}
		grid(&b, cells, plain, width, 24)
	}
	b.WriteString("\n" + bold("Players") + "\n")
	for _, p := range v.Players {
		mark := "  "
		if p.Seat == v.Current && !v.Over {
			mark = "> "
		}
		fmt.Fprintf(&b, "%s%-14s hand %d, deck %d, discard %d, turns %d", mark, seatName(p.Seat), p.Hand, p.Deck, p.Discard, p.Turns)
		if p.VP != nil {
			fmt.Fprintf(&b, ", %d VP", *p.VP)
		}
		if p.Left {
			b.WriteString(" (left the game)")
		}
		b.WriteString("\n")
	}
	b.WriteString("\n")
	fmt.Fprintf(&b, "%s %s\n", bold("Trash:"), joinCounts(v.Trash, color))
	if len(v.Aside) > 0 {
		fmt.Fprintf(&b, "%s %s\n", bold(v.AsideWhat+" by "+seatName(v.AsideOwner)+":"), strings.Join(v.Aside, ", "))
	}
	if v.Over {
		b.WriteString("\n" + bold("Game over.") + " ")
		for i, sc := range v.Scores {
			fmt.Fprintf(&b, "%s: %d VP. ", seatName(i), sc)
		}
		var w []string
		for _, x := range v.Winners {
			w = append(w, seatName(x))
		}
		fmt.Fprintf(&b, "Winner: %s.\n", strings.Join(w, " and "))
	}
	b.WriteString("\n" + wrap(v.Prompt, width) + "\n")
	return b.String()
}

// wrap breaks text into lines of at most width runes at spaces.
func wrap(text string, width int) string {
	var b strings.Builder
	n := 0
	for i, w := range strings.Fields(text) {
		l := len([]rune(w))
		if i > 0 && n+1+l > width {
			b.WriteString("\n")
			n = 0
		} else if i > 0 {
			b.WriteString(" ")
			n++
		}
		b.WriteString(w)
		n += l
	}
	return b.String()
}
