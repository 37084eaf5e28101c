package p2p

import (
	"github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/libp2p/go-libp2p/core/protocol"
)

// WireProtocol marks a peer that reads bundles on a session topic
// (crypto.Messages, docs/protocol.md §9.2). It carries nothing: a stream
// opened to it is reset at once. Its only use is that identify lists it
// among a peer's protocols, so that a peer learns, with no round of its
// own, whether another reads bundles.
//
// Why a marker: a build from before bundles reads only lone envelopes and
// calls a bundle malformed; it would score the sender down and, seeing
// nothing it can read, stall. Until every peer that must read what we
// publish advertises the marker, the runner sends each envelope alone,
// which every build reads. A table of mixed builds then plays as the
// older builds alone would, not fail: a peer that does not advertise the
// marker (an older build, or one whose identify has not come yet) costs
// the bundles, never a message.
const WireProtocol = protocol.ID("/boardmesh/wire/2")

// advertiseWire registers the marker on h.
func advertiseWire(h host.Host) {
	h.SetStreamHandler(WireProtocol, func(s network.Stream) { s.Reset() })
}

// bundleReaders answers whether a peer reads bundles: what identify last
// told of it. A peer identify has told nothing of (not met yet) does not:
// lone envelopes are what is safe. A peer once seen with the marker keeps
// it while the peerstore knows nothing of it any more: a member that left
// is forgotten by the peerstore a minute later, and the table must not
// give up bundles for good because one seat dropped. A peer whose
// protocols identify lists without the marker (an older build resumed
// under the same identity) does not read them, whatever it did before.
// Only members are remembered (remember: the caller asks of a member): a
// lobby's topic peers are anyone who subscribes, and remembering each of
// them would let an outsider grow the map with identities of its making.
type bundleReaders map[peer.ID]bool

func (b *bundleReaders) reads(h host.Host, p peer.ID, remember bool) bool {
	if p == h.ID() {
		return true
	}
	ps := h.Peerstore()
	if ok, err := ps.SupportsProtocols(p, WireProtocol); err == nil && len(ok) > 0 {
		if !remember {
			return true
		}
		if *b == nil {
			*b = bundleReaders{}
		}
		(*b)[p] = true
		return true
	}
	if known, err := ps.GetProtocols(p); err == nil && len(known) > 0 {
		delete(*b, p)
		return false
	}
	return (*b)[p]
}
