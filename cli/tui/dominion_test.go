package tui

import (
	"strings"
	"testing"

	"github.com/boardmesh/boardmesh/engine"
	"github.com/boardmesh/boardmesh/engine/dominion"
	tea "github.com/charmbracelet/bubbletea"
)

// TestDominionScriptedSession plays three turns of Dominion at the
// terminal UI against a Big Money bot: each of our turns the script reads
// the screen, presses the number (or the arrows) of "Play all Treasures",
// then of the best buy the screen offers, as a player would.
func TestDominionScriptedSession(t *testing.T) {
	st, err := dominion.Game.Setup(2, nil)
	if err != nil {
		t.Fatal(err)
	}
	chance := engine.SeededChance{Seed: []byte("tui-dominion")}
	var chanceN, applied uint64
	bot := dominion.Game.Bots[0].New()
	botRand := engine.NewRand([]byte("bot"))
	// advance plays chance steps and the bot until our seat must choose.
	advance := func() {
		for {
			who := st.ToAct()
			switch who.Kind {
			case engine.ActorChance:
				if err := st.ApplyChance(chance.Beacon(chanceN)); err != nil {
					t.Fatal(err)
				}
				chanceN++
				applied++
			case engine.ActorSeat:
				if who.Seat == 0 {
					return
				}
				legal := st.Legal(nil)
				if err := st.Apply(who.Seat, bot.Choose(st, legal, botRand)); err != nil {
					t.Fatal(err)
				}
				applied++
			default:
				t.Fatal("the game ended within three turns")
			}
		}
	}
	var m *Model
	snapshot := func() Snapshot {
		return Snapshot{Title: dominion.Game.Title, Seat: 0, State: st.Clone(), Legal: st.Legal(nil), Step: applied, Status: "your turn"}
	}
	sent := 0
	choose := func(a engine.Action) {
		sent++
		if err := st.Apply(0, a); err != nil {
			t.Fatalf("the UI sent %v: %v", a, err)
		}
		applied++
	}
	// press picks the line of the action menu that starts with label, the
	// way a player would: its number key, or arrows and enter past 9.
	press := func(label string) bool {
		i := -1
		snap := snapshot()
		for k, a := range snap.Legal {
			if strings.HasPrefix(snap.State.Describe(a), label) {
				i = k
				break
			}
		}
		if i < 0 {
			return false
		}
		before := sent
		// The key the screen shows before the move.
		k := ""
		for _, it := range m.items() {
			if it.idx == i {
				k = it.key
			}
		}
		if k != "" {
			if !strings.Contains(m.View(), k+") "+snap.State.Describe(snap.Legal[i])) {
				t.Fatalf("the screen does not show %q with its key %s:\n%s", label, k, m.View())
			}
			key(m, k)
		} else {
			key(m, "g")
			for k := 0; k < i; k++ {
				key(m, "down")
			}
			key(m, "enter")
		}
		if sent != before+1 {
			t.Fatalf("pressing for %q sent %d actions", label, sent-before)
		}
		// The next decision is the same seat's again: the snapshot of the
		// new step must re-arm the menu, as the runner's snapshots do.
		m.Update(SnapshotMsg(snapshot()))
		return true
	}
	advance()
	m = New(snapshot(), false, choose, nil)
	m.Update(tea.WindowSizeMsg{Width: 100, Height: 50})
	for turn := 0; turn < 3; turn++ {
		m.Update(SnapshotMsg(snapshot()))
		screen := m.View()
		for _, want := range []string{"Supply", "Province $8", "Your hand:", "Seat 2", "Your move", "Play Copper"} {
			if !strings.Contains(screen, want) {
				t.Fatalf("turn %d: screen lacks %q:\n%s", turn+1, want, screen)
			}
		}
		if !press("Play all Treasures") && !press("Play Copper") {
			t.Fatalf("turn %d: no Treasure to play on the screen:\n%s", turn+1, screen)
		}
		m.Update(SnapshotMsg(snapshot()))
		screen = m.View()
		if !strings.Contains(screen, "Buy phase") {
			t.Fatalf("turn %d: after playing Treasures the screen is not in the Buy phase:\n%s", turn+1, screen)
		}
		for _, label := range []string{"Buy Province", "Buy Gold", "Buy Silver", "End turn"} {
			if press(label) {
				break
			}
		}
		advance()
	}
	if got := st.Turn(); got < 6 {
		t.Fatalf("after three of our turns the game is at turn %d", got)
	}
	v := st.View(0).(*dominion.View)
	if owned := v.Players[0].Hand + v.Players[0].Deck + v.Players[0].Discard; owned <= 10 {
		t.Fatalf("we own %d cards after three turns of buying", owned)
	}
}
