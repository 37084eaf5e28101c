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
// ahead, through the hostile peer, up to two thousand a second: the
// gossip gate lets a thousand a second through, over a member's rate, so
// the honest validators check them and see whose they are. Ada and cy name bob as
// a flooder in plain words with his seat counted from 1 (the envelopes
// they dropped never reach their nodes, so before the runner named the
// member nobody was told), and the game finishes alike.
func TestAttackMemberFloodIsNamed(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 330*time.Second)
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
	// Bob's own peer is held while his key floods, so the game cannot end
	// before a slow peer (under -race, validation starved) has seen enough
	// of the flood to name him; the others keep running and validating.
	release := a.pause(ctx, bob)
	defer release()
	// In batches of 200 every 100 ms (the gate lets a peer through at
	// 1,000 a second, over bob's 500), until both have named bob: a few
	// seconds on a quiet machine, a minute or more under -race, where a
	// starved validator sees little more than 500 a second; at most
	// 240,000 envelopes.
	sent := 0
	for sent < 240000 && !(told(ada) && told(cy)) && ctx.Err() == nil {
		for range 200 {
			env := hostile.Signed(a.keys[bob], &crypto.Envelope{Session: v.st.Session, Seq: v.st.Seq + 1000 + uint64(sent), Kind: crypto.KindAction,
				Body: hostile.ActionBody(engine.Action{Op: 1, Args: []int32{int32(sent)}})})
			_ = a.bad.Publish(ctx, env)
			sent++
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Logf("%d envelopes sent", sent)
	release()
	a.named([]int{ada, cy}, bob, regexp.MustCompile(`^flood: bob \(seat \d\) sends more than this peer takes: over 500 envelopes`))
	a.wait(all3, 90*time.Second)
	a.finishedIdentical(all3)
}
