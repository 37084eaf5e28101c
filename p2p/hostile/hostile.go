package hostile

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/boardmesh/boardmesh/crypto"
	"github.com/boardmesh/boardmesh/p2p"
	pubsub "github.com/libp2p/go-libp2p-pubsub"
	"github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/libp2p/go-libp2p/core/protocol"
)

// Peer is a hostile peer: a libp2p host on loopback subscribed to one
// session topic. Its own Identity is an outsider's key; Sign signs with
// any key the test hands it (a member's, to play a cheating member).
type Peer struct {
	Host     host.Host
	PubSub   *pubsub.PubSub
	Identity *crypto.Identity
	Lobby    crypto.Hash

	topic *pubsub.Topic
	sub   *pubsub.Subscription

	mu   sync.Mutex
	seen []*crypto.Envelope
	// seenCap bounds what is kept of the table's traffic; a long game
	// publishes thousands of envelopes and a test needs only recent ones.
	seenCap int
	// messages and envelopes count what was received (Received);
	// bundles the bundles by their author (Bundles).
	messages, envelopes int
	bundles             map[crypto.PeerID]int
	cancel              context.CancelFunc
	done                chan struct{}
}

// New starts a hostile peer for the lobby's session topic, connects it to
// every target (the honest peers) and subscribes. The gossipsub settings
// are p2p.NewPubSub's, so the honest peers treat it as one of their own
// kind; the targets are its direct peers.
func New(ctx context.Context, lobby crypto.Hash, targets []peer.AddrInfo) (*Peer, error) {
	id, err := crypto.GenerateIdentity(rand.Reader)
	if err != nil {
		return nil, err
	}
	key, err := p2p.HostKey(id)
	if err != nil {
		return nil, err
	}
	h, err := p2p.NewHost(p2p.HostConfig{Key: key})
	if err != nil {
		return nil, err
	}
	p := &Peer{Host: h, Identity: id, Lobby: lobby, seenCap: 4096, done: make(chan struct{})}
	for _, t := range targets {
		cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		err := h.Connect(cctx, t)
		cancel()
		if err != nil {
			h.Close()
			return nil, fmt.Errorf("hostile: connect to %s: %w", t.ID, err)
		}
	}
	if p.PubSub, err = p2p.NewPubSub(ctx, h, targets); err != nil {
		h.Close()
		return nil, err
	}
	// No validator: a hostile peer publishes what it likes.
	if p.topic, err = p.PubSub.Join(p2p.TopicName(lobby.String())); err != nil {
		h.Close()
		return nil, err
	}
	if p.sub, err = p.topic.Subscribe(pubsub.WithBufferSize(1 << 14)); err != nil {
		h.Close()
		return nil, err
	}
	rctx, cancel := context.WithCancel(context.Background())
	p.cancel = cancel
	go p.read(rctx)
	return p, nil
}

// Close stops the peer.
func (p *Peer) Close() {
	p.cancel()
	<-p.done
	p.sub.Cancel()
	p.topic.Close()
	p.Host.Close()
}

func (p *Peer) read(ctx context.Context) {
	defer close(p.done)
	for {
		m, err := p.sub.Next(ctx)
		if err != nil {
			return
		}
		if m.ReceivedFrom == p.Host.ID() {
			continue
		}
		envs, err := crypto.UnmarshalMessage(m.Data)
		if err != nil {
			continue
		}
		p.mu.Lock()
		p.messages++
		p.seen = append(p.seen, envs...)
		p.envelopes += len(envs)
		if m.Data[0] == crypto.BundleTag {
			if p.bundles == nil {
				p.bundles = map[crypto.PeerID]int{}
			}
			p.bundles[envs[0].Author]++
		}
		if len(p.seen) > p.seenCap {
			p.seen = append([]*crypto.Envelope(nil), p.seen[len(p.seen)-p.seenCap/2:]...)
		}
		p.mu.Unlock()
	}
}

// Received counts the well-formed messages the peer has received from
// the table, and the envelopes in them (a bundle holds several).
func (p *Peer) Received() (messages, envelopes int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.messages, p.envelopes
}

// Bundles counts the bundles of author's envelopes the peer has received.
func (p *Peer) Bundles(author crypto.PeerID) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.bundles[author]
}

// Seen returns the envelopes the table has published so far that the
// peer received (the most recent few thousand).
func (p *Peer) Seen() []*crypto.Envelope {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([]*crypto.Envelope(nil), p.seen...)
}

// WaitSeen waits until an envelope the table published satisfies ok, and
// returns it.
func (p *Peer) WaitSeen(ctx context.Context, ok func(*crypto.Envelope) bool) (*crypto.Envelope, error) {
	for {
		p.mu.Lock()
		for i := len(p.seen) - 1; i >= 0; i-- {
			if ok(p.seen[i]) {
				e := p.seen[i]
				p.mu.Unlock()
				return e, nil
			}
		}
		p.mu.Unlock()
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("hostile: no such envelope seen: %w", ctx.Err())
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// WaitTopic waits until every id is subscribed to the topic as this peer
// sees it, then one heartbeat more so the mesh has formed.
func (p *Peer) WaitTopic(ctx context.Context, ids []peer.ID) error {
	for {
		have := map[peer.ID]bool{}
		for _, id := range p.topic.ListPeers() {
			have[id] = true
		}
		all := true
		for _, id := range ids {
			all = all && have[id]
		}
		if all {
			break
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("hostile: waiting for the table on the topic: %w", ctx.Err())
		case <-time.After(20 * time.Millisecond):
		}
	}
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(300 * time.Millisecond):
		return nil
	}
}

// Publish broadcasts an envelope as it is (signed or not).
func (p *Peer) Publish(ctx context.Context, env *crypto.Envelope) error {
	return p.PublishRaw(ctx, env.Marshal())
}

// PublishRaw broadcasts arbitrary bytes on the session topic.
func (p *Peer) PublishRaw(ctx context.Context, b []byte) error {
	return p.topic.Publish(ctx, b)
}

// Flood publishes gen(i) for i = 0, 1, … as fast as gossipsub takes them
// until ctx ends or d has passed, and returns how many messages and bytes
// it sent. gen returning nil ends the flood early.
func (p *Peer) Flood(ctx context.Context, d time.Duration, gen func(i int) []byte) (n int, bytes int64) {
	end := time.Now().Add(d)
	for i := 0; time.Now().Before(end) && ctx.Err() == nil; i++ {
		b := gen(i)
		if b == nil {
			break
		}
		if err := p.topic.Publish(ctx, b); err != nil {
			// A full outbound queue drops the message; keep going, as a
			// real flooder would.
			continue
		}
		n++
		bytes += int64(len(b))
	}
	return n, bytes
}

// Fetch asks an honest peer one catch-up query, as p2p.Fetch does.
func (p *Peer) Fetch(ctx context.Context, to peer.ID, query []byte) ([][]byte, error) {
	return p2p.Fetch(ctx, p.Host, to, query)
}

// Session learns the session id the way any outsider can: from the
// catch-up answer of a member (the first committed entry after the roster
// carries it), or from an envelope seen on the topic.
func (p *Peer) Session(ctx context.Context, from peer.ID) (crypto.Hash, error) {
	items, err := p.Fetch(ctx, from, p2p.CommittedQuery(0))
	if err == nil {
		for _, b := range items {
			if env, err := crypto.Unmarshal(b); err == nil && env.Session != p.Lobby {
				return env.Session, nil
			}
		}
	}
	env, err := p.WaitSeen(ctx, func(e *crypto.Envelope) bool { return e.Session != p.Lobby })
	if err != nil {
		return crypto.Hash{}, err
	}
	return env.Session, nil
}

// RawStream opens a stream of protocol proto to peer to, writes raw (any
// bytes at all, not necessarily a well-formed request), half-closes, and
// reads at most max bytes of the answer.
func (p *Peer) RawStream(ctx context.Context, to peer.ID, proto protocol.ID, raw []byte, max int64) ([]byte, error) {
	s, err := p.Host.NewStream(ctx, to, proto)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	if dl, ok := ctx.Deadline(); ok {
		s.SetDeadline(dl)
	}
	w := bufio.NewWriter(s)
	if _, err := w.Write(raw); err != nil {
		s.Reset()
		return nil, err
	}
	if err := w.Flush(); err != nil {
		s.Reset()
		return nil, err
	}
	s.CloseWrite()
	b, err := io.ReadAll(io.LimitReader(s, max))
	if err != nil && !errors.Is(err, io.EOF) {
		return b, err
	}
	return b, nil
}

// Frame is one catch-up frame: uvarint(len(b)) then b.
func Frame(b []byte) []byte {
	return append(binary.AppendUvarint(nil, uint64(len(b))), b...)
}
