package p2p

import (
	"context"
	"fmt"
	"time"

	"github.com/libp2p/go-libp2p/core/host"
	ma "github.com/multiformats/go-multiaddr"
)

// readyWait bounds how long a peer waits for its relays, hole punching and
// the DHT before it shows addresses or dials a lobby.
const readyWait = 8 * time.Second

// FindLobbyVia is FindLobby for a peer that may be on the internet: a
// multiaddr is dialled (through in's relays too); a join code is looked
// up over mDNS (when mdns) and, for the eight-word code, on in's DHT at
// the same time; the first lobby found wins. The three-word LAN code is
// never asked of the DHT.
func FindLobbyVia(ctx context.Context, h host.Host, in *Internet, target string, wait time.Duration, mdns bool) (LobbyInfo, error) {
	if LooksLikeMultiaddr(target) || in == nil || in.dht == nil {
		if !LooksLikeMultiaddr(target) && !mdns {
			return LobbyInfo{}, fmt.Errorf("%w: without mDNS and a DHT a join code cannot be looked up; give the host's multiaddr", ErrNoSuchLobby)
		}
		return FindLobby(ctx, h, target, wait)
	}
	code, err := ParseJoinCode(target)
	if err != nil {
		return LobbyInfo{}, err
	}
	if IsLANCode(code) {
		if !mdns {
			return LobbyInfo{}, fmt.Errorf("%w: %s is a LAN code (three words), found only with mDNS; give all eight words of the code", ErrNoSuchLobby, code)
		}
		return FindLobby(ctx, h, code, wait)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	type found struct {
		info LobbyInfo
		err  error
	}
	res := make(chan found, 2)
	n := 1
	go func() {
		info, err := lobbyOnDHT(ctx, h, in, code)
		res <- found{info, err}
	}()
	if mdns {
		n++
		go func() {
			info, ok, err := ResolveJoinCode(ctx, h, code, wait)
			if err == nil && !ok {
				err = fmt.Errorf("not on this LAN (searched mDNS for %s)", wait)
			}
			res <- found{info, err}
		}()
	}
	var errs []string
	for range n {
		f := <-res
		if f.err == nil {
			return f.info, nil
		}
		errs = append(errs, f.err.Error())
	}
	return LobbyInfo{}, fmt.Errorf("%w: %s (%v)", ErrNoSuchLobby, code, errs)
}

// lobbyOnDHT resolves code on the DHT and asks the host for its lobby: at
// the addresses of the provider record, else through our relays.
func lobbyOnDHT(ctx context.Context, h host.Host, in *Internet, code string) (LobbyInfo, error) {
	pi, err := in.ResolveCode(ctx, code)
	if err != nil {
		return LobbyInfo{}, fmt.Errorf("DHT: %w", err)
	}
	for _, r := range in.Relays() {
		for _, a := range r.Addrs {
			pi.Addrs = append(pi.Addrs, a.Encapsulate(ma.StringCast("/p2p/"+r.ID.String()+"/p2p-circuit")))
		}
	}
	cctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	err = h.Connect(cctx, pi)
	cancel()
	if err != nil {
		return LobbyInfo{}, fmt.Errorf("DHT found the host %s, but it cannot be reached: %w", short(pi.ID), err)
	}
	info, err := AskLobby(ctx, h, pi.ID)
	if err != nil {
		return LobbyInfo{}, fmt.Errorf("host %s: %w", short(pi.ID), err)
	}
	if info.Host != pi.ID.String() {
		return LobbyInfo{}, fmt.Errorf("host %s answered for another host %q", short(pi.ID), info.Host)
	}
	return info, nil
}

// NewInternetHost builds a host for cfg with its internet side started
// and ready (the spectator's; host, join and resume go through
// newNetHost).
func NewInternetHost(ctx context.Context, cfg NetConfig) (host.Host, *Internet, error) {
	key, err := HostKey(cfg.Identity)
	if err != nil {
		return nil, nil, err
	}
	in := NewInternet(cfg.Internet)
	h, err := NewHost(HostConfig{Key: key, LAN: cfg.LAN, Port: cfg.Port, NoQUIC: cfg.NoQUIC, Internet: in})
	if err != nil {
		in.Close()
		return nil, nil, err
	}
	if err := in.Start(h); err != nil {
		in.Close()
		h.Close()
		return nil, nil, err
	}
	in.Ready(ctx, readyWait)
	return h, in, nil
}

// Links says how each peer is connected (nil for a LAN peer).
func (p *NetPeer) Links() []Link {
	if p.Net == nil {
		return nil
	}
	return p.Net.Reach.Links()
}
