package p2p

import (
	"context"
	"sync"
	"time"

	pubsub "github.com/libp2p/go-libp2p-pubsub"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/libp2p/go-libp2p/core/protocol"
)

// meshWatch follows, for one PubSub made by NewPubSub, which peers are its
// direct peers and which are in its mesh of each topic (gossipsub's
// tracer reports every graft and prune), so that WaitPeers can tell when a
// peer will get what we publish and what we forward, and return then
// rather than after a fixed wait for the next heartbeat.
type meshWatch struct {
	mu     sync.Mutex
	direct map[peer.ID]bool
	mesh   map[string]map[peer.ID]bool
	// changed is closed, and replaced, at every change.
	changed chan struct{}
}

// watches maps a *pubsub.PubSub of NewPubSub to its meshWatch, for the
// life of the PubSub's context.
var watches sync.Map

func newMeshWatch() *meshWatch {
	return &meshWatch{direct: map[peer.ID]bool{}, mesh: map[string]map[peer.ID]bool{}, changed: make(chan struct{})}
}

func watchOf(ps *pubsub.PubSub) *meshWatch {
	w, _ := watches.Load(ps)
	mw, _ := w.(*meshWatch)
	return mw
}

// register keeps w for ps until ctx, the PubSub's own, is done.
func (w *meshWatch) register(ctx context.Context, ps *pubsub.PubSub) {
	watches.Store(ps, w)
	go func() {
		<-ctx.Done()
		watches.Delete(ps)
	}()
}

func (w *meshWatch) update(f func()) {
	if w == nil {
		return
	}
	w.mu.Lock()
	f()
	close(w.changed)
	w.changed = make(chan struct{})
	w.mu.Unlock()
}

// addDirectPeer makes d a direct peer of ps and tells ps's meshWatch.
func addDirectPeer(ps *pubsub.PubSub, d peer.AddrInfo) error {
	if err := ps.AddDirectPeer(d); err != nil {
		return err
	}
	w := watchOf(ps)
	w.update(func() { w.direct[d.ID] = true })
	return nil
}

// reaches says whether p gets what we forward on topic (a direct peer, or
// one in our mesh), and returns a channel closed at the next change.
func (w *meshWatch) reaches(topic string, p peer.ID) (bool, <-chan struct{}) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.direct[p] || w.mesh[topic][p], w.changed
}

// meshGrace bounds how long WaitPeers waits, once every peer is on the
// topic, for those that are neither direct peers nor grafted yet: a bit
// more than one heartbeat (NewPubSub), after which gossipsub has grafted
// whom it will; lockstep re-sends and fetches whatever is missed.
const meshGrace = 250 * time.Millisecond

// meshRecheck is how often WaitPeers looks again with no wake-up, in case
// gossipsub changes what it lists without an event or a trace: a safety
// net behind the wake-ups, as often as the poll it replaced, so a wait is
// never longer than before.
const meshRecheck = 20 * time.Millisecond

// The pubsub.RawTracer methods: grafts, prunes and new streams matter here.

// OnNewOutboundStream wakes the waiters: gossipsub lists a subscribed
// peer (Topic.ListPeers) only once it has a stream to it, which may come
// after the subscription and its topic event.
func (w *meshWatch) OnNewOutboundStream(peer.ID, protocol.ID) { w.update(func() {}) }

func (w *meshWatch) Graft(p peer.ID, topic string) {
	w.update(func() {
		if w.mesh[topic] == nil {
			w.mesh[topic] = map[peer.ID]bool{}
		}
		w.mesh[topic][p] = true
	})
}

func (w *meshWatch) Prune(p peer.ID, topic string) {
	w.update(func() { delete(w.mesh[topic], p) })
}

func (w *meshWatch) Leave(topic string) { w.update(func() { delete(w.mesh, topic) }) }

func (*meshWatch) OnClosedOutboundStream(peer.ID)                       {}
func (*meshWatch) Join(string)                                          {}
func (*meshWatch) ValidateMessage(*pubsub.Message)                      {}
func (*meshWatch) DeliverMessage(*pubsub.Message)                       {}
func (*meshWatch) RejectMessage(*pubsub.Message, string)                {}
func (*meshWatch) DuplicateMessage(*pubsub.Message)                     {}
func (*meshWatch) ThrottlePeer(peer.ID)                                 {}
func (*meshWatch) RecvRPC(*pubsub.RPC)                                  {}
func (*meshWatch) SendRPC(*pubsub.RPC, peer.ID)                         {}
func (*meshWatch) SendRPCCompleted(*pubsub.RPC, peer.ID, time.Duration) {}
func (*meshWatch) DropRPC(*pubsub.RPC, peer.ID)                         {}
func (*meshWatch) UndeliverableMessage(*pubsub.Message)                 {}

var _ pubsub.RawTracer = (*meshWatch)(nil)
