package p2p

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/libp2p/go-libp2p/core/protocol"
)

// MembersProtocol is the stream protocol by which a member tells another
// member where the table's members are now: the asker writes nothing and
// closes its side; the answer is one JSON array of MemberAddr (at most
// maxMembersAnswer bytes), the answering peer first with its own current
// listen addresses. Only members are answered. This is how a member that
// restarted on a new port is found by the others: it reaches any one of
// them, which learns its address from identify and passes it on.
const MembersProtocol = protocol.ID("/boardmesh/members/1.0.0")

const (
	maxMembersAnswer = 64 << 10
	membersTimeout   = 5 * time.Second
	// Redialling the members we lack starts at meetMin and backs off to
	// meetMax while someone stays missing; each dial gives up after
	// meetDial.
	meetMin  = 250 * time.Millisecond
	meetMax  = 5 * time.Second
	meetDial = 3 * time.Second
)

// ServeMembers answers MembersProtocol with what members returns for the
// asking peer; ok false (the asker is not a member) resets the stream.
func ServeMembers(h host.Host, members func(asker peer.ID) ([]MemberAddr, bool)) {
	h.SetStreamHandler(MembersProtocol, func(s network.Stream) {
		defer s.Close()
		s.SetDeadline(time.Now().Add(membersTimeout))
		list, ok := members(s.Conn().RemotePeer())
		if !ok {
			s.Reset()
			return
		}
		b, err := json.Marshal(list)
		if err != nil || len(b) > maxMembersAnswer {
			s.Reset()
			return
		}
		if _, err := s.Write(b); err != nil {
			s.Reset()
		}
	})
}

// AskMembers asks peer p where the table's members are.
func AskMembers(ctx context.Context, h host.Host, p peer.ID) ([]MemberAddr, error) {
	ctx, cancel := context.WithTimeout(ctx, membersTimeout)
	defer cancel()
	s, err := h.NewStream(ctx, p, MembersProtocol)
	if err != nil {
		return nil, fmt.Errorf("ask %s for the members: %w", short(p), err)
	}
	defer s.Close()
	s.SetDeadline(time.Now().Add(membersTimeout))
	s.CloseWrite()
	b, err := io.ReadAll(io.LimitReader(bufio.NewReader(s), maxMembersAnswer+1))
	if err != nil {
		return nil, fmt.Errorf("members from %s: %w", short(p), err)
	}
	if len(b) > maxMembersAnswer {
		return nil, fmt.Errorf("members from %s: answer over %d bytes", short(p), maxMembersAnswer)
	}
	var list []MemberAddr
	if err := json.Unmarshal(b, &list); err != nil {
		return nil, fmt.Errorf("members from %s: %w", short(p), err)
	}
	if len(list) > 64 {
		return nil, fmt.Errorf("members from %s: %d members", short(p), len(list))
	}
	return list, nil
}

// mergeMembers folds what peer from says of the members into ours. Only
// members we know are kept (an answer cannot add one), and what a peer
// says of itself is the freshest news of it; of others it only adds
// addresses.
func mergeMembers(ours []MemberAddr, from peer.ID, theirs []MemberAddr) ([]MemberAddr, bool) {
	changed := false
	out := slices.Clone(ours)
	for i := range out {
		out[i].Addrs = slices.Clone(out[i].Addrs)
	}
	for _, t := range theirs {
		for i := range out {
			if out[i].ID != t.ID {
				continue
			}
			if t.ID == from.String() && len(t.Addrs) > 0 && !slices.Equal(out[i].Addrs, t.Addrs) {
				out[i].Addrs = slices.Clone(t.Addrs)
				changed = true
				continue
			}
			for _, a := range t.Addrs {
				if !slices.Contains(out[i].Addrs, a) && len(out[i].Addrs) < 16 {
					out[i].Addrs = append(out[i].Addrs, a)
					changed = true
				}
			}
		}
	}
	return out, changed
}

// keepMeeting keeps the table together until ctx ends: it dials every
// member we are not connected to at its last known addresses, backing
// off while someone stays missing, and asks the members it reaches where
// the others are (they may have restarted on other ports). What it learns
// is saved in the session file, so a later resume starts from it.
func (p *NetPeer) keepMeeting(ctx context.Context) {
	wait := meetMin
	for {
		missing, reached := p.meetRound(ctx)
		switch {
		case reached:
			wait = meetMin
		case missing:
			wait = min(2*wait, meetMax)
		default:
			wait = meetMax
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
	}
}

// meetRound is one round of keepMeeting: missing says someone is still
// not connected, reached that a connection was made this round.
func (p *NetPeer) meetRound(ctx context.Context) (missing, reached bool) {
	members := p.members()
	h := p.Host
	for _, m := range members {
		id, err := peer.Decode(m.ID)
		if err != nil || id == h.ID() || h.Network().Connectedness(id) == network.Connected {
			continue
		}
		cctx, cancel := context.WithTimeout(ctx, meetDial)
		errs := ConnectMembers(cctx, h, []MemberAddr{m})
		cancel()
		if len(errs) > 0 || h.Network().Connectedness(id) != network.Connected {
			missing = true
			continue
		}
		reached = true
		addDirect(p.PubSub, h, []MemberAddr{m})
	}
	if !reached && !missing {
		return false, false
	}
	// Ask whom we reach where the others are now.
	for _, m := range members {
		id, err := peer.Decode(m.ID)
		if err != nil || id == h.ID() || h.Network().Connectedness(id) != network.Connected {
			continue
		}
		list, err := AskMembers(ctx, h, id)
		if err != nil {
			continue
		}
		merged, changed := mergeMembers(p.members(), id, list)
		if changed {
			p.setMembers(merged)
			addDirect(p.PubSub, h, merged)
		}
	}
	return missing, reached
}

// members is a copy of the session's member list.
func (p *NetPeer) members() []MemberAddr {
	p.metaMu.Lock()
	defer p.metaMu.Unlock()
	return slices.Clone(p.Meta.Members)
}

// setMembers replaces the member list and saves the session file.
func (p *NetPeer) setMembers(m []MemberAddr) {
	p.metaMu.Lock()
	p.Meta.Members = m
	p.metaMu.Unlock()
	p.saveMeta()
}

// membersFor answers MembersProtocol: members only, with our own
// addresses as they are now and the others' as we last knew them.
func (p *NetPeer) membersFor(asker peer.ID) ([]MemberAddr, bool) {
	list := p.members()
	known := false
	for _, m := range list {
		known = known || m.ID == asker.String()
	}
	if !known {
		return nil, false
	}
	out := []MemberAddr{{ID: p.Host.ID().String(), Addrs: addrStrings(p.Host.Addrs())}}
	for _, m := range list {
		if m.ID == p.Host.ID().String() {
			continue
		}
		if id, err := peer.Decode(m.ID); err == nil {
			if as := p.Host.Peerstore().Addrs(id); len(as) > 0 {
				m.Addrs = addrStrings(as)
			}
		}
		out = append(out, m)
	}
	return out, true
}
