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

// TestAttackMemberFloodIsNamed: bob's key floods envelopes of about a
// KiB for steps far ahead, through the hostile peer, a thousand a
// second: what the gossip gate lets through, over a member's rates, so
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
	// Bob's key signs ahead, on its own goroutine, while the sender sends
	// 100 every 100 ms by the clock (1,000 a second: what the gate lets a
	// peer through, over bob's 500), until both have named bob: a few
	// seconds on a quiet machine, a minute or more under -race, where a
	// starved validator sees little more than 500 a second; at most
	// 240,000 envelopes. Signing inside the send loop held the sender
	// itself under 500 a second under -race (1.8 ms an envelope), so
	// nobody was over the rate to be named. Each envelope is padded to
	// about a KiB, as a flooder's may be: then bob is over his bytes
	// (256 KiB a second) as soon as a validator sees 300 of his a second,
	// so a validator starved under -race (0.6 ms a signature there, for
	// two validating peers and the signer on two cores) still names him
	// within seconds; the count bound alone is checked by
	// TestGuardLimitsAMembersRate.
	padding := make([]int32, 200)
	for i := range padding {
		padding[i] = 1<<30 + int32(i)
	}
	const most = 240000
	signed := make(chan *crypto.Envelope, 4000)
	fctx, stopSigning := context.WithCancel(ctx)
	defer stopSigning()
	go func() {
		defer close(signed)
		for i := range most {
			env := hostile.Signed(a.keys[bob], &crypto.Envelope{Session: v.st.Session, Seq: v.st.Seq + 1000 + uint64(i), Kind: crypto.KindAction,
				Body: hostile.ActionBody(engine.Action{Op: 1, Args: append([]int32{int32(i)}, padding...)})})
			select {
			case signed <- env:
			case <-fctx.Done():
				return
			}
		}
	}()
	// A head start: the first seconds of the flood are signed before any leaves.
	for len(signed) < cap(signed) && ctx.Err() == nil {
		time.Sleep(10 * time.Millisecond)
	}
	sent := 0
	next := time.Now()
	for !(told(ada) && told(cy)) && ctx.Err() == nil {
		for range 100 {
			env, ok := <-signed
			if !ok {
				break
			}
			_ = a.bad.Publish(ctx, env)
			sent++
		}
		if sent == most {
			break
		}
		next = next.Add(100 * time.Millisecond)
		time.Sleep(time.Until(next))
	}
	stopSigning()
	t.Logf("%d envelopes of about %d bytes sent", sent, len(hostile.ActionBody(engine.Action{Op: 1, Args: padding})))
	release()
	a.named([]int{ada, cy}, bob, regexp.MustCompile(`^flood: bob \(seat \d\) sends more than this peer takes: over 500 envelopes`))
	a.wait(all3, 90*time.Second)
	a.finishedIdentical(all3)
}
