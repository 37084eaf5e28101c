package web

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/boardmesh/boardmesh/cli/present"
	"github.com/boardmesh/boardmesh/engine"
	"github.com/boardmesh/boardmesh/engine/games"
	"github.com/coder/websocket"
)

// tableOf is the model of a fresh game after its chance steps, for seat.
func tableOf(t *testing.T, game string) (present.Table, engine.State) {
	t.Helper()
	g, err := games.Lookup(game)
	if err != nil {
		t.Fatal(err)
	}
	s, err := g.Setup(g.DefaultPlayers, nil)
	if err != nil {
		t.Fatal(err)
	}
	ch := engine.SeededChance{Seed: []byte("page")}
	for n := uint64(0); s.ToAct().Kind == engine.ActorChance; n++ {
		s.ApplyChance(ch.Beacon(n))
	}
	seat := s.ToAct().Seat
	return present.Table{Game: g.Name, Title: g.Title, Phase: "playing", You: seat + 1, Step: 7, View: s.View(seat), Actions: present.Actions(s)}, s
}

// TestPageChoosesOnce: an id from the frame on screen plays its action
// once; an id of another step, an unknown id or a second click does
// nothing and says why.
func TestPageChoosesOnce(t *testing.T) {
	acts := make(chan engine.Action, 4)
	p, err := NewPage(Controls{Act: func(a engine.Action) error { acts <- a; return nil }})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	tab, s := tableOf(t, "dominion")
	p.Show(tab)
	want := tab.Actions[len(tab.Actions)-1]
	if err := p.choose(Message{Action: want.ID, Step: 6}); !errors.Is(err, ErrStale) {
		t.Fatalf("an id of step 6 on step 7: %v, want stale", err)
	}
	if err := p.choose(Message{Action: "99.99", Step: 7}); !errors.Is(err, ErrStale) {
		t.Fatalf("an unknown id: %v, want stale", err)
	}
	if err := p.choose(Message{Action: want.ID, Step: 7}); err != nil {
		t.Fatal(err)
	}
	select {
	case a := <-acts:
		if !a.Equal(want.Action) {
			t.Fatalf("played %s, want %s", s.Describe(a), want.Label)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the action was not played")
	}
	if err := p.choose(Message{Action: want.ID, Step: 7}); err == nil || !strings.Contains(err.Error(), "on its way") {
		t.Fatalf("a second click: %v", err)
	}
	if err := p.choose(Message{Action: startID}); err == nil {
		t.Fatal("a page that may not start the game started it")
	}
	if err := p.choose(Message{Action: dropID}); err == nil {
		t.Fatal("a drop vote with nobody stalled was taken")
	}
}

// TestWatcherCannotAct: a spectator's page refuses every action.
func TestWatcherCannotAct(t *testing.T) {
	p, err := NewPage(Controls{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	tab, _ := tableOf(t, "dragonslair")
	p.Show(tab)
	if err := p.choose(Message{Action: tab.Actions[0].ID, Step: tab.Step}); err == nil {
		t.Fatal("a watcher's page acted")
	}
}

// TestHints: the moves a player makes on the board get a place there:
// Infinite City's squares with the tile to lay, Serpent City's road
// spaces, the Dragon's Lair's deck, Dominion's hand.
func TestHints(t *testing.T) {
	for _, c := range []struct {
		game, kind string
	}{{"infinitecity", "spot"}, {"serpentcity", "road"}, {"dragonslair", "deck"}, {"dominion", "hand"}} {
		tab, _ := tableOf(t, c.game)
		f := frameOf(tab, false)
		found := false
		for _, a := range tab.Actions {
			h := f.Hints[a.ID]
			if h == nil || h.Kind != c.kind {
				continue
			}
			found = true
			if c.kind == "spot" && (h.Card == "" || !strings.Contains(a.Label, h.Card) || !strings.Contains(a.Label, "(")) {
				t.Errorf("%s: %q hints %+v", c.game, a.Label, h)
			}
		}
		if !found {
			t.Errorf("%s: no action is hinted as %s; actions %v", c.game, c.kind, tab.Actions)
		}
	}
}

// TestPageCombo: a combo (Serpent City's walk of several spaces) is one
// click; its steps are played one at a time, each once the one before is
// committed (a new step on the page).
func TestPageCombo(t *testing.T) {
	acts := make(chan engine.Action, 4)
	p, err := NewPage(Controls{Act: func(a engine.Action) error { acts <- a; return nil }})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	tab, s := tableOf(t, "serpentcity")
	var combo *present.Action
	for i, a := range tab.Actions {
		if len(a.Then) > 0 {
			combo = &tab.Actions[i]
			break
		}
	}
	if combo == nil {
		t.Fatal("serpentcity offers no walk of several spaces on its first turn")
	}
	p.Show(tab)
	if err := p.choose(Message{Action: combo.ID, Step: tab.Step}); err != nil {
		t.Fatal(err)
	}
	want := append([]engine.Action{combo.Action}, combo.Then...)
	seat := tab.You - 1
	for i, w := range want {
		var got engine.Action
		select {
		case got = <-acts:
		case <-time.After(5 * time.Second):
			t.Fatalf("step %d of %q was not played", i+1, combo.Label)
		}
		if !got.Equal(w) {
			t.Fatalf("step %d: played %s, want %s", i+1, s.Describe(got), s.Describe(w))
		}
		if err := s.Apply(seat, got); err != nil {
			t.Fatal(err)
		}
		tab.Step++
		tab.Actions = present.Actions(s)
		p.Show(tab)
	}
	select {
	case a := <-acts:
		t.Fatalf("played %s after the combo ended", s.Describe(a))
	case <-time.After(100 * time.Millisecond):
	}
}

// TestPageRefusedMove: a move the table refuses is reported on the page,
// and the player may choose again.
func TestPageRefusedMove(t *testing.T) {
	tries := make(chan engine.Action, 4)
	p, err := NewPage(Controls{Act: func(a engine.Action) error { tries <- a; return errors.New("not your turn") }})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	tab, _ := tableOf(t, "dragonslair")
	p.Show(tab)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, _, err := dial(ctx, p.Server, p.Origin())
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseNow()
	c.Read(ctx) // the frame
	msg := fmt.Sprintf(`{"action":%q,"step":%d}`, tab.Actions[0].ID, tab.Step)
	for try := 1; try <= 2; try++ {
		c.Write(ctx, websocket.MessageText, []byte(msg))
		<-tries
		_, b, err := c.Read(ctx)
		if err != nil || !strings.Contains(string(b), "your move was refused: not your turn") {
			t.Fatalf("try %d: the page was told %s (%v)", try, b, err)
		}
	}
}
