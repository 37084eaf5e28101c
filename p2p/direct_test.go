package p2p

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/boardmesh/boardmesh/crypto"

	pubsub "github.com/libp2p/go-libp2p-pubsub"
	"github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/core/peer"
)

// TestDirectWatch: the watch knows the direct peers it was told of and
// wakes whoever waits at every change and every new stream.
func TestDirectWatch(t *testing.T) {
	t.Parallel()
	w := newDirectWatch()
	a := peer.ID("a")
	ok, changed := w.isDirect(a)
	if ok {
		t.Fatal("a fresh watch has a direct peer")
	}
	w.OnNewOutboundStream(a, "/meshsub/1.1.0")
	select {
	case <-changed:
	default:
		t.Fatal("a new stream did not wake the waiter")
	}
	_, changed = w.isDirect(a)
	w.update(func() { w.direct[a] = true })
	select {
	case <-changed:
	default:
		t.Fatal("a new direct peer did not wake the waiter")
	}
	if ok, _ := w.isDirect(a); !ok {
		t.Fatal("a direct peer is not known")
	}
	var none *directWatch
	none.update(func() { t.Fatal("a nil watch ran an update") })
}

// TestCriticalRounds: a round per group of the log that waits for another
// peer's envelope; what a peer signs with its own envelope before it (its
// reveal after its action, its next action, the first action of a turn
// after its checkpoint) is in the same round.
func TestCriticalRounds(t *testing.T) {
	t.Parallel()
	var log []*crypto.Envelope
	add := func(k crypto.Kind, seq uint64, authors ...crypto.PeerID) {
		for _, a := range authors {
			log = append(log, &crypto.Envelope{Kind: k, Seq: seq, Author: a})
		}
	}
	a, b, c := crypto.PeerID("a"), crypto.PeerID("b"), crypto.PeerID("c")
	add(crypto.KindJoin, 0, a, b, c)       // 1
	add(crypto.KindRoster, 0, a)           // 2
	add(crypto.KindAccept, 0, a, b, c)     // 2 (a's, with its roster), 3
	add(crypto.KindReveal, 0, a, b, c)     // 4: the seat draw
	add(crypto.KindAction, 1, b)           // 5
	add(crypto.KindReveal, 1, a, b, c)     // 6 (b's, with its action: 5)
	add(crypto.KindAction, 2, b)           // 7
	add(crypto.KindAction, 3, b)           // 7: b's second move in a row
	add(crypto.KindCheckpoint, 4, a, b, c) // 8 (b's: 7)
	add(crypto.KindAction, 4, c)           // 8: with c's checkpoint
	add(crypto.KindReveal, 2, a, b, c)     // 9 (c's: 8)
	if got := CriticalRounds(log); got != 9 {
		t.Fatalf("CriticalRounds = %d, want 9", got)
	}
}

// TestWaitPeersSeesEveryPeer: at a table of eight direct peers, fully
// connected, every peer's WaitPeers returns once the others are on the
// topic, on a first topic and on further ones joined over the same
// connections (as bench net's floor does), however subscriptions, streams
// and topic events interleave: gossipsub lists a peer only once it has a
// stream to it, which can come after the peer's topic event, and a
// wait that heard nothing more stalled until its deadline (seen as a 15 s
// start in bench net). The deadline only guards against a hang.
func TestWaitPeersSeesEveryPeer(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	const n = 8
	hs := make([]host.Host, n)
	for i := range hs {
		hs[i] = newTestHost(t)
	}
	for i := range hs {
		for j := i + 1; j < len(hs); j++ {
			connect(t, hs[i], hs[j])
		}
	}
	var ids []peer.ID
	for _, h := range hs {
		ids = append(ids, h.ID())
	}
	pss := make([]*pubsub.PubSub, n)
	for i, h := range hs {
		var direct []peer.AddrInfo
		for j, o := range hs {
			if j != i {
				direct = append(direct, peer.AddrInfo{ID: o.ID(), Addrs: o.Addrs()})
			}
		}
		ps, err := NewPubSub(ctx, h, direct)
		if err != nil {
			t.Fatal(err)
		}
		pss[i] = ps
	}
	for round := range 6 {
		errs := make(chan error, n)
		for i, ps := range pss {
			tp, err := JoinTopic(ps, hs[i].ID(), TopicName(fmt.Sprintf("wait%d", round)), testVerify)
			if err != nil {
				t.Fatal(err)
			}
			defer tp.Close()
			go func() { errs <- tp.WaitPeers(ctx, ids) }()
		}
		for range n {
			if err := <-errs; err != nil {
				t.Fatalf("topic %d: %v", round, err)
			}
		}
	}
}
