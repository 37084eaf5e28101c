package web

import (
	"context"
	"encoding/json"
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

// TestPageClaimsTheWin: at a table of two paused by the other player's
// absence, the page's frame offers the claim and a claim message claims
// once; a page whose peer cannot claim (a watcher), a pause before the
// drop time and a claim the table refuses each say why and claim nothing.
func TestPageClaimsTheWin(t *testing.T) {
	claims, answers := make(chan struct{}, 4), make(chan error, 4)
	p, err := NewPage(Controls{Act: func(engine.Action) error { return nil }, Claim: func() error { claims <- struct{}{}; return <-answers }})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	tab, _ := tableOf(t, "infinitecity")
	tab.Actions = nil
	tab.Pause = "paused: Bo is away and the game cannot go on without them (the hidden cards need both players' keys); it goes on if Bo comes back (a claim of the win is possible after 60 s)"
	p.Show(tab)
	if err := p.choose(Message{Action: claimID}); err == nil || !strings.Contains(err.Error(), "cannot be claimed now") {
		t.Fatalf("a claim before the drop time: %v", err)
	}
	tab.CanClaim = true
	p.Show(tab)
	if f := frameOf(tab, false); !f.CanClaim || f.Pause == "" {
		t.Fatalf("the frame of a paused table: may claim %v, pause %q", f.CanClaim, f.Pause)
	}
	answers <- nil
	if err := p.choose(Message{Action: claimID}); err != nil {
		t.Fatal(err)
	}
	select {
	case <-claims:
	case <-time.After(5 * time.Second):
		t.Fatal("the claim was not made")
	}
	if err := p.choose(Message{Action: claimID}); err == nil {
		t.Fatal("a second claim message claimed again")
	}
	// The table refuses (the other came back meanwhile): the page says so.
	answers <- errors.New("lockstep: wrong phase: Bo has not kept the table waiting for 60 s")
	p.Show(tab)
	c, cancel := dialPage(t, p)
	defer cancel()
	if err := p.choose(Message{Action: claimID}); err != nil {
		t.Fatal(err)
	}
	<-claims
	if text := readError(t, c); !strings.Contains(text, "your claim of the win was refused") || !strings.Contains(text, "has not kept the table waiting") {
		t.Fatalf("the page was told %q", text)
	}

	w, err := NewPage(Controls{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	w.Show(tab)
	if err := w.choose(Message{Action: claimID}); err == nil {
		t.Fatal("a watcher's page claimed the win")
	}
}

// dialPage opens a socket to p as its page does.
func dialPage(t *testing.T, p *Page) (*websocket.Conn, context.CancelFunc) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	c, _, err := dial(ctx, p.Server, p.Origin())
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	return c, func() { c.CloseNow(); cancel() }
}

// readError reads the socket's messages until an error, and returns its
// text.
func readError(t *testing.T, c *websocket.Conn) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for {
		_, b, err := c.Read(ctx)
		if err != nil {
			t.Fatalf("no error came: %v", err)
		}
		var m struct{ Type, Text string }
		if json.Unmarshal(b, &m) == nil && m.Type == "error" {
			return m.Text
		}
	}
}
