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
	// GoneAfter is how long no member may answer (each poll dials them
	// again) before Run gives up with ErrTableGone (default 5 s): a
	// table whose players have all left has nobody to ask, and the
	// spectator should say so rather than wait for it. A member that
	// answers busy (its places for spectators are taken, by anyone) is
	// there: only a table none of whose members serves counts as gone.
	GoneAfter time.Duration
	// OnReplay receives every newly verified replay with its log length.
	OnReplay func(rp *lockstep.Replay, entries int)

	log []*crypto.Envelope
}

// ErrForgedLog is returned when a member serves a log that does not verify.
var ErrForgedLog = errors.New("a peer served a log that does not verify")

// ErrTableGone is returned when no member of the table has answered for
// Spectator.GoneAfter: the players have left (or the network between
// us is down), and the log verified so far is all there is to show.
var ErrTableGone = errors.New("the table is gone: none of its players answers")

// Run follows the session until it ends (nil) or ctx is cancelled.
func (s *Spectator) Run(ctx context.Context) (*lockstep.Replay, error) {
	every := s.Every
	if every == 0 {
		every = 300 * time.Millisecond
	}
	goneAfter := s.GoneAfter
	if goneAfter == 0 {
		goneAfter = 5 * time.Second
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
	contact := time.Now()
	for {
		got, busy, err := s.fetch(ctx, members)
		if errors.Is(err, ErrForgedLog) {
			return last, err // a member served bytes that are no envelope
		}
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
		// Whether the table is there is looked at now, after our own
		// work on what came: a spectator slow to verify has not lost it.
		// Once the log has begun, the table is there while a member
		// answers, if only to say it is busy (a member's host may
		// outlive its runner, which then refuses every fetch, and says
		// busy no more); before, while one is connected (a lobby
		// refuses spectators until its roster).
		if err == nil || busy || len(s.log) == 0 && s.connected(members) {
			contact = time.Now()
		}
		if since := time.Since(contact); since > goneAfter && ctx.Err() == nil {
			return last, s.gone(last, since)
		}
		select {
		case <-ctx.Done():
			return last, ctx.Err()
		case <-tick.C:
		}
	}
}

// connected says whether some member is connected to us now.
func (s *Spectator) connected(members []peer.ID) bool {
	for _, id := range members {
		if s.Host.Network().Connectedness(id) == network.Connected {
			return true
		}
	}
	return false
}

// gone is ErrTableGone with what the spectator has of the game.
func (s *Spectator) gone(last *lockstep.Replay, since time.Duration) error {
	had := "before the game began"
	if last != nil && last.Phase >= lockstep.PhasePlaying {
		had = fmt.Sprintf("the game had not ended (%d log entries verified)", len(s.log))
	}
	return fmt.Errorf("%w (nothing for %s); %s", ErrTableGone, since.Round(time.Second), had)
}

// fetch asks connected members in turn for the entries after ours; with
// none connected it dials them again and, if that reached one, asks at
// once (a link that dropped and came back is not a table gone). busy
// says a member asked answered that it was busy.
func (s *Spectator) fetch(ctx context.Context, members []peer.ID) (out []*crypto.Envelope, busy bool, err error) {
	out, asked, busy, err := s.ask(ctx, members)
	if asked {
		return out, busy, err
	}
	ConnectMembers(ctx, s.Host, s.Info.Members)
	out, _, busy, err = s.ask(ctx, members)
	return out, busy, err
}

// ask asks the connected members in turn until one answers; asked says
// some member was, busy that one of them said it was busy.
func (s *Spectator) ask(ctx context.Context, members []peer.ID) (out []*crypto.Envelope, asked, busy bool, err error) {
	err = errors.New("no member is reachable")
	for _, id := range members {
		if s.Host.Network().Connectedness(id) != network.Connected {
			continue
		}
		asked = true
		items, ferr := Fetch(ctx, s.Host, id, CommittedQuery(uint64(len(s.log))))
		if ferr != nil {
			busy = busy || errors.Is(ferr, ErrCatchupBusy)
			err = ferr
			continue
		}
		out = make([]*crypto.Envelope, 0, len(items))
		for _, b := range items {
			env, uerr := crypto.Unmarshal(b)
			if uerr != nil {
				return nil, true, busy, fmt.Errorf("%w: %v", ErrForgedLog, uerr)
			}
			out = append(out, env)
		}
		return out, true, busy, nil
	}
	return nil, asked, busy, err
}

// Log returns the verified entries so far.
func (s *Spectator) Log() []*crypto.Envelope { return s.log }

// A player's runner that served a spectator lingers after the game's end
// until that spectator has fetched the end too, so that a spectator a
// poll or two behind (a loaded machine, a relayed link) still sees how
// the game ended, and not a table that left without it. The wait is
// bounded: a spectator not heard from for spectatorRecent (one that left)
// is not waited for, and the runner lingers at most spectatorPatience
// past Linger whatever spectators do, so a player's process still exits
// by itself soon after the game. A local table (Table.Run, `boardmesh play`) ends
// its runners' linger itself once every peer has seen the end, as before.
const (
	spectatorPatience = 8 * time.Second
	spectatorRecent   = 30 * time.Second
	// maxSpectatorsSeen bounds what a runner remembers of spectators; a
	// new one past it replaces the one heard from longest ago.
	maxSpectatorsSeen = 32
)

// spectatorSeen is what a runner knows of one spectator.
type spectatorSeen struct {
	at     time.Time // its latest committed-log fetch
	gotEnd bool      // that fetch reached the end of a finished log
}

// sawSpectator records that p, outside the roster, fetched the committed
// log; end says the answer reached the end of a game that is over.
func (r *Runner) sawSpectator(p peer.ID, end bool) {
	if r.spectators == nil {
		r.spectators = map[peer.ID]*spectatorSeen{}
	}
	s := r.spectators[p]
	if s == nil {
		if len(r.spectators) >= maxSpectatorsSeen {
			var oldest peer.ID
			for id, x := range r.spectators {
				if oldest == "" || x.at.Before(r.spectators[oldest].at) {
					oldest = id
				}
			}
			delete(r.spectators, oldest)
		}
		s = &spectatorSeen{}
		r.spectators[p] = s
	}
	s.at, s.gotEnd = time.Now(), end
}

// spectatorsWaiting says whether the runner, past its linger (which ended
// at lingerUntil), should still wait for a spectator: one it served
// within spectatorRecent that has not fetched the end yet, and only
// until spectatorPatience past lingerUntil.
func (r *Runner) spectatorsWaiting(now, lingerUntil time.Time) bool {
	if now.After(lingerUntil.Add(spectatorPatience)) {
		return false
	}
	for _, s := range r.spectators {
		if !s.gotEnd && now.Sub(s.at) < spectatorRecent {
			return true
		}
	}
	return false
}
