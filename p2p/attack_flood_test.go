package p2p_test

import (
	"context"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/boardmesh/boardmesh/crypto"
	"github.com/boardmesh/boardmesh/engine"
	"github.com/boardmesh/boardmesh/p2p/hostile"
)

// TestAttackMemberFloodIsNamed: bob's key floods envelopes for steps far
// ahead, through the hostile peer, a thousand a second: over a member's
// rate, within what a peer's gossip gate lets through, so the honest
// validators check them and see whose they are. Ada and cy name bob as
// a flooder in plain words with his seat counted from 1 (the envelopes
// they dropped never reach their nodes, so before the runner named the
// member nobody was told), and the game finishes alike.
func TestAttackMemberFloodIsNamed(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	a := newArena(t, ctx, arenaConfig{botDelay: 50 * time.Millisecond})
	a.start(ctx)
	v := a.waitPlaying(ctx, ada, 2)
	told := func(i int) bool {
		for _, e := range a.eventsOf(i) {
			if strings.HasPrefix(e.Text, "flood: ") && strings.Contains(e.Text, "bob (seat ") {
				return true
			}
		}
		return false
	}
	// At most 30 s and 30,000 envelopes, in batches of 100 every 100 ms,
	// until both have named bob.
	sent := 0
	for sent < 30000 && !(told(ada) && told(cy)) && ctx.Err() == nil {
		for range 100 {
			env := hostile.Signed(a.keys[bob], &crypto.Envelope{Session: v.st.Session, Seq: v.st.Seq + 1000 + uint64(sent), Kind: crypto.KindAction,
				Body: hostile.ActionBody(engine.Action{Op: 1, Args: []int32{int32(sent)}})})
			_ = a.bad.Publish(ctx, env)
			sent++
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Logf("%d envelopes sent", sent)
	a.named([]int{ada, cy}, bob, regexp.MustCompile(`^flood: bob \(seat \d\) sends more than this peer takes: over 500 envelopes`))
	a.wait(all3, 90*time.Second)
	a.finishedIdentical(all3)
}
