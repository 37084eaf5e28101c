package tui

import (
	"fmt"
	"strings"

	"github.com/boardmesh/boardmesh/engine"
	tea "github.com/charmbracelet/bubbletea"
)

// Model is the Bubble Tea model of a game screen.
type Model struct {
	snap   Snapshot
	cursor int
	width  int
	height int
	color  bool
	choose func(engine.Action)
	quit   func()
	// chosen remembers that we sent a choice for this decision, so a
	// second key press before the next snapshot does not send another.
	chosen bool
	note   string
	start  func()
	// group is the open group of a grouped menu ("Play Guild Hall"),
	// filter the text typed after /, typing whether keys go to it.
	group  string
	filter string
	typing bool
	// scroll is the first board line shown when the board is taller than
	// its part of the screen; hideLog hides "What happened" (l).
	scroll  int
	hideLog bool
	// keyOf holds the keys of the last top-level menu shown (by the
	// moves' leading words), so a key keeps its meaning from one decision
	// to the next (withKeys).
	keyOf map[string]string
	// confirm is the question asked before something that cannot be
	// undone ("leave", "drop"); y answers it, any other key cancels.
	confirm string
	// pane is the full-screen pane open instead of the board: "" none,
	// "help" (?), "history" (L); paneScroll its first line.
	pane       string
	paneScroll int
	// drop votes to drop seats (0-based); set by OnDrop.
	drop      func(seats []int)
	dropSeats []int
	// claim claims the win at a paused table of two; set by OnClaim.
	claim func()
	// queue holds the rest of a combo picked (a walk of several spaces):
	// each is sent once the one before is committed, while legal.
	queue []engine.Action
}

// OnDrop sets what the d key does when a seat has kept the table waiting
// long enough (Snapshot.Table's stalls): vote to drop those seats.
func (m *Model) OnDrop(f func(seats []int)) { m.drop = f }

// OnClaim sets what the C key (shift-c) does at a table of two paused by the other
// player's absence (Snapshot.Table.CanClaim): claim the win.
func (m *Model) OnClaim(f func()) { m.claim = f }

// OnStart sets what the s key does while Snapshot.CanStart is set.
func (m *Model) OnStart(f func()) { m.start = f }

// SnapshotMsg delivers a new snapshot to the model.
type SnapshotMsg Snapshot

// RefusedMsg says that the move the player chose was refused (the text
// says why): the model shows it and takes a choice again.
type RefusedMsg string

// New returns a model that calls choose with the action the player picks
// and quit when the player presses q or Ctrl-C. color allows ANSI colours
// in the board rendering.
func New(first Snapshot, color bool, choose func(engine.Action), quit func()) *Model {
	m := &Model{snap: first, width: 80, height: 40, color: color, choose: choose, quit: quit, keyOf: map[string]string{}}
	m.cursor = m.defaultCursor()
	return m
}

// Init starts nothing: snapshots arrive from the runner.
func (m *Model) Init() tea.Cmd { return nil }

// Update handles keys, the mouse wheel, window size and snapshots.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
	case tea.MouseMsg:
		switch msg.Button {
		case tea.MouseButtonWheelUp:
			m.scrollBy(-3)
		case tea.MouseButtonWheelDown:
			m.scrollBy(3)
		}
	case RefusedMsg:
		m.chosen = false
		m.note = "Not played: " + string(msg) + " (choose again)"
	case SnapshotMsg:
		prevTurn := len(m.snap.Legal) > 0
		newStep := msg.Step != m.snap.Step
		m.snap = Snapshot(msg)
		if !m.snap.CanStart && m.note == startingNote {
			m.note = ""
		}
		if len(m.snap.Legal) == 0 || !prevTurn || newStep {
			m.chosen = false
		}
		if len(m.snap.Legal) == 0 || !prevTurn || newStep {
			// A new decision: a fresh menu, on its safe default; a filter
			// being typed stays (the player is typing into the new menu).
			m.group = ""
			if !m.typing || len(m.snap.Legal) == 0 {
				m.filter, m.typing = "", false
			}
			m.cursor = m.defaultCursor()
		}
		if n := len(m.items()); m.cursor >= n {
			m.cursor = max(0, n-1)
		}
		if m.snap.Err != "" {
			return m, tea.Quit
		}
		if len(m.queue) > 0 && newStep {
			m.continueCombo()
		}
	case tea.KeyMsg:
		if m.confirm != "" {
			return m, m.answer(msg.String())
		}
		if m.pane != "" {
			return m, m.paneKey(msg.String())
		}
		if m.typing {
			return m, m.typeKey(msg)
		}
		return m, m.key(msg.String())
	}
	return m, nil
}

// typeKey edits the filter: letters, digits and spaces add to it,
// backspace takes away, arrows move, Enter keeps it (and picks the one
// action left, if only one is), Esc clears it.
func (m *Model) typeKey(msg tea.KeyMsg) tea.Cmd {
	switch msg.Type {
	case tea.KeyCtrlC:
		return m.key("ctrl+c")
	case tea.KeyEsc:
		m.filter, m.typing, m.cursor = "", false, 0
	case tea.KeyEnter:
		m.typing = false
		if items := m.items(); len(items) == 1 {
			m.activate(items[0])
		}
	case tea.KeyBackspace:
		if r := []rune(m.filter); len(r) > 0 {
			m.filter = string(r[:len(r)-1])
			m.cursor = 0
		}
	case tea.KeyUp, tea.KeyDown, tea.KeyPgUp, tea.KeyPgDown, tea.KeyHome, tea.KeyEnd:
		return m.key(msg.String())
	case tea.KeySpace:
		m.filter += " "
	case tea.KeyRunes:
		m.filter += string(msg.Runes)
		m.cursor = 0
	}
	return nil
}

func (m *Model) key(k string) tea.Cmd {
	items := m.items()
	n := len(items)
	switch k {
	case "q", "ctrl+c":
		if m.snap.Over || m.snap.Err != "" {
			return m.leave()
		}
		m.confirm = "leave"
	case "?":
		m.pane, m.paneScroll = "help", 0
	case "L":
		m.pane, m.paneScroll = "history", 1<<30
	case "C":
		if m.snap.Table != nil && m.snap.Table.CanClaim && !m.snap.Over && m.claim != nil {
			m.confirm = "claim"
		} else if m.snap.Table != nil && m.snap.Table.Pause != "" {
			m.note = "the win may be claimed once the other player has kept the table waiting past the drop delay"
		}
	case "d":
		if seats := m.droppable(); len(seats) > 0 && m.drop != nil {
			m.dropSeats = seats
			m.confirm = "drop"
		} else if m.snap.Table != nil && len(m.snap.Table.Stalls) > 0 {
			m.note = fmt.Sprintf("a drop can be proposed once a player has kept the table waiting %d s", m.snap.Table.DropAfter/1000)
		}
	case "esc", "backspace", "left", "h":
		switch {
		case m.filter != "":
			m.filter, m.cursor = "", 0
		case m.group != "":
			g := m.group
			m.group = ""
			m.cursor = 0
			for i, it := range m.items() {
				if it.group == g {
					m.cursor = i
				}
			}
		}
	case "/":
		if len(m.snap.Legal) > 0 && !m.snap.Over {
			m.typing, m.cursor = true, 0
			if m.group != "" {
				// In a group, the filter starts with its words: type the square.
				m.filter = strings.ToLower(m.group) + " "
			}
		}
	case "l":
		m.hideLog = !m.hideLog
	case "pgup", "ctrl+u":
		m.scrollBy(-max(1, m.layout().boardRows-2))
	case "pgdown", "ctrl+d":
		m.scrollBy(max(1, m.layout().boardRows-2))
	case "s":
		if m.snap.CanStart && m.start != nil {
			m.start()
			m.note = startingNote
		}
	case "up", "k":
		if m.cursor > 0 {
			m.cursor--
		}
	case "down", "j":
		if m.cursor < n-1 {
			m.cursor++
		}
	case "home", "g":
		m.cursor = 0
	case "end", "G":
		if n > 0 {
			m.cursor = n - 1
		}
	case "enter", " ", "right":
		if m.cursor < n {
			m.activate(items[m.cursor])
		}
	default:
		if len(k) == 1 && strings.Contains(menuKeys, k) {
			for i, it := range items {
				if it.key == k {
					m.cursor = i
					m.activate(it)
					return nil
				}
			}
			if n > 0 {
				m.note = fmt.Sprintf("no move has the key %s now", k)
			}
		}
	}
	return nil
}

// leave quits the screen for good.
func (m *Model) leave() tea.Cmd {
	if m.quit != nil {
		m.quit()
	}
	return tea.Quit
}

// answer takes the key pressed at a confirmation: y (or Enter on the
// drop) does it, anything else cancels. A second Ctrl-C leaves at once.
func (m *Model) answer(k string) tea.Cmd {
	what := m.confirm
	m.confirm = ""
	yes := k == "y" || k == "Y"
	switch what {
	case "leave":
		if yes || k == "ctrl+c" {
			return m.leave()
		}
	case "claim":
		if yes && m.claim != nil {
			m.claim()
			m.note = "you claimed the win"
		}
	case "drop":
		if yes && m.drop != nil {
			m.drop(m.dropSeats)
			m.note = "you voted to drop " + seatList(m.dropSeats) + "; the drop needs the others' votes too"
		}
	}
	return nil
}

// paneKey scrolls the help or history pane; Esc, q or its own key close it.
func (m *Model) paneKey(k string) tea.Cmd {
	switch k {
	case "esc", "q", "?", "L", "enter":
		m.pane = ""
	case "ctrl+c":
		m.pane = ""
		m.confirm = "leave"
	case "up", "k":
		m.paneScroll = max(0, m.paneScroll-1)
	case "down", "j":
		m.paneScroll++
	case "pgup", "ctrl+u":
		m.paneScroll = max(0, m.paneScroll-max(1, m.height-4))
	case "pgdown", "ctrl+d", " ":
		m.paneScroll += max(1, m.height-4)
	case "home", "g":
		m.paneScroll = 0
	case "end", "G":
		m.paneScroll = 1 << 30
	}
	return nil
}

// droppable is the seats (0-based) the local player may vote to drop now.
func (m *Model) droppable() []int {
	if m.snap.Table == nil || m.snap.Over {
		return nil
	}
	// Another player's proposal first: d confirms exactly it.
	me := m.snap.Seat + 1
	for _, v := range m.snap.Table.Votes {
		if me > 0 && !hasInt(v.Voters, me) && !hasInt(v.Seats, me) {
			return minus1(v.Seats)
		}
	}
	var seats []int
	for _, s := range m.snap.Table.Stalls {
		if s.CanDrop && s.Seat > 0 {
			seats = append(seats, s.Seat-1)
		}
	}
	return seats
}

func seatList(seats []int) string {
	parts := make([]string, len(seats))
	for i, s := range seats {
		parts[i] = fmt.Sprintf("seat %d", s+1)
	}
	return strings.Join(parts, ", ")
}

// defaultCursor is the menu line of the snapshot's default move (never a
// risky one when another exists), 0 without one.
func (m *Model) defaultCursor() int {
	if m.snap.Table == nil || m.snap.Table.Default == "" {
		return 0
	}
	for i, it := range m.items() {
		if it.idx >= 0 && it.idx < len(m.snap.Table.Actions) && m.snap.Table.Actions[it.idx].ID == m.snap.Table.Default {
			return i
		}
		if it.idx < 0 {
			for _, a := range m.snap.Table.Actions {
				if a.ID == m.snap.Table.Default && a.Group == it.group {
					return i
				}
			}
		}
	}
	return 0
}

// activate opens a group or sends an action.
func (m *Model) activate(it item) {
	if it.idx < 0 {
		m.group, m.cursor, m.note = it.group, 0, ""
		return
	}
	m.pick(it.idx)
}

func (m *Model) scrollBy(d int) {
	if _, ok := m.compactView(); ok {
		// 0 is the compact board, 1 the top of the full one.
		switch {
		case m.scroll == 0 && d > 0:
			m.scroll = 1
			return
		case m.scroll > 1 && m.scroll+d < 1:
			m.scroll = 1
			return
		case m.scroll == 1 && d < 0:
			m.scroll = 0
			return
		}
	}
	m.scroll = max(0, min(m.scroll+d, m.layout().maxScroll))
}

func (m *Model) pick(i int) {
	if i >= len(m.snap.Legal) || m.chosen || m.snap.Over {
		return
	}
	m.chosen = true
	m.note = ""
	m.queue = nil
	if t := m.snap.Table; t != nil && i < len(t.Actions) && len(t.Actions[i].Then) > 0 {
		m.queue = append([]engine.Action(nil), t.Actions[i].Then...)
	}
	if m.choose != nil {
		m.choose(m.snap.Legal[i])
	}
}

// continueCombo sends the next move of a combo on a new decision, if it is
// still legal; otherwise the combo stops and the player is told.
func (m *Model) continueCombo() {
	next := m.queue[0]
	if len(m.snap.Legal) == 0 {
		m.queue = nil
		m.note = "the move stopped: it is no longer your turn"
		return
	}
	for _, a := range m.snap.Legal {
		if a.Equal(next) {
			m.queue = m.queue[1:]
			m.chosen = true
			if m.choose != nil {
				m.choose(a)
			}
			return
		}
	}
	m.queue = nil
	m.note = "the move stopped here: its next step is no longer possible"
}

func hasInt(xs []int, x int) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
