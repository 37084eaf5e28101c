package p2p

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"syscall"
	"time"

	"github.com/libp2p/go-libp2p"
	p2pcrypto "github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/libp2p/go-libp2p/p2p/muxer/yamux"
	quic "github.com/libp2p/go-libp2p/p2p/transport/quic"
	"github.com/libp2p/go-libp2p/p2p/transport/tcp"
	ma "github.com/multiformats/go-multiaddr"
)

// HostConfig says how to build a host. The zero value listens on loopback
// on random ports, which is what `boardmesh play` and the tests want.
type HostConfig struct {
	// Key is the peer's identity; nil makes a fresh ed25519 key.
	Key p2pcrypto.PrivKey
	// LAN listens on every interface (host, join) instead of loopback only.
	LAN bool
	// Port is the TCP and UDP port to listen on; 0 picks free ones.
	Port int
	// NoQUIC leaves QUIC out, for environments without UDP.
	NoQUIC bool
	// Internet adds relays, hole punching and AutoNAT (relay.go); nil for
	// a LAN or loopback peer.
	Internet *Internet
}

// ErrPortInUse is returned when the requested port is taken.
var ErrPortInUse = errors.New("port already in use")

// NewHost builds a libp2p host with explicit options: TCP and QUIC only,
// no NAT port mapping (a game must not open holes in a router), no relay
// client, hole punching or AutoNAT unless cfg.Internet asks for them (then
// relay.go adds them), and listen addresses limited to loopback unless
// cfg.LAN is set.
func NewHost(cfg HostConfig) (host.Host, error) {
	key := cfg.Key
	if key == nil {
		k, _, err := p2pcrypto.GenerateEd25519Key(nil)
		if err != nil {
			return nil, fmt.Errorf("make identity: %w", err)
		}
		key = k
	}
	ip4, ip6 := "127.0.0.1", "::1"
	if cfg.LAN {
		ip4, ip6 = "0.0.0.0", "::"
	}
	if cfg.Port != 0 {
		if err := checkPortFree(ip4, cfg.Port, !cfg.NoQUIC); err != nil {
			return nil, err
		}
	}
	listen := []string{fmt.Sprintf("/ip4/%s/tcp/%d", ip4, cfg.Port)}
	if !cfg.NoQUIC {
		listen = append(listen, fmt.Sprintf("/ip4/%s/udp/%d/quic-v1", ip4, cfg.Port))
	}
	if cfg.LAN && cfg.Port == 0 && hasIPv6() {
		listen = append(listen, fmt.Sprintf("/ip6/%s/tcp/0", ip6))
	}
	opts := []libp2p.Option{
		libp2p.Identity(key),
		libp2p.ListenAddrStrings(listen...),
		libp2p.Transport(tcp.NewTCPTransport),
		libp2p.Muxer(yamux.ID, yamuxTransport),
		libp2p.DisableRelay(),
		libp2p.DisableMetrics(),
		libp2p.Ping(false),
		libp2p.WithDialTimeout(10 * time.Second),
		libp2p.DialRanker(preferTCP),
	}
	if !cfg.NoQUIC {
		opts = append(opts, libp2p.Transport(quic.NewTransport))
	}
	opts = append(opts, cfg.Internet.options()...)
	h, err := libp2p.New(opts...)
	if err != nil {
		if isAddrInUse(err) {
			return nil, fmt.Errorf("%w: port %d (pick another with --port, or 0 for any)", ErrPortInUse, cfg.Port)
		}
		return nil, fmt.Errorf("start libp2p host: %w", err)
	}
	return h, nil
}

// yamuxTransport is go-libp2p's yamux with a smaller largest stream
// window: 1 MiB instead of 16. A stream's window is what the other end
// may send before we read, and a flooder keeps gossipsub's stream from
// us full, so this is memory we hold per peer. 1 MiB still carries a
// catch-up at 10 MiB/s over a 100 ms round trip (a long game's log is a
// few MiB), and a LAN's round trip is a millisecond.
var yamuxTransport = func() *yamux.Transport {
	t := *yamux.DefaultTransport
	t.MaxStreamWindowSize = maxStreamWindow
	return &t
}()

const maxStreamWindow = 1 << 20

// checkPortFree gives a clear error before libp2p would give a long one.
func checkPortFree(ip string, port int, udp bool) error {
	l, err := net.Listen("tcp", net.JoinHostPort(ip, fmt.Sprint(port)))
	if err != nil {
		return fmt.Errorf("%w: TCP port %d on %s (pick another with --port, or 0 for any)", ErrPortInUse, port, ip)
	}
	l.Close()
	if udp {
		c, err := net.ListenPacket("udp", net.JoinHostPort(ip, fmt.Sprint(port)))
		if err != nil {
			return fmt.Errorf("%w: UDP port %d on %s (pick another with --port, or 0 for any)", ErrPortInUse, port, ip)
		}
		c.Close()
	}
	return nil
}

func isAddrInUse(err error) bool {
	return errors.Is(err, syscall.EADDRINUSE) || strings.Contains(err.Error(), "address already in use")
}

func hasIPv6() bool {
	l, err := net.Listen("tcp6", "[::1]:0")
	if err != nil {
		return false
	}
	l.Close()
	return true
}

// Addrs returns the host's dialable addresses with its peer ID, TCP first,
// so the first one is the one to print for `join`.
func Addrs(h host.Host) []ma.Multiaddr {
	info := peer.AddrInfo{ID: h.ID(), Addrs: h.Addrs()}
	all, _ := peer.AddrInfoToP2pAddrs(&info)
	var tcpFirst, rest []ma.Multiaddr
	for _, a := range all {
		if _, err := a.ValueForProtocol(ma.P_TCP); err == nil {
			tcpFirst = append(tcpFirst, a)
		} else {
			rest = append(rest, a)
		}
	}
	return append(tcpFirst, rest...)
}

// Connect dials a peer by a full multiaddr (with /p2p/ID). Errors say
// whether the address was malformed or the peer unreachable.
func Connect(ctx context.Context, h host.Host, addr string) (peer.AddrInfo, error) {
	m, err := ma.NewMultiaddr(strings.TrimSpace(addr))
	if err != nil {
		return peer.AddrInfo{}, fmt.Errorf("%q is not a multiaddr: %w", addr, err)
	}
	info, err := peer.AddrInfoFromP2pAddr(m)
	if err != nil {
		return peer.AddrInfo{}, fmt.Errorf("%q has no /p2p/<peer id> part: %w", addr, err)
	}
	if info.ID == h.ID() {
		// libp2p's words for it, "dial to self attempted", say little to
		// a player who gave their own home twice.
		return *info, fmt.Errorf("%s is this boardmesh home's own peer (the same identity): give another --home to join or watch it from here", addr)
	}
	ctx, cancel := context.WithTimeout(ctx, connectTimeout(m))
	defer cancel()
	if err := h.Connect(ctx, *info); err != nil {
		return *info, fmt.Errorf("cannot reach %s: %w", addr, err)
	}
	return *info, nil
}

// connectTimeout is how long Connect tries: 10 s, or 30 s through a relay,
// where the connection is two links, each its own handshakes, and a lossy
// home link (15% loss, TestInternetLossAndCut) once took over 10 s. A
// refused address fails at once either way.
func connectTimeout(m ma.Multiaddr) time.Duration {
	if _, err := m.ValueForProtocol(ma.P_CIRCUIT); err == nil {
		return 30 * time.Second
	}
	return 10 * time.Second
}

// preferTCP dials TCP addresses at once and QUIC ones 300 ms later, so on
// a LAN or loopback the connection is TCP and QUIC is the fallback. The
// reason is crashes: when a peer's process dies, its kernel resets its TCP
// connections and the others notice at once, whereas a QUIC connection to
// a dead peer lingers until its idle timeout while gossipsub keeps writing
// into it, and a restarted peer (same peer ID, `resume`) would be cut off
// from the table until then.
func preferTCP(addrs []ma.Multiaddr) []network.AddrDelay {
	out := make([]network.AddrDelay, 0, len(addrs))
	for _, a := range addrs {
		d := time.Duration(0)
		if _, err := a.ValueForProtocol(ma.P_TCP); err != nil {
			d = 300 * time.Millisecond
		}
		out = append(out, network.AddrDelay{Addr: a, Delay: d})
	}
	return out
}
