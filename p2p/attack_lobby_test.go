package p2p_test

// Attacks on the lobby, a lying state envelope and an action out of turn,
// against an in-process table (what `play` builds).

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

// TestAttackLyingState: bob sends a state envelope for a step whose
// checkpoints everyone signed alike, carrying an older state (well
// formed, hashes consistent, just not the state at that step). The
// checkpoints prove bob lies: no honest player's move may be blamed, and
// bob is the suspect.
func TestAttackLyingState(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	a := newArena(t, ctx, arenaConfig{botDelay: 20 * time.Millisecond})
	a.start(ctx)
	old := a.waitPlaying(ctx, ada, 2)
	oldBytes := engine.Encode(old.state)
	// A later step whose checkpoints all three signed alike: a "state"
	// for it that differs is a lie, and the signed checkpoints prove it.
	var cp *crypto.Envelope
	for cp == nil {
		_, err := a.bad.WaitSeen(ctx, func(e *crypto.Envelope) bool {
			return e.Kind == crypto.KindCheckpoint && e.Seq > old.st.Seq
		})
		if err != nil {
			t.Fatal(err)
		}
		bySeq := map[uint64]map[crypto.PeerID]*crypto.Envelope{}
		for _, e := range a.bad.Seen() {
			if e.Kind == crypto.KindCheckpoint && e.Seq > old.st.Seq {
				if bySeq[e.Seq] == nil {
					bySeq[e.Seq] = map[crypto.PeerID]*crypto.Envelope{}
				}
				bySeq[e.Seq][e.Author] = e
			}
		}
		for _, m := range bySeq {
			if len(m) == 3 {
				cp = m[a.keys[ada].ID()]
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	h := crypto.Hash(sha256Sum(oldBytes))
	lie := hostile.Signed(a.keys[bob], &crypto.Envelope{Session: cp.Session, Seq: cp.Seq, Kind: crypto.KindState, StateHash: h,
		Body: hostile.StateBody(cp.Seq, []crypto.Hash{h}, oldBytes)})
	if err := a.bad.Publish(ctx, lie); err != nil {
		t.Fatal(err)
	}
	a.wait(all3, 80*time.Second)
	a.noPanic(all3)
	for _, i := range []int{ada, cy} {
		for _, r := range a.tbl.Peers[i].Node.Reports() {
			if r.EntryAuthor != "" && r.EntryAuthor != a.keys[bob].ID() {
				t.Errorf("%s's desync report blames another than the liar: %s", a.name(i), r)
			}
		}
	}
	a.framesNobody([]int{ada, cy}, []int{ada, cy})
	a.named([]int{ada, cy}, bob, regexp.MustCompile(`(?i)state`))
	a.finishedIdentical([]int{ada, cy})
}

// TestAttackOutOfTurn: bob signs an action for a step where another seat
// is to act. It is refused and bob named, with the engine's reason in
// seats counted from 1; the game goes on.
func TestAttackOutOfTurn(t *testing.T) {
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
