package lockstep

import (
	"bytes"
	"encoding/hex"
	"errors"
	"testing"

	"github.com/boardmesh/boardmesh/crypto"
)

// TestCardKeyFile: the card-key file round-trips; its bytes are pinned
// (docs/protocol.md §10.9); every cut, every flipped bit, a trailing byte,
// another magic and an oversized file are refused with an error that
// wraps ErrCardKeyFile and says what is wrong, never a panic.
func TestCardKeyFile(t *testing.T) {
	session := fillHash(0x5e)
	key := bytes.Repeat([]byte{0x2a}, 32)
	b := EncodeCardKey(session, key)
	if got := hex.EncodeToString(b); got != cardKeyVector {
		t.Fatalf("card-key file vector:\n got %s\nwant %s", got, cardKeyVector)
	}
	s, k, err := DecodeCardKey(b)
	if err != nil || s != session || !bytes.Equal(k, key) {
		t.Fatalf("round trip: %v %x %v", s, k, err)
	}
	refused := func(what string, x []byte) {
		t.Helper()
		_, _, err := DecodeCardKey(x)
		if !errors.Is(err, ErrCardKeyFile) {
			t.Fatalf("%s: %v", what, err)
		}
	}
	for i := 0; i < len(b); i++ {
		refused("cut", b[:i])
	}
	for i := 0; i < len(b)*8; i++ {
		x := append([]byte(nil), b...)
		x[i/8] ^= 1 << (i % 8)
		refused("flipped bit", x)
	}
	refused("trailing byte", append(append([]byte(nil), b...), 0))
	refused("log file", []byte(LogMagic+"........................................"))
	refused("huge", make([]byte, MaxCardKeyFile+1))
	if _, _, err := DecodeCardKey(EncodeCardKey(crypto.Hash{}, nil)); err == nil {
		t.Fatal("an empty key decoded")
	}
}

// cardKeyVector is the card-key file of session 5e…5e and the key 2a…2a
// (32 bytes), its crc 7d4239de.
const cardKeyVector = "626f6172646d6573682063617264206b65792076310a" +
	"5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e5e" +
	"20" + "2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a2a" +
	"7d4239de"

// FuzzDecodeCardKey: any bytes decode or are refused, never a panic; what
// decodes encodes back to the same bytes.
func FuzzDecodeCardKey(f *testing.F) {
	f.Add(EncodeCardKey(fillHash(1), []byte{1, 2, 3}))
	f.Add([]byte(CardKeyMagic))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, k, err := DecodeCardKey(b)
		if err != nil {
			if !errors.Is(err, ErrCardKeyFile) {
				t.Fatalf("an error that does not say the file is damaged: %v", err)
			}
			return
		}
		if !bytes.Equal(EncodeCardKey(s, k), b) {
			t.Fatal("a decoded card-key file does not encode back to its bytes")
		}
	})
}
