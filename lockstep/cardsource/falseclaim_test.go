package cardsource_test

import (
	"strings"
	"testing"

	"github.com/boardmesh/boardmesh/crypto"
	"github.com/boardmesh/boardmesh/engine"
	"github.com/boardmesh/boardmesh/engine/infinitecity"
	"github.com/boardmesh/boardmesh/lockstep"
)

// TestNodeRefusesACheatPinnedOnIt: at a secret table of two, P2 runs a
// modified client that, in the middle of an honest game, claims the win
// naming a wrong decryption share by P1, with a share envelope P1 really
// signed as the "proof" (any of them fits the kind the name allows, and
// nobody but P1's own card layer could tell that it checks). Taking the
// claim would end P1's game, on its screen and in its log, with P1
// convicted of a cheat it never made. P1 refuses it and says why, keeps
// its log free of it, and the game is not over for it: with P2 gone, P1
// is paused in turn and may claim the win itself.
func TestNodeRefusesACheatPinnedOnIt(t *testing.T) {
	nt := newNodeGameTable(t, infinitecity.Game, 2, "pinned", false, func(i int, c *lockstep.Config) { c.DropAfter, c.StallAfter = 2000, 500 })
	a := nt.nodes[0]
	r := engine.NewRand([]byte("bots"))
	var share *crypto.Envelope
	for steps := 0; steps < 5000 && share == nil; steps++ {
		nt.run()
		for _, node := range nt.nodes {
			if node.CanAct() {
				st := node.State()
				if err := node.Act(engine.RandomBot{}.Choose(st, st.Legal(nil), r)); err != nil {
					t.Fatal(err)
				}
			}
		}
		for _, b := range nt.got[1] {
			if env, err := crypto.Unmarshal(b); err == nil && env.Kind == crypto.KindShare && env.Author == nt.ids[0].ID() {
				share = env
			}
		}
	}
	if share == nil {
		t.Fatal("P1 sent no share envelope")
	}
	nt.run()
	st := a.Status()
	if st.Phase != lockstep.PhasePlaying {
		t.Fatalf("P1's phase %v before the claim", st.Phase)
	}
	e := engine.NewEncoder(nil)
	e.Uint("seat", uint64(1-st.MySeat))
	e.Text("cheat", "wrong share")
	e.Blob("proof", share.Marshal())
	claim := &crypto.Envelope{Session: st.Session, Seq: uint64(st.Entries), Kind: crypto.KindClaim, StateHash: share.StateHash, Body: e.Bytes()}
	crypto.Sign(nt.ids[1], claim)
	before, entries := len(nt.events[0]), len(nt.entries[0])
	_ = a.Step(claim)
	nt.left = []bool{false, true} // P2's client has ended its game
	nt.run()
	said := ""
	for _, ev := range nt.events[0][before:] {
		if ev.Kind == lockstep.EventGameOver {
			t.Fatalf("P1's game ended: %s", ev.Text)
		}
		if ev.Kind == lockstep.EventRejected && strings.Contains(ev.Text, "P2 claimed the win, naming a wrong decryption share by this peer") {
			said = ev.Text
		}
	}
	if said == "" || a.Status().Phase != lockstep.PhasePlaying {
		t.Fatalf("P2's claim pinning a share on P1: said %q, P1's phase %v; events %v", said, a.Status().Phase, nt.events[0][before:])
	}
	if !strings.Contains(said, "refused") {
		t.Fatalf("P1 says %q", said)
	}
	for _, env := range nt.entries[0][entries:] {
		if env.Kind == crypto.KindClaim {
			t.Fatal("P2's claim is in P1's log")
		}
	}
	// P2 is gone: P1 plays on until it waits for P2, is paused, and may
	// claim the win.
	for i := 0; i < 200 && !a.Status().CanClaim; i++ {
		nt.run()
		if a.CanAct() {
			st := a.State()
			if err := a.Act(engine.RandomBot{}.Choose(st, st.Legal(nil), r)); err != nil {
				t.Fatal(err)
			}
			continue
		}
		nt.now += 100
		a.Tick(nt.now)
	}
	if !a.Status().CanClaim {
		t.Fatalf("P1 may not claim after P2 left: pause %q", a.Status().Pause)
	}
	if err := a.Claim(); err != nil {
		t.Fatal(err)
	}
	nt.run()
	log := nt.entries[0]
	if last := log[len(log)-1]; last.Kind != crypto.KindClaim || last.Author != nt.ids[0].ID() {
		t.Fatalf("P1's log ends with %s by %s", last.Kind, last.Author)
	}
}
