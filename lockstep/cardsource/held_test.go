package cardsource_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/boardmesh/boardmesh/engine"
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
	nt.gone, nt.goneAfter, nt.silent = 2, 3, true
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
