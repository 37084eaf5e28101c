package p2p

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/boardmesh/boardmesh/crypto"
	"github.com/boardmesh/boardmesh/engine"
	"github.com/boardmesh/boardmesh/lockstep"
	"github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
)

// Spectator follows a session without a seat: it fetches the committed
// log from any member over the catch-up stream and verifies every entry
// (signatures, roster, beacons, pre-state hashes, legality, checkpoints)
// with a lockstep.Verifier before it shows anything; each entry is checked
// once, as it arrives, so a poll costs what it brings. It never publishes, so
// the players' protocol does not know it is there.
type Spectator struct {
	Host  host.Host
	Info  LobbyInfo
	Games func(string) (*engine.Game, error)
	// Every is the polling interval (default 300 ms).
	Every time.Duration
	// OnReplay receives every newly verified replay with its log length.
	OnReplay func(rp *lockstep.Replay, entries int)

	log []*crypto.Envelope
}

// ErrForgedLog is returned when a member serves a log that does not verify.
var ErrForgedLog = errors.New("a peer served a log that does not verify")

// Run follows the session until it ends (nil) or ctx is cancelled.
func (s *Spectator) Run(ctx context.Context) (*lockstep.Replay, error) {
	every := s.Every
	if every == 0 {
		every = 300 * time.Millisecond
	}
	var members []peer.ID
	for _, m := range s.Info.Members {
		if id, err := peer.Decode(m.ID); err == nil && id != s.Host.ID() {
			members = append(members, id)
		}
	}
	ConnectMembers(ctx, s.Host, s.Info.Members)
	var last *lockstep.Replay
	v := lockstep.NewVerifier(s.Games)
	for _, env := range s.log {
		if err := v.Feed(env); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrForgedLog, err)
		}
	}
	tick := time.NewTicker(every)
	defer tick.Stop()
	for {
		got, err := s.fetch(ctx, members)
		if err == nil && len(got) > 0 {
			// Each entry is verified once, as it arrives: the verifier
			// carries the replay from one poll to the next.
			for _, env := range got {
				if verr := v.Feed(env); verr != nil {
					return last, fmt.Errorf("%w: %v", ErrForgedLog, verr)
				}
				s.log = append(s.log, env)
			}
			last = v.Replay()
			if s.OnReplay != nil {
				s.OnReplay(last, len(s.log))
			}
		}
		if last != nil && (last.Phase == lockstep.PhaseOver || last.Phase == lockstep.PhaseStopped) {
			return last, nil
		}
		select {
		case <-ctx.Done():
			return last, ctx.Err()
		case <-tick.C:
		}
	}
}

// fetch asks connected members in turn for the entries after ours.
func (s *Spectator) fetch(ctx context.Context, members []peer.ID) ([]*crypto.Envelope, error) {
	var lastErr error = errors.New("no member is reachable")
	for _, id := range members {
		if s.Host.Network().Connectedness(id) != network.Connected {
			continue
		}
		items, err := Fetch(ctx, s.Host, id, CommittedQuery(uint64(len(s.log))))
		if err != nil {
			lastErr = err
			continue
		}
		out := make([]*crypto.Envelope, 0, len(items))
		for _, b := range items {
			env, err := crypto.Unmarshal(b)
			if err != nil {
				return nil, fmt.Errorf("%w: %v", ErrForgedLog, err)
			}
			out = append(out, env)
		}
		return out, nil
	}
	// Nobody is connected: dial the members again for the next round.
	ConnectMembers(ctx, s.Host, s.Info.Members)
	return nil, lastErr
}

// Log returns the verified entries so far.
func (s *Spectator) Log() []*crypto.Envelope { return s.log }
