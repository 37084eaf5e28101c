package p2p

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/libp2p/go-libp2p"
	"github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/libp2p/go-libp2p/core/protocol"
	"github.com/libp2p/go-libp2p/p2p/protocol/circuitv2/client"
	relayv2 "github.com/libp2p/go-libp2p/p2p/protocol/circuitv2/relay"
	"github.com/libp2p/go-libp2p/p2p/protocol/holepunch"
	ma "github.com/multiformats/go-multiaddr"
)

// InternetConfig says how a peer reaches friends beyond its LAN. The zero
// value (and a nil pointer) is a LAN or loopback peer: no relay, no hole
// punching, no AutoNAT, no DHT. `play` and the loopback tests never set it.
type InternetConfig struct {
	// Relays are circuit relay v2 servers (`boardmesh relay`, or any public
	// one) this peer reserves a slot on, so peers behind other NATs can
	// reach it through them; it then tries to punch a direct connection
	// (DCUtR) to each peer it meets through a relay.
	Relays []peer.AddrInfo
	// DHT advertises the host's join code (and resolves a joiner's) on a
	// Kademlia DHT in client mode, from Bootstrap.
	DHT       bool
	Bootstrap []peer.AddrInfo
}

// On says whether any of it is used.
func (c *InternetConfig) On() bool { return c != nil && (len(c.Relays) > 0 || c.DHT) }

// Internet is the running side of an InternetConfig for one host: the
// relay reservations, the hole punch tracer, the reach report and the DHT.
type Internet struct {
	cfg   InternetConfig
	Reach *Reach

	mu       sync.Mutex
	circuits map[peer.ID][]ma.Multiaddr // our addresses through each relay we hold a slot on
	tried    map[peer.ID]bool           // a reservation was attempted (ok or not)
	h        host.Host
	dht      *dhtClient
	ctx      context.Context
	cancel   context.CancelFunc
	wg       sync.WaitGroup
}

// NewInternet prepares cfg for a host not yet built; nil when cfg is off.
func NewInternet(cfg *InternetConfig) *Internet {
	if !cfg.On() {
		return nil
	}
	ctx, cancel := context.WithCancel(context.Background())
	in := &Internet{cfg: *cfg, circuits: map[peer.ID][]ma.Multiaddr{}, tried: map[peer.ID]bool{}, ctx: ctx, cancel: cancel}
	in.Reach = newReach()
	for _, r := range cfg.Relays {
		in.Reach.relayIDs[r.ID] = true
	}
	for _, b := range cfg.Bootstrap {
		in.Reach.relayIDs[b.ID] = true
	}
	return in
}

// options are the libp2p options NewHost adds for in: the relay transport
// (to dial and accept circuits), an address factory that advertises our
// circuit addresses beside the direct ones, and, when relays are used,
// hole punching with our tracer and AutoNAT v2 (so the relays tell us
// whether we are reachable). Never NAT port mapping: boardmesh opens no
// holes in a router by itself.
func (in *Internet) options() []libp2p.Option {
	if in == nil {
		return nil
	}
	opts := []libp2p.Option{
		libp2p.EnableRelay(),
		libp2p.AddrsFactory(in.addrs),
	}
	if len(in.cfg.Relays) > 0 {
		opts = append(opts, libp2p.EnableHolePunching(holepunch.WithTracer(in.Reach)), libp2p.EnableAutoNATv2())
	}
	return opts
}

// addrs is the host's address factory: its direct addresses and one
// circuit address per relay slot held.
func (in *Internet) addrs(direct []ma.Multiaddr) []ma.Multiaddr {
	in.mu.Lock()
	defer in.mu.Unlock()
	out := slices.Clone(direct)
	for _, r := range in.cfg.Relays {
		out = append(out, in.circuits[r.ID]...)
	}
	return out
}

// Start runs in on h (built with in's options): the reach report, a
// reservation loop per relay, and the DHT client.
func (in *Internet) Start(h host.Host) error {
	if in == nil {
		return nil
	}
	in.h = h
	if err := in.Reach.start(in.ctx, h, &in.wg); err != nil {
		return err
	}
	for _, r := range in.cfg.Relays {
		in.wg.Add(1)
		go func() {
			defer in.wg.Done()
			in.keepReservation(r)
		}()
	}
	if in.cfg.DHT {
		d, err := startDHT(in.ctx, h, in.cfg.Bootstrap, in.Reach)
		if err != nil {
			return err
		}
		in.dht = d
	}
	return nil
}

// Close stops everything Start started (not the host).
func (in *Internet) Close() {
	if in == nil {
		return
	}
	in.cancel()
	if in.dht != nil {
		in.dht.close()
	}
	in.wg.Wait()
}

// Ready waits, at most timeout, until every relay was tried, hole punching
// can answer (it starts once we know a public address of ours, learnt from
// the relays), and the DHT knows a peer: what a peer needs before it shows
// its addresses or dials a lobby through a relay.
func (in *Internet) Ready(ctx context.Context, timeout time.Duration) {
	if in == nil {
		return
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	for {
		if in.ready() {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func (in *Internet) ready() bool {
	in.mu.Lock()
	tried := len(in.tried)
	in.mu.Unlock()
	if tried < len(in.cfg.Relays) {
		return false
	}
	// Hole punching answers once we know a public address of ours, which
	// the relays tell us (identify), slot or no slot.
	if len(in.cfg.Relays) > 0 && !slices.Contains(in.h.Mux().Protocols(), protocol.ID(holepunch.Protocol)) {
		return false
	}
	return in.dht == nil || in.dht.ready()
}

// Relays are the relays configured.
func (in *Internet) Relays() []peer.AddrInfo {
	if in == nil {
		return nil
	}
	return in.cfg.Relays
}

const (
	reserveTimeout = 10 * time.Second
	reserveRetry   = 5 * time.Second
)

// keepReservation holds a slot on relay r until in closes: it reserves,
// renews before expiry, and retries with backoff after a failure; each
// outcome goes to the reach report in plain words.
func (in *Internet) keepReservation(r peer.AddrInfo) {
	wait := reserveRetry
	for {
		ctx, cancel := context.WithTimeout(in.ctx, reserveTimeout)
		res, err := client.Reserve(ctx, in.h, r)
		cancel()
		if in.ctx.Err() != nil {
			return
		}
		in.mu.Lock()
		in.tried[r.ID] = true
		var next time.Duration
		if err != nil {
			delete(in.circuits, r.ID)
			in.mu.Unlock()
			in.Reach.relayStatus(r.ID, "", reservationError(r, err))
			next = wait
			wait = min(2*wait, time.Minute)
		} else {
			var circ []ma.Multiaddr
			for _, a := range r.Addrs {
				if isCircuit(a) {
					continue
				}
				circ = append(circ, a.Encapsulate(ma.StringCast("/p2p/"+r.ID.String()+"/p2p-circuit")))
			}
			if len(circ) == 0 {
				for _, a := range in.h.Peerstore().Addrs(r.ID) {
					if !isCircuit(a) {
						circ = append(circ, a.Encapsulate(ma.StringCast("/p2p/"+r.ID.String()+"/p2p-circuit")))
					}
				}
			}
			in.circuits[r.ID] = circ
			in.mu.Unlock()
			in.Reach.relayStatus(r.ID, reservationText(res), "")
			wait = reserveRetry
			next = time.Until(res.Expiration) * 3 / 4
			next = max(next, 30*time.Second)
		}
		select {
		case <-in.ctx.Done():
			return
		case <-time.After(next):
		}
	}
}

func reservationText(res *client.Reservation) string {
	if res.LimitDuration == 0 && res.LimitData == 0 {
		return "slot reserved, unlimited: a game can run through it"
	}
	return fmt.Sprintf("slot reserved, limited to %s and %d KiB per connection: a game runs only after a hole punch", res.LimitDuration, res.LimitData>>10)
}

func reservationError(r peer.AddrInfo, err error) string {
	var re client.ReservationError
	if errors.As(err, &re) && re.Reason != "" && re.Reason != "failed to open stream" {
		return fmt.Sprintf("relay %s refused a slot: %s", short(r.ID), re.Reason)
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Sprintf("relay %s did not answer within %s", short(r.ID), reserveTimeout)
	}
	return fmt.Sprintf("cannot reserve a slot on relay %s: %v", short(r.ID), err)
}

func isCircuit(a ma.Multiaddr) bool {
	_, err := a.ValueForProtocol(ma.P_CIRCUIT)
	return err == nil
}

// RelayConfig configures `boardmesh relay`.
type RelayConfig struct {
	// Limited keeps libp2p's default per-circuit limits (2 min, 128 KiB),
	// as public relays have: games then need a hole punch. Off (the
	// default) is the friends' relay: circuits without limits.
	Limited bool
	// MaxReservations and MaxCircuits bound what the relay holds (0:
	// 128 slots, 16 circuits per peer).
	MaxReservations, MaxCircuits int
	// Allow, when not empty, are the only peers that may hold a slot (the
	// friends'); anyone may still open a circuit to a peer holding one, so
	// a joiner the host does not know yet reaches its lobby.
	Allow []peer.ID
}

// friendsOnly is the relay's ACL for RelayConfig.Allow.
type friendsOnly map[peer.ID]bool

func (f friendsOnly) AllowReserve(p peer.ID, _ ma.Multiaddr) bool { return f[p] }

func (f friendsOnly) AllowConnect(_ peer.ID, _ ma.Multiaddr, dest peer.ID) bool { return f[dest] }

// StartRelayService makes h a circuit relay v2 server. Circuits have no
// time or byte limit unless cfg.Limited; what the relay holds is still
// bounded: slots, circuits per peer, per IP and per ASN, buffer sizes,
// and libp2p's resource manager under all of it.
func StartRelayService(h host.Host, cfg RelayConfig) (*relayv2.Relay, error) {
	rc := relayv2.DefaultResources()
	if cfg.MaxReservations > 0 {
		rc.MaxReservations = cfg.MaxReservations
	}
	if cfg.MaxCircuits > 0 {
		rc.MaxCircuits = cfg.MaxCircuits
	}
	rc.BufferSize = 16 << 10
	opts := []relayv2.Option{relayv2.WithResources(rc)}
	if len(cfg.Allow) > 0 {
		acl := friendsOnly{}
		for _, p := range cfg.Allow {
			acl[p] = true
		}
		opts = append(opts, relayv2.WithACL(acl))
	}
	if !cfg.Limited {
		opts = append(opts, relayv2.WithInfiniteLimits())
	}
	r, err := relayv2.New(h, opts...)
	if err != nil {
		return nil, fmt.Errorf("start the relay service: %w", err)
	}
	return r, nil
}

// ParseRelayAddrs reads --relay and --bootstrap values: full multiaddrs
// with /p2p/<peer id>; several addresses of one peer are merged.
func ParseRelayAddrs(flag string, vals []string) ([]peer.AddrInfo, error) {
	var out []peer.AddrInfo
	for _, v := range vals {
		m, err := ma.NewMultiaddr(v)
		if err != nil {
			return nil, fmt.Errorf("--%s %q is not a multiaddr: %v", flag, v, err)
		}
		info, err := peer.AddrInfoFromP2pAddr(m)
		if err != nil {
			return nil, fmt.Errorf("--%s %q has no /p2p/<peer id> at its end (copy the whole address the relay printed)", flag, v)
		}
		if isCircuit(m) {
			return nil, fmt.Errorf("--%s %q is itself a relayed address; give the relay's own address", flag, v)
		}
		merged := false
		for i := range out {
			if out[i].ID == info.ID {
				out[i].Addrs = append(out[i].Addrs, info.Addrs...)
				merged = true
			}
		}
		if !merged {
			out = append(out, *info)
		}
	}
	return out, nil
}

// connectedVia is whether c goes through a relay.
func connectedVia(c network.Conn) bool { return isCircuit(c.RemoteMultiaddr()) }
