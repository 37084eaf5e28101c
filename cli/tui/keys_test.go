package tui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/boardmesh/boardmesh/cli/present"
	"github.com/boardmesh/boardmesh/engine"
	tea "github.com/charmbracelet/bubbletea"
)

// labelState offers the moves named in labels, op i for labels[i].
type labelState struct {
	countState
	labels []string
}

func (s *labelState) Describe(a engine.Action) string { return s.labels[a.Op] }
func (s *labelState) Legal(dst []engine.Action) []engine.Action {
	for i := range s.labels {
		dst = append(dst, engine.Action{Op: uint16(i)})
	}
	return dst
}

func labelSnap(step uint64, labels ...string) Snapshot {
	s := &labelState{labels: labels}
	return Snapshot{Title: "Keys", Seat: 0, State: s, Legal: s.Legal(nil), Step: step}
}

// TestMenuKeysKeepTheirMeaning: the key of "End the turn" stays the same
// when other moves come and go, and a new move never takes a key that
// meant something else before while another key is free.
func TestMenuKeysKeepTheirMeaning(t *testing.T) {
	var sent []string
	var m *Model
	m = New(labelSnap(1, "Trade", "Build", "End the turn"), false, func(a engine.Action) {
		sent = append(sent, m.snap.State.Describe(a))
	}, nil)
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	if v := m.View(); !strings.Contains(v, "3) End the turn") {
		t.Fatalf("first menu:\n%s", v)
	}
	m.Update(SnapshotMsg(labelSnap(2, "Offer a trade", "End the turn")))
	if v := m.View(); !strings.Contains(v, "3) End the turn") || strings.Contains(v, "3) Offer") {
		t.Fatalf("End the turn lost its key, or another move took it:\n%s", v)
	}
	key(m, "3")
	if len(sent) != 1 || sent[0] != "End the turn" {
		t.Fatalf("3 sent %v", sent)
	}
}

// TestItemsPastNineHaveKeys: a menu of fifteen moves reaches every one by
// a key.
func TestItemsPastNineHaveKeys(t *testing.T) {
	var labels []string
	for i := range 15 {
		labels = append(labels, fmt.Sprintf("Buy card %c", 'A'+i))
	}
	var sent []engine.Action
	m := New(labelSnap(1, labels...), false, func(a engine.Action) { sent = append(sent, a) }, nil)
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 40})
	v := m.View()
	if !strings.Contains(v, "i) Buy card O") {
		t.Fatalf("the fifteenth move has no key:\n%s", v)
	}
	key(m, "i")
	if len(sent) != 1 || sent[0].Op != 14 {
		t.Fatalf("i sent %v", sent)
	}
}

// TestFilterMatchesWholeCoordinates: /3,2 finds (3,2), not (-3,2) or (13,2).
func TestFilterMatchesWholeCoordinates(t *testing.T) {
	m := New(labelSnap(1, "Play at (-3,2)", "Play at (3,2)", "Play at (13,2)"), false, nil, nil)
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	key(m, "/")
	for _, r := range "3,2" {
		key(m, string(r))
	}
	v := m.View()
	if !strings.Contains(v, "1 of 3") || !strings.Contains(v, "(3,2)") || strings.Contains(v, "(-3,2)") || strings.Contains(v, "(13,2)") {
		t.Fatalf("/3,2 does not find (3,2) alone:\n%s", v)
	}
}

// TestDefaultIsNotRisky: the highlight starts on the presentation model's
// default, not on the risky first move.
func TestDefaultIsNotRisky(t *testing.T) {
	snap := labelSnap(1, "End turn without buying", "Buy Silver")
	snap.Table = &present.Table{Default: "1", Actions: []present.Action{{ID: "0", Label: "End turn without buying", Risky: true}, {ID: "1", Label: "Buy Silver"}}}
	var sent []engine.Action
	m := New(snap, false, func(a engine.Action) { sent = append(sent, a) }, nil)
	key(m, "enter")
	if len(sent) != 1 || sent[0].Op != 1 {
		t.Fatalf("Enter on the default sent %v, want Buy Silver", sent)
	}
}

// TestHelpAndHistoryPanes: ? opens the help with the rules summary, L the
// whole history, scrolled to its end and back up; Esc closes.
func TestHelpAndHistoryPanes(t *testing.T) {
	snap := labelSnap(1, "Roll")
	snap.Rules = "Race your serpent to the centre."
	for i := range 60 {
		snap.History = append(snap.History, present.Entry{Turn: i + 1, Kind: "action", Seat: i%2 + 1, Who: fmt.Sprintf("P%d (seat %d)", i%2+1, i%2+1), Text: fmt.Sprintf("move %d", i)})
	}
	m := New(snap, false, nil, nil)
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	if v := m.View(); !strings.Contains(v, "move 59") || strings.Contains(v, "move 40") {
		t.Fatalf("the compact history is not the newest lines:\n%s", v)
	}
	key(m, "?")
	if v := m.View(); !strings.Contains(v, "Help: Keys") || !strings.Contains(v, "Race your serpent") {
		t.Fatalf("? does not show the help:\n%s", v)
	}
	key(m, "esc")
	key(m, "L")
	v := m.View()
	if !strings.Contains(v, "move 59") || !strings.Contains(v, "of 60") {
		t.Fatalf("L does not open the history at its end:\n%s", v)
	}
	for range 5 {
		key(m, "pgup")
	}
	if v := m.View(); !strings.Contains(v, "move 0") {
		t.Fatalf("PgUp does not reach the start of the history:\n%s", v)
	}
	key(m, "esc")
	if v := m.View(); strings.Contains(v, "lines 1–") {
		t.Fatalf("Esc did not close the history:\n%s", v)
	}
}

// TestDropVote: a seat that kept the table waiting past the delay shows a
// timer; d asks, y votes for that seat.
func TestDropVote(t *testing.T) {
	snap := labelSnap(1, "Roll")
	snap.Legal = nil
	snap.Table = &present.Table{DropAfter: 60000, Stalls: []present.Stall{{Seat: 2, Name: "Bo", What: "an action", For: 75000, CanDrop: true}}}
	var voted []int
	m := New(snap, false, nil, nil)
	m.OnDrop(func(seats []int) { voted = seats })
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	if v := m.View(); !strings.Contains(v, "waiting for Bo (an action) 1:15") || !strings.Contains(v, "d votes to drop") {
		t.Fatalf("no wait timer with the drop key:\n%s", v)
	}
	key(m, "d")
	if v := m.View(); !strings.Contains(v, "Vote to drop seat 2?") || voted != nil {
		t.Fatalf("d did not ask first:\n%s", v)
	}
	key(m, "y")
	if len(voted) != 1 || voted[0] != 1 {
		t.Fatalf("voted %v, want seat 2 (index 1)", voted)
	}
}

// TestLobbyScreen: the host's lobby shows the join code, the address, the
// command for the others and who joined.
func TestLobbyScreen(t *testing.T) {
	tb := &present.Table{Phase: "lobby", Lobby: &present.Lobby{Host: true, Code: "apple-river-stone", Addresses: []string{"/ip4/192.168.1.5/tcp/4001/p2p/12D3KooX"},
		Join: "boardmesh join apple-river-stone", Joined: []string{"ana", "bo"}}}
	m := New(Snapshot{Title: "Dominion", Seat: -1, Status: "In the lobby: 2 joined", CanStart: true, Table: tb}, false, nil, nil)
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	v := m.View()
	for _, want := range []string{"Join code: apple-river-stone", "Address:   /ip4/192.168.1.5/tcp/4001", "boardmesh join apple-river-stone", "Joined (2): ana, bo", "s to start", "home of their own"} {
		if !strings.Contains(v, want) {
			t.Errorf("the lobby lacks %q:\n%s", want, v)
		}
	}
}

// TestComboSendsItsStepsInTurn: a walk of three spaces is one pick; its
// steps go out one at a time as each new decision arrives, and it stops
// when the next step is not legal.
func TestComboSendsItsStepsInTurn(t *testing.T) {
	step := func(from int32) engine.Action { return engine.Action{Op: 1, Args: []int32{from}} }
	snap := func(n uint64, legal ...engine.Action) Snapshot {
		s := labelSnap(n, "Move from 1", "Walk from 1 to 4")
		s.Legal = legal
		acts := []present.Action{{ID: "1.1", Label: "Move from 1", Action: legal[0]}}
		if len(legal) > 1 {
			acts = append(acts, present.Action{ID: "1.1+1.2+1.3", Label: "Walk from 1 to 4", Action: legal[1], Then: []engine.Action{step(2), step(3)}})
		}
		s.Table = &present.Table{Actions: acts}
		return s
	}
	var sent []engine.Action
	m := New(snap(1, step(1), step(1)), false, func(a engine.Action) { sent = append(sent, a) }, nil)
	key(m, "2")
	m.Update(SnapshotMsg(snap(2, step(2))))
	m.Update(SnapshotMsg(snap(2, step(2)))) // the same step again: nothing more
	m.Update(SnapshotMsg(snap(3, step(5))))
	if len(sent) != 2 || sent[0].Args[0] != 1 || sent[1].Args[0] != 2 {
		t.Fatalf("sent %v, want the walk's first two steps", sent)
	}
	if !strings.Contains(m.View(), "the move stopped here") {
		t.Fatalf("a walk cut short is not explained:\n%s", m.View())
	}
}

// TestScoreTableFitsASmallScreen: the game-over table of six seats is
// shown whole on a screen of 80x18.
func TestScoreTableFitsASmallScreen(t *testing.T) {
	res := "the dragon woke up"
	for i := 1; i <= 6; i++ {
		res += fmt.Sprintf("\n  %d player-%d   %d  (gold +%d)", i, i, 10*i, 10*i)
	}
	m := New(Snapshot{Title: "Lair", Seat: 0, State: &cityState{}, Over: true, Result: res, Sync: "state hashes agree"}, false, nil, nil)
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 18})
	v := m.View()
	for i := 1; i <= 6; i++ {
		if !strings.Contains(v, fmt.Sprintf("player-%d", i)) {
			t.Fatalf("seat %d's score is cut off:\n%s", i, v)
		}
	}
}

// TestClaimWin: a paused table of two says why; C asks, y claims, and a
// pause that does not allow a claim yet says when it will.
func TestClaimWin(t *testing.T) {
	snap := labelSnap(1, "Roll")
	snap.Legal = nil
	snap.Table = &present.Table{DropAfter: 60000, Pause: "paused: Bo is away and the game cannot go on without them", CanClaim: true}
	claimed := 0
	m := New(snap, false, nil, nil)
	m.OnClaim(func() { claimed++ })
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 24})
	if v := m.View(); !strings.Contains(v, "paused: Bo is away") || !strings.Contains(v, "C claims the win") {
		t.Fatalf("no pause line with the claim key:\n%s", v)
	}
	key(m, "C")
	if v := m.View(); !strings.Contains(v, "Claim the win?") || claimed != 0 {
		t.Fatalf("C did not ask first:\n%s", v)
	}
	key(m, "y")
	if claimed != 1 {
		t.Fatalf("claimed %d times", claimed)
	}
	snap.Table = &present.Table{DropAfter: 60000, Pause: "paused: Bo is away"}
	m = New(snap, false, nil, nil)
	m.OnClaim(func() { claimed++ })
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 24})
	key(m, "C")
	if v := m.View(); claimed != 1 || strings.Contains(v, "Claim the win?") || !strings.Contains(v, "may be claimed once") {
		t.Fatalf("a claim was offered before the drop delay:\n%s", v)
	}
}

// TestHeldWaitSaysWhy: a wait the card layer holds says why on a line of
// its own, whole on an 80-column screen.
func TestHeldWaitSaysWhy(t *testing.T) {
	snap := labelSnap(1, "Roll")
	snap.Legal = nil
	why := "held: waiting for Bo (seat 3) to answer the card catch-up after restart"
	snap.Table = &present.Table{DropAfter: 60000, Stalls: []present.Stall{
		{Seat: 3, Name: "Bo", What: "its decryption shares for batch 3", For: 6000, Why: why, Droppable: true},
		{Seat: 2, Name: "Cy", What: "its decryption shares for batch 3", For: 6000, Droppable: true}}}
	m := New(snap, false, nil, nil)
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	v := m.View()
	if !strings.Contains(v, "waiting for Bo (its decryption shares for batch 3) 0:06") || !strings.Contains(v, why) {
		t.Fatalf("the held wait does not say why:\n%s", v)
	}
	if strings.Count(v, "held:") != 1 {
		t.Fatalf("a plain wait says it is held:\n%s", v)
	}
}
