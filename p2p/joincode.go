package p2p

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"strings"

	"github.com/libp2p/go-libp2p/core/peer"
)

// A join code is eight words, "amber-falcon-river-otter-cedar-mint-opal-wren",
// the first eight bytes of SHA-256("boardmesh/joincode/v1" || host peer ID),
// one word per byte from a fixed list of 256 short English words. The code
// holds no address; it commits to the host's peer ID:
//   - on a LAN, `join CODE` browses mDNS, computes the code of every lobby it
//     finds and connects to the one that matches;
//   - beyond it, the host advertises a provider record on the DHT under a key
//     derived from the code (dht.go), and the joiner accepts only a provider
//     whose peer ID has that code, so a DHT node cannot redirect it; libp2p's
//     handshake then proves the key.
// 64 bits make a code hopeless to guess on a public DHT, and a forged peer
// ID with a given code costs about 2^64 key generations. The first three
// words alone (the LAN code, 24 bits) still find a lobby over mDNS, where
// only the handful of lobbies on one LAN are candidates; the DHT is never
// asked for a LAN code.

// Code lengths in words.
const (
	JoinCodeWords = 8
	LANCodeWords  = 3
)

// ErrNotJoinCode is returned by ParseJoinCode for text that is not a code
// of eight (or, on a LAN, three) words of the list.
var ErrNotJoinCode = errors.New("not a join code")

func codeWordsOf(id peer.ID, n int) string {
	h := sha256.Sum256(append([]byte("boardmesh/joincode/v1"), id...))
	w := make([]string, n)
	for i := range w {
		w[i] = codeWords[h[i]]
	}
	return strings.Join(w, "-")
}

// JoinCode returns the join code of a lobby hosted by id: eight words.
func JoinCode(id peer.ID) string { return codeWordsOf(id, JoinCodeWords) }

// LANCode returns the short code of a lobby hosted by id: the first three
// words of its join code, enough on one LAN (mDNS) and nowhere else.
func LANCode(id peer.ID) string { return codeWordsOf(id, LANCodeWords) }

// CodeMatches says whether code (as ParseJoinCode returns it) is the join
// code or the LAN code of id.
func CodeMatches(id peer.ID, code string) bool {
	return code == JoinCode(id) || code == LANCode(id)
}

// IsLANCode says whether a parsed code is the short LAN form.
func IsLANCode(code string) bool { return strings.Count(code, "-") == LANCodeWords-1 }

// ParseJoinCode normalises a code typed by a person (any case, words
// separated by dashes, spaces, dots or underscores) and checks that every
// word is on the list and that there are eight (or three, for a LAN).
func ParseJoinCode(s string) (string, error) {
	f := strings.FieldsFunc(strings.ToLower(strings.TrimSpace(s)), func(r rune) bool {
		return r == '-' || r == ' ' || r == '_' || r == '.'
	})
	if len(f) != JoinCodeWords && len(f) != LANCodeWords {
		return "", fmt.Errorf("%w: %q (a code is eight words like amber-falcon-river-otter-cedar-mint-opal-wren, or on a LAN its first three words)", ErrNotJoinCode, s)
	}
	for _, w := range f {
		if !isCodeWord(w) {
			return "", fmt.Errorf("%w: %q (%q is not one of the code words; check the spelling)", ErrNotJoinCode, s, w)
		}
	}
	return strings.Join(f, "-"), nil
}

// LooksLikeMultiaddr tells a multiaddr from a join code for commands that
// accept either.
func LooksLikeMultiaddr(s string) bool {
	return strings.HasPrefix(strings.TrimSpace(s), "/")
}

func isCodeWord(w string) bool {
	for _, c := range codeWords {
		if c == w {
			return true
		}
	}
	return false
}

// codeWords are 256 short, distinct, easily spoken words.
var codeWords = [256]string{
	"acorn", "amber", "anchor", "apple", "arrow", "aspen", "atlas", "autumn", "badge",
	"bagel", "bamboo", "banjo", "barley", "basil", "beacon", "beaver", "berry", "birch",
	"bison", "blaze", "bloom", "bonsai", "border", "bramble", "breeze", "brick", "bridge",
	"bronze", "brook", "bubble", "bucket", "button", "cabin", "cactus", "camel", "candle",
	"canoe", "canyon", "carbon", "carrot", "castle", "cedar", "cello", "chalk", "cherry",
	"chess", "cider", "cinder", "circle", "citrus", "clover", "cobalt", "cocoa", "comet",
	"copper", "coral", "cotton", "cougar", "crane", "crater", "cricket", "crystal",
	"cypress", "daisy", "delta", "desert", "dingo", "dolphin", "dragon", "drift", "drum",
	"dune", "eagle", "echo", "ember", "emerald", "engine", "falcon", "feather", "fennel",
	"fern", "fiddle", "fig", "flame", "flint", "forest", "fossil", "fox", "frost", "galaxy",
	"garden", "garnet", "gecko", "ginger", "glacier", "globe", "goose", "granite", "grape",
	"gravel", "harbor", "hazel", "heron", "hickory", "honey", "horizon", "husky", "igloo",
	"indigo", "iris", "island", "ivory", "jade", "jaguar", "jasmine", "jelly", "jigsaw",
	"juniper", "kayak", "kettle", "kiwi", "koala", "lagoon", "lantern", "larch", "laurel",
	"lemon", "lily", "linen", "lion", "lizard", "llama", "lotus", "lunar", "lynx", "magnet",
	"mango", "maple", "marble", "meadow", "melon", "meteor", "mint", "mirror", "moose",
	"mosaic", "moss", "nectar", "needle", "nickel", "nova", "nutmeg", "oak", "oasis",
	"ocean", "olive", "onyx", "opal", "orbit", "orchid", "otter", "owl", "oyster", "paddle",
	"panda", "panther", "papaya", "parrot", "pebble", "pepper", "pickle", "pilot", "pine",
	"planet", "plum", "polar", "poppy", "prism", "puffin", "pumpkin", "quail", "quartz",
	"quill", "rabbit", "radar", "raven", "reef", "ribbon", "river", "robin", "rocket",
	"ruby", "saffron", "salmon", "sapphire", "satin", "scarlet", "shadow", "shell",
	"sierra", "silver", "sketch", "sparrow", "spruce", "squid", "stone", "storm", "summit",
	"sunset", "swan", "tango", "thistle", "thunder", "tiger", "timber", "topaz", "torch",
	"toucan", "tulip", "tundra", "turtle", "velvet", "violet", "walnut", "walrus", "willow",
	"window", "winter", "wolf", "yarrow", "zebra", "zephyr", "zinc", "cloud", "lemur",
	"moth", "badger", "cobra", "hawk", "pony", "yak", "wren", "finch", "tapir", "bear",
	"seal", "mole", "newt", "toad", "hare", "crow", "dove", "lark", "kite", "elk", "ibis",
}
