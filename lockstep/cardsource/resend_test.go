package cardsource_test

import (
	"testing"

	"github.com/boardmesh/boardmesh/crypto"
	"github.com/boardmesh/boardmesh/lockstep"
)

// deliver moves Readies and messages between the table's nodes until
// nothing moves, without any Work (no shuffle proof made or checked).
func (nt *nodeTable) deliver() {
	for moved := true; moved; {
		moved = false
		for i, node := range nt.nodes {
			for node.HasReady() {
				rd := node.Ready()
				for _, env := range rd.Messages {
					for j := range nt.nodes {
						if j != i {
							nt.inbox[j] = append(nt.inbox[j], env.Marshal())
						}
					}
				}
				node.Advance()
				moved = true
			}
		}
		for j, node := range nt.nodes {
			for ; len(nt.inbox[j]) > 0; nt.inbox[j] = nt.inbox[j][1:] {
				env, err := crypto.Unmarshal(nt.inbox[j][0])
				if err != nil {
					nt.t.Fatal(err)
				}
				_ = node.Step(env)
				moved = true
			}
		}
	}
}

// cardMessages takes node i's Ready, queues its messages for the others
// and counts the card envelopes among them.
func (nt *nodeTable) cardMessages(i int) int {
	n := 0
	for node := nt.nodes[i]; node.HasReady(); node.Advance() {
		for _, env := range node.Ready().Messages {
			if env.Kind.Card() {
				n++
			}
			for j := range nt.nodes {
				if j != i {
					nt.inbox[j] = append(nt.inbox[j], env.Marshal())
				}
			}
		}
	}
	return n
}

// TestCardResendWaitsWhileBusy: a peer whose wait for cards has made no
// progress for ResendAfter re-sends its last card envelopes, in case one
// was lost; but not while it is itself busy with shuffle proofs (on a
// loaded machine its checks alone can outlast ResendAfter, with nothing
// lost), only once it has been idle for ResendAfter.
func TestCardResendWaitsWhileBusy(t *testing.T) {
	// Three seats: each checks two shuffles, and the first check sends
	// nothing (the last starts the first batch, whose shares it sends).
	nt := newNodeTable(t, 3, "resend", false)
	// The lobby and the seat draw; the card keys and escrows; each seat
	// shuffles in turn, and the checks are left undone.
	nt.deliver()
	busy := -1
	for guard := 0; busy < 0 && guard < 20; guard++ {
		for i, node := range nt.nodes {
			if !node.HasWork() {
				continue
			}
			node.Tick(1)
			nt.cardMessages(i)
			if !node.Work() {
				t.Fatal("HasWork, and Work did nothing")
			}
			if nt.cardMessages(i) == 0 { // a check: it sends nothing
				busy = i
				break
			}
			nt.deliver()
		}
	}
	if busy < 0 {
		t.Fatal("no seat ever checked a shuffle")
	}
	node, after := nt.nodes[busy], int64(lockstep.DefaultResendAfter)
	node.Tick(1 + after)
	if n := nt.cardMessages(busy); n != 0 {
		t.Fatalf("a peer busy with a proof check re-sent %d card envelopes", n)
	}
	node.Tick(1 + 2*after)
	if n := nt.cardMessages(busy); n == 0 {
		t.Fatal("an idle peer whose cards stall re-sends nothing")
	}
}
