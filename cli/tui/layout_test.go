package tui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/boardmesh/boardmesh/engine"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
)

// cityState is a game with a tall board (100 numbered rows) and a long
// menu like Infinite City's: three tiles × 20 squares, and one more move.
type cityState struct{ countState }

type cityView struct{}

func (cityView) Render(width int, color bool) string {
	var b strings.Builder
	for i := 1; i <= 100; i++ {
		fmt.Fprintf(&b, "ROW %03d %s\n", i, strings.Repeat("=", 200))
	}
	return b.String()
}

var cityTiles = []string{"Post Office", "Bank", "Guild Hall"}

func (s *cityState) View(seat int) engine.View { return cityView{} }
func (s *cityState) Describe(a engine.Action) string {
	if a.Op == 9 {
		return "Pass"
	}
	return fmt.Sprintf("Play %s at (%d,%d)", cityTiles[a.Op], a.Args[0], a.Args[1])
}
func (s *cityState) Legal(dst []engine.Action) []engine.Action {
	for t := range cityTiles {
		for sq := range 20 {
			dst = append(dst, engine.Action{Op: uint16(t), Args: []int32{int32(sq % 5), int32(sq / 5)}})
		}
	}
	return append(dst, engine.Action{Op: 9})
}

func citySnapshot(step uint64) Snapshot {
	s := &cityState{}
	var log []string
	for i := range 20 {
		log = append(log, fmt.Sprintf("event %d", i))
	}
	return Snapshot{Title: "City", Seat: 1, State: s, Legal: s.Legal(nil), Step: step, Status: "Turn 3: your move",
		Log: log, Sync: "state hashes of all 4 peers agree (turn 2, step 9)",
		Peers: []PeerInfo{{Name: "you", Seat: 1, Conn: "here", Self: true}, {Name: "bot1-greedy", Seat: 0, Conn: "connected", Bot: true},
			{Name: "bot2-random", Seat: 2, Conn: "connected", Bot: true}, {Name: "bot3-random", Seat: 3, Conn: "connected", Bot: true}}}
}

func sizedCity(w, h int, choose func(engine.Action)) *Model {
	m := New(citySnapshot(1), false, choose, nil)
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	return m
}

// TestLayoutFitsTheTerminal: whatever the size, the screen is no taller
// and no wider than the terminal, the title and status are its first
// lines, the menu, the sync line and the keys its last.
func TestLayoutFitsTheTerminal(t *testing.T) {
	for _, size := range [][2]int{{80, 24}, {100, 30}, {140, 50}, {60, 16}} {
		w, h := size[0], size[1]
		m := sizedCity(w, h, nil)
		lines := strings.Split(m.View(), "\n")
		name := fmt.Sprintf("%dx%d", w, h)
		if len(lines) > h {
			t.Errorf("%s: %d lines on a screen of %d", name, len(lines), h)
		}
		for _, l := range lines {
			if lipgloss.Width(l) > w {
				t.Errorf("%s: line wider than the screen: %q", name, l)
			}
		}
		if !strings.HasPrefix(lines[0], "City") || lines[1] != "Turn 3: your move" {
			t.Errorf("%s: the title and status are not on top:\n%s", name, m.View())
		}
		if !strings.Contains(lines[len(lines)-1], "q quit") || !strings.Contains(lines[len(lines)-2], "state hashes of all 4 peers agree") {
			t.Errorf("%s: the sync line and keys are not at the bottom:\n%s", name, m.View())
		}
		screen := m.View()
		for _, want := range []string{"Your move", "1) Play Post Office …  (20 choices)", "3) Play Guild Hall …", "4) Pass", "ROW 001", "board lines 1–"} {
			if !strings.Contains(screen, want) {
				t.Errorf("%s: screen lacks %q:\n%s", name, want, screen)
			}
		}
		if strings.Contains(screen, "ROW 100") {
			t.Errorf("%s: the whole board fits a small screen?\n%s", name, screen)
		}
	}
}

// TestBoardScrolls: PgDn, PgUp and the mouse wheel move the board, and
// only the board; the scroll stops at the board's last line.
func TestBoardScrolls(t *testing.T) {
	m := sizedCity(80, 24, nil)
	pg := func(k tea.KeyType) { m.Update(tea.KeyMsg{Type: k}) }
	if !strings.Contains(m.View(), "ROW 001") {
		t.Fatalf("the board does not start at its top:\n%s", m.View())
	}
	pg(tea.KeyPgDown)
	v := m.View()
	if strings.Contains(v, "ROW 001") || !strings.Contains(v, "City") || !strings.Contains(v, "Your move") {
		t.Fatalf("PgDn did not scroll the board alone:\n%s", v)
	}
	for range 50 {
		pg(tea.KeyPgDown)
	}
	if v := m.View(); !strings.Contains(v, "ROW 100") || !strings.Contains(v, "of 100") {
		t.Fatalf("PgDn does not reach the board's last line:\n%s", v)
	}
	for range 50 {
		pg(tea.KeyPgUp)
	}
	if v := m.View(); !strings.Contains(v, "ROW 001") {
		t.Fatalf("PgUp does not come back to the top:\n%s", v)
	}
	m.Update(tea.MouseMsg{Button: tea.MouseButtonWheelDown, Action: tea.MouseActionPress})
	if v := m.View(); strings.Contains(v, "ROW 003") || !strings.Contains(v, "ROW 004") {
		t.Fatalf("the wheel did not scroll three lines:\n%s", v)
	}
}

// TestLogShrinksAndToggles: on a small screen "What happened" keeps a few
// lines, the newest; l hides it and shows it again.
func TestLogShrinksAndToggles(t *testing.T) {
	m := sizedCity(80, 24, nil)
	v := m.View()
	if !strings.Contains(v, "What happened") || !strings.Contains(v, "event 19") || strings.Contains(v, "event 10") {
		t.Fatalf("a small screen should show the newest few events:\n%s", v)
	}
	key(m, "l")
	if v := m.View(); strings.Contains(v, "What happened") || strings.Contains(v, "event 19") {
		t.Fatalf("l did not hide the log:\n%s", v)
	}
	key(m, "l")
	if !strings.Contains(m.View(), "event 19") {
		t.Fatal("l did not show the log again")
	}
}

// TestLongMenuGroupsAndFilters picks "Play Bank at (2,0)" in two steps,
// then "Play Guild Hall at (1,2)" by typing a filter, as a player would.
func TestLongMenuGroupsAndFilters(t *testing.T) {
	var sent []engine.Action
	m := sizedCity(80, 24, func(a engine.Action) { sent = append(sent, a) })
	s := &cityState{}
	key(m, "2") // the group "Play Bank"
	v := m.View()
	if len(sent) != 0 || !strings.Contains(v, "Your move › Play Bank") || !strings.Contains(v, "3) Play Bank at (2,0)") || strings.Contains(v, "Post Office") {
		t.Fatalf("2 did not open the group of the Bank (sent %v):\n%s", sent, v)
	}
	// / in a group starts the filter with the group's words.
	key(m, "/")
	for _, k := range []string{"3", ",", "1"} {
		key(m, k)
	}
	if v := m.View(); !strings.Contains(v, "filter: play bank 3,1") || !strings.Contains(v, "1 of 61") {
		t.Fatalf("/ in the group of the Bank does not filter within it:\n%s", v)
	}
	key(m, "esc")
	key(m, "esc")
	if v := m.View(); !strings.Contains(v, "> 2) Play Bank …") {
		t.Fatalf("Esc did not go back to the groups, on the Bank:\n%s", v)
	}
	key(m, "enter")
	key(m, "3")
	if len(sent) != 1 || s.Describe(sent[0]) != "Play Bank at (2,0)" {
		t.Fatalf("sent %v, want Play Bank at (2,0)", sent)
	}

	// The next decision starts from the groups again; / filters.
	m.Update(SnapshotMsg(citySnapshot(2)))
	if v := m.View(); !strings.Contains(v, "1) Play Post Office …") {
		t.Fatalf("a new decision does not start from the groups:\n%s", v)
	}
	key(m, "/")
	for _, r := range "guild 1,2" {
		key(m, string(r))
	}
	v = m.View()
	if !strings.Contains(v, "filter: guild 1,2") || !strings.Contains(v, "1 of 61") || !strings.Contains(v, "1) Play Guild Hall at (1,2)") || strings.Contains(v, "Bank") {
		t.Fatalf("the filter does not show the one match:\n%s", v)
	}
	if len(sent) != 1 {
		t.Fatal("typing the filter sent a move")
	}
	key(m, "enter")
	if len(sent) != 2 || s.Describe(sent[1]) != "Play Guild Hall at (1,2)" {
		t.Fatalf("Enter on the one match sent %v", sent)
	}

	// A filter with no match says so; q while typing is a letter, Esc
	// clears the filter.
	m.Update(SnapshotMsg(citySnapshot(3)))
	key(m, "/")
	key(m, "q")
	if v := m.View(); !strings.Contains(v, "filter: q") || !strings.Contains(v, "no move matches") {
		t.Fatalf("no word for a filter without match:\n%s", v)
	}
	key(m, "esc")
	if v := m.View(); strings.Contains(v, "filter:") || !strings.Contains(v, "1) Play Post Office …") {
		t.Fatalf("Esc did not clear the filter:\n%s", v)
	}
	// A filter kept with Enter: number keys pick among the matches.
	key(m, "/")
	for _, k := range []string{"b", "a", "n", "k", " ", "4"} {
		key(m, k)
	}
	key(m, "enter")
	if v := m.View(); len(sent) != 2 || !strings.Contains(v, "4 of 61") || !strings.Contains(v, "2) Play Bank at (4,1)") {
		t.Fatalf("the kept filter does not show the Banks at x=4 (sent %v):\n%s", sent, v)
	}
	key(m, "2")
	if len(sent) != 3 || s.Describe(sent[2]) != "Play Bank at (4,1)" {
		t.Fatalf("2 under the filter sent %v", sent)
	}
}

// shortState offers twelve short moves, like Dominion's buy phase.
type shortState struct{ countState }

func (s *shortState) Describe(a engine.Action) string { return fmt.Sprintf("Buy card %02d", a.Op) }
func (s *shortState) Legal(dst []engine.Action) []engine.Action {
	for i := range 12 {
		dst = append(dst, engine.Action{Op: uint16(i)})
	}
	return dst
}

// TestShortMovesSideBySide: twelve short moves take two columns, numbered
// down the first; the cursor still walks them in order.
func TestShortMovesSideBySide(t *testing.T) {
	s := &shortState{}
	var sent []engine.Action
	m := New(Snapshot{Title: "Shop", Seat: 0, State: s, Legal: s.Legal(nil)}, false, func(a engine.Action) { sent = append(sent, a) }, nil)
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	v := m.View()
	lines := strings.Split(v, "\n")
	rows := 0
	for i, l := range lines {
		if strings.Contains(l, "Buy card") {
			rows++
		}
		if strings.Contains(l, "1) Buy card 00") {
			if strings.Count(l, "Buy card") < 2 || i+1 >= len(lines) || !strings.Contains(lines[i+1], "2) Buy card 01") {
				t.Fatalf("the short moves are not side by side, numbered down the columns:\n%s", v)
			}
		}
	}
	if rows >= 12 || !strings.Contains(v, "1) Buy card 00") {
		t.Fatalf("twelve short moves take %d lines:\n%s", rows, v)
	}
	for range 10 {
		key(m, "down")
	}
	key(m, "enter")
	if len(sent) != 1 || sent[0].Op != 10 {
		t.Fatalf("ten downs and Enter sent %v, want the eleventh move", sent)
	}
}
