package cardsource_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/boardmesh/boardmesh/crypto"
	"github.com/boardmesh/boardmesh/engine"
	"github.com/boardmesh/boardmesh/engine/dragonslair"
	"github.com/boardmesh/boardmesh/engine/games"
	"github.com/boardmesh/boardmesh/lockstep"
)

// TestSecretTableReproposed: at a secret table a member goes silent
// after the roster, so after the accept time-out the host proposes the
// table again without it. P1 and P2, left, play the whole game at a
// secret table, each seat with its own card layer: the re-proposal once
// replayed the lobby on a machine without the card layer maker, so the
// seats drew as a spectator's would and the first move that opened a
// card was refused ("this peer has no hidden-card layer"). Two ways: P3
// silent from the start (every peer is in the accept phase), and P3's
// accept reaching P2 only, who is then drawing the seats of the first
// roster when the second comes.
func TestSecretTableReproposed(t *testing.T) {
	const players = 2 // P1 and P2 play
	for _, c := range []struct {
		name  string
		seats bool // P2 is in the seat draw of the first roster
	}{{"accept phase", false}, {"seat draw", true}} {
		t.Run(c.name, func(t *testing.T) {
			nt := newNodeGameTable(t, dragonslair.Game, 3, "repropose "+c.name, false, func(i int, cfg *lockstep.Config) {
				// Shorter than the stall time, after which the host would
				// fetch the missing accept from P2 (then the seat draw
				// waits for P3's reveal: no re-proposal may come after it).
				cfg.AcceptTimeout = 1000
			})
			switch {
			case c.seats:
				// P3's accept goes to P2 only (P1 gets its join again,
				// which changes nothing), and then P3 is silent.
				join := getJoin(t, nt, 2)
				nt.tamper = func(from int, env *crypto.Envelope) *crypto.Envelope {
					if from != 2 || env.Kind != crypto.KindAccept {
						return env
					}
					nt.inbox[1] = append(nt.inbox[1], env.Marshal())
					nt.gone = 2
					return join
				}
			default:
				nt.gone = 2 // P3 neither sends nor reads from now on
			}
			nt.run()
			if c.seats {
				if p := nt.nodes[1].Status().Phase; p != lockstep.PhaseSeats {
					t.Fatalf("P2 is in phase %v, not drawing the seats of the first roster", p)
				}
			}
			if p := nt.nodes[0].Status().Phase; p != lockstep.PhaseAccept {
				t.Fatalf("the host is in phase %v before the time-out, not waiting for accepts", p)
			}
			nt.play()
			want := nt.nodes[0].Log()
			for i := range players {
				node := nt.nodes[i]
				st := node.Status()
				if st.Phase != lockstep.PhaseOver || !node.Secret() {
					t.Fatalf("P%d: phase %v, secret %v; want the game over at a secret table", i+1, st.Phase, node.Secret())
				}
				if len(st.Members) != players {
					t.Fatalf("P%d played with %d members; want P1 and P2", i+1, len(st.Members))
				}
				for _, m := range st.Members {
					if m.ID != nt.ids[0].ID() && m.ID != nt.ids[1].ID() {
						t.Fatalf("P%d's roster holds %s, who went silent", i+1, m.Name)
					}
				}
				if len(nt.secrets[i]) == 0 {
					t.Fatalf("P%d has no card key: its seat had no card layer of its own", i+1)
				}
				again := false
				for _, ev := range nt.events[i] {
					again = again || ev.Kind == lockstep.EventRoster && strings.Contains(ev.Text, "again without P3")
				}
				if !again {
					t.Fatalf("P%d was not told the table was proposed again without P3: %v", i+1, nt.events[i])
				}
				got := node.Log()
				if len(got) != len(want) {
					t.Fatalf("P%d has %d entries, P1 %d", i+1, len(got), len(want))
				}
				for k := range got {
					if !crypto.Equal(got[k], want[k]) {
						t.Fatalf("P%d's entry %d differs from P1's", i+1, k)
					}
				}
				if len(nt.entries[i]) != len(want) {
					t.Fatalf("P%d released %d entries, its log holds %d", i+1, len(nt.entries[i]), len(want))
				}
				if !bytes.Equal(engine.Encode(node.State()), engine.Encode(nt.nodes[0].State())) {
					t.Fatalf("P%d's shared state differs from P1's", i+1)
				}
			}
			rep, err := lockstep.Verify(want, games.Lookup)
			if err != nil || rep.Result == nil {
				t.Fatalf("the log does not verify: %v", err)
			}
			if len(rep.Members) != players {
				t.Fatalf("the log's roster has %d members", len(rep.Members))
			}
		})
	}
}

// getJoin is P(who+1)'s join as P1 got it.
func getJoin(t *testing.T, nt *nodeTable, who int) *crypto.Envelope {
	t.Helper()
	for _, b := range nt.got[0] {
		if env, err := crypto.Unmarshal(b); err == nil && env.Kind == crypto.KindJoin && env.Author == nt.ids[who].ID() {
			return env
		}
	}
	t.Fatalf("P1 never got P%d's join", who+1)
	return nil
}

// TestSecretTableSilentRevealer: at a secret table of three, P3 accepts
// the roster and freezes before it sends its part of the seat draw. The
// seat draw once waited for it forever (no time-out, no drop before the
// game). Now the host proposes the table again without P3 after the
// time-out, P2 (which lacks P3's reveal too) takes it, the seats are
// drawn afresh, and P1 and P2 play the whole game at a secret table,
// each seat with its own card layer; the log verifies.
func TestSecretTableSilentRevealer(t *testing.T) {
	const players = 2
	nt := newNodeGameTable(t, dragonslair.Game, 3, "silent revealer", false, func(i int, cfg *lockstep.Config) {
		cfg.AcceptTimeout = 3000
	})
	nt.gone, nt.goneKind, nt.goneAfter = 2, crypto.KindReveal, 1
	nt.run()
	for i := range players {
		st := nt.nodes[i].Status()
		if st.Phase != lockstep.PhaseSeats || len(st.Waiting) != 1 || st.Waiting[0].String() != "waiting for P3's seat draw (0 ms)" {
			t.Fatalf("P%d: phase %v, %v; want it waiting for P3's seat draw", i+1, st.Phase, st.Waiting)
		}
	}
	nt.play()
	want := nt.nodes[0].Log()
	for i := range players {
		node := nt.nodes[i]
		st := node.Status()
		if st.Phase != lockstep.PhaseOver || !node.Secret() || len(st.Members) != players {
			t.Fatalf("P%d: phase %v, secret %v, %d members; want the game of P1 and P2 over at a secret table", i+1, st.Phase, node.Secret(), len(st.Members))
		}
		if len(nt.secrets[i]) == 0 {
			t.Fatalf("P%d has no card key: its seat had no card layer of its own", i+1)
		}
		again := false
		for _, ev := range nt.events[i] {
			again = again || ev.Kind == lockstep.EventRoster && strings.Contains(ev.Text, "again without P3 (no seat draw in time)")
		}
		if !again {
			t.Fatalf("P%d was not told the table was proposed again without P3: %v", i+1, nt.events[i])
		}
		got := node.Log()
		if len(got) != len(want) {
			t.Fatalf("P%d has %d entries, P1 %d", i+1, len(got), len(want))
		}
		for k := range got {
			if !crypto.Equal(got[k], want[k]) {
				t.Fatalf("P%d's entry %d differs from P1's", i+1, k)
			}
		}
	}
	rep, err := lockstep.Verify(want, games.Lookup)
	if err != nil || rep.Result == nil {
		t.Fatalf("the log does not verify: %v", err)
	}
	if len(rep.Members) != players {
		t.Fatalf("the log's roster has %d members", len(rep.Members))
	}
}
