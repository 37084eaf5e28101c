package p2p

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"strings"

	"github.com/libp2p/go-libp2p/core/peer"
)

// A join code is three words, "amber-falcon-river", that a host reads out
// across the room. It is the first three bytes of
// SHA-256("boardmesh/joincode/v1" || host peer ID), one word per byte from
// a fixed list of 256 short English words. The code holds no address:
// `join CODE` browses mDNS on the LAN, computes the code of every lobby it
// finds, and connects to the one that matches; the host's peer ID then
// authenticates the connection (libp2p's handshake proves the key). 24 bits
// are plenty to tell apart the handful of lobbies on one LAN, and three
// words are easier to say than a 52-character peer ID. Away from a LAN (or
// in tests on loopback) join by the multiaddr the host prints instead.

// ErrNotJoinCode is returned by ParseJoinCode for text that is not three
// words of the list.
var ErrNotJoinCode = errors.New("not a join code")

// JoinCode returns the join code of a lobby hosted by id.
func JoinCode(id peer.ID) string {
	h := sha256.Sum256(append([]byte("boardmesh/joincode/v1"), id...))
	return codeWords[h[0]] + "-" + codeWords[h[1]] + "-" + codeWords[h[2]]
}

// ParseJoinCode normalises a code typed by a person (any case, words
// separated by dashes, spaces, dots or underscores) and checks that every
// word is on the list.
func ParseJoinCode(s string) (string, error) {
	f := strings.FieldsFunc(strings.ToLower(strings.TrimSpace(s)), func(r rune) bool {
		return r == '-' || r == ' ' || r == '_' || r == '.'
	})
	if len(f) != 3 {
		return "", fmt.Errorf("%w: %q (a code is three words like amber-falcon-river)", ErrNotJoinCode, s)
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
