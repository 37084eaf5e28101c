package cardsource_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/boardmesh/boardmesh/crypto"
	"github.com/boardmesh/boardmesh/engine"
	"github.com/boardmesh/boardmesh/engine/infinitecity"
	"github.com/boardmesh/boardmesh/lockstep"
)

// TestHeldWaitSaysWhy: at a secret table of three, P3 vanishes instead of
// sending its decryption shares, and P1 restarts from its disk. Its card
// layer is held until every other seat has answered its catch-up, and
// its waits say so in plain words, seats from 1: P2 until it answers, P3
// (who owes the shares and answers nothing) until it comes back. Once P3
// is back the hold is released, the waits no longer say held, and the
// game goes on to its end with identical logs.
func TestHeldWaitSaysWhy(t *testing.T) {
	nt := newNodeTable(t, 3, "held why", false)
	nt.gone, nt.goneAfter = 2, 3 // a gone peer answers no catch-up either
	r := engine.NewRand([]byte("held"))
	for steps := 0; nt.live(2); steps++ {
		if steps > 5000 {
			t.Fatal("P3 never vanished")
		}
		nt.run()
		for i, node := range nt.nodes {
			if nt.live(i) && node.CanAct() {
				st := node.State()
				if err := node.Act(engine.RandomBot{}.Choose(st, st.Legal(nil), r)); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	nt.run()
	st := nt.nodes[0].Status()
	seatOf := func(name string) int {
		for seat, mi := range st.Seats {
			if st.Members[mi].Name == name {
				return seat
			}
		}
		t.Fatalf("no seat for %s", name)
		return -1
	}
	p2, p3 := seatOf("P2"), seatOf("P3")
	waitFor := func(ws []lockstep.Wait, seat int) *lockstep.Wait {
		for i := range ws {
			if ws[i].Seat == seat {
				return &ws[i]
			}
		}
		return nil
	}
	w := waitFor(nt.nodes[0].Waiting(), p3)
	if w == nil || !strings.Contains(w.What, "decryption shares") || w.Why != "" {
		t.Fatalf("before the restart P1 waits for P3 so: %+v", w)
	}

	nt.restart(0, false, "held why restart")
	ws := nt.nodes[0].Waiting()
	held2 := fmt.Sprintf("held: waiting for P2 (seat %d) to answer the card catch-up after restart", p2+1)
	held3 := fmt.Sprintf("held: waiting for P3 (seat %d) to answer the card catch-up after restart", p3+1)
	if w := waitFor(ws, p2); w == nil || w.Why != held2 {
		t.Fatalf("restarted, P1's wait for P2 is %+v; want %q", w, held2)
	}
	if w := waitFor(ws, p3); w == nil || w.Why != held3 || !strings.Contains(w.String(), "decryption shares") || !strings.Contains(w.String(), held3) {
		t.Fatalf("restarted, P1's wait for P3 is %+v; want its shares, %q", w, held3)
	}
	if got := nt.nodes[0].Status().Waiting; len(got) != len(ws) {
		t.Fatalf("the status lists %d waits, Waiting %d", len(got), len(ws))
	}

	// P2 answers; P3, gone, does not: still held, by P3 alone.
	for range 3 {
		nt.now += 1000
		nt.nodes[0].Tick(nt.now)
		nt.run()
	}
	ws = nt.nodes[0].Waiting()
	if w := waitFor(ws, p2); w != nil && w.Why != "" {
		t.Fatalf("P2 answered, but P1 still waits for it so: %+v", w)
	}
	if w := waitFor(ws, p3); w == nil || w.Why != held3 {
		t.Fatalf("P3 has not answered, P1's wait for it is %+v", w)
	}

	// P3 comes back: the hold is released and the game goes on.
	nt.gone = -1
	nt.nodes[2].Tick(nt.now)
	nt.playTicking()
	for _, w := range nt.nodes[0].Waiting() {
		if w.Why != "" {
			t.Fatalf("after the game a wait still says %q", w.Why)
		}
	}
	nt.checkSame()
}

// TestEscrowWaitSaysWhy: at a secret table of four, P4 vanishes and is
// voted out; P1's piece of P4's card key is late (held back on its way).
// The others' waits for it say why in plain words: P4 was dropped and its
// key is rebuilt from every other seat's escrow piece first. Once the
// piece arrives, the game goes on to its end.
func TestEscrowWaitSaysWhy(t *testing.T) {
	nt := newNodeGameTable(t, infinitecity.Game, 4, "escrow why", false, func(i int, c *lockstep.Config) { c.DropAfter, c.StallAfter = 2000, 500 })
	nt.gone, nt.goneAfter = 3, 2
	withhold := true
	nt.withhold = func(from int, env *crypto.Envelope) bool {
		return from == 0 && env.Kind == crypto.KindPiece && withhold
	}
	r := engine.NewRand([]byte("bots"))
	var seen *lockstep.Wait
	for steps := 0; steps < 5000 && seen == nil; steps++ {
		busy := nt.run()
		for i, node := range nt.nodes {
			if nt.live(i) && node.CanAct() {
				st := node.State()
				_ = node.Act(engine.RandomBot{}.Choose(st, st.Legal(nil), r))
				busy = true
			}
		}
		for _, w := range nt.nodes[1].Waiting() {
			if w.Name == "P1" && strings.HasPrefix(w.What, "its piece of ") {
				seen = &w
			}
		}
		if !busy {
			nt.now += 100
			for i, node := range nt.nodes {
				if nt.live(i) {
					node.Tick(nt.now)
				}
			}
		}
	}
	if seen == nil {
		for _, ev := range nt.events[1] {
			if ev.Kind != lockstep.EventTurn {
				t.Logf("P2 event %v: %s", ev.Kind, ev.Text)
			}
		}
		t.Logf("live P4 %v; P2 status phase %v dropped %v seq %d", nt.live(3), nt.nodes[1].Status().Phase, nt.nodes[1].Status().Dropped, nt.nodes[1].Status().Seq)
		t.Fatalf("P2 never waited for P1's piece of P4's key: %v", nt.nodes[1].Waiting())
	}
	st := nt.nodes[1].Status()
	p4 := -1
	for seat, mi := range st.Seats {
		if st.Members[mi].Name == "P4" {
			p4 = seat
		}
	}
	want := fmt.Sprintf("held: P4 (seat %d) was dropped; its card key is rebuilt from every other seat's escrow piece before the game goes on", p4+1)
	if seen.Why != want || !strings.Contains(seen.String(), want) {
		t.Fatalf("P2's wait for P1's piece: %+v; want why %q", *seen, want)
	}
	withhold = false
	nt.playTicking()
	for i := 0; i < 3; i++ {
		if ph := nt.nodes[i].Status().Phase; ph != lockstep.PhaseOver {
			t.Fatalf("peer %d: phase %v", i+1, ph)
		}
	}
}
