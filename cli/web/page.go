package web

import (
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/boardmesh/boardmesh/cli/tui"
	"github.com/boardmesh/boardmesh/engine"
)

// Page is one seat's page: a Server plus the decision open now, so that
// an id from the page maps to exactly one legal action of that decision.
type Page struct {
	*Server
	game  string
	act   func(engine.Action)
	start func()

	mu       sync.Mutex
	step     uint64
	legal    []engine.Action
	canStart bool
	chosen   bool
}

// NewPage serves game's page. act plays a chosen action (nil: a
// spectator's page, which only watches); start, if set, starts the game
// from the lobby (the host).
func NewPage(game string, act func(engine.Action), start func()) (*Page, error) {
	p := &Page{game: game, act: act, start: start}
	srv, err := Start(Options{OnAction: p.choose})
	if err != nil {
		return nil, err
	}
	p.Server = srv
	return p, nil
}

// Show publishes the table as s shows it. Ids are "STEP.INDEX", so a
// click on a page that was behind names a decision that has passed and
// is refused instead of doing something else.
func (p *Page) Show(s tui.Snapshot) {
	ids := make([]string, len(s.Legal))
	for i := range s.Legal {
		ids[i] = fmt.Sprintf("%d.%d", s.Step, i)
	}
	p.mu.Lock()
	if s.Step != p.step || len(s.Legal) == 0 {
		p.chosen = false
	}
	p.step, p.legal, p.canStart = s.Step, s.Legal, s.CanStart && p.start != nil
	p.mu.Unlock()
	p.Publish(FrameOf(p.game, s, ids))
}

// choose maps an id from the page to its action and plays it, once per
// decision.
func (p *Page) choose(id string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if id == startID {
		if !p.canStart {
			return fmt.Errorf("the game cannot be started from this page now")
		}
		p.canStart = false
		go p.start()
		return nil
	}
	if p.act == nil {
		return fmt.Errorf("this page only watches: it cannot act")
	}
	st, idx, ok := strings.Cut(id, ".")
	step, err1 := strconv.ParseUint(st, 10, 64)
	i, err2 := strconv.Atoi(idx)
	if !ok || err1 != nil || err2 != nil {
		return fmt.Errorf("the page sent an unknown action %q", id)
	}
	if step != p.step || i < 0 || i >= len(p.legal) {
		return ErrStale
	}
	if p.chosen {
		return fmt.Errorf("your choice for this move is on its way")
	}
	p.chosen = true
	a := p.legal[i]
	go p.act(a)
	return nil
}
