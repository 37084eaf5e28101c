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

// readsBundles reports whether identify has told h that p advertises the
// marker. A peer h knows nothing of does not: sending it lone envelopes is
// what is safe.
func readsBundles(h host.Host, p peer.ID) bool {
	if p == h.ID() {
		return true
	}
	ok, err := h.Peerstore().SupportsProtocols(p, WireProtocol)
	return err == nil && len(ok) > 0
}
