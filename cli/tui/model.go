package tui

import (
	"fmt"
	"strings"

	"github.com/boardmesh/boardmesh/engine"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
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
}

// OnStart sets what the s key does while Snapshot.CanStart is set.
func (m *Model) OnStart(f func()) { m.start = f }

// SnapshotMsg delivers a new snapshot to the model.
type SnapshotMsg Snapshot

// New returns a model that calls choose with the action the player picks
// and quit when the player presses q or Ctrl-C. color allows ANSI colours
// in the board rendering.
func New(first Snapshot, color bool, choose func(engine.Action), quit func()) *Model {
	return &Model{snap: first, width: 80, height: 40, color: color, choose: choose, quit: quit}
}

// Init starts nothing: snapshots arrive from the runner.
func (m *Model) Init() tea.Cmd { return nil }

// Update handles keys, window size and snapshots.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
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
		if len(m.snap.Legal) == 0 {
			m.cursor = 0
		} else if m.cursor >= len(m.snap.Legal) {
			m.cursor = len(m.snap.Legal) - 1
		}
		if m.snap.Err != "" {
			return m, tea.Quit
		}
	case tea.KeyMsg:
		return m, m.key(msg.String())
	}
	return m, nil
}

func (m *Model) key(k string) tea.Cmd {
	n := len(m.snap.Legal)
	switch k {
	case "q", "ctrl+c", "esc":
		if m.quit != nil {
			m.quit()
		}
		return tea.Quit
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
	case "enter", " ":
		m.pick(m.cursor)
	default:
		if len(k) == 1 && k[0] >= '1' && k[0] <= '9' {
			i := int(k[0] - '1')
			if i < n {
				m.cursor = i
				m.pick(i)
			} else if n > 0 {
				m.note = fmt.Sprintf("there is no action %s; choose 1 to %d", k, min(n, 9))
			}
		}
	}
	return nil
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

const startingNote = "starting…"

var (
	titleStyle  = lipgloss.NewStyle().Bold(true)
	headStyle   = lipgloss.NewStyle().Bold(true).Underline(true)
	cursorStyle = lipgloss.NewStyle().Bold(true).Reverse(true)
	dimStyle    = lipgloss.NewStyle().Faint(true)
	okStyle     = lipgloss.NewStyle().Foreground(lipgloss.Color("2"))
	badStyle    = lipgloss.NewStyle().Foreground(lipgloss.Color("1")).Bold(true)
)

// View draws the screen: title and status, the board as our seat sees it,
// the actions to choose from, what happened, the peers, and the sync line.
func (m *Model) View() string {
	s := m.snap
	w := max(m.width, 40)
	var b strings.Builder
	seat := "spectator"
	if s.CanStart || (s.State == nil && s.Seat < 0) {
		seat = "lobby"
	}
	if s.Seat >= 0 {
		seat = fmt.Sprintf("seat %d", s.Seat+1)
	}
	b.WriteString(titleStyle.Render(s.Title) + dimStyle.Render("  ("+seat+")") + "\n")
	if s.Status != "" {
		b.WriteString(truncate(s.Status, w) + "\n")
	}
	b.WriteString("\n")
	if s.State != nil {
		b.WriteString(strings.TrimRight(s.State.View(s.Seat).Render(w, m.color), "\n") + "\n\n")
	}
	if s.Over {
		b.WriteString(headStyle.Render("Game over") + "\n" + s.Result + "\n\n")
	} else if len(s.Legal) > 0 {
		b.WriteString(headStyle.Render("Your move") + dimStyle.Render("  ↑/↓ or j/k, enter; 1-9 picks directly") + "\n")
		b.WriteString(m.actions(w))
		b.WriteString("\n")
	}
	if m.note != "" {
		b.WriteString(badStyle.Render(m.note) + "\n")
	}
	if len(s.Log) > 0 {
		b.WriteString(headStyle.Render("What happened") + "\n")
		log := s.Log
		if len(log) > 8 {
			log = log[len(log)-8:]
		}
		for _, l := range log {
			b.WriteString("  " + truncate(l, w-2) + "\n")
		}
		b.WriteString("\n")
	}
	if len(s.Peers) > 0 {
		parts := make([]string, len(s.Peers))
		for i, p := range s.Peers {
			name := p.Name
			if p.Self {
				name += " (you)"
			}
			if p.Bot {
				name += " [bot]"
			}
			if p.Seat >= 0 {
				name = fmt.Sprintf("%d:%s", p.Seat+1, name)
			}
			parts[i] = name + " " + dimStyle.Render(p.Conn)
		}
		// Bubble Tea cuts lines at the terminal's width: wrap between peers.
		line := "Peers:"
		for i, p := range parts {
			sep := " "
			if i > 0 {
				sep = ", "
			}
			if lipgloss.Width(line+sep+p) > w && line != "Peers:" {
				b.WriteString(line + ",\n")
				line, sep = "      ", " "
			}
			line += sep + p
		}
		b.WriteString(line + "\n")
	}
	if s.Sync != "" {
		if s.Desync {
			b.WriteString(badStyle.Render("DESYNC: "+s.Sync) + "\n")
		} else {
			b.WriteString(okStyle.Render("✓ "+s.Sync) + "\n")
		}
	}
	if s.Err != "" {
		b.WriteString(badStyle.Render("error: "+s.Err) + "\n")
	}
	help := "q quits"
	if s.CanStart {
		help = "s starts the game, q quits"
	}
	b.WriteString(dimStyle.Render(help) + "\n")
	return b.String()
}

// actions lists the legal actions, a window of them around the cursor
// when there are more than fit.
func (m *Model) actions(w int) string {
	const window = 12
	legal := m.snap.Legal
	lo, hi := 0, len(legal)
	if len(legal) > window {
		lo = max(0, m.cursor-window/2)
		hi = min(len(legal), lo+window)
		lo = max(0, hi-window)
	}
	var b strings.Builder
	if lo > 0 {
		b.WriteString(dimStyle.Render(fmt.Sprintf("   … %d more above", lo)) + "\n")
	}
	for i := lo; i < hi; i++ {
		num := "  "
		if i < 9 {
			num = fmt.Sprintf("%d)", i+1)
		}
		line := truncate(fmt.Sprintf("%s %s", num, m.snap.State.Describe(legal[i])), w-3)
		if i == m.cursor {
			b.WriteString("> " + cursorStyle.Render(line) + "\n")
		} else {
			b.WriteString("  " + line + "\n")
		}
	}
	if hi < len(legal) {
		b.WriteString(dimStyle.Render(fmt.Sprintf("   … %d more below", len(legal)-hi)) + "\n")
	}
	return b.String()
}

func truncate(s string, w int) string {
	if w < 4 || lipgloss.Width(s) <= w {
		return s
	}
	r := []rune(s)
	for len(r) > 0 && lipgloss.Width(string(r))+1 > w {
		r = r[:len(r)-1]
	}
	return string(r) + "…"
}
