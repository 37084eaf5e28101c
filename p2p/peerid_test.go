package p2p

import (
	"bytes"
	"testing"

	"github.com/boardmesh/boardmesh/crypto"
	p2pcrypto "github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/peer"
)

// TestPeerIDIsLibp2pPeerID checks that lockstep's peer id (crypto.PeerID,
// which knows no libp2p) is the libp2p peer ID of the same key, byte for
// byte and in its text form, and that keys convert both ways without
// change: the runner relies on peer.ID(x) and crypto.PeerID(y) being free.
func TestPeerIDIsLibp2pPeerID(t *testing.T) {
	t.Parallel()
	for i := byte(0); i < 8; i++ {
		seed := bytes.Repeat([]byte{i*31 + 7}, 32)
		lk, _, err := p2pcrypto.GenerateEd25519Key(bytes.NewReader(seed))
		if err != nil {
			t.Fatal(err)
		}
		want, err := peer.IDFromPrivateKey(lk)
		if err != nil {
			t.Fatal(err)
		}
		id, err := SigningIdentity(lk)
		if err != nil {
			t.Fatal(err)
		}
		if string(id.ID()) != string(want) || id.ID().String() != want.String() {
			t.Fatalf("crypto id %q (%s), libp2p %q (%s)", id.ID(), id.ID(), want, want)
		}
		back, err := HostKey(id)
		if err != nil || !back.Equals(lk) {
			t.Fatalf("host key does not round-trip: %v", err)
		}
		gen, err := crypto.GenerateIdentity(bytes.NewReader(seed))
		if err != nil || gen.ID() != id.ID() {
			t.Fatalf("crypto.GenerateIdentity from the same seed gives %s, libp2p %s (%v)", gen.ID(), want, err)
		}
		parsed, err := crypto.ParsePeerID(want.String())
		if err != nil || parsed != id.ID() {
			t.Fatalf("ParsePeerID(%s) = %q, %v", want, parsed, err)
		}
	}
	if _, err := SigningIdentity(nil); err == nil {
		t.Fatal("a nil key became an identity")
	}
	sk, _, err := p2pcrypto.GenerateSecp256k1Key(bytes.NewReader(bytes.Repeat([]byte{1}, 64)))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := SigningIdentity(sk); err == nil {
		t.Fatal("a secp256k1 key became a signing identity")
	}
}
