package p2p

import (
	"crypto/ed25519"
	"os"
	"regexp"
	"testing"

	p2pcrypto "github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/peer"
)

// TestJoinCodeVectors checks §9.9 of docs/protocol.md: the join code, the
// LAN code and the DHT key of §8's peer id.
func TestJoinCodeVectors(t *testing.T) {
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
	v := [][2]string{
		{"inet.peer_id_text", id.String()},
		{"inet.join_code", code},
		{"inet.lan_code", LANCode(id)},
		{"inet.dht_key_cid", CodeKey(code).String()},
	}
	doc, err := os.ReadFile("../docs/protocol.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, x := range v {
		t.Logf("    %s = %s", x[0], x[1])
		m := regexp.MustCompile(`(?m)^    ` + regexp.QuoteMeta(x[0]) + ` = (\S+)$`).FindSubmatch(doc)
		if m == nil {
			t.Errorf("docs/protocol.md lacks vector %s", x[0])
			continue
		}
		if string(m[1]) != x[1] {
			t.Errorf("vector %s: code gives %s, docs/protocol.md says %s", x[0], x[1], m[1])
		}
	}
}
