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

// TestCriticalRounds: one round per distinct (kind, seq) slot.
func TestCriticalRounds(t *testing.T) {
	var log []*crypto.Envelope
	add := func(k crypto.Kind, seq uint64, times int) {
		for range times {
			log = append(log, &crypto.Envelope{Kind: k, Seq: seq})
		}
	}
	add(crypto.KindJoin, 0, 3)
	add(crypto.KindRoster, 0, 1)
	add(crypto.KindAccept, 0, 3)
	add(crypto.KindReveal, 0, 3) // the seat draw
	add(crypto.KindAction, 1, 1)
	add(crypto.KindReveal, 1, 3)
	add(crypto.KindAction, 2, 1)
	add(crypto.KindCheckpoint, 3, 3)
	if got := CriticalRounds(log); got != 8 {
		t.Fatalf("CriticalRounds = %d, want 8", got)
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
