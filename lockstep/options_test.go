package lockstep

import (
	"errors"
	"strings"
	"testing"

	"github.com/boardmesh/boardmesh/engine"
	"github.com/boardmesh/boardmesh/engine/dominion"
	"github.com/boardmesh/boardmesh/engine/games"
)

// TestRosterWithUnplayableOptionsIsRefused: options that pass the
// option specs but that the game's setup rejects (a Dominion kingdom of
// one card) make every joiner refuse the roster at once, with the game's
// reason, instead of stalling at the seat draw.
func TestRosterWithUnplayableOptionsIsRefused(t *testing.T) {
	n := newSimNet(t, "bad-options", 3, faults{}, games.Lookup, Config{})
	n.lobby(dominion.Game, engine.Options{{Name: "kingdom", Value: "Cellar"}})
	refused := func(i int) *Event {
		for _, ev := range n.peers[i].events {
			if ev.Kind == EventRefused {
				return &ev
			}
		}
		return nil
	}
	n.run(2000, func() bool { return refused(1) != nil && refused(2) != nil })
	for _, i := range []int{1, 2} {
		ev := refused(i)
		if ev == nil {
			t.Fatalf("%s did not refuse the roster: %v", n.peers[i].name, n.peers[i].events)
		}
		if !errors.Is(ev.Err, ErrRefused) || !strings.Contains(ev.Text, "ingdom") {
			t.Fatalf("%s refused with %q, want the game's reason", n.peers[i].name, ev.Text)
		}
		if ph := n.peers[i].node.Status().Phase; ph >= PhasePlaying {
			t.Fatalf("%s went on to phase %v", n.peers[i].name, ph)
		}
	}
}

// TestOptionValueWireLimit: a join or roster carries an option value as
// long as the CLI accepts (engine.MaxOptionValue, far over the old 256
// bytes: a Serpent City rules table), and one byte more is a bad body.
func TestOptionValueWireLimit(t *testing.T) {
	for _, n := range []int{engine.MaxOptionValue, 5000, 300} {
		j := &joinBody{Name: "host", ChainLen: 1, Game: "serpentcity", Version: "1",
			Options: engine.Options{{Name: "rules", Value: strings.Repeat("x", n)}}}
		if _, err := decodeJoin(j.encode()); err != nil {
			t.Fatalf("value of %d bytes: %v", n, err)
		}
		r := &rosterBody{Game: "serpentcity", Version: "1", Options: j.Options}
		if _, err := decodeRoster(r.encode()); err != nil {
			t.Fatalf("roster with a value of %d bytes: %v", n, err)
		}
	}
	j := &joinBody{Name: "host", ChainLen: 1, Options: engine.Options{{Name: "rules", Value: strings.Repeat("x", engine.MaxOptionValue+1)}}}
	if _, err := decodeJoin(j.encode()); !errors.Is(err, ErrBadBody) {
		t.Fatalf("over the limit: %v", err)
	}
}
