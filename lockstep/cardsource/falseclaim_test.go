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
	said := nt.claimRefused(0, before, "P2 claimed the win, naming a wrong decryption share by this peer")
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

// TestNodeRefusesAnEarlyClaim: at a secret table of two, P2's modified
// client claims the win (a plain claim: "P1 kept the table waiting") the
// moment P1 has the move. P1 has kept nobody waiting for the claim
// period, so it refuses the claim and its game goes on; P2's node, which
// knows nothing of it, plays on. Later P1 sits on its move past the claim
// period and P2 claims again: that claim P1 takes, and its game is over
// with P2 the winner.
func TestNodeRefusesAnEarlyClaim(t *testing.T) {
	nt := newNodeGameTable(t, infinitecity.Game, 2, "early", false, func(i int, c *lockstep.Config) { c.DropAfter, c.StallAfter = 2000, 500 })
	a := nt.nodes[0]
	r := engine.NewRand([]byte("bots"))
	// untilP1Moves plays both seats until P1 has the move at a step after
	// from, with nothing in flight.
	untilP1Moves := func(from uint64) {
		t.Helper()
		for steps := 0; steps < 5000; steps++ {
			for nt.run() {
			}
			if a.CanAct() && a.Status().Seq > from {
				return
			}
			for _, node := range nt.nodes {
				if node.CanAct() {
					st := node.State()
					if err := node.Act(engine.RandomBot{}.Choose(st, st.Legal(nil), r)); err != nil {
						t.Fatal(err)
					}
				}
			}
			nt.now += 10
			for _, node := range nt.nodes {
				node.Tick(nt.now)
			}
		}
		t.Fatal("P1 never had the move")
	}
	claim := func() *crypto.Envelope {
		st := a.Status()
		e := engine.NewEncoder(nil)
		e.Uint("seat", uint64(1-st.MySeat))
		c := &crypto.Envelope{Session: st.Session, Seq: uint64(st.Entries), Kind: crypto.KindClaim, StateHash: crypto.Hash(engine.Hash(a.State())), Body: e.Bytes()}
		crypto.Sign(nt.ids[1], c)
		return c
	}
	untilP1Moves(3)
	before := len(nt.events[0])
	_ = a.Step(claim())
	nt.run()
	refused := nt.claimRefused(0, before, "P2 claimed the win after this peer had kept the table waiting")
	if refused == "" || !strings.Contains(refused, "a claim needs 2 s here") || a.Status().Phase != lockstep.PhasePlaying {
		t.Fatalf("P2's early claim: P1 said %q, phase %v; events %v", refused, a.Status().Phase, nt.events[0][before:])
	}
	// The game goes on; at P1's next move, P1 sits on it past the claim
	// period, and P2 claims again.
	at := a.Status().Seq
	untilP1Moves(at)
	for i := 0; i < 25; i++ {
		nt.now += 100
		a.Tick(nt.now)
		nt.run()
	}
	_ = a.Step(claim())
	nt.run()
	res := a.Status().Result
	if a.Status().Phase != lockstep.PhaseOver || res == nil || len(res.Winners) != 1 || res.Winners[0] == a.Status().MySeat ||
		!strings.Contains(res.Reason, "P1 left the table; P2 claimed the win") {
		t.Fatalf("P2's claim after P1 kept it waiting 2.5 s: phase %v, result %+v", a.Status().Phase, res)
	}
}

// claimRefused is the text of the rejection peer i raised since its
// event before that contains want ("" if none); a game over among those
// events fails the test: the claim was taken.
func (nt *nodeTable) claimRefused(i, before int, want string) string {
	nt.t.Helper()
	said := ""
	for _, ev := range nt.events[i][before:] {
		if ev.Kind == lockstep.EventGameOver {
			nt.t.Fatalf("peer %d took the claim: %s", i+1, ev.Text)
		}
		if ev.Kind == lockstep.EventRejected && strings.Contains(ev.Text, want) {
			said = ev.Text
		}
	}
	return said
}

// votedDrop reports whether peer i has voted to drop a seat.
func (nt *nodeTable) votedDrop(i int) bool {
	for _, ev := range nt.events[i] {
		if ev.Kind == lockstep.EventDropVote {
			return true
		}
	}
	return false
}
