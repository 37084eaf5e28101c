package lockstep

import (
	"strings"
	"testing"

	"github.com/boardmesh/boardmesh/crypto"
)

// noStop fails if a peer stopped or raised an equivocation.
func noStop(t *testing.T, n *simNet, what string) {
	t.Helper()
	for _, p := range n.peers {
		if p.down {
			continue
		}
		if p.node.Status().Phase == PhaseStopped {
			t.Fatalf("%s: %s stopped", what, p.name)
		}
		for _, ev := range p.events {
			if ev.Kind == EventEquivocation {
				t.Fatalf("%s: %s raised %s", what, p.name, ev)
			}
		}
	}
}

// TestRejoinUnderAnotherName: an honest user joins as "Bob", quits, and
// joins again as "Robert" from the same home (the same key). That once
// read as an equivocation, and stopped every peer before the seat draw.
// The second join replaces the first.
func TestRejoinUnderAnotherName(t *testing.T) {
	n := newSimNet(t, "rejoin", 3, faults{maxDelay: 20}, testGames, Config{})
	n.setBots(diceGame)
	lobby, _ := NewLobbyID(seededReader("lobby/rejoin"))
	if err := n.peers[0].node.Host(lobby, diceGame, nil); err != nil {
		t.Fatal(err)
	}
	for _, p := range n.peers[1:] {
		if err := p.node.Join(lobby); err != nil {
			t.Fatal(err)
		}
		n.drain(n.index(p))
	}
	n.run(200, func() bool { return len(n.peers[0].node.Joined()) == 3 })
	// Bob quits and comes back with the same key under another name.
	bob := n.peers[2]
	bob.cfg.Name = "Robert"
	node, err := New(bob.cfg)
	if err != nil {
		t.Fatal(err)
	}
	bob.node, bob.name = node, "Robert"
	if err := bob.node.Join(lobby); err != nil {
		t.Fatal(err)
	}
	n.drain(2)
	ok := n.run(2000, func() bool {
		for _, m := range n.peers[0].node.Joined() {
			if m.Name == "Robert" {
				return true
			}
		}
		return false
	})
	if !ok {
		t.Fatalf("the host does not list the new join: %+v", n.peers[0].node.Joined())
	}
	noStop(t, n, "a second join under another name")
	if len(n.peers[0].node.Joined()) != 3 {
		t.Fatalf("the host lists %d joins, want 3: %+v", len(n.peers[0].node.Joined()), n.peers[0].node.Joined())
	}
	if err := n.peers[0].node.Propose(); err != nil {
		t.Fatal(err)
	}
	if !n.run(200000, n.allOver(n.all()...)) {
		t.Fatalf("game did not finish: %+v", n.peers[1].node.Status())
	}
	r := n.checkAgree(n.all()...)
	names := ""
	for _, m := range r.Members {
		names += m.Name + " "
	}
	if !strings.Contains(names, "Robert") || strings.Contains(names, "Bob") {
		t.Fatalf("roster is %s", names)
	}
}

func (n *simNet) index(p *simPeer) int {
	for i, q := range n.peers {
		if q == p {
			return i
		}
	}
	return -1
}

// TestLobbyDoubleEnvelopesDoNotStop: an outsider's two different joins,
// and a member's two different accepts, once stopped the host (or every
// peer) before the seat draw. Now a later join replaces the first, and an
// accept that is not well formed is refused and named.
func TestLobbyDoubleEnvelopesDoNotStop(t *testing.T) {
	n := newSimNet(t, "double", 3, faults{maxDelay: 1}, testGames, Config{})
	n.setBots(diceGame)
	lobby, _ := NewLobbyID(seededReader("lobby/double"))
	if err := n.peers[0].node.Host(lobby, diceGame, nil); err != nil {
		t.Fatal(err)
	}
	outsider, _ := crypto.GenerateIdentity(seededReader("stranger"))
	for _, name := range []string{"Eve", "Mallory"} {
		j := &joinBody{Name: name, Commitment: crypto.Hash{1}, ChainLen: 8}
		env := &crypto.Envelope{Session: lobby, Kind: crypto.KindJoin, Body: j.encode()}
		crypto.Sign(outsider, env)
		_ = n.peers[0].node.Step(env)
		n.drain(0)
	}
	noStop(t, n, "an outsider's two joins")
	joined := n.peers[0].node.Joined()
	if len(joined) != 2 || (joined[0].Name != "Mallory" && joined[1].Name != "Mallory") {
		t.Fatalf("host lists %+v; want the host and the outsider's last join", joined)
	}
	// The host admits whom it wants (the runner's challenge decides):
	// here the real players, not the stranger.
	for _, p := range n.peers[1:] {
		if err := p.node.Join(lobby); err != nil {
			t.Fatal(err)
		}
	}
	n.run(2000, func() bool { return len(n.peers[0].node.Joined()) == 4 })
	var ids []crypto.PeerID
	for _, p := range n.peers {
		ids = append(ids, p.id.ID())
	}
	if err := n.peers[0].node.ProposeMembers(ids); err != nil {
		t.Fatal(err)
	}
	n.run(2000, func() bool { return n.peers[1].node.Status().Phase >= PhaseAccept })
	sess := n.peers[1].node.Status().Session
	for _, body := range []string{"x", "y"} {
		env := n.signAs(2, &crypto.Envelope{Session: sess, Kind: crypto.KindAccept, Body: []byte(body)})
		_ = n.peers[1].node.Step(env)
		n.drain(1)
	}
	noStop(t, n, "a member's two different accepts")
	named := false
	for _, ev := range n.peers[1].events {
		named = named || ev.Kind == EventCheat && ev.Cheat == CheatMalformed && ev.Peer == n.peers[2].id.ID()
	}
	if !named {
		t.Fatalf("the malformed accepts were not named: %v", n.peers[1].events)
	}
	if !n.run(200000, n.allOver(n.all()...)) {
		t.Fatalf("game did not finish: %+v", n.peers[1].node.Status())
	}
	n.checkAgree(n.all()...)
}

// TestAcceptTimeoutReproposes: a member goes silent after the roster is
// proposed. The accept phase once waited forever; now the host proposes
// the roster again without it after Config.AcceptTimeout, the members who
// accepted the first accept the second, and the game is played by them.
func TestAcceptTimeoutReproposes(t *testing.T) {
	for _, seed := range []string{"repropose-a", "repropose-b", "repropose-c"} {
		n := newSimNet(t, seed, 4, faults{drop: 50, maxDelay: 30}, testGames, Config{AcceptTimeout: 3000})
		n.setBots(diceGame)
		n.lobby(diceGame, nil)
		silent := 3
		n.crash(silent)
		honest := []int{0, 1, 2}
		if !n.run(400000, n.allOver(honest...)) {
			t.Fatalf("%s: the game without the silent member did not finish: %+v", seed, n.peers[1].node.Status())
		}
		r := n.checkAgree(honest...)
		if len(r.Members) != 3 {
			t.Fatalf("%s: the roster played has %d members", seed, len(r.Members))
		}
		for _, m := range r.Members {
			if m.ID == n.peers[silent].id.ID() {
				t.Fatalf("%s: the silent member is in the roster played", seed)
			}
		}
		reproposed := false
		for _, ev := range n.peers[1].events {
			reproposed = reproposed || ev.Kind == EventRoster && strings.Contains(ev.Text, "again without "+n.peers[silent].name)
		}
		if !reproposed {
			t.Fatalf("%s: no event says the roster was proposed again: %v", seed, n.peers[1].events)
		}
		for _, i := range honest {
			for _, ev := range n.peers[i].events {
				if ev.Kind == EventCheat {
					t.Fatalf("%s: %s raised %s", seed, n.peers[i].name, ev)
				}
			}
		}
	}
}
