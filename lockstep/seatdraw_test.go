package lockstep

import (
	"errors"
	"strings"
	"testing"

	"github.com/boardmesh/boardmesh/crypto"
)

// silentRevealer makes peer i a member that accepts and then never sends
// its seat draw's reveal: not in its messages, not in its catch-up
// answers (the hook filters both).
func silentRevealer(n *simNet, i int) {
	n.peers[i].hook = func(env *crypto.Envelope) []*crypto.Envelope {
		if env.Kind == crypto.KindReveal {
			return nil
		}
		return []*crypto.Envelope{env}
	}
}

// inSeatDraw reports whether every peer listed is drawing the seats.
func (n *simNet) inSeatDraw(peers ...int) func() bool {
	return func() bool {
		for _, i := range peers {
			if n.peers[i].node.Status().Phase != PhaseSeats {
				return false
			}
		}
		return true
	}
}

// TestSilentRevealerLeftOut: a member accepts the roster and never
// reveals its part of the seat draw. The seat draw once waited forever
// (no time-out, no drop before the game). Now every peer's status names
// it ("waiting for P3's seat draw": the simulated peers count from P0), after the time-out the host proposes
// the table again without it, the others take the new roster (they too
// lack exactly its reveal), the seats are drawn afresh and the three
// play the game to its end.
func TestSilentRevealerLeftOut(t *testing.T) {
	for _, seed := range []string{"silent-reveal-a", "silent-reveal-b"} {
		n := newSimNet(t, seed, 4, faults{drop: 20, maxDelay: 30}, testGames, Config{AcceptTimeout: 3000})
		n.setBots(diceGame)
		silent := 3
		silentRevealer(n, silent)
		n.lobby(diceGame, nil)
		honest := []int{0, 1, 2}
		// Each honest peer drawing the first roster's seats names the
		// silent one in its status (another's reveal may be late too, on
		// a lossy network); the host must have been there to propose
		// again in the seat draw.
		drew, named := make([]bool, 4), make([]bool, 4)
		n.run(400000, func() bool {
			for _, i := range honest {
				node := n.peers[i].node
				if st := node.Status(); st.Phase == PhaseSeats && node.m.roster.Draw == 0 {
					drew[i] = true
					for _, w := range st.Waiting {
						named[i] = named[i] || w.Peer == n.peers[silent].id.ID() &&
							strings.HasPrefix(w.String(), "waiting for "+n.peers[silent].name+"'s seat draw (")
					}
				}
			}
			return n.allOver(honest...)()
		})
		if !drew[0] {
			t.Fatalf("%s: the host never drew the seats of the first roster", seed)
		}
		for _, i := range honest {
			if drew[i] && !named[i] {
				t.Fatalf("%s: %s's status never named %s's seat draw", seed, n.peers[i].name, n.peers[silent].name)
			}
		}
		if !n.run(400000, n.allOver(honest...)) {
			t.Fatalf("%s: the game without the silent revealer did not finish: %+v", seed, n.peers[1].node.Status())
		}
		r := n.checkAgree(honest...)
		if len(r.Members) != 3 {
			t.Fatalf("%s: the roster played has %d members", seed, len(r.Members))
		}
		for _, m := range r.Members {
			if m.ID == n.peers[silent].id.ID() {
				t.Fatalf("%s: the silent revealer is in the roster played", seed)
			}
		}
		for _, i := range honest {
			again := false
			for _, ev := range n.peers[i].events {
				again = again || ev.Kind == EventRoster && strings.Contains(ev.Text, "again without "+n.peers[silent].name+" (no seat draw in time)")
				if ev.Kind == EventCheat || ev.Kind == EventRefused {
					t.Fatalf("%s: %s raised %s", seed, n.peers[i].name, ev)
				}
			}
			if !again {
				t.Fatalf("%s: %s was not told the table was proposed again without P4: %v", seed, n.peers[i].name, n.peers[i].events)
			}
		}
	}
}

// TestHostMayNotRedrawSeenSeats: P4 never reveals, and the host, once the
// time-out passes, proposes the table again without P4 and P3, although
// P3's reveal is out (it reached everyone): had the others taken it, a
// host could look at a draw and throw it away for a new one. P2 and P3
// hold P3's reveal, so each refuses the roster and says why; nobody takes
// it, and nobody stops.
func TestHostMayNotRedrawSeenSeats(t *testing.T) {
	n := newSimNet(t, "redraw", 4, faults{maxDelay: 20}, testGames, Config{AcceptTimeout: 3000})
	silentRevealer(n, 3)
	bad := 0
	n.peers[0].hook = func(env *crypto.Envelope) []*crypto.Envelope {
		if env.Kind != crypto.KindRoster {
			return []*crypto.Envelope{env}
		}
		r, err := decodeRoster(env.Body)
		if err != nil || r.Draw == 0 {
			return []*crypto.Envelope{env}
		}
		// The honest re-proposal leaves P4 out; this host leaves P3 out too.
		var keep []Member
		for _, m := range r.Members {
			if m.ID != n.peers[2].id.ID() {
				keep = append(keep, m)
			}
		}
		r.Members = keep
		bad++
		return []*crypto.Envelope{n.signAs(0, &crypto.Envelope{Session: env.Session, Kind: crypto.KindRoster, Body: r.encode()})}
	}
	n.lobby(diceGame, nil)
	if !n.run(100000, n.inSeatDraw(n.all()...)) {
		t.Fatalf("the seat draw never began: %+v", n.peers[1].node.Status())
	}
	start := n.now
	n.run(100000, func() bool { return n.now-start > 20000 })
	if bad == 0 {
		t.Fatal("the host never proposed the table again")
	}
	for _, i := range []int{1, 2} {
		p := n.peers[i]
		st := p.node.Status()
		if st.Phase != PhaseSeats || len(st.Members) != 4 || p.node.m.roster.Draw != 0 {
			t.Fatalf("%s took the host's new table: phase %v, %d members", p.name, st.Phase, len(st.Members))
		}
		refused := false
		for _, ev := range p.events {
			// Not ErrRefused: that makes a joiner leave (cli).
			refused = refused || ev.Kind == EventRefused && errors.Is(ev.Err, ErrRedraw) && !errors.Is(ev.Err, ErrRefused) && strings.Contains(ev.Text, "refused the host's new table without "+n.peers[2].name+": "+n.peers[2].name+"'s seat draw is here")
			if ev.Kind == EventRoster && strings.Contains(ev.Text, "again") {
				t.Fatalf("%s: %s", p.name, ev.Text)
			}
		}
		if !refused {
			t.Fatalf("%s did not say it refused the new table: %v", p.name, p.events)
		}
	}
}

// TestLateRevealFinishesDraw: P4's reveal reaches P3 only, and P4 then
// goes silent for good. P3 holds every reveal and draws the seats; P1 and
// P2 lack P4's, ask the others for the lobby's entries while they wait,
// get it from P3's answer before the time-out, and draw the same seats:
// all four play the game to its end, and nobody proposes the table again.
func TestLateRevealFinishesDraw(t *testing.T) {
	n := newSimNet(t, "late-reveal", 4, faults{maxDelay: 20}, testGames, Config{AcceptTimeout: 20000})
	n.setBots(diceGame)
	once := false
	n.peers[3].hook = func(env *crypto.Envelope) []*crypto.Envelope {
		if env.Kind == crypto.KindReveal && !once {
			once = true
			n.send(3, 2, env)
			n.crash(3)
			return nil
		}
		return []*crypto.Envelope{env}
	}
	n.lobby(diceGame, nil)
	if !n.run(100000, func() bool { return n.peers[2].node.Status().Phase == PhasePlaying }) {
		t.Fatalf("P3 never drew the seats: %+v", n.peers[2].node.Status())
	}
	for _, i := range []int{0, 1} {
		if p := n.peers[i].node.Status().Phase; p != PhaseSeats {
			t.Fatalf("%s is in phase %v; want it still waiting for P4's reveal", n.peers[i].name, p)
		}
	}
	// P4 stays down until P1 and P2 have drawn the seats: what they drew
	// with came from P3.
	if !n.run(100000, func() bool {
		return n.peers[0].node.Status().Phase == PhasePlaying && n.peers[1].node.Status().Phase == PhasePlaying
	}) {
		t.Fatalf("P1 and P2 never drew the seats: %+v", n.peers[0].node.Status())
	}
	n.restart(3)
	if !n.run(400000, n.allOver(n.all()...)) {
		t.Fatalf("the game did not finish: %+v", n.peers[0].node.Status())
	}
	r := n.checkAgree(n.all()...)
	if len(r.Members) != 4 {
		t.Fatalf("the roster played has %d members", len(r.Members))
	}
	for _, p := range n.peers {
		for _, ev := range p.events {
			if ev.Kind == EventRoster && strings.Contains(ev.Text, "again") || ev.Kind == EventRefused {
				t.Fatalf("%s: %s", p.name, ev.Text)
			}
		}
	}
}

// TestTooFewLeftCannotStart: at a table of two the other member accepts
// and never reveals. The host cannot propose a table of one: once the
// time-out passes it stops, saying so, instead of waiting forever.
func TestTooFewLeftCannotStart(t *testing.T) {
	n := newSimNet(t, "too-few", 2, faults{maxDelay: 20}, testGames, Config{AcceptTimeout: 3000})
	silentRevealer(n, 1)
	n.lobby(diceGame, nil)
	if !n.run(100000, func() bool { return n.peers[0].node.Status().Phase == PhaseStopped }) {
		t.Fatalf("the host never stopped: %+v", n.peers[0].node.Status())
	}
	var why *Event
	for i, ev := range n.peers[0].events {
		if ev.Kind == EventRefused && errors.Is(ev.Err, ErrCannotStart) {
			why = &n.peers[0].events[i]
		}
	}
	if why == nil || !strings.Contains(why.Text, "the seat draw of "+n.peers[1].name+" never came") || !strings.Contains(why.Text, "needs 2 players and only this peer is left") {
		t.Fatalf("the host's events do not say why it stopped: %v", n.peers[0].events)
	}
}
