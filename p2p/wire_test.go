package p2p_test

import (
	"context"
	"testing"
	"time"

	"github.com/boardmesh/boardmesh/p2p"
)

// TestArenaOlderMemberGetsLoneEnvelopes: cy runs a build from before
// bundles, so its host does not advertise p2p.WireProtocol. A table with
// such a member must send every envelope alone, which every build reads,
// and play on as it always did: the observer on the topic receives no
// bundle of ada's or bob's, and the game ends identical everywhere, nobody
// accused. (cy itself is this build with its marker taken away, so it still
// bundles to ada and bob, who read them.) (TestArenaSilentHostile is the same table with every member
// advertising the marker: there most envelopes go in bundles.)
func TestArenaOlderMemberGetsLoneEnvelopes(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	a := newArena(t, ctx, arenaConfig{})
	old := a.tbl.Peers[cy].Host
	old.RemoveStreamHandler(p2p.WireProtocol)
	// Identify pushes the change to ada and bob; wait until both have it,
	// so that the test is of the sending rule, not of identify's timing.
	for _, p := range []int{ada, bob} {
		ps := a.tbl.Peers[p].Host.Peerstore()
		for {
			got, err := ps.SupportsProtocols(old.ID(), p2p.WireProtocol)
			if err == nil && len(got) == 0 {
				break
			}
			if ctx.Err() != nil {
				t.Fatalf("%s still lists cy's wire marker after the test's deadline", a.name(p))
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
	a.start(ctx)
	a.wait(all3, 80*time.Second)
	a.finishedIdentical(all3)
	a.framesNobody(all3, all3)
	msgs, envs := a.bad.Received()
	t.Logf("%d network messages carried %d envelopes; cy's own bundles (a new build's, to readers of bundles): %d", msgs, envs, a.bad.Bundles(a.keys[cy].ID()))
	if envs == 0 {
		t.Fatal("the observer received nothing from the table")
	}
	for _, p := range []int{ada, bob} {
		if n := a.bad.Bundles(a.keys[p].ID()); n > 0 {
			t.Errorf("%s sent %d bundles to a table with an older member", a.name(p), n)
		}
	}
}
