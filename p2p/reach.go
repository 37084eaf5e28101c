package p2p

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/libp2p/go-libp2p/core/event"
	"github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/libp2p/go-libp2p/p2p/protocol/holepunch"
	ma "github.com/multiformats/go-multiaddr"
)

// How a peer is connected, as the screen says it.
const (
	LinkDirect       = "direct"        // a direct connection, no punch needed
	LinkPunched      = "punched"       // direct, after a successful hole punch
	LinkRelayed      = "relayed"       // only through a relay without limits
	LinkLimited      = "limited relay" // only through a limited relay: gossipsub ignores it
	LinkDisconnected = "not connected"
	// LinkRelay is a line about one of our relays, not a player.
	LinkRelay = "relay"
)

// Link is how one peer is connected now, and the last thing that failed
// on the way, in plain words.
type Link struct {
	Peer string `json:"peer"`
	How  string `json:"how"`
	// Relay is the relay a relayed connection goes through.
	Relay string `json:"relay,omitempty"`
	// Addr is the remote address of the connection in use.
	Addr string `json:"addr,omitempty"`
	// Failed is what failed and why (a hole punch, a direct dial, a
	// relay reservation), empty when nothing did.
	Failed string `json:"failed,omitempty"`
	// Text is the whole line for a person.
	Text string `json:"text"`
}

// Reach watches how every boardmesh peer is connected to us: from the
// host's event bus (connectedness, identify), the hole punch tracer, and
// the relay reservations; it reports each change to OnChange.
type Reach struct {
	mu           sync.Mutex
	h            host.Host
	relayIDs     map[peer.ID]bool
	punched      map[peer.ID]time.Duration // how long the successful punch took
	failed       map[peer.ID]string
	last         map[peer.ID]string
	relays       map[peer.ID]Link
	reachability string
	onChange     func(Link)
	kick         chan peer.ID
}

func newReach() *Reach {
	return &Reach{relayIDs: map[peer.ID]bool{}, punched: map[peer.ID]time.Duration{}, failed: map[peer.ID]string{},
		last: map[peer.ID]string{}, relays: map[peer.ID]Link{}, kick: make(chan peer.ID, 64)}
}

// OnChange sets the function that receives every change of a link (on
// Reach's goroutine, or the reservation loop's for relay lines).
func (r *Reach) OnChange(f func(Link)) {
	r.mu.Lock()
	r.onChange = f
	r.mu.Unlock()
}

func (r *Reach) start(ctx context.Context, h host.Host, wg *sync.WaitGroup) error {
	r.h = h
	sub, err := h.EventBus().Subscribe([]any{new(event.EvtPeerConnectednessChanged), new(event.EvtPeerIdentificationCompleted), new(event.EvtLocalReachabilityChanged)})
	if err != nil {
		return fmt.Errorf("watch connections: %w", err)
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		defer sub.Close()
		for {
			select {
			case <-ctx.Done():
				return
			case e := <-sub.Out():
				switch e := e.(type) {
				case event.EvtPeerConnectednessChanged:
					r.update(e.Peer)
				case event.EvtPeerIdentificationCompleted:
					r.update(e.Peer)
				case event.EvtLocalReachabilityChanged:
					r.mu.Lock()
					r.reachability = reachabilityText(e.Reachability)
					text := r.reachability
					r.mu.Unlock()
					if text != "" {
						r.note("autonat", text)
					}
				}
			case p := <-r.kick:
				r.update(p)
			}
		}
	}()
	return nil
}

func reachabilityText(x network.Reachability) string {
	switch x {
	case network.ReachabilityPublic:
		return "reachable from the internet (AutoNAT)"
	case network.ReachabilityPrivate:
		return "behind NAT or a firewall, not reachable directly (AutoNAT)"
	}
	return ""
}

// Trace is the hole punch tracer (holepunch.WithTracer).
func (r *Reach) Trace(evt *holepunch.Event) {
	p := evt.Remote
	r.mu.Lock()
	switch e := evt.Evt.(type) {
	case *holepunch.EndHolePunchEvt:
		if e.Success {
			r.punched[p] = e.EllapsedTime
			delete(r.failed, p)
		} else {
			r.failed[p] = "hole punch failed after " + e.EllapsedTime.Round(time.Millisecond).String() + ": " + plainPunchError(e.Error)
		}
	case *holepunch.DirectDialEvt:
		if !e.Success {
			r.failed[p] = "direct dial failed: " + plainPunchError(e.Error)
		}
	case *holepunch.ProtocolErrorEvt:
		r.failed[p] = "hole punch could not start: " + plainPunchError(e.Error)
	}
	r.mu.Unlock()
	select {
	case r.kick <- p:
	default:
	}
}

// plainPunchError says in one line why a punch failed; libp2p's error
// lists every address dialled, which is for the debug log, not a screen.
func plainPunchError(s string) string {
	const why = "no direct connection came up (a NAT that gives each connection a new port, i.e. symmetric NAT, or a router that resets or blocks the punch); play goes on through the relay if it has no limits"
	if strings.Contains(s, "protocols not supported") {
		return "the other peer does not take part in hole punching yet (it knows no public address of its own, or has no relay)"
	}
	if s == "" || strings.Contains(s, "all dials failed") || strings.Contains(s, "timeout") || strings.Contains(s, "deadline") {
		return why
	}
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// isPlayer says whether p is a boardmesh peer (it serves the members
// protocol), not a relay, a DHT node or a spectator.
func (r *Reach) isPlayer(p peer.ID) bool {
	if r.relayIDs[p] {
		return false
	}
	ok, err := r.h.Peerstore().SupportsProtocols(p, MembersProtocol)
	return err == nil && len(ok) > 0
}

// link classifies p's connections now.
func (r *Reach) link(p peer.ID) Link {
	l := Link{Peer: p.String(), How: LinkDisconnected}
	var relayed, limited network.Conn
	for _, c := range r.h.Network().ConnsToPeer(p) {
		if !connectedVia(c) {
			l.How, l.Addr = LinkDirect, c.RemoteMultiaddr().String()
			if _, ok := r.punched[p]; ok {
				l.How = LinkPunched
			}
			break
		}
		if c.Stat().Limited {
			limited = c
		} else {
			relayed = c
		}
	}
	if l.How == LinkDisconnected {
		c := relayed
		l.How = LinkRelayed
		if c == nil {
			c, l.How = limited, LinkLimited
		}
		if c == nil {
			l.How = LinkDisconnected
		} else {
			l.Addr = c.RemoteMultiaddr().String()
			// The first /p2p/ of a circuit address is the relay's.
			if v, err := c.RemoteMultiaddr().ValueForProtocol(ma.P_P2P); err == nil {
				l.Relay = v
			}
		}
	}
	if l.How != LinkDirect && l.How != LinkPunched {
		l.Failed = r.failed[p]
	}
	l.Text = fmt.Sprintf("%s: %s", short(p), l.How)
	switch {
	case l.How == LinkPunched:
		l.Text += fmt.Sprintf(" (%s, the punch took %s)", transportOf(l.Addr), r.punched[p].Round(time.Millisecond))
	case l.How == LinkDirect:
		l.Text += " (" + transportOf(l.Addr) + ")"
	}
	if l.Relay != "" {
		l.Text += " via " + shortString(l.Relay)
	}
	if l.How == LinkLimited {
		l.Text += " (the game waits for a hole punch or an unlimited relay)"
	}
	if l.Failed != "" {
		l.Text += "; " + l.Failed
	}
	return l
}

func shortString(id string) string {
	if len(id) > 8 {
		return id[len(id)-8:]
	}
	return id
}

// maxTracked bounds what Reach remembers of peers: past it, what it knows
// of peers no longer connected is forgotten (outsiders may connect by the
// thousand on the internet).
const maxTracked = 256

func (r *Reach) prune() {
	if len(r.last)+len(r.failed)+len(r.punched) <= maxTracked {
		return
	}
	gone := func(p peer.ID) bool { return r.h.Network().Connectedness(p) == network.NotConnected }
	forget(r.last, gone)
	forget(r.failed, gone)
	forget(r.punched, gone)
}

func forget[V any](m map[peer.ID]V, gone func(peer.ID) bool) {
	for p := range m {
		if gone(p) {
			delete(m, p)
		}
	}
}

func (r *Reach) update(p peer.ID) {
	r.mu.Lock()
	r.prune()
	if !r.isPlayer(p) {
		r.mu.Unlock()
		return
	}
	l := r.link(p)
	changed := r.last[p] != l.Text
	r.last[p] = l.Text
	f := r.onChange
	r.mu.Unlock()
	if changed && f != nil {
		f(l)
	}
}

func (r *Reach) relayStatus(id peer.ID, ok, failed string) {
	l := Link{Peer: id.String(), How: LinkRelay, Failed: failed}
	if failed != "" {
		l.Text = "relay " + short(id) + ": " + failed
	} else {
		l.Text = "relay " + short(id) + ": " + ok
	}
	r.mu.Lock()
	changed := r.relays[id].Text != l.Text
	r.relays[id] = l
	f := r.onChange
	r.mu.Unlock()
	if changed && f != nil {
		f(l)
	}
}

// Links says how each boardmesh peer we know is connected, then one line
// per relay, ordered by peer.
func (r *Reach) Links() []Link {
	if r == nil || r.h == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []Link
	for _, p := range r.h.Peerstore().Peers() {
		if p != r.h.ID() && r.isPlayer(p) {
			out = append(out, r.link(p))
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Peer < out[j].Peer })
	var rel []Link
	for _, l := range r.relays {
		rel = append(rel, l)
	}
	sort.Slice(rel, func(i, j int) bool { return rel[i].Peer < rel[j].Peer })
	return append(out, rel...)
}

// Reachability is what AutoNAT says of us, empty while it does not know.
func (r *Reach) Reachability() string {
	if r == nil {
		return ""
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.reachability
}

// note reports a line about this peer's own reach (the DHT, AutoNAT), kept
// with the relay lines under key.
func (r *Reach) note(key, text string) {
	l := Link{Peer: key, How: key, Text: key + ": " + text}
	r.mu.Lock()
	changed := r.relays[peer.ID(key)].Text != l.Text
	r.relays[peer.ID(key)] = l
	f := r.onChange
	r.mu.Unlock()
	if changed && f != nil {
		f(l)
	}
}

// LinkOf says how peer p is connected now.
func (r *Reach) LinkOf(p peer.ID) Link {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.link(p)
}

// transportOf names the transport of a multiaddr for a person.
func transportOf(addr string) string {
	switch {
	case strings.Contains(addr, "/quic-v1"):
		return "QUIC"
	case strings.Contains(addr, "/tcp/"):
		return "TCP"
	}
	return "?"
}
