package p2p

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/libp2p/go-libp2p/core/protocol"
	ma "github.com/multiformats/go-multiaddr"
)

// LobbyProtocol is the stream protocol a host answers with its lobby: what
// a joiner needs before it signs a join (which game and rules version,
// whether there is room) and the addresses of the members so far, so that
// every member of a table connects to every other.
const LobbyProtocol = protocol.ID("/boardmesh/lobby/1.0.0")

// LobbyInfo describes a lobby. It is informational: everything that counts
// is in signed envelopes (the roster fixes game, version and members).
type LobbyInfo struct {
	Lobby   string       `json:"lobby"` // lobby id (hex), also the topic
	Code    string       `json:"code"`
	Host    string       `json:"host"` // host peer id
	Name    string       `json:"name"` // host's display name
	Game    string       `json:"game"`
	Title   string       `json:"title"`
	Version string       `json:"version"`
	Options string       `json:"options"`
	Players int          `json:"players"` // members so far, host included
	Max     int          `json:"max_players"`
	Started bool         `json:"started"`
	Members []MemberAddr `json:"members"`
	// Mode is the table's card mode the host proposes ("secret table",
	// "open hands", "open (no hidden cards)"); empty from an older host.
	// A joiner that asked for the other mode leaves at once (JoinLobby);
	// the roster is what binds every member to it.
	Mode string `json:"mode,omitempty"`
	// Names are the names of the players in the lobby so far, host
	// included, so that a joiner whose name is taken picks another before
	// two players of one name sit at the table; empty from an older host.
	Names []string `json:"names,omitempty"`
}

// MemberAddr is a lobby member and where to reach it.
type MemberAddr struct {
	ID    string   `json:"id"`
	Addrs []string `json:"addrs"`
}

// ServeLobby answers lobby queries with what info returns at the time.
// Anyone may ask, within limits (one stream of a peer at once, eight in
// all, four in a row then two a second): each answer asks the node.
func ServeLobby(h host.Host, info func() LobbyInfo) {
	lim := newStreamLimits(1, 8, 4, 2)
	h.SetStreamHandler(LobbyProtocol, func(s network.Stream) {
		from := s.Conn().RemotePeer()
		if !lim.enter(from) {
			s.Reset()
			return
		}
		defer lim.leave(from)
		defer s.Close()
		s.SetDeadline(time.Now().Add(10 * time.Second))
		json.NewEncoder(s).Encode(info())
	})
}

// AskLobby asks peer p for its lobby.
func AskLobby(ctx context.Context, h host.Host, p peer.ID) (LobbyInfo, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	s, err := h.NewStream(ctx, p, LobbyProtocol)
	if err != nil {
		return LobbyInfo{}, fmt.Errorf("%s is not hosting a lobby: %w", short(p), err)
	}
	defer s.Close()
	s.SetDeadline(time.Now().Add(10 * time.Second))
	info, err := DecodeLobbyInfo(s)
	if err != nil {
		return LobbyInfo{}, fmt.Errorf("lobby answer from %s: %w", short(p), err)
	}
	return info, nil
}

// maxLobbyAnswer bounds a lobby answer: a few hundred bytes per member.
const maxLobbyAnswer = 64 << 10

// DecodeLobbyInfo reads one lobby answer: a single JSON object of at most
// maxLobbyAnswer bytes, then the end of the stream. Anything longer, a
// second value, or more members than a table holds is an error.
func DecodeLobbyInfo(r io.Reader) (LobbyInfo, error) {
	b, err := io.ReadAll(io.LimitReader(bufio.NewReader(r), maxLobbyAnswer+1))
	if err != nil {
		return LobbyInfo{}, err
	}
	if len(b) > maxLobbyAnswer {
		return LobbyInfo{}, fmt.Errorf("answer over %d bytes", maxLobbyAnswer)
	}
	var info LobbyInfo
	dec := json.NewDecoder(bytes.NewReader(b))
	if err := dec.Decode(&info); err != nil {
		return LobbyInfo{}, err
	}
	if dec.More() {
		return LobbyInfo{}, errors.New("more than one answer")
	}
	if len(info.Members) > 64 || len(info.Names) > 64 || info.Players < 0 || info.Max < 0 {
		return LobbyInfo{}, fmt.Errorf("%d members, %d names, %d players of %d: not a lobby", len(info.Members), len(info.Names), info.Players, info.Max)
	}
	return info, nil
}

// MemberAddrs lists ids with their addresses as h's peerstore knows them
// (the listen addresses each peer announced through identify), and h
// itself first.
func MemberAddrs(h host.Host, ids []peer.ID) []MemberAddr {
	out := []MemberAddr{{ID: h.ID().String(), Addrs: addrStrings(h.Addrs())}}
	for _, id := range ids {
		if id == h.ID() {
			continue
		}
		out = append(out, MemberAddr{ID: id.String(), Addrs: addrStrings(h.Peerstore().Addrs(id))})
	}
	return out
}

// ConnectMembers dials every member we are not connected to yet, at most
// connectParallel at once: a member that is down can hold its dial for the
// whole timeout (a QUIC address answers nothing), and one after the other
// they added up, at a whole table's restart, to seconds per absent member
// before the game could go on. A member that cannot be reached directly
// still gets our messages through the others (gossip forwards them), so
// failures are returned, not fatal. The list may come from a peer or from
// disk: how long it is bounds only how long the dials take, never how many
// run at once.
func ConnectMembers(ctx context.Context, h host.Host, members []MemberAddr) []error {
	var (
		mu   sync.Mutex
		errs []error
		wg   sync.WaitGroup
	)
	slots := make(chan struct{}, connectParallel)
	for _, m := range members {
		id, err := peer.Decode(m.ID)
		if err != nil || id == h.ID() || h.Network().Connectedness(id) == network.Connected {
			continue
		}
		var addrs []ma.Multiaddr
		for _, a := range m.Addrs {
			if x, err := ma.NewMultiaddr(a); err == nil {
				addrs = append(addrs, x)
			}
		}
		select {
		case slots <- struct{}{}:
		case <-ctx.Done():
			wg.Wait()
			return append(errs, ctx.Err())
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer func() { <-slots }()
			cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			defer cancel()
			if err := h.Connect(cctx, peer.AddrInfo{ID: id, Addrs: addrs}); err != nil {
				mu.Lock()
				errs = append(errs, err)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return errs
}

// connectParallel bounds ConnectMembers' dials at once: a table's members
// (at most 8) all at once.
const connectParallel = 8

func addrStrings(as []ma.Multiaddr) []string {
	out := make([]string, len(as))
	for i, a := range as {
		out[i] = a.String()
	}
	return out
}
