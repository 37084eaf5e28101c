package tui

import (
	"fmt"
	"sort"
	"strings"

	"github.com/boardmesh/boardmesh/cli/present"
	"github.com/boardmesh/boardmesh/engine"
	"github.com/charmbracelet/lipgloss"
	"github.com/charmbracelet/x/ansi"
)

const startingNote = "starting…"

var (
	titleStyle  = lipgloss.NewStyle().Bold(true)
	headStyle   = lipgloss.NewStyle().Bold(true).Underline(true)
	cursorStyle = lipgloss.NewStyle().Bold(true).Reverse(true)
	dimStyle    = lipgloss.NewStyle().Faint(true)
	warnStyle   = lipgloss.NewStyle().Foreground(lipgloss.Color("3"))
	okStyle     = lipgloss.NewStyle().Foreground(lipgloss.Color("2"))
	badStyle    = lipgloss.NewStyle().Foreground(lipgloss.Color("1")).Bold(true)
)

// HelpText explains the keys of the game screen, for `boardmesh play
// --help` and the like.
const HelpText = `Keys: ↑/↓ or j/k move in the menu of your moves; Enter, Space or → play the
highlighted move; the key shown before a move (1-9, then letters) plays it
directly, and keeps its meaning from one move to the next. A long menu
(Infinite City's "Play TILE at (x,y)") is grouped by the moves' leading words:
pick "Play Post Office …" first, then the square; Esc or Backspace goes back.
/ filters the menu as you type (every word must occur: "/guild 0,2"; in a
group the filter starts with its words); Enter keeps the filter and picks the
move if only one is left, Esc clears it. PgUp/PgDn or the mouse wheel scroll a
board taller than the screen, l hides or shows "What happened", L opens the
whole history (scroll it with ↑/↓ and PgUp/PgDn), ? this help. When a player
keeps the table waiting past the drop delay, d votes to drop them (the others
confirm with d too); at a table of two, where nobody can be voted out, C
(shift-c) claims the win instead. q or Ctrl-C ask before you leave.`

// screen is how the terminal's rows are shared out: the title and status
// at the top, the menu, sync line and key help at the bottom, the board in
// between, and the log and peers when there is room.
type screen struct {
	top, board, menu, log, peers, bottom []string
	boardRows, maxScroll                 int
}

// layout shares the terminal's height between the parts of the screen.
func (m *Model) layout() screen {
	s := m.snap
	w := max(m.width, 40)
	h := max(m.height, 10)
	var sc screen

	seat := "spectator"
	if s.CanStart || (s.State == nil && s.Seat < 0) {
		seat = "lobby"
	}
	if s.Seat >= 0 {
		seat = fmt.Sprintf("you are seat %d", s.Seat+1)
	}
	sc.top = append(sc.top, titleStyle.Render(s.Title)+dimStyle.Render("  ("+seat+")"))
	if s.Status != "" {
		sc.top = append(sc.top, titleStyle.Render(s.Status))
	}
	if t := s.Table; t != nil && len(s.Legal) > 0 && len(t.Since) > 0 && h >= 20 {
		// What the others did since our last move, in one line: the rest
		// is in the history (L).
		var parts []string
		for _, e := range t.Since {
			p := e.Text
			if e.Seat > 0 {
				p = fmt.Sprintf("S%d %s", e.Seat, e.Text)
			}
			if e.Outcome != "" {
				p += " (" + e.Outcome + ")"
			}
			parts = append(parts, p)
		}
		sc.top = append(sc.top, dimStyle.Render("Since your move: "+strings.Join(parts, "; ")))
	}

	if t := s.Table; t != nil && !s.Over {
		for _, st := range t.Stalls {
			if st.For < 2000 || st.Seat-1 == s.Seat && s.Seat >= 0 {
				continue
			}
			line := fmt.Sprintf("⏳ waiting for %s (%s) %s", st.Name, st.What, clock(st.For))
			switch {
			case st.CanDrop:
				line += " · d votes to drop them"
			case st.Seat > 0 && !st.Droppable:
				line += " · too few players left to vote them out: wait, or leave"
			case t.DropAfter > 0 && st.Seat > 0:
				line += fmt.Sprintf(" · a drop may be proposed after %s", clock(t.DropAfter))
			}
			sc.bottom = append(sc.bottom, warnStyle.Render(line))
			if st.Why != "" {
				// On its own line: an 80-column screen cuts the wait's.
				sc.bottom = append(sc.bottom, warnStyle.Render("   "+st.Why))
			}
		}
		if t.Pause != "" {
			line := "⏸ " + t.Pause
			if t.CanClaim && m.claim != nil {
				line += " · C claims the win"
			}
			sc.bottom = append(sc.bottom, warnStyle.Render(line))
		}
		for _, v := range t.Votes {
			line := fmt.Sprintf("%s voted to drop %s (%d of %d votes)", seatList(minus1(v.Voters)), seatList(minus1(v.Seats)), max(v.Have, 1), max(v.Needed, 1))
			if me := s.Seat + 1; me > 0 && !hasInt(v.Voters, me) && !hasInt(v.Seats, me) && m.drop != nil {
				line += " · d confirms"
			}
			sc.bottom = append(sc.bottom, warnStyle.Render(line))
		}
	}
	// A question's keys come right after it: a narrow screen cuts a line's
	// end, and what a key does must stay on it.
	switch m.confirm {
	case "leave":
		msg := "Leave the game? y leaves, any other key stays."
		if s.Seat >= 0 && !s.Over {
			msg = "Leave the game? y leaves, any other key stays. The others will wait for you and may vote you out."
		}
		sc.bottom = append(sc.bottom, badStyle.Render(msg))
	case "drop":
		sc.bottom = append(sc.bottom, badStyle.Render("Vote to drop "+seatList(m.dropSeats)+"? y votes, any other key cancels."))
	case "claim":
		sc.bottom = append(sc.bottom, badStyle.Render("Claim the win? y claims, any other key cancels. The game ends now and cannot go on."))
	}
	if m.note != "" {
		sc.bottom = append(sc.bottom, badStyle.Render(m.note))
	}
	if s.Sync != "" {
		if s.Desync {
			sc.bottom = append(sc.bottom, badStyle.Render("DESYNC: "+s.Sync))
		} else {
			sc.bottom = append(sc.bottom, okStyle.Render("✓ "+s.Sync))
		}
	}
	if s.Err != "" {
		sc.bottom = append(sc.bottom, badStyle.Render("error: "+s.Err))
	}
	sc.bottom = append(sc.bottom, dimStyle.Render(m.help(w)))

	if s.State != nil {
		sc.board = strings.Split(strings.TrimRight(s.State.View(s.Seat).Render(w, m.color), "\n"), "\n")
	} else if t := s.Table; t != nil && t.Lobby != nil {
		sc.board = lobbyLines(t, w)
	}
	avail := h - len(sc.top) - len(sc.bottom)

	// The menu (or the result) gets up to half of what is left.
	var menuHead []string
	var items []item
	switch {
	case s.Over:
		menuHead = append([]string{headStyle.Render("Game over")}, strings.Split(s.Result, "\n")...)
	case len(s.Legal) > 0:
		menuHead = []string{m.menuHead(w)}
		items = m.items()
	}
	menuRows := 0
	if len(menuHead) > 0 {
		// Columns only when one column does not fit.
		cols := 1
		if len(menuHead)+len(items) > max(4, avail/2) {
			cols = menuColumns(items, w)
		}
		want := len(menuHead) + max((len(items)+cols-1)/cols, 1)
		menuRows = min(want, max(4, avail/2))
		if s.Over {
			// The score table whole: it is what the game ends with.
			menuRows = min(want, max(4, avail-3))
		}
		sc.menu = m.menuLines(menuHead, items, menuRows, w, cols)
		if text := m.highlightedText(items); text != "" {
			sc.menu = append(sc.menu, dimStyle.Render("   ⓘ "+text))
		}
	}
	rest := avail - len(sc.menu)

	peers := m.peerLines(w)
	// The peers only when the board still fits, or keeps 20 lines.
	if len(peers) > 0 && (rest-len(peers)-3 >= len(sc.board) || rest >= len(peers)+20) {
		sc.peers = peers
	}
	rest -= len(sc.peers)

	logLines := s.Log
	if s.History != nil {
		logLines = m.historyLines(w)
	}
	if len(logLines) > 0 && !m.hideLog {
		want := 1 + min(8, len(logLines))
		n := want
		if len(sc.board)+want > rest {
			// The board first; the log keeps what the board leaves, or a
			// quarter when the board does not fit either.
			n = rest - len(sc.board)
			if n < 3 {
				n = min(want, max(3, rest/6))
			}
		}
		if n >= 2 {
			sc.log = append(sc.log, headStyle.Render("What happened")+dimStyle.Render("  (L all of it · l hides)"))
			for _, l := range logLines[len(logLines)-(n-1):] {
				sc.log = append(sc.log, "  "+l)
			}
		}
	}
	rest -= len(sc.log)

	sc.boardRows = max(rest, 0)
	if c, ok := m.compactView(); ok && len(sc.board) > sc.boardRows && m.scroll == 0 && sc.boardRows >= 4 {
		// The essentials in the rows there are; PgDn shows the full board.
		var mark []engine.Target
		if s.Table != nil && s.Table.Last != nil {
			mark = append(mark, *s.Table.Last)
		}
		full := len(sc.board)
		sc.board = strings.Split(strings.TrimRight(c.RenderCompact(w, sc.boardRows-1, m.color, mark), "\n"), "\n")
		if len(sc.board) > sc.boardRows-1 {
			sc.board = sc.board[:sc.boardRows-1]
		}
		sc.board = append(sc.board, dimStyle.Render(fmt.Sprintf("── the essentials · PgDn: the full board (%d lines) ──", full)))
		sc.maxScroll = full - max(sc.boardRows-1, 1) + 1
		return sc
	}
	if len(sc.board) > sc.boardRows {
		shown := max(sc.boardRows-1, 0)
		sc.maxScroll = len(sc.board) - shown
		from := min(m.scroll, sc.maxScroll)
		if _, ok := m.compactView(); ok && sc.boardRows >= 4 {
			// Scroll 0 is the compact board; 1 the full board's top.
			from = min(m.scroll-1, len(sc.board)-shown)
			sc.maxScroll++
		}
		b := append([]string(nil), sc.board[from:from+shown]...)
		if sc.boardRows > 0 {
			b = append(b, dimStyle.Render(fmt.Sprintf("── board lines %d–%d of %d · PgUp/PgDn or the wheel scroll ──", from+1, from+shown, len(sc.board))))
		}
		sc.board = b
	}
	return sc
}

// View draws the screen: title and status, the board as our seat sees it,
// what happened, the peers, the actions to choose from, the sync line and
// the keys, never taller than the terminal.
func (m *Model) View() string {
	w := max(m.width, 40)
	h := max(m.height, 10)
	if m.pane != "" {
		return m.paneView(w, h)
	}
	sc := m.layout()
	var lines []string
	spare := h - len(sc.top) - len(sc.board) - len(sc.log) - len(sc.peers) - len(sc.menu) - len(sc.bottom)
	gap := func() {
		if spare > 0 {
			lines = append(lines, "")
			spare--
		}
	}
	// The top, a gap, the board; what is spare goes above the log, so the
	// menu, the sync line and the keys sit at the bottom.
	lines = append(lines, sc.top...)
	gap()
	lines = append(lines, sc.board...)
	for spare > 2 {
		gap()
	}
	if len(sc.log) > 0 {
		lines = append(lines, sc.log...)
		gap()
	}
	if len(sc.menu) > 0 {
		lines = append(lines, sc.menu...)
		gap()
	}
	lines = append(lines, sc.peers...)
	lines = append(lines, sc.bottom...)
	for i, l := range lines {
		lines[i] = ansi.Truncate(l, w, "…")
	}
	if len(lines) > h {
		lines = lines[len(lines)-h:]
	}
	return strings.Join(lines, "\n")
}

// help is the key line at the bottom, as much of it as fits.
func (m *Model) help(w int) string {
	var parts []string
	if m.snap.CanStart {
		parts = append(parts, "s starts the game")
	}
	if len(m.droppable()) > 0 {
		parts = append(parts, "d drop")
	}
	parts = append(parts, "? help", "q quit")
	if len(m.snap.Legal) > 0 {
		parts = append(parts, "key/Enter/Space/→ plays", "/ filter", "Esc back")
	}
	parts = append(parts, "L history", "PgUp/PgDn board", "l log")
	line := ""
	for _, p := range parts {
		if line != "" && lipgloss.Width(line+" · "+p) > w {
			break
		}
		if line != "" {
			line += " · "
		}
		line += p
	}
	return line
}

func (m *Model) menuHead(w int) string {
	switch {
	case m.typing || m.filter != "":
		cur := ""
		if m.typing {
			cur = "▏"
		}
		n := len(m.items())
		return headStyle.Render("Your move") + " filter: " + m.filter + cur +
			dimStyle.Render(fmt.Sprintf("  %d of %d · Enter keeps · Esc clears", n, len(m.snap.Legal)))
	case m.group != "":
		return headStyle.Render("Your move") + " › " + m.group + dimStyle.Render("  · Esc back")
	}
	return headStyle.Render("Your move") + dimStyle.Render("  ↑/↓ then Enter, Space or →; or the key · / filters")
}

// menuLines is the head and a window of the items around the cursor, in
// rows lines.
func (m *Model) menuLines(head []string, items []item, rows, w, cols int) []string {
	out := append([]string(nil), head...)
	r := rows - len(head)
	if r < 1 {
		return out[:max(rows, 1)]
	}
	n := len(items)
	if n == 0 {
		if m.filter != "" {
			out = append(out, dimStyle.Render("   no move matches; Backspace or Esc"))
		}
		return out
	}
	if cols > 1 && (n+cols-1)/cols <= r {
		// Short moves side by side, numbered down the columns.
		per := (n + cols - 1) / cols
		cw := w / cols
		for row := 0; row < per; row++ {
			line := ""
			for c := 0; c < cols; c++ {
				i := c*per + row
				if i >= n {
					break
				}
				cell := m.itemLine(items, i)
				line += cell + strings.Repeat(" ", max(0, cw-lipgloss.Width(cell)))
			}
			out = append(out, strings.TrimRight(line, " "))
		}
		return out
	}
	lo, hi := 0, n
	if n > r {
		k := max(r-1, 1)
		switch {
		case m.cursor < k:
			lo, hi = 0, k
		case m.cursor >= n-k:
			lo, hi = n-k, n
		default:
			k = max(r-2, 1)
			lo = max(0, min(m.cursor-k/2, n-k))
			hi = lo + k
		}
	}
	if lo > 0 {
		out = append(out, dimStyle.Render(fmt.Sprintf("   … %d more above", lo)))
	}
	for i := lo; i < hi; i++ {
		out = append(out, m.itemLine(items, i))
	}
	if hi < n {
		out = append(out, dimStyle.Render(fmt.Sprintf("   … %d more below", n-hi)))
	}
	return out
}

// itemLine is one move of the menu: its number, if it has one, and the
// cursor.
func (m *Model) itemLine(items []item, i int) string {
	num := "  "
	if items[i].key != "" {
		num = items[i].key + ")"
	}
	line := num + " " + items[i].label
	if i == m.cursor {
		return "> " + cursorStyle.Render(line)
	}
	return "  " + line
}

// menuColumns is how many columns the menu takes: more than one only for
// five moves or more whose lines all fit a column of the width.
func menuColumns(items []item, w int) int {
	if len(items) < 5 {
		return 1
	}
	longest := 0
	for _, it := range items {
		longest = max(longest, lipgloss.Width(it.label))
	}
	return max(1, min(3, w/(longest+8)))
}

// peerLines lists the peers in seat order, wrapped between peers at the
// terminal's width.
func (m *Model) peerLines(w int) []string {
	ps := append([]PeerInfo(nil), m.snap.Peers...)
	if len(ps) == 0 {
		return nil
	}
	sort.SliceStable(ps, func(i, j int) bool {
		a, b := ps[i].Seat, ps[j].Seat
		if a < 0 || b < 0 {
			return a >= 0 && b < 0
		}
		return a < b
	})
	parts := make([]string, len(ps))
	for i, p := range ps {
		name := p.Name
		if p.Self && name != "you" {
			name += " (you)"
		}
		if p.Bot {
			name += " [bot]"
		}
		if p.Seat >= 0 {
			name = fmt.Sprintf("seat %d %s", p.Seat+1, name)
		}
		if p.Conn != "connected" && p.Conn != "here" {
			name += " " + dimStyle.Render(p.Conn) // only news: waiting, gone
		}
		parts[i] = name
	}
	var out []string
	line := "Peers:"
	for i, p := range parts {
		sep := " "
		if i > 0 {
			sep = ", "
		}
		if lipgloss.Width(line+sep+p) > w && line != "Peers:" {
			out = append(out, line+",")
			line, sep = "      ", " "
		}
		line += sep + p
	}
	return append(out, line)
}

// seatStyles colour each seat's lines, in the presentation model's order
// (present.Colors).
var seatStyles = map[string]lipgloss.Style{
	"red": lipgloss.NewStyle().Foreground(lipgloss.Color("1")), "blue": lipgloss.NewStyle().Foreground(lipgloss.Color("4")),
	"green": lipgloss.NewStyle().Foreground(lipgloss.Color("2")), "yellow": lipgloss.NewStyle().Foreground(lipgloss.Color("3")),
	"magenta": lipgloss.NewStyle().Foreground(lipgloss.Color("5")), "cyan": lipgloss.NewStyle().Foreground(lipgloss.Color("6")),
	"orange": lipgloss.NewStyle().Foreground(lipgloss.Color("208")), "white": lipgloss.NewStyle().Foreground(lipgloss.Color("7")),
}

// historyLines is the history as lines, each actor in its seat's colour.
func (m *Model) historyLines(w int) []string {
	out := make([]string, 0, len(m.snap.History))
	for _, e := range m.snap.History {
		line := e.Text
		if e.Outcome != "" {
			line += " — " + e.Outcome
		}
		who := e.Who
		if who != "" {
			if st, ok := seatStyles[present.SeatColor(e.Seat)]; ok && m.color {
				who = st.Render(who)
			}
			line = who + ": " + line
		}
		switch e.Kind {
		case "table":
			line = dimStyle.Render(line)
		case "cheat", "desync":
			line = badStyle.Render(line)
		}
		if e.Turn > 0 {
			line = dimStyle.Render(fmt.Sprintf("%3d ", e.Turn)) + line
		}
		out = append(out, line)
	}
	return out
}

// clock is a wait as m:ss.
func clock(ms int64) string { return fmt.Sprintf("%d:%02d", ms/60000, ms/1000%60) }

func minus1(xs []int) []int {
	out := make([]int, len(xs))
	for i, x := range xs {
		out[i] = x - 1
	}
	return out
}

// paneView is the full-screen help (?) or history (L), scrolled.
func (m *Model) paneView(w, h int) string {
	var head string
	var body []string
	switch m.pane {
	case "help":
		head = "Help: " + m.snap.Title
		body = append(body, wrapLines(HelpText, w)...)
		if m.snap.Rules != "" {
			body = append(body, "", headStyle.Render("The rules in short"))
			body = append(body, wrapLines(m.snap.Rules, w)...)
		}
		if t := m.snap.Table; t != nil && len(t.Terms) > 0 {
			body = append(body, "", headStyle.Render("On the table"))
			for _, term := range t.Terms {
				body = append(body, wrapLines(term.Name+": "+term.Text, w)...)
			}
		}
	default:
		head = "History"
		for _, l := range m.historyLines(w) {
			// Long lines wrap under themselves, so nothing is cut off.
			for i, part := range wrapLines(l, w-6) {
				if i > 0 {
					part = "      " + part
				}
				body = append(body, part)
			}
		}
		if len(body) == 0 {
			body = m.snap.Log
		}
	}
	rows := h - 2
	maxScroll := max(0, len(body)-rows)
	m.paneScroll = min(m.paneScroll, maxScroll)
	shown := body[m.paneScroll:min(len(body), m.paneScroll+rows)]
	lines := []string{titleStyle.Render(head) + dimStyle.Render(fmt.Sprintf("  (lines %d–%d of %d)", m.paneScroll+1, m.paneScroll+len(shown), len(body)))}
	lines = append(lines, shown...)
	for len(lines) < h-1 {
		lines = append(lines, "")
	}
	lines = append(lines, dimStyle.Render("↑/↓ PgUp/PgDn scroll · Esc closes"))
	for i, l := range lines {
		lines[i] = ansi.Truncate(l, w, "…")
	}
	return strings.Join(lines, "\n")
}

// wrapLines breaks text into lines of at most w columns, keeping its own
// line breaks.
func wrapLines(text string, w int) []string {
	var out []string
	for _, para := range strings.Split(text, "\n") {
		line := ""
		for _, word := range strings.Fields(para) {
			if line != "" && lipgloss.Width(line+" "+word) > w {
				out = append(out, line)
				line = ""
			}
			if line != "" {
				line += " "
			}
			line += word
		}
		out = append(out, line)
	}
	return out
}

// lobbyLines is the lobby screen: how the others join, and who has.
func lobbyLines(t *present.Table, w int) []string {
	l := t.Lobby
	var out []string
	// An address is never cut: it is what the others copy. Long ones go
	// on lines of their own, broken at the width.
	whole := func(label, text string) {
		if len(label)+len(text) <= w {
			out = append(out, label+text)
			return
		}
		out = append(out, label)
		for len(text) > w {
			out = append(out, text[:w])
			text = text[w:]
		}
		out = append(out, text)
	}
	if l.Code != "" {
		out = append(out, "Join code: "+titleStyle.Render(l.Code))
	}
	if len(l.Addresses) > 0 {
		whole("Address:   ", l.Addresses[0])
	}
	if l.Join != "" {
		whole("The others type: ", l.Join)
	}
	if l.Host || l.Code != "" || len(l.Addresses) > 0 {
		out = append(out, dimStyle.Render("Players on this machine: each needs a home of their own (--home DIR)."))
	}
	out = append(out, "")
	if len(l.Joined) == 0 {
		out = append(out, "Nobody has joined yet.")
	} else {
		out = append(out, fmt.Sprintf("Joined (%d): %s", len(l.Joined), strings.Join(l.Joined, ", ")))
	}
	if l.Host {
		out = append(out, "", "Press s to start once everyone has joined.")
	}
	return out
}

// compactView is the view's compact form, if the game draws one.
func (m *Model) compactView() (engine.Compact, bool) {
	if m.snap.State == nil {
		return nil, false
	}
	c, ok := m.snap.State.View(m.snap.Seat).(engine.Compact)
	return c, ok
}

// highlightedText is the effect text of the highlighted move's card, tile
// or hero, from the presentation model.
func (m *Model) highlightedText(items []item) string {
	t := m.snap.Table
	if t == nil || m.cursor >= len(items) || items[m.cursor].idx < 0 || items[m.cursor].idx >= len(t.Actions) {
		return ""
	}
	return t.Actions[items[m.cursor].idx].Text
}
