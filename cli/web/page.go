package web

import (
	"fmt"
	"sync"

	"github.com/boardmesh/boardmesh/cli/present"
	"github.com/boardmesh/boardmesh/engine"
)

// Controls are what a page may make its peer do. A nil field is a thing
// the page cannot do (a spectator's page only watches).
type Controls struct {
	// Act plays an action of the local seat; an error (the table refused
	// it) is shown on the page, which may then choose again.
	Act func(engine.Action) error
	// Start starts the game from the lobby (the host).
	Start func()
	// Drop votes to drop seats (0-based) that keep the table waiting.
	Drop func(seats []int)
	// Claim claims the win at a table of two paused by the other player's
	// absence (present.Table.CanClaim); an error (the table would not take
	// the claim) is shown on the page.
	Claim func() error
}

// Page is one seat's page: a Server plus the decision open now, so that a
// message from the page maps to exactly one legal action of that
// decision.
type Page struct {
	*Server
	ctl Controls

	mu       sync.Mutex
	step     uint64
	actions  []present.Action
	canStart bool
	canDrop  []int
	canClaim bool
	chosen   bool
	// queue is the rest of a combo chosen (a walk of several spaces): each
	// step is played once the one before is committed, while it is legal.
	queue []engine.Action
}

// Special action ids of the page, beside the model's.
const (
	startID = "start"
	dropID  = "drop"
	claimID = "claim"
)

// NewPage serves a page with the given controls.
func NewPage(ctl Controls) (*Page, error) {
	p := &Page{ctl: ctl}
	srv, err := Start(Options{OnMessage: p.choose})
	if err != nil {
		return nil, err
	}
	p.Server = srv
	return p, nil
}

// Show publishes the table t.
func (p *Page) Show(t present.Table) {
	canStart := p.ctl.Start != nil && t.Phase == "lobby" && t.Lobby != nil && t.Lobby.Host
	f := frameOf(t, canStart)
	defer func() {
		if err := p.Publish(f); err != nil {
			p.Tell("this page cannot show the table now: " + err.Error())
		}
	}()
	if p.ctl.Drop == nil {
		f.CanDrop = nil
	}
	if p.ctl.Claim == nil || t.Phase != "playing" {
		// The page offers only what its peer can do: a watcher's page
		// shows the pause but no Claim button.
		f.CanClaim = false
	}
	p.mu.Lock()
	newStep := t.Step != p.step
	if newStep || len(t.Actions) == 0 {
		p.chosen = false
	}
	p.step, p.actions, p.canStart, p.canDrop, p.canClaim = t.Step, t.Actions, canStart, f.CanDrop, f.CanClaim
	if len(p.queue) > 0 && newStep {
		p.continueCombo()
	}
	f.Busy = p.chosen && len(t.Actions) > 0
	p.mu.Unlock()
}

// continueCombo plays the next step of the combo being played if it is
// legal now, and else drops the rest. It runs with mu held.
func (p *Page) continueCombo() {
	next := p.queue[0]
	p.queue = p.queue[1:]
	for _, a := range p.actions {
		if a.Action.Equal(next) {
			p.chosen = true
			go p.act(next)
			return
		}
	}
	p.queue = nil
}

// choose does what the page asked, once per decision. A message names the
// step of the frame it was chosen on, so a click on a page that was
// behind is refused instead of doing something the player did not see.
func (p *Page) choose(m Message) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch m.Action {
	case startID:
		if !p.canStart {
			return fmt.Errorf("the game cannot be started from this page now")
		}
		p.canStart = false
		go p.ctl.Start()
		return nil
	case dropID:
		if len(p.canDrop) == 0 {
			return fmt.Errorf("nobody has kept the table waiting long enough to be dropped")
		}
		seats := make([]int, len(p.canDrop))
		for i, s := range p.canDrop {
			seats[i] = s - 1
		}
		p.canDrop = nil
		go p.ctl.Drop(seats)
		return nil
	case claimID:
		// The page asked twice (Claim, then Yes): a claim ends the game
		// and cannot be taken back.
		if !p.canClaim {
			return fmt.Errorf("the win cannot be claimed now: only at a table of two, once the other player has kept it waiting past the drop delay")
		}
		p.canClaim = false
		go p.claim()
		return nil
	}
	if p.ctl.Act == nil {
		return fmt.Errorf("this page only watches: it cannot act")
	}
	if m.Step != p.step {
		return ErrStale
	}
	steps, ok := present.ChooseAll(p.actions, m.Action)
	if !ok {
		return ErrStale
	}
	if p.chosen || len(p.queue) > 0 {
		return fmt.Errorf("your choice for this move is on its way")
	}
	p.chosen = true
	p.queue = steps[1:]
	go p.act(steps[0])
	return nil
}

// claim claims the win; if the table refuses, the page is told why.
func (p *Page) claim() {
	if err := p.ctl.Claim(); err != nil {
		p.Tell("your claim of the win was refused: " + err.Error())
	}
}

// act plays a; if the table refuses it, the page is told why and may
// choose again.
func (p *Page) act(a engine.Action) {
	if err := p.ctl.Act(a); err != nil {
		p.mu.Lock()
		p.chosen, p.queue = false, nil
		p.mu.Unlock()
		p.Tell("your move was refused: " + err.Error())
	}
}
