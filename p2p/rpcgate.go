package p2p

import (
	"sync"
	"sync/atomic"
	"time"

	pubsub "github.com/libp2p/go-libp2p-pubsub"
	"github.com/libp2p/go-libp2p/core/peer"
)

// Per-peer rate limit of what gossipsub processes at all. Every message a
// peer hands us costs memory before any validator sees it: gossipsub's
// seen-message cache and its peer-score delivery record each keep an
// entry per message id (for SeenMessagesTTL, and the cache's map never
// shrinks), and its validation queue holds the message itself. A member's
// valid signature does not help here (the validator comes after all
// that), and a member's own host is a direct peer, which gossipsub never
// graylists. So the RPC inspector (rpcGate) spends, per forwarding peer
// (authenticated by the connection, so a flood costs its sender), one
// token per message and its length in bytes; what is over is cut out of
// the RPC before gossipsub looks at it, and counted. Control messages
// (subscriptions, mesh upkeep) are never cut.
//
// An honest peer forwards what its own validator accepted: a few
// envelopes per game step from each member (a whole table at full bot
// speed sends under 400 a second), below peerRate; during a member's
// flood it forwards at most that member's memberRate and
// memberBytesRate (guard.go), still below peerRate and peerBytesRate
// (eight members' worth of bytes), so an honest peer's own envelopes get
// through. peerBytesBurst lets a few envelopes of the largest legal size
// pass at once.
const (
	peerBurst     = 2000
	peerRate      = 1000
	peerBytesRate = 2 << 20
)

var peerBytesBurst = float64(4 * MaxEnvelope)

// seenTTL is how long gossipsub remembers a message id (its seen cache
// and its score's delivery records; the default is 120 s). Entries live
// up to a minute longer (the cache is swept once a minute), so the
// memory they take is about (seenTTL + 1 min) times the rate peerRate
// allows. A copy arriving later is validated again; the Topic's own
// duplicate filter (topic.go) turns an accepted one away for the whole
// session, and lockstep de-duplicates by slot. Gossip (IHAVE/IWANT)
// refers only to messages of the last second (mcache history at a 200 ms
// heartbeat), well within seenTTL.
const seenTTL = 10 * time.Second

// rpcGate is the per-peer rate limit above, run by gossipsub's event loop
// (one goroutine) as its RPC inspector; drops may be read from anywhere.
type rpcGate struct {
	now   func() time.Time
	mu    sync.Mutex
	peers map[peer.ID]*peerBuckets

	dropped atomic.Int64
	// last is the peer whose messages were cut most recently.
	last atomic.Pointer[peer.ID]
}

// peerBuckets are one peer's buckets; cut counts what they refused.
type peerBuckets struct {
	msgs, bytes bucket
	cut         int64
}

func newRPCGate() *rpcGate {
	return &rpcGate{now: time.Now, peers: make(map[peer.ID]*peerBuckets)}
}

// inspect is the pubsub.WithAppSpecificRpcInspector hook: it keeps the
// messages of rpc that from's buckets allow and cuts the rest. It never
// drops the RPC itself, which also carries from's subscriptions and mesh
// control.
func (g *rpcGate) inspect(from peer.ID, rpc *pubsub.RPC) error {
	if len(rpc.Publish) == 0 {
		return nil
	}
	g.mu.Lock()
	now := g.now()
	b, ok := g.peers[from]
	if !ok {
		if len(g.peers) >= maxBucketMap {
			// Forget peers quiet long enough to have full buckets again:
			// they lose nothing by it.
			for k, x := range g.peers {
				if now.Sub(x.msgs.at) > time.Duration(peerBurst/peerRate+1)*time.Second {
					delete(g.peers, k)
				}
			}
		}
		b = &peerBuckets{msgs: bucket{tokens: peerBurst, at: now}, bytes: bucket{tokens: peerBytesBurst, at: now}}
		if len(g.peers) < maxBucketMap {
			g.peers[from] = b
		}
	}
	keep := rpc.Publish[:0]
	cut := 0
	for _, m := range rpc.Publish {
		if b.msgs.takeN(now, peerBurst, peerRate, 1) && b.bytes.takeN(now, peerBytesBurst, peerBytesRate, float64(len(m.GetData()))) {
			keep = append(keep, m)
		} else {
			cut++
		}
	}
	b.cut += int64(cut)
	g.mu.Unlock()
	// Clear what was cut, so the RPC holds no reference to it.
	for i := len(keep); i < len(rpc.Publish); i++ {
		rpc.Publish[i] = nil
	}
	rpc.Publish = keep
	if cut > 0 {
		g.dropped.Add(int64(cut))
		g.last.Store(&from)
	}
	return nil
}

// flooded is how many messages were cut so far and the peer cut last.
func (g *rpcGate) flooded() (int64, peer.ID) {
	var p peer.ID
	if l := g.last.Load(); l != nil {
		p = *l
	}
	return g.dropped.Load(), p
}

// cutOf is how many of id's messages were cut so far (while it is
// remembered: a quiet peer's count goes with its buckets).
func (g *rpcGate) cutOf(id peer.ID) int64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	if b, ok := g.peers[id]; ok {
		return b.cut
	}
	return 0
}

// gates maps each PubSub that NewPubSub made to its rpcGate, for the
// runner's drop counts.
var gates sync.Map // *pubsub.PubSub -> *rpcGate

func gateOf(ps *pubsub.PubSub) *rpcGate {
	if g, ok := gates.Load(ps); ok {
		return g.(*rpcGate)
	}
	return nil
}
