package p2p

import (
	"context"
	"sort"
	"sync"
	"time"

	"github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/libp2p/go-libp2p/p2p/discovery/mdns"
)

// MDNSService is the mDNS service name boardmesh peers announce and browse.
const MDNSService = "boardmesh"

type mdnsNotifee func(peer.AddrInfo)

func (f mdnsNotifee) HandlePeerFound(pi peer.AddrInfo) { f(pi) }

// StartMDNS announces h on the LAN and reports every boardmesh peer it
// finds to found (on its own goroutine, possibly more than once per peer).
// mDNS only reports; connecting is the caller's business. Only `host` and
// `join` use it: `play` and loopback tests start no mDNS.
func StartMDNS(h host.Host, found func(peer.AddrInfo)) (stop func() error, err error) {
	svc := mdns.NewMdnsService(h, MDNSService, mdnsNotifee(found))
	if err := svc.Start(); err != nil {
		return nil, err
	}
	return svc.Close, nil
}

// FindLobbies browses mDNS for wait and asks every peer found for its
// lobby; it returns the lobbies that answered, ordered by join code.
func FindLobbies(ctx context.Context, h host.Host, wait time.Duration) ([]LobbyInfo, error) {
	var (
		mu    sync.Mutex
		wg    sync.WaitGroup
		asked = map[peer.ID]bool{}
		found []LobbyInfo
	)
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	stop, err := StartMDNS(h, func(pi peer.AddrInfo) {
		mu.Lock()
		if asked[pi.ID] || ctx.Err() != nil {
			mu.Unlock()
			return
		}
		asked[pi.ID] = true
		wg.Add(1)
		mu.Unlock()
		defer wg.Done()
		if err := h.Connect(ctx, pi); err != nil {
			return
		}
		info, err := AskLobby(ctx, h, pi.ID)
		if err != nil {
			return // a joiner, or a peer that is not hosting
		}
		mu.Lock()
		found = append(found, info)
		mu.Unlock()
	})
	if err != nil {
		return nil, err
	}
	<-ctx.Done()
	stop()
	wg.Wait()
	sort.Slice(found, func(i, j int) bool { return found[i].Code < found[j].Code })
	return found, nil
}

// ResolveJoinCode browses mDNS until it finds the lobby with code, or
// until wait has passed.
func ResolveJoinCode(ctx context.Context, h host.Host, code string, wait time.Duration) (LobbyInfo, bool, error) {
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	res := make(chan LobbyInfo, 1)
	var once sync.Once
	stop, err := StartMDNS(h, func(pi peer.AddrInfo) {
		if !CodeMatches(pi.ID, code) {
			return
		}
		once.Do(func() {
			if err := h.Connect(ctx, pi); err != nil {
				return
			}
			info, err := AskLobby(ctx, h, pi.ID)
			if err != nil {
				return
			}
			res <- info
		})
	})
	if err != nil {
		return LobbyInfo{}, false, err
	}
	defer stop()
	select {
	case info := <-res:
		return info, true, nil
	case <-ctx.Done():
		return LobbyInfo{}, false, nil
	}
}
