package p2p

import (
	"errors"
	"strings"
	"testing"

	p2pcrypto "github.com/libp2p/go-libp2p/core/crypto"
	"github.com/libp2p/go-libp2p/core/peer"
)

func TestCodeWordsDistinct(t *testing.T) {
	t.Parallel()
	seen := map[string]bool{}
	for _, w := range codeWords {
		if w == "" || seen[w] || strings.ContainsAny(w, "- _.") {
			t.Fatalf("word %q is empty, repeated or contains a separator", w)
		}
		seen[w] = true
	}
}

func TestJoinCodeRoundTrip(t *testing.T) {
	t.Parallel()
	codes := map[string]peer.ID{}
	for range 50 {
		k, _, _ := p2pcrypto.GenerateEd25519Key(nil)
		id, _ := peer.IDFromPrivateKey(k)
		code := JoinCode(id)
		if JoinCode(id) != code {
			t.Fatal("join code is not a function of the peer id")
		}
		if len(strings.Split(code, "-")) != JoinCodeWords {
			t.Fatalf("code %q is not eight words", code)
		}
		if lan := LANCode(id); !strings.HasPrefix(code, lan+"-") || !CodeMatches(id, lan) || !IsLANCode(lan) || IsLANCode(code) {
			t.Fatalf("LAN code %q is not the first three words of %q, or does not match", lan, code)
		}
		typed := strings.ToUpper(strings.ReplaceAll(code, "-", " "))
		got, err := ParseJoinCode("  " + typed + " ")
		if err != nil || got != code {
			t.Fatalf("ParseJoinCode(%q) = %q, %v; want %q", typed, got, err, code)
		}
		codes[code] = id
	}
	if len(codes) < 45 {
		t.Fatalf("only %d distinct codes for 50 peers", len(codes))
	}
}

func TestParseJoinCodeRejects(t *testing.T) {
	t.Parallel()
	for _, bad := range []string{"", "amber", "amber-falcon", "amber-falcon-river-otter", "amber-falcon-xylophone",
		"amber-falcon-river-otter-cedar-mint-opal", "amber-falcon-river-otter-cedar-mint-opal-wren-fox", "amber-falcon-river-otter-cedar-mint-opal-xylophone", "/ip4/127.0.0.1/tcp/1"} {
		if _, err := ParseJoinCode(bad); !errors.Is(err, ErrNotJoinCode) {
			t.Errorf("ParseJoinCode(%q) = %v, want ErrNotJoinCode", bad, err)
		}
	}
}

// TestJoinCodeCommitsToPeer: a code matches only the peer it was made
// from; another key's code differs in some word (64 bits to forge).
func TestJoinCodeCommitsToPeer(t *testing.T) {
	t.Parallel()
	k1, _, _ := p2pcrypto.GenerateEd25519Key(nil)
	k2, _, _ := p2pcrypto.GenerateEd25519Key(nil)
	a, _ := peer.IDFromPrivateKey(k1)
	b, _ := peer.IDFromPrivateKey(k2)
	if CodeMatches(b, JoinCode(a)) || CodeMatches(a, JoinCode(b)) {
		t.Fatalf("peer %s matches the code of %s", b, a)
	}
}
