package p2p

import (
	"testing"

	"github.com/libp2p/go-libp2p/core/protocol"
	"github.com/libp2p/go-libp2p/core/test"
)

// TestBundleReadersFollowIdentify: whether a peer reads bundles is what
// identify last said of it (here written into the peerstore as identify
// would). A peer never identified does not; one that advertised the
// marker still does once the peerstore has forgotten it (a member gone a
// minute), so one dropped seat does not end bundles for the table; one
// whose protocols come back without the marker (an older build under the
// same identity) does not any more, even once forgotten again.
func TestBundleReadersFollowIdentify(t *testing.T) {
	h, err := NewHost(HostConfig{NoQUIC: true})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	other, err := NewHost(HostConfig{NoQUIC: true})
	if err != nil {
		t.Fatal(err)
	}
	p := other.ID()
	other.Close()
	ps := h.Peerstore()
	var b bundleReaders
	step := func(what string, want bool) {
		t.Helper()
		if got := b.reads(h, p, true); got != want {
			t.Fatalf("%s: reads bundles %v, want %v", what, got, want)
		}
	}
	if !b.reads(h, h.ID(), true) {
		t.Fatal("a peer does not read its own bundles")
	}
	step("never identified", false)
	ps.SetProtocols(p, "/ipfs/id/1.0.0", WireProtocol)
	step("identified with the marker", true)
	ps.RemovePeer(p)
	step("forgotten by the peerstore after it left", true)
	ps.SetProtocols(p, "/ipfs/id/1.0.0", protocol.ID("/boardmesh/catchup/1.0.0"))
	step("identified again without the marker", false)
	ps.RemovePeer(p)
	step("forgotten again", false)

	// A lobby's topic peer (not a member) is asked of without being
	// remembered: outsiders cannot grow the map with made-up identities.
	var lobby bundleReaders
	for i := 0; i < 100; i++ {
		id, err := test.RandPeerID()
		if err != nil {
			t.Fatal(err)
		}
		ps.SetProtocols(id, WireProtocol)
		if !lobby.reads(h, id, false) {
			t.Fatal("a topic peer with the marker does not read bundles")
		}
	}
	if len(lobby) != 0 {
		t.Fatalf("%d topic peers remembered", len(lobby))
	}
}
