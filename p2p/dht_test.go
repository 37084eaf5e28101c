package p2p

import (
	"context"
	"errors"
	"testing"
	"time"

	dht "github.com/libp2p/go-libp2p-kad-dht"
	p2pcrypto "github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/core/peer"
)

// dhtServer is a DHT node in server mode on loopback.
func dhtServer(t *testing.T) peer.AddrInfo {
	t.Helper()
	h, err := NewHost(HostConfig{NoQUIC: true})
	if err != nil {
		t.Fatal(err)
	}
	d, err := dht.New(h, dht.Mode(dht.ModeServer))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { d.Close(); h.Close() })
	return peer.AddrInfo{ID: h.ID(), Addrs: h.Addrs()}
}

// dhtPeer is a boardmesh peer on loopback whose Internet side is a DHT
// client bootstrapped from boot.
func dhtPeer(t *testing.T, boot ...peer.AddrInfo) (host.Host, *Internet) {
	t.Helper()
	in := NewInternet(&InternetConfig{DHT: true, Bootstrap: boot})
	k, _, _ := p2pcrypto.GenerateEd25519Key(nil)
	h, err := NewHost(HostConfig{Key: k, NoQUIC: true, Internet: in})
	if err != nil {
		t.Fatal(err)
	}
	if err := in.Start(h); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close(); h.Close() })
	in.Ready(context.Background(), 10*time.Second)
	if !in.dht.ready() {
		t.Fatal("the DHT client found no peer on loopback")
	}
	return h, in
}

// TestResolveCodeSkipsForgedProvider: a peer that advertises another
// host's join code key on the DHT (to redirect joiners to itself) is
// skipped; the joiner gets the host the code commits to.
func TestResolveCodeSkipsForgedProvider(t *testing.T) {
	t.Parallel()
	a, b := dhtServer(t), dhtServer(t)
	hostH, hostIn := dhtPeer(t, a, b)
	code := JoinCode(hostH.ID())
	_, liar := dhtPeer(t, a, b)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := liar.dht.d.Provide(ctx, CodeKey(code), true); err != nil {
		t.Fatalf("the liar could not provide: %v", err)
	}
	hostIn.Advertise(code)
	_, joiner := dhtPeer(t, b)
	pi, err := joiner.ResolveCode(ctx, code)
	if err != nil {
		t.Fatalf("ResolveCode: %v", err)
	}
	if pi.ID != hostH.ID() {
		t.Fatalf("the code resolved to %s, not the host %s", pi.ID, hostH.ID())
	}
}

// TestResolveCodeOnlyForged: when only a liar advertises a code, the
// joiner finds nothing and says that a DHT answer named a wrong peer.
func TestResolveCodeOnlyForged(t *testing.T) {
	t.Parallel()
	a := dhtServer(t)
	k, _, _ := p2pcrypto.GenerateEd25519Key(nil)
	absent, _ := peer.IDFromPrivateKey(k)
	code := JoinCode(absent)
	_, liar := dhtPeer(t, a)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := liar.dht.d.Provide(ctx, CodeKey(code), true); err != nil {
		t.Fatalf("the liar could not provide: %v", err)
	}
	_, joiner := dhtPeer(t, a)
	// The search runs to its deadline (the true host never answers); 8 s
	// leaves a loaded machine time for at least one full lookup.
	rctx, rcancel := context.WithTimeout(ctx, 8*time.Second)
	defer rcancel()
	pi, err := joiner.ResolveCode(rctx, code)
	if !errors.Is(err, ErrForgedProvider) {
		t.Fatalf("ResolveCode = %s, %v; want ErrForgedProvider", pi.ID, err)
	}
}
