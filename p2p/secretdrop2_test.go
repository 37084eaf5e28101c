package p2p_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/boardmesh/boardmesh/engine/dominion"
	"github.com/boardmesh/boardmesh/engine/games"
	"github.com/boardmesh/boardmesh/lockstep"
	"github.com/boardmesh/boardmesh/p2p"
)

// TestSecretTwoDropAtOnce: at a secret Dominion table of five real libp2p
// peers on loopback, two players vanish at the same moment mid-game
// (neither publishes its piece of the other's card key). What a player
// sees: the three left are told whom they wait for, vote both out (in
// one vote or one after the other), both card keys are rebuilt (the
// pair escrows, lockstep/deal), the cards the two held are shown, and the
// game goes on to the end; the three end with the same log and the same
// result, and the log verifies on its own.
func TestSecretTwoDropAtOnce(t *testing.T) {
	g := dominion.Game
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	names := []string{"ada", "bob", "cy", "dee", "eve"}
	const victim, second = 2, 4
	d := newDropTable(t, ctx, g, names, victim, 2, 4*time.Second)
	// eve vanishes with cy, at the same moment: her host closes and her
	// runner stops as soon as cy's have.
	go func() {
		select {
		case <-d.gone:
		case <-ctx.Done():
			return
		}
		_ = d.tbl.Peers[second].Host.Close()
		d.cancel[second]()
	}()
	live := []int{0, 1, 3}
	for {
		over := true
		for _, i := range live {
			if d.tbl.Peers[i].Result() == nil {
				over = false
			}
		}
		if over {
			break
		}
		select {
		case <-ctx.Done():
			for _, p := range d.tbl.Peers {
				st := p.Status()
				t.Logf("%s: phase %v, seq %d, %d entries, waiting for %v, dropped %v", p.Name, st.Phase, st.Seq, st.Entries, st.Waiting, st.Dropped)
			}
			t.Fatal("the game did not finish in time")
		case <-time.After(100 * time.Millisecond):
		}
	}
	select {
	case <-d.gone:
	default:
		t.Fatal("the game ended before cy and eve vanished; the scenario did not happen")
	}
	ada := d.tbl.Peers[0]
	for _, i := range live[1:] {
		p := d.tbl.Peers[i]
		if p.LogHash() != ada.LogHash() {
			t.Fatalf("ada's log %s, %s's %s", ada.LogHash(), p.Name, p.LogHash())
		}
		if fmt.Sprint(*p.Result()) != fmt.Sprint(*ada.Result()) {
			t.Fatalf("ada's result %v, %s's %v", ada.Result(), p.Name, p.Result())
		}
	}
	st := ada.Status()
	for _, v := range []int{victim, second} {
		seat := -1
		for s, mi := range st.Seats {
			if st.Members[mi].ID == d.tbl.Peers[v].Identity.ID() {
				seat = s
			}
		}
		if seat < 0 || !st.Dropped[seat] {
			t.Fatalf("%s (seat %d) is not dropped at the end: %v", names[v], seat+1, st.Dropped)
		}
	}
	for _, i := range live {
		rebuilt := 0
		for _, e := range d.eventsOf(i) {
			if e.Kind == lockstep.EventDropped && strings.Contains(e.Text, "rebuilt from the others' escrow pieces") {
				rebuilt += len(e.Seats)
			}
		}
		if rebuilt != 2 {
			t.Fatalf("%s was told of %d rebuilt keys, want 2 (cy's and eve's)", d.tbl.Peers[i].Name, rebuilt)
		}
	}
	log := p2p.EnvelopesOf(t, ada.Entries())
	rep, err := lockstep.Verify(log, games.Lookup)
	if err != nil || rep.Result == nil {
		t.Fatalf("the log does not verify on its own: %v", err)
	}
}
