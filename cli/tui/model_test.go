package tui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/boardmesh/boardmesh/engine"
	tea "github.com/charmbracelet/bubbletea"
)

// countState is a tiny game for the UI: the seat to act adds 1, 2 or 3.
type countState struct{ total int }

type countView struct{ total int }

func (v countView) Render(width int, color bool) string { return fmt.Sprintf("TOTAL %d", v.total) }

func (s *countState) Players() int             { return 2 }
func (s *countState) ToAct() engine.Actor      { return engine.SeatActor(s.total % 2) }
func (s *countState) Turn() int                { return s.total }
func (s *countState) Clone() engine.State      { c := *s; return &c }
func (s *countState) Encode(e *engine.Encoder) { e.Int("total", s.total) }
func (s *countState) View(seat int) engine.View {
	return countView{s.total}
}
func (s *countState) Result() engine.Result                 { return engine.Result{} }
func (s *countState) ApplyChance(b []byte) error            { return engine.ErrNotChance }
func (s *countState) Apply(seat int, a engine.Action) error { s.total += int(a.Op); return nil }
func (s *countState) Describe(a engine.Action) string       { return fmt.Sprintf("add %d", a.Op) }
func (s *countState) Legal(dst []engine.Action) []engine.Action {
	return append(dst, engine.Action{Op: 1}, engine.Action{Op: 2}, engine.Action{Op: 3})
}

func key(m *Model, k string) {
	var msg tea.KeyMsg
	switch k {
	case "down":
		msg = tea.KeyMsg{Type: tea.KeyDown}
	case "up":
		msg = tea.KeyMsg{Type: tea.KeyUp}
	case "enter":
		msg = tea.KeyMsg{Type: tea.KeyEnter}
	case "esc":
		msg = tea.KeyMsg{Type: tea.KeyEsc}
	case " ":
		msg = tea.KeyMsg{Type: tea.KeySpace, Runes: []rune{' '}}
	default:
		msg = tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(k)}
	}
	m.Update(msg)
}

func TestModelChoosesWithKeys(t *testing.T) {
	s := &countState{total: 4}
	var chosen []engine.Action
	quit := false
	snap := Snapshot{Title: "Count", Seat: 0, State: s, Legal: s.Legal(nil), Status: "your turn",
		Log: []string{"seat 2 added 1"}, Sync: "state hashes agree (2 peers)",
		Peers: []PeerInfo{{Name: "ada", Seat: 0, Conn: "connected", Self: true}, {Name: "bot1", Seat: 1, Conn: "connected", Bot: true}}}
	m := New(snap, false, func(a engine.Action) { chosen = append(chosen, a) }, func() { quit = true })
	m.Update(tea.WindowSizeMsg{Width: 60, Height: 30})
	screen := m.View()
	for _, want := range []string{"TOTAL 4", "1) add 1", "3) add 3", "seat 2 added 1", "state hashes agree", "ada (you)", "bot1 [bot]", "your turn"} {
		if !strings.Contains(screen, want) {
			t.Errorf("screen lacks %q:\n%s", want, screen)
		}
	}
	key(m, "down")
	key(m, "j")
	key(m, "k")
	key(m, "enter")
	key(m, "enter") // a second press before the next snapshot sends nothing
	if len(chosen) != 1 || chosen[0].Op != 2 {
		t.Fatalf("chose %v, want one action: add 2", chosen)
	}
	// The next decision: a number key picks directly.
	s2 := &countState{total: 7}
	m.Update(SnapshotMsg(Snapshot{Title: "Count", Seat: 0, State: s2, Status: "waiting for bot1"}))
	if strings.Contains(m.View(), "Your move") {
		t.Fatal("actions shown while it is not our turn")
	}
	key(m, "3")
	if len(chosen) != 1 {
		t.Fatal("a key chose an action while it was not our turn")
	}
	m.Update(SnapshotMsg(Snapshot{Title: "Count", Seat: 0, State: s2, Legal: s2.Legal(nil)}))
	key(m, "3")
	if len(chosen) != 2 || chosen[1].Op != 3 {
		t.Fatalf("chose %v, want add 3 second", chosen)
	}
	key(m, "9")
	if !strings.Contains(m.View(), "no move has the key 9") {
		t.Fatal("no message for a number without an action")
	}
	key(m, "q")
	if quit || !strings.Contains(m.View(), "Leave the game?") {
		t.Fatalf("q did not ask before leaving (quit %v):\n%s", quit, m.View())
	}
	key(m, "n")
	if quit || strings.Contains(m.View(), "Leave the game?") {
		t.Fatal("n did not cancel leaving")
	}
	key(m, "q")
	key(m, "y")
	if !quit {
		t.Fatal("q, y did not quit")
	}
}

func TestModelShowsDesync(t *testing.T) {
	m := New(Snapshot{Title: "Count", Seat: -1, State: &countState{}, Sync: "desync with peer X at step 3", Desync: true}, false, nil, nil)
	if v := m.View(); !strings.Contains(v, "DESYNC: desync with peer X") || !strings.Contains(v, "spectator") {
		t.Fatalf("desync not shown:\n%s", v)
	}
}

func TestModelWrapsPeersToWidth(t *testing.T) {
	var peers []PeerInfo
	for i := range 8 {
		peers = append(peers, PeerInfo{Name: fmt.Sprintf("player-with-a-long-name-%d", i), Seat: i, Conn: "connected"})
	}
	m := New(Snapshot{Title: "Count", Seat: 0, State: &countState{}, Peers: peers}, false, nil, nil)
	m.Update(tea.WindowSizeMsg{Width: 60, Height: 30})
	v := m.View()
	for i := range 8 {
		if !strings.Contains(v, fmt.Sprintf("player-with-a-long-name-%d", i)) {
			t.Fatalf("peer %d missing:\n%s", i, v)
		}
	}
	for _, line := range strings.Split(v, "\n") {
		if len([]rune(line)) > 60 {
			t.Fatalf("line wider than the terminal: %q", line)
		}
	}
}

// TestSameSeatChoosesTwiceInARow is the Dominion action phase: the seat
// that just moved must move again, and the snapshot of the new step must
// let a second key press through, while a repeat press on the old step must
// not send the move twice.
func TestSameSeatChoosesTwiceInARow(t *testing.T) {
	legal := []engine.Action{{Op: 1}, {Op: 2}}
	var sent []engine.Action
	m := New(Snapshot{Seat: 0, Legal: legal, Step: 5}, false, func(a engine.Action) { sent = append(sent, a) }, nil)
	m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("1")})
	m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("1")})
	if len(sent) != 1 {
		t.Fatalf("two presses on one decision sent %d moves", len(sent))
	}
	m.Update(SnapshotMsg(Snapshot{Seat: 0, Legal: legal, Step: 6}))
	m.Update(tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("2")})
	if len(sent) != 2 || sent[1].Op != 2 {
		t.Fatalf("the second decision of the same seat was not sent: %v", sent)
	}
}

// TestRefusedMoveRearmsTheMenu: a move the node refuses (the runner's Act
// returned an error) is shown, and the same decision's menu takes a
// choice again instead of staying dead.
func TestRefusedMoveRearmsTheMenu(t *testing.T) {
	s := &countState{total: 4}
	var chosen []engine.Action
	snap := Snapshot{Title: "Count", Seat: 0, State: s, Legal: s.Legal(nil), Status: "your turn", Step: 7}
	m := New(snap, false, func(a engine.Action) { chosen = append(chosen, a) }, nil)
	key(m, "enter")
	key(m, "enter")
	if len(chosen) != 1 {
		t.Fatalf("two presses before an answer sent %d choices, want 1", len(chosen))
	}
	m.Update(RefusedMsg("the session has ended"))
	if out := m.View(); !strings.Contains(out, "Not played: the session has ended") {
		t.Fatalf("the refusal is not shown:\n%s", out)
	}
	key(m, "down")
	key(m, "enter")
	if len(chosen) != 2 || chosen[1].Op != 2 {
		t.Fatalf("after a refusal the menu sent %v, want a second choice (add 2)", chosen)
	}
}
