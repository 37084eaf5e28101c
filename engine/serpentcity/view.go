package serpentcity

import (
	"strings"

	"github.com/boardmesh/boardmesh/engine"
)

// Result is the outcome: IP as scores, the winner and why.
func (s *State) Result() engine.Result {
	scores := make([]int, s.n)
	for p := range s.pl {
		scores[p] = s.pl[p].ip
	}
	return engine.Result{Scores: scores, Winners: append([]int(nil), s.winners...), Reason: s.endReason}
}

// TerritoryView is one Territory as everyone sees it.
type TerritoryView struct {
	Name      string `json:"name"`
	Resource  string `json:"resource"`
	Road      int    `json:"road"` // 1-based Road space it touches
	Pawns     []int  `json:"pawns"`
	Buildings []int  `json:"buildings"` // owner seats
	Dominance string `json:"dominance"` // "", "shared", or "A II"
	Free      int    `json:"free_slots"`
}

// CardCount is a held card kind.
type CardCount struct {
	Deck  string `json:"deck"`
	Name  string `json:"name"`
	Count int    `json:"count"`
	MinIP int    `json:"min_ip"`
	MaxIP int    `json:"max_ip"`
}

// PlayerView is one player's public holdings, and their cards if the
// view is theirs.
type PlayerView struct {
	Seat      int         `json:"seat"`
	IP        int         `json:"ip"`
	Sources   [nSrc]int   `json:"ip_sources"`
	Resources [nRes]int   `json:"resources"`
	Economic  int         `json:"economic_cards"`
	Military  int         `json:"military_cards"`
	Cards     []CardCount `json:"cards,omitempty"` // only in the player's own view
	Active    int         `json:"active_pawns"`
	Limit     int         `json:"pawn_limit"`
	Investor  int         `json:"investor"`
	Architect bool        `json:"architect"`
	Left      bool        `json:"left"`
}

// View is what one seat sees: everything but the other players' cards.
type View struct {
	Seat         int             `json:"seat"`
	Round        int             `json:"round"`
	Rounds       int             `json:"rounds"`
	WinIP        int             `json:"win_ip"`
	Current      int             `json:"current"`
	Asking       string          `json:"asking"`
	MP           int             `json:"movement_points"`
	Dice         [2]int          `json:"dice"`
	Start        []int           `json:"start"`
	Road         [][]int         `json:"road"` // per space, pawns per seat
	Territories  []TerritoryView `json:"territories"`
	Capital      []int           `json:"capital"`
	CapitalSlots int             `json:"capital_slots"`
	Players      []PlayerView    `json:"players"`
	LastFight    string          `json:"last_fight,omitempty"`
	Conflict     string          `json:"conflict,omitempty"`  // the conflict being fought, with the cards played so far
	LastDraw     string          `json:"last_draw,omitempty"` // the last card drawn: named only to its owner
	Over         bool            `json:"over"`
	Winners      []int           `json:"winners,omitempty"`
	Reason       string          `json:"reason,omitempty"`
}

var romans = [4]string{"", "I", "II", "III"}

// View returns what seat may see; -1 is a spectator.
func (s *State) View(seat int) engine.View {
	v := &View{Seat: seat, Round: s.round, Rounds: s.rounds, WinIP: s.winIP, Current: s.cur, MP: s.mp, Dice: s.dice,
		CapitalSlots: s.cfg.r.CapitalSlots, LastFight: s.lastFight, Over: s.ph == phOver, Reason: s.endReason,
		Winners: append([]int(nil), s.winners...)}
	if v.Round > v.Rounds {
		v.Round = v.Rounds
	}
	v.Asking = s.asking()
	if s.ph == phAttCard || s.ph == phDefCard {
		v.Conflict = s.conflictText()
	}
	// The last card drawn, once it is opened to its drawer (phDraw: still
	// being drawn): its name to the drawer, its deck to everyone.
	if h, ok := engine.HandleArg(s.lastDrw); ok && s.lastDrw >= 0 && s.ph != phDraw {
		d := s.deckOf(h)
		if k := s.kind(h, seat); seat == s.drawSeat && k >= 0 {
			v.LastDraw = "you drew " + s.cfg.decks[d][k].Name + " (" + deckNames[d] + ")"
		} else {
			v.LastDraw = seatName(s.drawSeat) + " drew " + article(deckNames[d]) + " Card"
		}
	}
	v.Road = make([][]int, s.cfg.R)
	for i := range v.Road {
		v.Road[i] = make([]int, s.n)
	}
	for p := range s.pl {
		pl := &s.pl[p]
		v.Start = append(v.Start, pl.start)
		v.Capital = append(v.Capital, pl.capital)
		for i := range pl.road {
			v.Road[i][p] = pl.road[i] + pl.frozen[i]
		}
		pv := PlayerView{Seat: p, IP: pl.ip, Sources: pl.src, Resources: pl.res, Active: s.active(p), Limit: pawnLimit(s.n),
			Investor: pl.investor, Architect: pl.architect, Left: pl.dropped}
		pv.Economic, pv.Military = len(pl.hand[econDeck]), len(pl.hand[milDeck])
		for d := 0; d < 2 && p == seat; d++ {
			hc := s.counts(p, d)
			for k := range s.cfg.decks[d] {
				if hc[k] == 0 {
					continue
				}
				spec := s.cfg.decks[d][k]
				pv.Cards = append(pv.Cards, CardCount{Deck: deckNames[d], Name: spec.Name, Count: int(hc[k]), MinIP: spec.MinIP, MaxIP: spec.MaxIP})
			}
		}
		v.Players = append(v.Players, pv)
	}
	for t := 0; t < s.cfg.T; t++ {
		tv := TerritoryView{Name: s.cfg.r.Territories[t].Name, Resource: resNames[s.cfg.ttype[t]], Road: s.cfg.troad[t] + 1,
			Buildings: append([]int{}, s.bld[t]...), Free: s.cfg.r.OccupationSlots - s.occupancy(t)}
		for p := range s.pl {
			tv.Pawns = append(tv.Pawns, s.pl[p].terr[t])
		}
		switch {
		case s.occupiers(t) >= 2:
			tv.Dominance = "shared"
		default:
			for p := range s.pl {
				if lv := s.level(s.pl[p].terr[t]); lv > 0 {
					tv.Dominance = letter(p) + " " + romans[lv]
				}
			}
		}
		v.Territories = append(v.Territories, tv)
	}
	return v
}

// asking says in words what the game waits for.
func (s *State) asking() string {
	switch s.ph {
	case phRoll:
		return seatName(s.cur) + " rolls for Movement Points"
	case phMain:
		return seatName(s.cur) + " moves and acts (" + itoa(s.mp) + " Movement Points left)"
	case phPick:
		return seatName(s.who) + " chooses the deck of a Special Card"
	case phDraw:
		return seatName(s.who) + " draws " + article(deckNames[s.drawDk]) + " Card"
	case phAttCard:
		return seatName(s.cAtt) + " attacks " + seatName(s.cDef) + " in " + s.locName(s.cLoc) + ": attacker may play a Military Card"
	case phDefCard:
		return seatName(s.cDef) + " defends " + s.locName(s.cLoc) + " against " + seatName(s.cAtt) + ": defender may answer with a Military Card"
	case phReward:
		return seatName(s.who) + " makes a Reward Roll"
	case phForced:
		return seatName(s.cur) + " must attack someone in " + s.locName(s.cLoc) + " (three or more players there)"
	case phOffer:
		return seatName(s.cur) + " words a trade offer to " + seatName(s.tPartner)
	case phAnswer:
		return seatName(s.tPartner) + " answers " + seatName(s.cur) + "'s offer: " + itoa(s.tGiveN) + " " + resNames[s.tGive] + " for 1 " + resNames[s.tGet]
	}
	return "the game is over: " + s.endReason
}

func letter(p int) string { return string(rune('A' + p)) }

var ansi = []string{"\x1b[31m", "\x1b[34m", "\x1b[32m", "\x1b[33m", "\x1b[35m", "\x1b[36m"}

// pawnList writes "A2 C1" for counts per seat, "·" when empty.
func pawnList(counts []int, color bool) string {
	var parts []string
	for p, c := range counts {
		if c > 0 {
			t := letter(p) + itoa(c)
			if color {
				t = ansi[p%len(ansi)] + t + "\x1b[0m"
			}
			parts = append(parts, t)
		}
	}
	if len(parts) == 0 {
		return "·"
	}
	return strings.Join(parts, " ")
}

// Render draws the ring road as a clockwise list of spaces, each with the
// Territory it touches, then the Capital, the players and the question.
// Lines longer than width wrap with an indent rather than losing text.
func (v *View) Render(width int, color bool) string {
	var b strings.Builder
	line := func(s string) {
		for _, l := range wrap(s, width) {
			b.WriteString(l)
			b.WriteByte('\n')
		}
	}
	paint := func(counts []int) string { return pawnList(counts, color) }
	line("SERPENT CITY — round " + itoa(v.Round) + "/" + itoa(v.Rounds) + ", first to " + itoa(v.WinIP) + " IP wins")
	if v.Dice[0] > 0 {
		line("Roll " + itoa(v.Dice[0]) + "+" + itoa(v.Dice[1]) + "; " + itoa(v.MP) + " Movement Points left")
	}
	line("The Road runs clockwise; START is the line between space " + itoa(len(v.Road)) + " and space 1.")
	line("  START slots: " + paint(v.Start))
	line("  Sp  Road pawns  Territory (Resource)         Occupants     Control  Bldgs Free")
	byRoad := make([][]int, len(v.Road))
	for t, tv := range v.Territories {
		byRoad[tv.Road-1] = append(byRoad[tv.Road-1], t)
	}
	for i, counts := range v.Road {
		road := pawnList(counts, false)
		row := "  " + pad(itoa(i+1), 3) + " " + paint(counts) + strings.Repeat(" ", max(1, 12-len([]rune(road))))
		if len(byRoad[i]) == 0 {
			empty := true
			for _, c := range counts {
				empty = empty && c == 0
			}
			if !empty { // an empty space between two Territories says nothing
				line(strings.TrimRight(row, " "))
			}
			continue
		}
		for k, t := range byRoad[i] {
			tv := v.Territories[t]
			if k > 0 {
				row = strings.Repeat(" ", 18)
			}
			occ := pawnList(tv.Pawns, false)
			control := tv.Dominance
			if control == "" {
				control = "—"
			}
			bs := ""
			for _, o := range tv.Buildings {
				bs += letter(o)
			}
			if bs == "" {
				bs = "—"
			}
			row += pad(tv.Name+" ("+tv.Resource+")", 29) + paint(tv.Pawns) + strings.Repeat(" ", max(1, 14-len([]rune(occ)))) +
				pad(control, 9) + pad(bs, 7) + itoa(tv.Free)
			line(row)
		}
	}
	used := 0
	for _, c := range v.Capital {
		used += c
	}
	line("Capital (" + itoa(used) + "/" + itoa(v.CapitalSlots) + " places, 4 IP a pawn): " + paint(v.Capital))
	line("")
	for _, p := range v.Players {
		name := seatName(p.Seat)
		if p.Seat == v.Seat {
			name += " (you)"
		}
		name += ", pawns " + letter(p.Seat)
		if p.Left {
			name += " (left)"
		}
		toPlay := ""
		if p.Seat == v.Current && !v.Over {
			toPlay = "  <- to play"
		}
		src := ""
		for i, n := range p.Sources {
			if n != 0 {
				src += ", " + srcNames[i] + " " + itoa(n)
			}
		}
		line(name + ": " + itoa(p.IP) + " IP" + paren(strings.TrimPrefix(src, ", ")) + toPlay)
		var res []string
		for r, n := range p.Resources {
			res = append(res, itoa(n)+" "+resNames[r])
		}
		extra := ""
		if p.Investor > 0 {
			extra += "; Investor +" + itoa(p.Investor) + " Coin"
		}
		if p.Architect {
			extra += "; Architect"
		}
		line("    " + strings.Join(res, ", "))
		line("    pawns " + itoa(p.Active) + "/" + itoa(p.Limit) + "; cards: " + itoa(p.Economic) + " Economic, " + itoa(p.Military) + " Military" + extra)
		if len(p.Cards) > 0 {
			var cs []string
			for _, c := range p.Cards {
				cs = append(cs, itoa(c.Count)+"× "+c.Name+" ("+c.Deck+", IP "+itoa(c.MinIP)+"–"+itoa(c.MaxIP)+")")
			}
			line("    your cards: " + strings.Join(cs, "; "))
			for _, c := range p.Cards {
				if t := cardTexts[keyOf(c.Name)]; t != "" {
					line("      " + c.Name + ": " + t)
				}
			}
		}
	}
	if v.LastDraw != "" {
		line("Last card: " + v.LastDraw)
	}
	if v.LastFight != "" {
		line("Last conflict: " + v.LastFight)
	}
	if v.Conflict != "" {
		line("CONFLICT: " + v.Conflict)
	}
	if v.Over {
		var ws []string
		for _, w := range v.Winners {
			ws = append(ws, seatName(w))
		}
		line("GAME OVER: " + strings.Join(ws, ", ") + " won — " + v.Reason)
	} else {
		line("Now: " + v.Asking)
	}
	return b.String()
}

// visibleLen is the width of s on a terminal: runes, minus ANSI colour codes.
func visibleLen(s string) int {
	n, esc := 0, false
	for _, r := range s {
		switch {
		case r == '\x1b':
			esc = true
		case esc:
			if r == 'm' {
				esc = false
			}
		default:
			n++
		}
	}
	return n
}

// wrap breaks s at spaces into lines of at most width visible columns;
// continuation lines are indented. A width of 0 or less means no limit.
func wrap(s string, width int) []string {
	if width <= 0 || visibleLen(s) <= width {
		return []string{s}
	}
	body := strings.TrimLeft(s, " ")
	lead := s[:len(s)-len(body)]
	indent := lead + "    "
	var out []string
	cur := lead
	for _, w := range strings.Split(body, " ") {
		next := cur + " " + w
		if strings.TrimSpace(cur) == "" {
			next = cur + w
		}
		if visibleLen(next) > width && strings.TrimSpace(cur) != "" {
			out = append(out, cur)
			next = indent + w
		}
		cur = next
	}
	out = append(out, cur)
	for i, l := range out {
		if r := []rune(l); visibleLen(l) > width && len(r) > width && !strings.Contains(l, "\x1b") {
			out[i] = string(r[:width])
		}
	}
	return out
}

func pad(s string, n int) string {
	if k := len([]rune(s)); k < n {
		return s + strings.Repeat(" ", n-k)
	}
	return s
}

func paren(s string) string {
	if s == "" {
		return ""
	}
	return " (" + s + ")"
}

// conflictText describes the conflict in progress: who, where, the
// attacker's card (played face up) and the Strength so far.
func (s *State) conflictText() string {
	t := seatName(s.cAtt) + " attacks " + seatName(s.cDef) + " in " + s.locName(s.cLoc)
	if s.cForced {
		t += " (forced)"
	}
	attCard := -1
	if s.ph == phDefCard {
		attCard = s.cAttCard
		if attCard >= 0 {
			t += "; attacker played " + s.cardName(milDeck, attCard)
		} else {
			t += "; attacker played no card"
		}
	}
	a, d := s.strengthWith(attCard, -1)
	return t + "; Strength so far " + itoa(a) + " : " + itoa(d) + " (the defender wins ties)"
}

func article(word string) string {
	if strings.ContainsRune("AEIOU", rune(word[0])) {
		return "an " + word
	}
	return "a " + word
}
