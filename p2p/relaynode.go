package p2p

import (
	"context"
	"fmt"
	"time"

	"github.com/libp2p/go-libp2p"
	dht "github.com/libp2p/go-libp2p-kad-dht"
	p2pcrypto "github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/core/peer"
	relayv2 "github.com/libp2p/go-libp2p/p2p/protocol/circuitv2/relay"
	quic "github.com/libp2p/go-libp2p/p2p/transport/quic"
	"github.com/libp2p/go-libp2p/p2p/transport/tcp"
	ma "github.com/multiformats/go-multiaddr"
)

// RelayNodeConfig configures `boardmesh relay`: a host on every interface
// that serves circuit relay v2, AutoNAT (so the friends behind NAT learn
// that they are) and, with DHT, a Kademlia DHT in server mode.
type RelayNodeConfig struct {
	Key  p2pcrypto.PrivKey
	Port int
	// Announce are addresses to advertise instead of the interfaces' (a
	// forwarded port on a router).
	Announce  []string
	DHT       bool
	Bootstrap []peer.AddrInfo
	Relay     RelayConfig
}

// RelayNode is a running relay.
type RelayNode struct {
	Host  host.Host
	relay *relayv2.Relay
	dht   *dht.IpfsDHT
}

// StartRelay starts a relay node.
func StartRelay(ctx context.Context, cfg RelayNodeConfig) (*RelayNode, error) {
	var announce []ma.Multiaddr
	for _, a := range cfg.Announce {
		m, err := ma.NewMultiaddr(a)
		if err != nil {
			return nil, fmt.Errorf("--announce %q is not a multiaddr: %v", a, err)
		}
		if _, err := m.ValueForProtocol(ma.P_P2P); err == nil {
			return nil, fmt.Errorf("--announce %q: leave out the /p2p/ part, it is added", a)
		}
		announce = append(announce, m)
	}
	if cfg.Port != 0 {
		if err := checkPortFree("0.0.0.0", cfg.Port, true); err != nil {
			return nil, err
		}
	}
	opts := []libp2p.Option{
		libp2p.Identity(cfg.Key),
		libp2p.ListenAddrStrings(fmt.Sprintf("/ip4/0.0.0.0/tcp/%d", cfg.Port), fmt.Sprintf("/ip4/0.0.0.0/udp/%d/quic-v1", cfg.Port)),
		libp2p.Transport(tcp.NewTCPTransport),
		libp2p.Transport(quic.NewTransport),
		libp2p.DisableMetrics(),
		libp2p.EnableNATService(),
		libp2p.EnableAutoNATv2(),
		libp2p.WithDialTimeout(10 * time.Second),
	}
	if len(announce) > 0 {
		opts = append(opts, libp2p.AddrsFactory(func([]ma.Multiaddr) []ma.Multiaddr { return announce }))
	}
	h, err := libp2p.New(opts...)
	if err != nil {
		if isAddrInUse(err) {
			return nil, fmt.Errorf("%w: port %d", ErrPortInUse, cfg.Port)
		}
		return nil, fmt.Errorf("start libp2p host: %w", err)
	}
	n := &RelayNode{Host: h}
	if n.relay, err = StartRelayService(h, cfg.Relay); err != nil {
		h.Close()
		return nil, err
	}
	if cfg.DHT {
		n.dht, err = dht.New(h, dht.Mode(dht.ModeServer), dht.BootstrapPeers(cfg.Bootstrap...))
		if err != nil {
			n.Close()
			return nil, fmt.Errorf("start the DHT node: %w", err)
		}
		for _, b := range cfg.Bootstrap {
			go func() {
				cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
				defer cancel()
				h.Connect(cctx, b)
			}()
		}
		n.dht.Bootstrap(ctx)
	}
	return n, nil
}

// Close stops the relay, the DHT node and the host.
func (n *RelayNode) Close() {
	if n.dht != nil {
		n.dht.Close()
	}
	if n.relay != nil {
		n.relay.Close()
	}
	n.Host.Close()
}
