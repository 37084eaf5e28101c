package cardsource_test

import (
	"bytes"
	"encoding/binary"
	"strings"
	"testing"

	"github.com/boardmesh/boardmesh/crypto"
	"github.com/boardmesh/boardmesh/engine"
	"github.com/boardmesh/boardmesh/engine/dominion"
	"github.com/boardmesh/boardmesh/engine/games"
	"github.com/boardmesh/boardmesh/lockstep"
)

// TestNodeSecretLiarVotedOut: at a secret Dominion table of four lockstep
// nodes, the last peer vanishes before its first shuffle of the setup
// chains; P1 runs a modified client whose piece of the vanished seat's
// key claims it holds that shuffle (it holds none), and then vanishes
// too. The two left wait for P1, named as the one to relay the shuffle,
// vote it out, and the chain goes on without the shuffle nobody left
// holds; they are told in plain words that P1 claimed it and never
// relayed it, play to the end with identical logs and states, no cheat
// named, and the log verifies on its own.
func TestNodeSecretLiarVotedOut(t *testing.T) {
	t.Parallel() // its own simulated clock and disks: it runs beside the others
	const n, liar = 4, 0
	nt := newNodeGameTable(t, dominion.Game, n, "liar 4", false, func(i int, c *lockstep.Config) { c.DropAfter, c.StallAfter = 2000, 500 })
	nt.gone, nt.goneKind, nt.goneAfter = n-1, crypto.KindShuffle, 1
	nt.left = make([]bool, n)
	lied := false
	nt.tamper = func(from int, env *crypto.Envelope) *crypto.Envelope {
		if from != liar || env.Kind != crypto.KindPiece || env.Seq > 0xff || lied {
			return env
		}
		// The honest body: the piece (a 32-byte blob), then its four
		// lists, empty (it holds nothing of the vanished seat's). The
		// lie: the first list names shuffle 0, the first setup chain's.
		b := env.Body
		if len(b) != 1+32+4 || !bytes.Equal(b[33:], []byte{0, 0, 0, 0}) {
			t.Fatalf("P1's piece body is %x, want a piece and four empty lists", b)
		}
		lie := append(append([]byte(nil), b[:33]...), 1)
		lie = binary.AppendUvarint(lie, 0)
		lie = append(lie, 0, 0, 0)
		bad := *env
		bad.Body = lie
		crypto.Sign(nt.ids[liar], &bad)
		lied, nt.left[liar] = true, true
		return &bad
	}
	nt.playTicking()
	if !lied {
		t.Fatal("P1 never signed a piece")
	}
	honest := []int{1, 2}
	for _, i := range honest {
		if st := nt.nodes[i].Status(); st.Phase != lockstep.PhaseOver {
			t.Fatalf("peer %d is in phase %v", i+1, st.Phase)
		}
		var waited, skipped []string
		for _, ev := range nt.events[i] {
			if ev.Kind == lockstep.EventWaiting && strings.Contains(ev.Text, "P1") && strings.Contains(ev.Text, "says it holds") {
				waited = append(waited, ev.Text)
			}
			if ev.Kind == lockstep.EventCards && strings.Contains(ev.Text, "goes on without") && strings.Contains(ev.Text, "P1") {
				skipped = append(skipped, ev.Text)
			}
		}
		if len(waited) == 0 || len(skipped) == 0 {
			t.Fatalf("peer %d: told it waited for P1 to relay the shuffle: %q; told the chain went on without it, naming P1: %q", i+1, waited, skipped)
		}
		if !strings.Contains(skipped[0], "said it held it but never relayed it") {
			t.Errorf("peer %d: %q does not say what P1 did", i+1, skipped[0])
		}
		t.Logf("peer %d: %s; %s", i+1, waited[0], skipped[0])
	}
	st := nt.nodes[1].Status()
	for s, mi := range st.Seats {
		name := st.Members[mi].Name
		if want := name == "P1" || name == "P4"; st.Dropped[s] != want {
			t.Errorf("seat %d (%s): dropped %v", s+1, name, st.Dropped[s])
		}
	}
	if !bytes.Equal(engine.Encode(nt.nodes[1].State()), engine.Encode(nt.nodes[2].State())) {
		t.Fatal("the two peers left end with different states")
	}
	if len(nt.entries[1]) != len(nt.entries[2]) {
		t.Fatalf("the two peers left hold %d and %d entries", len(nt.entries[1]), len(nt.entries[2]))
	}
	for k := range nt.entries[1] {
		if !crypto.Equal(nt.entries[1][k], nt.entries[2][k]) {
			t.Fatalf("entry %d differs between the two peers left", k)
		}
	}
	rep, err := lockstep.Verify(nt.entries[1], games.Lookup)
	if err != nil || rep.Result == nil {
		t.Fatalf("the log does not verify on its own: %v", err)
	}
}
