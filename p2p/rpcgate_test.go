package p2p

import (
	"testing"
	"time"

	pubsub "github.com/libp2p/go-libp2p-pubsub"
	pb "github.com/libp2p/go-libp2p-pubsub/pb"
	"github.com/libp2p/go-libp2p/core/peer"
)

// rpcOf is an RPC carrying n messages of size bytes and a subscription.
func rpcOf(n, size int) *pubsub.RPC {
	rpc := &pubsub.RPC{}
	topic := "t"
	sub := true
	rpc.Subscriptions = []*pb.RPC_SubOpts{{Topicid: &topic, Subscribe: &sub}}
	for range n {
		rpc.Publish = append(rpc.Publish, &pb.Message{Data: make([]byte, size), Topic: &topic})
	}
	return rpc
}

// The gossip gate lets a peer's burst through, cuts what is over it out
// of the RPC (keeping the RPC's subscriptions), counts it against that
// peer and no other, and lets the peer's next messages through at its
// rate; a peer's bytes are bounded too (a few envelopes of the largest
// size at once).
func TestGateCutsAPeersFloodOutOfItsRPCs(t *testing.T) {
	t.Parallel()
	g := newRPCGate()
	now := time.Unix(1000, 0)
	g.now = func() time.Time { return now }
	flooder, other := peer.ID("flooder"), peer.ID("other")
	kept := func(from peer.ID, n, size int) int {
		rpc := rpcOf(n, size)
		if err := g.inspect(from, rpc); err != nil {
			t.Fatalf("the gate dropped a whole RPC: %v", err)
		}
		if len(rpc.Subscriptions) != 1 {
			t.Fatalf("the gate cut the RPC's subscriptions")
		}
		for _, m := range rpc.Publish {
			if m == nil {
				t.Fatal("a kept message is nil")
			}
		}
		return len(rpc.Publish)
	}
	total := 0
	for range 10 {
		total += kept(flooder, 500, 100)
	}
	if total != peerBurst {
		t.Fatalf("5,000 messages at once: %d kept, want the burst of %d", total, peerBurst)
	}
	if n, who := g.flooded(); n != 5000-peerBurst || who != flooder {
		t.Fatalf("cut %d, last %q; want %d from the flooder", n, who, 5000-peerBurst)
	}
	if g.cutOf(flooder) != 5000-peerBurst || g.cutOf(other) != 0 {
		t.Fatalf("cut counts: flooder %d, other %d", g.cutOf(flooder), g.cutOf(other))
	}
	if got := kept(other, 100, 100); got != 100 {
		t.Fatalf("another peer's messages were cut: %d of 100 kept", got)
	}
	if got := kept(flooder, 1, 100); got != 0 {
		t.Fatalf("the flooder's next message went through before any refill")
	}
	now = now.Add(time.Second)
	if got := kept(flooder, 2*peerRate, 100); got != peerRate {
		t.Fatalf("after a second: %d kept, want %d", got, peerRate)
	}
	// Bytes: a new peer may send 4 envelopes of the largest size at once,
	// not 5.
	big := peer.ID("big")
	if got := kept(big, 5, MaxEnvelope); got != 4 {
		t.Fatalf("5 largest envelopes at once: %d kept, want 4", got)
	}
	now = now.Add(time.Second)
	if got := kept(big, 5, MaxEnvelope); got != peerBytesRate/MaxEnvelope {
		t.Fatalf("a second later: %d largest envelopes kept, want %d", got, peerBytesRate/MaxEnvelope)
	}
}
