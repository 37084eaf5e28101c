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
}

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
	return &Model{snap: first, width: 80, height: 40, color: color, choose: choose, quit: quit}
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
			// A new decision: a fresh menu.
			m.cursor, m.group, m.filter, m.typing = 0, "", "", false
		}
		if n := len(m.items()); m.cursor >= n {
			m.cursor = max(0, n-1)
		}
		if m.snap.Err != "" {
			return m, tea.Quit
		}
	case tea.KeyMsg:
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
		if m.quit != nil {
			m.quit()
		}
		return tea.Quit
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
		if len(k) == 1 && k[0] >= '1' && k[0] <= '9' {
			i := int(k[0] - '1')
			if i < n {
				m.cursor = i
				m.activate(items[i])
			} else if n > 0 {
				m.note = fmt.Sprintf("there is no action %s; choose 1 to %d", k, min(n, 9))
			}
		}
	}
	return nil
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
	m.scroll = max(0, min(m.scroll+d, m.layout().maxScroll))
}

func (m *Model) pick(i int) {
	if i >= len(m.snap.Legal) || m.chosen || m.snap.Over {
		return
	}
	m.chosen = true
	m.note = ""
	if m.choose != nil {
		m.choose(m.snap.Legal[i])
	}
}
