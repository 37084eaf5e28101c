package p2p

import (
	"context"
	"crypto/sha256"
	"fmt"
	"sync"
	"time"

	pubsub "github.com/libp2p/go-libp2p-pubsub"
	pb "github.com/libp2p/go-libp2p-pubsub/pb"
	"github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/core/peer"
)

// Verdict is a topic validator's answer, mirroring gossipsub's.
type Verdict int

const (
	// Accept delivers the message and lets gossip forward it. Envelopes
	// from the future are accepted too: lockstep buffers them.
	Accept Verdict = iota
	// Reject drops the message and penalises the sender; only for what is
	// provably bad (a bad signature, another session).
	Reject
	// Ignore drops the message without blame (a duplicate).
	Ignore
)

// Verifier checks one message before gossip forwards it. It must be safe
// for concurrent use: gossipsub validates on several goroutines. What it
// returns besides the verdict (the decoded envelope, say) travels with the
// message to Next, so the reader need not decode or check it again.
type Verifier func(from peer.ID, data []byte) (Verdict, any)

// NewPubSub starts gossipsub on h for a table of peers.
//
// Options and why:
//   - Flood publish: a publisher sends its own message to every topic peer,
//     not only its mesh; with at most eight peers that is one hop to all.
//   - Direct peers: the roster, so they stay connected and always exchange
//     messages, mesh or not.
//   - No pubsub signing, no author, no seqno: every message is a lockstep
//     envelope that carries its own signature, which is what counts (it goes
//     into logs and catch-up answers, where a pubsub signature would not
//     follow it). Signing twice would only cost time.
//   - Message ID = SHA-256 of the bytes, since there is no author+seqno;
//     identical envelopes are then one message, which is what we want.
//   - Larger queues than the defaults, so a burst at a turn's end is not
//     dropped; lockstep's catch-up still covers what gets lost.
//   - Messages up to the largest legal envelope (MaxEnvelope), not
//     gossipsub's 1 MiB default: anything bigger is junk.
//   - Validation throttled (validateThrottle at once, across topics):
//     beyond that gossipsub drops messages instead of piling up
//     goroutines; lockstep's catch-up recovers an honest one.
//   - Each peer's messages bounded before gossipsub processes them
//     (rpcGate, the RPC inspector: peerRate, peerBytesRate), and message
//     ids remembered seenTTL (10 s, not 120): every message a peer sends
//     costs a seen-cache entry and a score record for that long, before
//     any validator; a flooding member (whose own host is a direct peer,
//     never graylisted) made that the bulk of an honest peer's memory.
//   - Peer scoring (scoreThresholds, topicScore): every envelope the
//     validator rejects counts against the peer that sent it; a few of
//     them and the peer is no longer gossiped to, then graylisted (its
//     messages are dropped unread) and pruned from the mesh. Members are
//     direct peers, which gossipsub never graylists, and an honest member
//     never forwards what our validator rejects (theirs is the same).
func NewPubSub(ctx context.Context, h host.Host, direct []peer.AddrInfo) (*pubsub.PubSub, error) {
	params := pubsub.DefaultGossipSubParams()
	// A short heartbeat grafts new subscribers sooner; the game waits for
	// every roster peer on the topic before it starts in any case.
	params.HeartbeatInterval = 200 * time.Millisecond
	params.HeartbeatInitialDelay = 20 * time.Millisecond
	params.DirectConnectTicks = 5
	gate := newRPCGate()
	watch := newDirectWatch()
	ps, err := pubsub.NewGossipSub(ctx, h,
		pubsub.WithAppSpecificRpcInspector(gate.inspect),
		pubsub.WithSeenMessagesTTL(seenTTL),
		pubsub.WithRawTracer(watch),
		pubsub.WithGossipSubParams(params),
		pubsub.WithFloodPublish(true),
		pubsub.WithMessageSignaturePolicy(pubsub.StrictNoSign),
		pubsub.WithNoAuthor(),
		pubsub.WithMessageIdFn(func(m *pb.Message) string {
			sum := sha256.Sum256(m.Data)
			return string(sum[:])
		}),
		pubsub.WithPeerOutboundQueueSize(1024),
		pubsub.WithValidateQueueSize(1024),
		pubsub.WithMaxMessageSize(maxPubSubMessage),
		pubsub.WithValidateThrottle(validateThrottle),
		pubsub.WithPeerScore(&pubsub.PeerScoreParams{
			SkipAtomicValidation: true,
			Topics:               map[string]*pubsub.TopicScoreParams{},
			AppSpecificScore:     func(peer.ID) float64 { return 0 },
			DecayInterval:        time.Second,
			DecayToZero:          0.01,
			RetainScore:          10 * time.Minute,
			SeenMsgTTL:           seenTTL,
		}, scoreThresholds),
	)
	if err != nil {
		return nil, fmt.Errorf("start gossipsub: %w", err)
	}
	gates.Store(ps, gate)
	// Whoever runs this gossipsub reads bundles (the topic validator and
	// every reader of ours take crypto.UnmarshalMessage): say so.
	advertiseWire(h)
	context.AfterFunc(ctx, func() { gates.Delete(ps) })
	// The direct peers go in through the event loop, not WithDirectPeers:
	// with that option go-libp2p-pubsub v0.19.0 ranges over its direct-peer
	// map on a goroutine of its own, unsynchronised with the AddDirectPeer
	// and RemoveDirectPeer calls the runner makes later (go test -race
	// reports it). The heartbeat dials them all the same.
	watch.register(ctx, ps)
	for _, d := range direct {
		if err := addDirectPeer(ps, d); err != nil {
			return nil, fmt.Errorf("start gossipsub: direct peer %s: %w", d.ID, err)
		}
	}
	return ps, nil
}

// validateThrottle bounds the validations running at once.
const validateThrottle = 256

// scoreThresholds: a peer whose score is below GossipThreshold gets no
// gossip from us, below PublishThreshold none of our publishes, below
// GraylistThreshold its messages are dropped unread. With topicScore one
// rejected envelope scores -10, three -90: a junk sender is graylisted
// after a handful and forgiven slowly (the counter decays by a tenth a
// second).
var scoreThresholds = &pubsub.PeerScoreThresholds{
	SkipAtomicValidation: true,
	GossipThreshold:      -10,
	PublishThreshold:     -50,
	GraylistThreshold:    -80,
}

// topicScore are the score parameters of a session topic: only P4,
// invalid messages. Time in mesh and delivery counts do not fit a table
// of eight where every peer is a direct peer.
var topicScore = &pubsub.TopicScoreParams{
	SkipAtomicValidation:           true,
	TopicWeight:                    1,
	TimeInMeshQuantum:              time.Second, // unused (weight 0) but a divisor
	InvalidMessageDeliveriesWeight: -10,
	InvalidMessageDeliveriesDecay:  0.9,
}

// Topic is one session's gossipsub topic with its validator and
// subscription.
type Topic struct {
	ps    *pubsub.PubSub
	name  string
	self  peer.ID
	topic *pubsub.Topic
	sub   *pubsub.Subscription

	mu sync.Mutex
	// seen and old are two generations of the hashes of accepted
	// messages: when seen holds maxSeen, it becomes old and a new one
	// starts, so a member flooding unique envelopes cannot grow it
	// without bound. A duplicate older than both generations is stepped
	// again, which lockstep de-duplicates by slot.
	seen, old map[[32]byte]struct{}
}

// maxSeen bounds one generation of Topic's duplicate filter.
const maxSeen = 1 << 16

// TopicName is the topic of a session.
func TopicName(session string) string { return "boardmesh/session/" + session }

// JoinTopic joins the topic name with verify as its validator and
// subscribes to it. The validator also drops duplicates for the life of the
// session (gossipsub forgets what it has seen after two minutes; a long
// game must not deliver a stale envelope twice).
func JoinTopic(ps *pubsub.PubSub, self peer.ID, name string, verify Verifier) (*Topic, error) {
	t := &Topic{ps: ps, name: name, self: self, seen: make(map[[32]byte]struct{}), old: map[[32]byte]struct{}{}}
	val := func(_ context.Context, from peer.ID, m *pubsub.Message) pubsub.ValidationResult {
		sum := sha256.Sum256(m.Data)
		t.mu.Lock()
		_, dup := t.seen[sum]
		if !dup {
			_, dup = t.old[sum]
		}
		t.mu.Unlock()
		if dup {
			return pubsub.ValidationIgnore
		}
		verdict, data := verify(from, m.Data)
		switch verdict {
		case Reject:
			return pubsub.ValidationReject
		case Ignore:
			return pubsub.ValidationIgnore
		}
		m.ValidatorData = data
		t.mu.Lock()
		if len(t.seen) >= maxSeen {
			t.old, t.seen = t.seen, make(map[[32]byte]struct{})
		}
		t.seen[sum] = struct{}{}
		t.mu.Unlock()
		return pubsub.ValidationAccept
	}
	if err := ps.RegisterTopicValidator(name, val, pubsub.WithValidatorTimeout(5*time.Second), pubsub.WithValidatorConcurrency(validateThrottle)); err != nil {
		return nil, fmt.Errorf("register validator for %s: %w", name, err)
	}
	topic, err := ps.Join(name)
	if err != nil {
		ps.UnregisterTopicValidator(name)
		return nil, fmt.Errorf("join topic %s: %w", name, err)
	}
	if err := topic.SetScoreParams(topicScore); err != nil {
		topic.Close()
		ps.UnregisterTopicValidator(name)
		return nil, fmt.Errorf("score parameters for %s: %w", name, err)
	}
	sub, err := topic.Subscribe(pubsub.WithBufferSize(4096))
	if err != nil {
		topic.Close()
		ps.UnregisterTopicValidator(name)
		return nil, fmt.Errorf("subscribe to %s: %w", name, err)
	}
	t.topic, t.sub = topic, sub
	return t, nil
}

// Publish broadcasts data to the topic.
func (t *Topic) Publish(ctx context.Context, data []byte) error {
	return t.topic.Publish(ctx, data)
}

// Message is one validated message from another peer.
type Message struct {
	From peer.ID // the peer that forwarded it, not necessarily its author
	Data []byte
	// Checked is what the Verifier returned with its Accept.
	Checked any
}

// Next returns the next validated message that another peer published;
// our own come back from gossipsub too and are skipped (the runner has
// already stepped them).
func (t *Topic) Next(ctx context.Context) (Message, error) {
	for {
		m, err := t.sub.Next(ctx)
		if err != nil {
			return Message{}, err
		}
		if m.ReceivedFrom == t.self {
			continue
		}
		return Message{From: m.ReceivedFrom, Data: m.Data, Checked: m.ValidatorData}, nil
	}
}

// Peers lists the peers we know to be subscribed to the topic.
func (t *Topic) Peers() []peer.ID { return t.topic.ListPeers() }

// WaitPeers blocks until every peer of want (other than us) is seen on the
// topic and will get what we publish and forward. For a direct peer (every
// member of a `play` table or a roster is one) that is as soon as it is
// listed: flood publish (NewPubSub) sends our messages to every subscribed
// peer, and direct peers get every message we forward, mesh or not. It
// wakes on gossipsub's peer events and new streams (with a recheck every
// peerRecheck as a safety net), not on a fixed wait. A peer that is not a
// direct peer is given meshGrace more once listed, about one heartbeat, to
// be grafted into the mesh, as before.
func (t *Topic) WaitPeers(ctx context.Context, want []peer.ID) error {
	events, err := t.topic.EventHandler()
	if err != nil {
		return err
	}
	defer events.Cancel()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	joined := make(chan struct{}, 1)
	go func() {
		for {
			if _, err := events.NextPeerEvent(ctx); err != nil {
				return
			}
			select {
			case joined <- struct{}{}:
			default:
			}
		}
	}()
	w := watchOf(t.ps)
	recheck := time.NewTicker(peerRecheck)
	defer recheck.Stop()
	for {
		// The wake-ups carry nothing; the topic's peer list and the
		// direct peers are the truth.
		var changed <-chan struct{}
		allDirect := w != nil
		if w != nil {
			for _, p := range want {
				if p == t.self {
					continue
				}
				var ok bool
				if ok, changed = w.isDirect(p); !ok {
					allDirect = false
				}
			}
		}
		missing := t.missing(want)
		if len(missing) == 0 {
			if allDirect {
				return nil
			}
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(meshGrace):
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for %d peer(s) to join the session topic (%s…): %w", len(missing), short(missing[0]), ctx.Err())
		case <-joined:
		case <-changed:
		case <-recheck.C:
		}
	}
}

func (t *Topic) missing(want []peer.ID) []peer.ID {
	have := t.topic.ListPeers()
	var missing []peer.ID
	for _, w := range want {
		if w == t.self {
			continue
		}
		found := false
		for _, h := range have {
			if h == w {
				found = true
				break
			}
		}
		if !found {
			missing = append(missing, w)
		}
	}
	return missing
}

// Close leaves the topic. Gossipsub cancels a subscription
// asynchronously, so closing the topic handle right after can report
// outstanding subscriptions; that is harmless and not returned.
func (t *Topic) Close() error {
	t.sub.Cancel()
	_ = t.topic.Close()
	_ = t.ps.UnregisterTopicValidator(t.name)
	return nil
}

func short(id peer.ID) string {
	s := id.String()
	if len(s) > 8 {
		return s[len(s)-8:]
	}
	return s
}
