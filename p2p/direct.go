package p2p

import (
	"context"
	"sync"
	"time"

	pubsub "github.com/libp2p/go-libp2p-pubsub"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/libp2p/go-libp2p/core/protocol"
)

// directWatch follows, for one PubSub made by NewPubSub, which peers are
// its gossipsub direct peers, and wakes whoever waits (WaitPeers) when
// gossipsub opens a stream to a peer (its tracer reports it): gossipsub
// lists a subscribed peer only once it has a stream to it, which can come
// after the peer's topic event.
type directWatch struct {
	mu     sync.Mutex
	direct map[peer.ID]bool
	// changed is closed, and replaced, at every change.
	changed chan struct{}
}

// watches maps a *pubsub.PubSub of NewPubSub to its directWatch, for the
// life of the PubSub's context.
var watches sync.Map

func newDirectWatch() *directWatch {
	return &directWatch{direct: map[peer.ID]bool{}, changed: make(chan struct{})}
}

func watchOf(ps *pubsub.PubSub) *directWatch {
	w, _ := watches.Load(ps)
	dw, _ := w.(*directWatch)
	return dw
}

// register keeps w for ps until ctx, the PubSub's own, is done.
func (w *directWatch) register(ctx context.Context, ps *pubsub.PubSub) {
	watches.Store(ps, w)
	context.AfterFunc(ctx, func() { watches.Delete(ps) })
}

func (w *directWatch) update(f func()) {
	if w == nil {
		return
	}
	w.mu.Lock()
	f()
	close(w.changed)
	w.changed = make(chan struct{})
	w.mu.Unlock()
}

// addDirectPeer makes d a direct peer of ps and tells ps's directWatch.
func addDirectPeer(ps *pubsub.PubSub, d peer.AddrInfo) error {
	if err := ps.AddDirectPeer(d); err != nil {
		return err
	}
	w := watchOf(ps)
	w.update(func() { w.direct[d.ID] = true })
	return nil
}

// isDirect says whether p is a direct peer, and returns a channel closed
// at the next change or new stream.
func (w *directWatch) isDirect(p peer.ID) (bool, <-chan struct{}) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.direct[p], w.changed
}

// meshGrace is how long WaitPeers waits, once every peer is on the topic,
// when one of them is not a direct peer: a bit more than one heartbeat
// (NewPubSub), by which gossipsub has grafted it into the mesh, so that
// messages we forward reach it. Lockstep re-sends and fetches whatever is
// missed all the same.
const meshGrace = 250 * time.Millisecond

// peerRecheck is how often WaitPeers looks again with no wake-up, in case
// gossipsub changes what it lists without an event or a trace: a safety
// net behind the wake-ups, as often as the poll it replaced, so a wait is
// never longer than before.
const peerRecheck = 20 * time.Millisecond

// The pubsub.RawTracer methods: only new streams matter here.

// OnNewOutboundStream wakes the waiters.
func (w *directWatch) OnNewOutboundStream(peer.ID, protocol.ID) { w.update(func() {}) }

func (*directWatch) OnClosedOutboundStream(peer.ID)                       {}
func (*directWatch) Join(string)                                          {}
func (*directWatch) Leave(string)                                         {}
func (*directWatch) Graft(peer.ID, string)                                {}
func (*directWatch) Prune(peer.ID, string)                                {}
func (*directWatch) ValidateMessage(*pubsub.Message)                      {}
func (*directWatch) DeliverMessage(*pubsub.Message)                       {}
func (*directWatch) RejectMessage(*pubsub.Message, string)                {}
func (*directWatch) DuplicateMessage(*pubsub.Message)                     {}
func (*directWatch) ThrottlePeer(peer.ID)                                 {}
func (*directWatch) RecvRPC(*pubsub.RPC)                                  {}
func (*directWatch) SendRPC(*pubsub.RPC, peer.ID)                         {}
func (*directWatch) SendRPCCompleted(*pubsub.RPC, peer.ID, time.Duration) {}
func (*directWatch) DropRPC(*pubsub.RPC, peer.ID)                         {}
func (*directWatch) UndeliverableMessage(*pubsub.Message)                 {}

var _ pubsub.RawTracer = (*directWatch)(nil)
