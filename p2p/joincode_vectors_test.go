package p2p

import (
	"crypto/ed25519"
	"testing"

	"github.com/boardmesh/boardmesh/engine/golden"

	p2pcrypto "github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/peer"
)

// TestJoinCodeVectors checks §9.9 of docs/protocol.md: the join code, the
// LAN code and the DHT key of §8's peer id.
func TestJoinCodeVectors(t *testing.T) {
	t.Parallel()
	seed := make([]byte, 32)
	for i := range seed {
		seed[i] = byte(i)
	}
	k, err := p2pcrypto.UnmarshalEd25519PrivateKey(ed25519.NewKeyFromSeed(seed))
	if err != nil {
		t.Fatal(err)
	}
	id, err := peer.IDFromPrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	code := JoinCode(id)
	v := []golden.Vector{
		{"inet.peer_id_text", id.String()},
		{"inet.join_code", code},
		{"inet.lan_code", LANCode(id)},
		{"inet.dht_key_cid", CodeKey(code).String()},
	}
	for _, x := range v {
		t.Logf("    %s = %s", x[0], x[1])
	}
	golden.Check(t, "../docs/protocol.md", v, false)
}
