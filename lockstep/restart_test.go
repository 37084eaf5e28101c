package lockstep

import (
	"fmt"
	"strings"
	"testing"

	"github.com/boardmesh/boardmesh/crypto"
	"github.com/boardmesh/boardmesh/engine"
)

// TestPowerLossNeverEquivocates: peers crash as in a power cut, losing
// what their disk had not fsynced (the runner fsyncs when Ready.MustSync
// says so, before sending), and restart from what is left, over many
// seeds, one peer or the whole table at once. No peer may ever sign two
// different envelopes for one slot, no honest peer may be accused of
// anything, and every game ends with identical logs.
func TestPowerLossNeverEquivocates(t *testing.T) {
	powerLoss(t, "powerloss", 24, false)
}

// TestLyingDiskNeverEquivocates: the same with a disk whose last fsync
// did not hold, so a restarted peer may have lost envelopes it signed and
// sent. It must learn them back from the others before its bot acts
// (CaughtUp) and keep to them, rather than sign different ones.
func TestLyingDiskNeverEquivocates(t *testing.T) {
	powerLoss(t, "lyingdisk", 24, true)
}

func powerLoss(t *testing.T, name string, seeds int, lying bool) {
	for seed := 0; seed < seeds; seed++ {
		players := 2 + seed%3
		n := newSimNet(t, fmt.Sprint(name, seed), players, faults{drop: 30, dup: 30, maxDelay: 60}, testGames, Config{})
		n.setBots(diceGame)
		signed := map[slot]*crypto.Envelope{}
		actedNow := -1
		n.onSend = func(from int, env *crypto.Envelope) {
			if env.Kind == crypto.KindAction && env.Author == n.peers[from].id.ID() {
				actedNow = from
			}
			if env.Author != n.peers[from].id.ID() || !slotKind(env.Kind) {
				return
			}
			s := slotOf(env)
			if old, ok := signed[s]; ok && !crypto.Equal(old, env) {
				t.Fatalf("seed %d: %s signed two different %s envelopes for seq %d after a restart", seed, n.peers[from].name, env.Kind, env.Seq)
			}
			signed[s] = env
		}
		n.lobby(diceGame, nil)
		crashes := 0
		for step := 0; step < 400000 && !n.allOver(n.all()...)(); step++ {
			actedNow = -1
			n.step()
			if lying && actedNow >= 0 && crashes < 6 && step%7 == 0 {
				// The worst moment: right after a peer signed and sent an
				// action, its disk loses it.
				crashes++
				i := actedNow
				n.crashLosingSynced(i)
				for k := 0; k < 20; k++ {
					n.step()
				}
				n.restart(i)
				continue
			}
			if step%157 != 0 || n.peers[0].node.Status().Phase != PhasePlaying || crashes >= 6 {
				continue
			}
			crashes++
			if crashes%3 == 0 && !lying {
				// The whole table loses power at once.
				for i := range n.peers {
					n.crashLosingTail(i)
				}
				for i := range n.peers {
					n.restart(i)
				}
				continue
			}
			i := n.rng.Intn(players)
			if lying {
				n.crashLosingSynced(i)
			} else {
				n.crashLosingTail(i)
			}
			for k := 0; k < 20; k++ {
				n.step()
			}
			n.restart(i)
		}
		if !n.allOver(n.all()...)() {
			t.Fatalf("seed %d: the game did not finish after %d power cuts: %+v", seed, crashes, n.peers[0].node.Status())
		}
		n.checkAgree(n.all()...)
		for _, p := range n.peers {
			for _, ev := range p.events {
				if ev.Kind == EventEquivocation || ev.Kind == EventCheat || ev.Kind == EventDesync {
					t.Fatalf("seed %d: %s accused an honest peer: %s", seed, p.name, ev)
				}
			}
		}
	}
}

// TestRestartedNodeWaitsToCatchUp: a node restarted from a disk that lost
// its tail may not act (CanAct) before a majority has shown it the head
// of the log; a peer that was not restarted can act at once.
func TestRestartedNodeWaitsToCatchUp(t *testing.T) {
	n := startDice(t, "catchup", 3, Config{})
	a, _ := n.actor()
	if !n.peers[a].node.CanAct() || !n.peers[a].node.CaughtUp() {
		t.Fatal("a node that never restarted may not act")
	}
	n.crash(a)
	n.restart(a)
	if n.peers[a].node.CaughtUp() || n.peers[a].node.CanAct() {
		t.Fatal("a restarted node may act before hearing from anyone")
	}
	if !n.run(1000, func() bool { return n.peers[a].node.CaughtUp() }) {
		t.Fatal("the restarted node never caught up")
	}
	if !n.peers[a].node.CanAct() {
		t.Fatal("caught up, the restarted node still may not act")
	}
}

// TestHeldByOwnDropVoteAsks: a peer that voted to drop the seat to act,
// and then got that seat's late action, holds every input yet may not
// commit: it waits for the other voter's drop vote (or its log going on
// without one), and its status says so (it once said nothing); Tick once
// never asked for a gap then, and the peer sat there until the runner
// asked for it (p2p once had a workaround). The other voter is not voted
// out for it.
func TestHeldByOwnDropVoteAsks(t *testing.T) {
	n := startDice(t, "held", 3, Config{})
	a, seat := n.actor()
	x := (a + 1) % 3
	p := n.peers[x].node
	if err := p.VoteDrop([]int{seat}); err != nil {
		t.Fatal(err)
	}
	n.drain(x)
	st := p.Status()
	act := n.signAs(a, &crypto.Envelope{Session: st.Session, Seq: st.Seq, Kind: crypto.KindAction,
		StateHash: p.Hashes()[st.Seq], Body: engine.AppendAction(nil, legalAction(n))})
	_ = p.Step(act)
	n.drain(x)
	other := 3 - a - x
	w := p.Waiting()
	if len(w) != 1 || w[0].Peer != n.peers[other].node.ID() || !strings.Contains(w[0].String(), "drop vote") || len(p.Log()) != len(n.peers[a].node.Log()) {
		t.Fatalf("the voter should hold the action uncommitted and wait for the other voter's drop vote: waits %v", w)
	}
	p.Tick(n.now + 5000)
	rd := p.Ready()
	if len(rd.Requests) == 0 {
		t.Fatal("a peer held by its own drop vote does not ask for a gap")
	}
	p.Advance()
	p.Tick(n.now + 600000)
	for _, ev := range p.Ready().Events {
		if ev.Kind == EventDropVote {
			t.Fatalf("the held voter votes to drop the other voter: %s", ev.Text)
		}
	}
}

// TestVoteDropListsEachSeatOnce: a screen that proposes the seats it waits
// for may name one seat several times (a seat owing three shuffles); the
// vote that leaves holds each seat once, and the other peers take it
// without naming the voter (a repeated seat once made every peer call an
// honest voter's drop malformed).
func TestVoteDropListsEachSeatOnce(t *testing.T) {
	n := startDice(t, "distinct", 3, Config{})
	a, seat := n.actor()
	x := (a + 1) % 3
	p := n.peers[x].node
	if err := p.VoteDrop([]int{seat, seat, seat}); err != nil {
		t.Fatal(err)
	}
	rd := p.Ready()
	var vote *crypto.Envelope
	for _, env := range rd.Messages {
		if env.Kind == crypto.KindDrop {
			vote = env
		}
	}
	p.Advance()
	if vote == nil {
		t.Fatal("no drop vote was sent")
	}
	y := n.peers[(a+2)%3].node
	if err := y.Step(vote); err != nil {
		t.Fatalf("the vote is refused: %v", err)
	}
	for _, ev := range y.Ready().Events {
		if ev.Kind == EventCheat || ev.Kind == EventRejected {
			t.Fatalf("the honest voter is named: %s", ev.Text)
		}
	}
}
