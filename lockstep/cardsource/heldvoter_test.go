package cardsource_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/boardmesh/boardmesh/crypto"
	"github.com/boardmesh/boardmesh/engine"
	"github.com/boardmesh/boardmesh/lockstep"
)

// heldTable is the table of the held-voter tests: a secret table of three
// at which P3's decryption shares for one wait for cards are slow. They
// are kept from P1 and P2 (late) from the first wait that needs them (see
// heldVoterTable) until the test releases them, and go out as usual after.
type heldTable struct {
	*nodeTable
	late []*crypto.Envelope
	// armed: the wait is found and P3's shares are held back; released:
	// they have gone out (release).
	armed, released bool
	// p1Voted: P1 has cast its vote (p1VotedTickAgo), at votedAt.
	p1Voted bool
	votedAt int64
}

// heldVoterTable is a heldTable of game g from seed, drop period 2 s and
// stall period 500 ms for every peer, then tune (if set) applied too. The
// shares held back are those of the first wait for cards that needs P3's
// shares and after which, as afterCards foresees it, the table needs the
// peer named then again: its move, or a chance step or a new turn (a
// reveal, a checkpoint), the moment its silence holds the others. With
// then "", any wait that needs P3's shares will do.
func heldVoterTable(t *testing.T, g *engine.Game, seed, then string, tune func(i int, c *lockstep.Config)) *heldTable {
	t.Helper()
	h := &heldTable{}
	h.nodeTable = newNodeGameTable(t, g, 3, seed, false, func(i int, c *lockstep.Config) {
		c.DropAfter, c.StallAfter = 2000, 500
		if tune != nil {
			tune(i, c)
		}
	})
	h.withhold = func(from int, env *crypto.Envelope) bool {
		if h.released || from != 2 || env.Kind != crypto.KindShare {
			return false
		}
		if !h.armed {
			if !h.waitsForP3(then) {
				return false
			}
			h.armed = true
		}
		h.late = append(h.late, env)
		return true
	}
	return h
}

// p2Waits4s gives P2 a drop period of 4 s (the others' is 2 s): P1 votes
// first, while P2 has not voted yet.
func p2Waits4s(i int, c *lockstep.Config) {
	if i == 1 {
		c.DropAfter = 4000
	}
}

// waitsForP3 reports whether P3's state is a wait for cards that needs
// P3's shares, after which the table needs the peer named then again (any
// wait if then is "").
func (h *heldTable) waitsForP3(then string) bool {
	p3 := h.nodes[2]
	st := p3.State()
	next := afterCards(st)
	if next == nil {
		return false
	}
	me := p3.Status().MySeat
	needsP3 := false
	for _, o := range st.(engine.CardState).Openings(nil) {
		needsP3 = needsP3 || o.To != me
	}
	if !needsP3 || then == "" {
		return needsP3
	}
	seat := h.seatOf(2, then)
	who := next.ToAct()
	return who.Kind == engine.ActorSeat && who.Seat == seat || who.Kind == engine.ActorChance || next.Turn() != st.Turn()
}

// release delivers P3's held shares to P1 and P2, in the order P3 sent
// them; from now on none of its envelopes is held back.
func (h *heldTable) release() {
	h.released = true
	for _, env := range h.late {
		for j := 0; j < 2; j++ {
			h.inbox[j] = append(h.inbox[j], env.Marshal())
		}
	}
}

// p1VotesP3Out is P1 as a modified client: it votes at once to drop P3,
// its vote goes out, and then nothing more of P1's does.
func (h *heldTable) p1VotesP3Out() {
	h.t.Helper()
	if err := h.nodes[0].VoteDrop([]int{h.seatOf(0, "P3")}); err != nil {
		h.t.Fatalf("P1's vote: %v", err)
	}
	h.run()
	h.hostCloses(0, 1)
}

// p1VotedTickAgo, for onIdle once the shares are held back, reports
// whether P1 voted P3 out a tick ago or more: its first call casts that
// vote (p1VotesP3Out) and reports false, as do the calls until the clock
// has moved (P2 has seen itself wait for P3's shares).
func (h *heldTable) p1VotedTickAgo() bool {
	if !h.p1Voted {
		h.p1Voted, h.votedAt = true, h.now
		h.p1VotesP3Out()
		return false
	}
	return h.now != h.votedAt
}

// hostCloses closes peer i's host now: every envelope it sends from here
// on is lost on the way and it answers no catch-up, while its node goes
// on by itself (nodeTable.mute, counted from now; playTicking no longer
// waits for its game to end once it has lost after of them).
func (nt *nodeTable) hostCloses(i, after int) {
	nt.mute, nt.muteAfter, nt.muted, nt.escrowed = i, after, 0, true
}

// onlyCheatsOf asserts that every cheat named at the table was named by
// peer i (0-based), and that peer i named none of the others: a peer the
// others dropped while its node still runs refuses what they go on with
// (its own card layer may stop), but nobody may name an honest peer, not
// even on the dropped peer's screen (it once named the others as
// flooders of card envelopes for the game they played on without it).
func (nt *nodeTable) onlyCheatsOf(i int) {
	nt.t.Helper()
	prefix := fmt.Sprintf("peer %d:", i+1)
	for _, c := range nt.cheats {
		if !strings.HasPrefix(c, prefix) {
			nt.t.Fatalf("cheats named at an honest table: %s", c)
		}
		for k := range nt.nodes {
			if k != i && strings.Contains(c, fmt.Sprintf("(P%d)", k+1)) {
				nt.t.Fatalf("the dropped peer named honest P%d: %s", k+1, c)
			}
		}
	}
}

// onlyDropped asserts that each of peers (0-based) ended the game with
// the seat of the peer named name dropped and no other seat.
func (nt *nodeTable) onlyDropped(name string, peers ...int) {
	nt.t.Helper()
	for _, i := range peers {
		st := nt.nodes[i].Status()
		if st.Phase != lockstep.PhaseOver {
			nt.t.Fatalf("peer %d is in phase %v", i+1, st.Phase)
		}
		for k := range nt.nodes {
			other := fmt.Sprintf("P%d", k+1)
			if st.Dropped[nt.seatOf(i, other)] != (other == name) {
				nt.t.Fatalf("peer %d: dropped %v; only %s should be", i+1, st.Dropped, name)
			}
		}
	}
}
