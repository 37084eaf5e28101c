//go:build hostilepending

package p2p_test

// Attacks whose defence is not on main: built with -tags hostilepending
// (docs/reliability.md lists them).

import (
	"context"
	"regexp"
	"testing"
	"time"

	"github.com/boardmesh/boardmesh/crypto"
	"github.com/boardmesh/boardmesh/engine"
	"github.com/boardmesh/boardmesh/p2p/hostile"
)

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
