package cardsource_test

import (
	"encoding/binary"
	"regexp"
	"strings"
	"testing"

	"github.com/boardmesh/boardmesh/crypto"
	"github.com/boardmesh/boardmesh/engine"
	"github.com/boardmesh/boardmesh/engine/games"
	"github.com/boardmesh/boardmesh/engine/infinitecity"
	"github.com/boardmesh/boardmesh/lockstep"
)

// TestNodeClaimAfterCheatSurvivesRestart: at a secret table of two, P2
// signs a wrong decryption share, a forged shuffle, a card key with a
// proof that fails, or a move that shows a card of its hand as another
// card (a bad reveal); P1 names it and may
// claim the win, but crashes first and comes back from its disk. The
// restarted P1 knows again that P2 is proven to cheat (its status says
// so, and it may claim at once, with no drop time to wait), and its
// claim names the cheat with P2's signed envelope: the result on its
// screen and in the replay of its log reads as it does without the
// restart (TestNodeCheatAtTwoPausesAndClaims).
func TestNodeClaimAfterCheatSurvivesRestart(t *testing.T) {
	for _, c := range []struct {
		kind   crypto.Kind
		edit   func(*testing.T, []byte) []byte
		what   *regexp.Regexp
		result string
	}{
		{crypto.KindShare, swapShares, shareLie, "P2 was convicted of a cheat (a wrong decryption share: the share envelope P2 signed is in the claim); P1 claimed the win"},
		{crypto.KindShuffle, swapShuffle, regexp.MustCompile(`shuffle.*does not prove`), "P2 was convicted of a cheat (a forged shuffle: the shuffle envelope P2 signed is in the claim); P1 claimed the win"},
		// (A key the layer refuses: no card record holds it unless the
		// proof is kept on purpose.)
		{crypto.KindCardKey, badKeyProof, regexp.MustCompile(`card key does not come with a valid proof`), "P2 was convicted of a cheat (a card key whose proof fails: the card-key envelope P2 signed is in the claim); P1 claimed the win"},
		{crypto.KindAction, badReveal, regexp.MustCompile(`claims .* is card \d+, but its ciphertext holds card`), "P2 was convicted of a cheat (a revealed card that does not match its ciphertext: the action envelope P2 signed is in the claim); P1 claimed the win"},
	} {
		for _, restart := range []bool{false, true} {
			name := c.kind.String()
			if restart {
				name += ", restart"
			}
			t.Run(name, func(t *testing.T) { claimAfterCheat(t, c.kind, c.edit, c.what, c.result, restart) })
		}
	}
}

// badKeyProof is a card-key body whose proof of knowledge is changed: the
// key's proof no longer checks (the low byte of its last scalar, still a
// canonical scalar).
func badKeyProof(t *testing.T, body []byte) []byte {
	out := append([]byte(nil), body...)
	out[len(out)-32] ^= 1
	return out
}

// badReveal is a secret action body whose first shown card is claimed to
// be another card (nil for a move that shows none).
func badReveal(t *testing.T, body []byte) []byte {
	blob := func(b []byte) ([]byte, []byte) {
		n, k := binary.Uvarint(b)
		if k <= 0 || uint64(len(b)-k) < n {
			t.Fatalf("a secret action body that does not decode: %x", body)
		}
		return b[k : k+int(n)], b[k+int(n):]
	}
	action, rest := blob(body)
	reveals, rest := blob(rest)
	rs, err := lockstep.DecodeReveals(reveals)
	if err != nil {
		t.Fatal(err)
	}
	if len(rs) == 0 {
		return nil
	}
	rs[0].Card ^= 1
	out := binary.AppendUvarint(nil, uint64(len(action)))
	out = append(out, action...)
	bad := lockstep.EncodeReveals(rs)
	out = binary.AppendUvarint(out, uint64(len(bad)))
	out = append(append(out, bad...), rest...)
	return out
}

func claimAfterCheat(t *testing.T, kind crypto.Kind, edit func(*testing.T, []byte) []byte, what *regexp.Regexp, result string, restart bool) {
	nt, cheated := cheatTable(t, infinitecity.Game, 2, "cheat at two "+kind.String(), kind, edit)
	untilClaim(t, nt)
	if !*cheated || !nt.nodes[0].Status().CanClaim {
		t.Fatalf("P2 cheated: %v; P1 may claim: %v", *cheated, nt.nodes[0].Status().CanClaim)
	}
	namedP2(t, nt, 0, what)
	if restart {
		entries := len(nt.entries[0])
		nt.restart(0, false, "claim restart")
		nt.run()
		if got := len(nt.entries[0]); got != entries {
			t.Fatalf("P1 holds %d entries after its restart, %d before", got, entries)
		}
	}
	a := nt.nodes[0]
	if p := a.Status().Pause; !strings.Contains(p, "paused: P2 is proven to cheat") || !strings.Contains(p, "claim the win") {
		t.Fatalf("the status says %q", p)
	}
	if err := a.Claim(); err != nil {
		t.Fatalf("P1 may not claim at once: %v", err)
	}
	nt.run()
	log := nt.entries[0]
	if last := log[len(log)-1]; last.Kind != crypto.KindClaim {
		t.Fatalf("the log ends with a %s entry", last.Kind)
	}
	var live *engine.Result
	for _, ev := range nt.events[0] {
		if ev.Kind == lockstep.EventGameOver {
			live = ev.Result
		}
	}
	if live == nil || live.Reason != result {
		t.Fatalf("P1's game over reads %+v, want %q", live, result)
	}
	rep, err := lockstep.Verify(log, games.Lookup)
	if err != nil || rep.Result == nil || rep.Result.Reason != result {
		t.Fatalf("the replay of P1's log reads %+v (%v), want %q", rep.Result, err, result)
	}
}

// untilClaim plays P1 and P2 with random bots until P1 may claim the win.
func untilClaim(t *testing.T, nt *nodeTable) {
	t.Helper()
	a := nt.nodes[0]
	r := engine.NewRand([]byte("bots"))
	for steps := 0; steps < 5000 && !a.Status().CanClaim; steps++ {
		busy := nt.run()
		for i := 0; i < 2; i++ {
			if node := nt.nodes[i]; nt.live(i) && node.CanAct() {
				st := node.State()
				if err := node.Act(engine.RandomBot{}.Choose(st, st.Legal(nil), r)); err != nil {
					t.Fatal(err)
				}
				busy = true
			}
		}
		if !busy {
			nt.now += 100
			a.Tick(nt.now)
		}
	}
}

// TestNodeBadRevealDropsTheMover: at a secret Infinite City table of four
// nodes, P2 plays a tile from its hand claiming it is another tile. Every
// honest node refuses the move, names P2, and (the refused move, signed by
// P2, is the proof each checked itself) votes at once to drop it, with
// drops by time off; the three play to the end with identical logs.
func TestNodeBadRevealDropsTheMover(t *testing.T) {
	nt, cheated := cheatTable(t, infinitecity.Game, 4, "bad reveal", crypto.KindAction, badReveal)
	cheaterDropped(t, nt, cheated, regexp.MustCompile(`claims .* is card \d+, but its ciphertext holds card`))
}
