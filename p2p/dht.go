package p2p

import (
	"context"
	"errors"
	"fmt"
	"net"
	"sync"
	"time"

	"github.com/ipfs/go-cid"
	dht "github.com/libp2p/go-libp2p-kad-dht"
	"github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/multiformats/go-multihash"
)

// Join codes on a DHT. The host provides a content key derived from its
// join code on a Kademlia DHT (client mode: it answers no DHT queries, so
// it stores nobody's records and needs no reachable address); a joiner
// finds the providers of that key and keeps only one whose peer ID has
// the code, then dials it (its addresses come with the provider record,
// and through the joiner's own relays), so whoever answers on the DHT can
// at worst hide a lobby, never redirect a joiner to another peer: the code
// commits to the host's peer ID and libp2p's handshake proves it. Provider
// records are what public DHT nodes store for anyone (a value record of a
// namespace of our own would need nodes that know our validator).

// CodeKey is the DHT key a join code is advertised under.
func CodeKey(code string) cid.Cid {
	mh, _ := multihash.Sum([]byte("boardmesh/joincode/v1/dht/"+code), multihash.SHA2_256, -1)
	return cid.NewCidV1(cid.Raw, mh)
}

const (
	dhtReprovide = 10 * time.Minute
	dhtRetry     = 3 * time.Second
	// DHTWait bounds a DHT lookup of a join code.
	DHTWait = 30 * time.Second
)

type dhtClient struct {
	d     *dht.IpfsDHT
	h     host.Host
	boot  []peer.AddrInfo
	reach *Reach
	wg    sync.WaitGroup
}

func startDHT(ctx context.Context, h host.Host, boot []peer.AddrInfo, reach *Reach) (*dhtClient, error) {
	if len(boot) == 0 {
		return nil, errors.New("the DHT needs bootstrap peers (--bootstrap), and the internet is not reachable for the public ones")
	}
	d, err := dht.New(h, dht.Mode(dht.ModeClient), dht.BootstrapPeers(boot...))
	if err != nil {
		return nil, fmt.Errorf("start the DHT: %w", err)
	}
	c := &dhtClient{d: d, h: h, boot: boot, reach: reach}
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		c.bootstrap(ctx)
	}()
	return c, nil
}

// bootstrap connects to the bootstrap peers until the routing table holds
// one, then refreshes it.
func (c *dhtClient) bootstrap(ctx context.Context) {
	wait := 500 * time.Millisecond
	for ctx.Err() == nil {
		var wg sync.WaitGroup
		for _, b := range c.boot {
			wg.Add(1)
			go func() {
				defer wg.Done()
				cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
				defer cancel()
				c.h.Connect(cctx, b)
			}()
		}
		wg.Wait()
		c.d.Bootstrap(ctx)
		deadline := time.Now().Add(3 * time.Second)
		for time.Now().Before(deadline) && ctx.Err() == nil && !c.ready() {
			time.Sleep(50 * time.Millisecond)
		}
		if c.ready() {
			return
		}
		select {
		case <-ctx.Done():
		case <-time.After(wait):
		}
		wait = min(2*wait, 30*time.Second)
	}
}

func (c *dhtClient) ready() bool { return c.d.RoutingTable().Size() > 0 }

func (c *dhtClient) close() {
	c.d.Close()
	c.wg.Wait()
}

// Advertise keeps code advertised on the DHT until in closes; the first
// outcome and every failure go to the reach report.
func (in *Internet) Advertise(code string) {
	if in == nil || in.dht == nil {
		return
	}
	key := CodeKey(code)
	in.wg.Add(1)
	go func() {
		defer in.wg.Done()
		for in.ctx.Err() == nil {
			in.Ready(in.ctx, 20*time.Second)
			ctx, cancel := context.WithTimeout(in.ctx, DHTWait)
			err := in.dht.d.Provide(ctx, key, true)
			cancel()
			if in.ctx.Err() != nil {
				return
			}
			next := dhtReprovide
			if err != nil {
				in.Reach.note("dht", "the join code is not on the DHT yet: "+err.Error()+"; trying again")
				next = dhtRetry
			} else {
				in.Reach.note("dht", "the join code is advertised on the DHT")
			}
			select {
			case <-in.ctx.Done():
				return
			case <-time.After(next):
			}
		}
	}()
}

// ErrForgedProvider counts DHT answers that named a peer the code does
// not commit to.
var ErrForgedProvider = errors.New("a DHT answer named a peer whose join code differs")

// ResolveCode finds the host of code on the DHT: the first provider whose
// peer ID has that join code. Providers with other peer IDs (a DHT node
// that lies, or a hash collision on the key) are skipped and counted in
// the error when no true one turns up.
func (in *Internet) ResolveCode(ctx context.Context, code string) (peer.AddrInfo, error) {
	if in == nil || in.dht == nil {
		return peer.AddrInfo{}, errors.New("no DHT: give --bootstrap or --relay")
	}
	ctx, cancel := context.WithTimeout(ctx, DHTWait)
	defer cancel()
	in.Ready(ctx, 20*time.Second)
	if !in.dht.ready() {
		return peer.AddrInfo{}, fmt.Errorf("no DHT peer answered (bootstrap: %d peers)", len(in.cfg.Bootstrap))
	}
	key := CodeKey(code)
	forged := 0
	for {
		for pi := range in.dht.d.FindProvidersAsync(ctx, key, 20) {
			if pi.ID == in.h.ID() {
				continue
			}
			if JoinCode(pi.ID) != code {
				forged++
				continue
			}
			return pi, nil
		}
		if ctx.Err() != nil {
			break
		}
		// The host may not have advertised yet: ask again shortly.
		select {
		case <-ctx.Done():
		case <-time.After(time.Second):
		}
		if ctx.Err() != nil {
			break
		}
	}
	if forged > 0 {
		return peer.AddrInfo{}, fmt.Errorf("%w (%d skipped), and the true host did not answer within %s", ErrForgedProvider, forged, DHTWait)
	}
	return peer.AddrInfo{}, fmt.Errorf("no host advertises that code on the DHT (searched %s)", DHTWait)
}

// InternetReachable says whether this machine has a route to the public
// internet (a UDP socket "connected" to a public address sends nothing):
// the public DHT bootstrap peers are used by default only then.
func InternetReachable() bool {
	c, err := net.Dial("udp4", "192.0.2.1:9") // TEST-NET-1: routed only by a default route; nothing is sent
	if err != nil {
		return false
	}
	c.Close()
	return true
}

// PublicBootstrap are the public libp2p DHT bootstrap peers.
func PublicBootstrap() []peer.AddrInfo { return dht.GetDefaultBootstrapPeerAddrInfos() }
