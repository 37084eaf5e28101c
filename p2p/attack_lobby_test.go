package p2p_test

// Attacks on the lobby and an action out of turn, against an in-process
// table (what `play` builds). The lying state envelope is in attack_test.go.

import (
	"context"
	"crypto/rand"
	"regexp"
	"testing"
	"time"

	"github.com/boardmesh/boardmesh/crypto"
	"github.com/boardmesh/boardmesh/engine"
	"github.com/boardmesh/boardmesh/p2p/hostile"
)

// TestAttackOutsiderTwoJoins: an outsider sends two different joins to
// the lobby before the game starts (it used to stop the host in the lobby
// and crash it on a nil state). A `play` table knows its players, so its
// host counts only their joins (RunnerConfig.Guests): the outsider is
// never seated and leaves no trace on disk. The real host challenges
// joiners instead: cli/e2e TestLobbyHijack.
func TestAttackOutsiderTwoJoins(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	a := newArena(t, ctx, arenaConfig{})
	var c1, c2 crypto.Hash
	rand.Read(c1[:])
	rand.Read(c2[:])
	for _, c := range []crypto.Hash{c1, c2} {
		if err := a.bad.Publish(ctx, hostile.Join(a.bad.Identity, a.tbl.Lobby, "mallory", c)); err != nil {
			t.Fatal(err)
		}
	}
	a.start(ctx)
	a.wait(all3, 80*time.Second)
	a.finishedIdentical(all3)
	a.outsiderLeftNoTrace(all3, a.bad.Identity)
}

// TestAttackLobbyHijack: fake joiners fill the lobby before the real
// players' joins arrive; the host starts when three have joined
// (--start-when). Only the table's own players may be seated, so the real
// players play and the fakes are left out.
func TestAttackLobbyHijack(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	a := newArena(t, ctx, arenaConfig{})
	var fakes []*crypto.Identity
	for i := range 3 {
		id := mustIdentity(t)
		fakes = append(fakes, id)
		var c crypto.Hash
		rand.Read(c[:])
		if err := a.bad.Publish(ctx, hostile.Join(id, a.tbl.Lobby, "fake"+string(rune('1'+i)), c)); err != nil {
			t.Fatal(err)
		}
	}
	a.start(ctx)
	a.wait(all3, 80*time.Second)
	a.finishedIdentical(all3)
	for _, f := range fakes {
		a.outsiderLeftNoTrace(all3, f)
	}
}

// TestAttackOutOfTurn: bob signs an action for a step where another seat
// is to act. It is refused and bob named, with the engine's reason in
// seats counted from 1; the game goes on.
func TestAttackOutOfTurn(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	a := newArena(t, ctx, arenaConfig{botDelay: 150 * time.Millisecond})
	a.start(ctx)
	for {
		v := a.waitPlaying(ctx, ada, 0)
		if v.state.ToAct().Kind == engine.ActorSeat && len(v.st.Waiting) > 0 && v.st.Waiting[0].What == "an action" && v.st.Waiting[0].Name != a.name(bob) {
			legal := v.state.Legal(nil)
			env := hostile.Signed(a.keys[bob], &crypto.Envelope{Session: v.st.Session, Seq: v.st.Seq, Kind: crypto.KindAction,
				StateHash: v.hash, Body: hostile.ActionBody(legal[0])})
			if err := a.bad.Publish(ctx, env); err != nil {
				t.Fatal(err)
			}
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	a.wait(all3, 80*time.Second)
	a.finishedIdentical(all3)
	a.named([]int{ada, cy}, bob, regexp.MustCompile(`(?i)out of turn|not .*turn`))
}
