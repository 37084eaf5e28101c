package crypto

import (
	"bytes"
	"errors"
	"slices"
	"testing"
)

// bundleEnvs returns n envelopes signed by id, the i-th with a body of
// body(i) bytes.
func bundleEnvs(id *Identity, n int, body func(i int) int) []*Envelope {
	var envs []*Envelope
	for i := range n {
		e := &Envelope{Session: fill(0x11), Seq: uint64(i), Kind: KindReveal, Body: bytes.Repeat([]byte{byte(i)}, body(i))}
		Sign(id, e)
		envs = append(envs, e)
	}
	return envs
}

func sameEnvs(t *testing.T, got, want []*Envelope) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%d envelopes, want %d", len(got), len(want))
	}
	for i := range want {
		if !Equal(got[i], want[i]) {
			t.Fatalf("envelope %d differs", i)
		}
	}
}

// TestMessagesBundleOneAuthorsRuns: what a peer sends at once goes out as
// few messages as the limits allow (MaxBundle envelopes, max bytes, one
// author a bundle), every envelope in its order, and each message decodes
// to its envelopes; a lone envelope stays an envelope.
func TestMessagesBundleOneAuthorsRuns(t *testing.T) {
	me, other := vectorKey(t), mustIdentity(t)
	mine := bundleEnvs(me, 20, func(int) int { return 100 })
	theirs := bundleEnvs(other, 1, func(int) int { return 100 })
	envs := append(append(append([]*Envelope{}, mine[:3]...), theirs...), mine[3:]...)
	size := mine[0].Size()

	for _, tc := range []struct {
		name  string
		max   int
		sizes []int // envelopes in each message; 1 is an envelope alone
	}{
		{"roomy", 1 << 20, []int{3, 1, MaxBundle, 1}},
		{"three fit", bundleHeader + 3*(bundleItem+size), []int{3, 1, 3, 3, 3, 3, 3, 2}},
		{"none fit two", 2*size + 1, []int{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			msgs := Messages(envs, tc.max)
			var got []*Envelope
			var sizes []int
			for _, m := range msgs {
				if len(m) > tc.max {
					t.Fatalf("a message of %d bytes, max %d", len(m), tc.max)
				}
				dec, err := UnmarshalMessage(m)
				if err != nil {
					t.Fatal(err)
				}
				if (len(dec) == 1) != (m[0] == Version) {
					t.Fatalf("a message of %d envelopes starts with %#x", len(dec), m[0])
				}
				got = append(got, dec...)
				sizes = append(sizes, len(dec))
			}
			sameEnvs(t, got, envs)
			if !slices.Equal(sizes, tc.sizes) {
				t.Fatalf("messages of %v envelopes, want %v", sizes, tc.sizes)
			}
		})
	}
	if got := Messages(nil, 1<<20); len(got) != 0 {
		t.Fatalf("no envelopes made %d messages", len(got))
	}
}

// TestUnmarshalMessageRefusesBadBundles: every way a bundle's framing can
// be wrong is refused as malformed, naming what is wrong.
func TestUnmarshalMessageRefusesBadBundles(t *testing.T) {
	me, other := vectorKey(t), mustIdentity(t)
	envs := bundleEnvs(me, 3, func(i int) int { return 10 * i })
	good := AppendBundle(nil, envs)
	if dec, err := UnmarshalMessage(good); err != nil {
		t.Fatal(err)
	} else {
		sameEnvs(t, dec, envs)
	}
	mixed := append(bundleEnvs(me, 1, func(int) int { return 5 }), bundleEnvs(other, 1, func(int) int { return 5 })...)
	inner := AppendBundle(nil, envs[:2])
	nested := []byte{BundleTag, 2}
	for _, b := range [][]byte{inner, envs[2].Marshal()} {
		nested = append(nested, byte(len(b)>>24), byte(len(b)>>16), byte(len(b)>>8), byte(len(b)))
		nested = append(nested, b...)
	}
	flipped := append([]byte(nil), good...)
	flipped[bundleHeader+bundleItem] = 9 // the first envelope's version
	for _, tc := range []struct {
		name, says string
		b          []byte
	}{
		{"tag alone", "no count", []byte{BundleTag}},
		{"count 0", "0 envelopes", []byte{BundleTag, 0}},
		{"count 1", "1 envelopes", AppendBundle(nil, envs[:1])},
		{"count 17", "17 envelopes", append([]byte{BundleTag, MaxBundle + 1}, good[2:]...)},
		{"short", "runs past the end", good[:len(good)-1]},
		{"no length", "ends before envelope 3", good[:bundleHeader+2*bundleItem+envs[0].Size()+envs[1].Size()]},
		{"trailing", "1 bytes after the last envelope", append(append([]byte(nil), good...), 0)},
		{"one more claimed", "ends before envelope 4", append([]byte{BundleTag, 4}, good[2:]...)},
		{"mixed authors", "another author", AppendBundle(nil, mixed)},
		{"nested", "bundle envelope 1", nested},
		{"bad envelope", "version 9", flipped},
	} {
		_, err := UnmarshalMessage(tc.b)
		if !errors.Is(err, ErrMalformed) || !bytes.Contains([]byte(err.Error()), []byte(tc.says)) {
			t.Errorf("%s: %v, want malformed saying %q", tc.name, err, tc.says)
		}
	}
}

// FuzzUnmarshalMessage: no panic on any bytes, and whatever decodes is
// exactly the message again when encoded (one envelope, or a bundle of one
// author's), so no two encodings carry the same envelopes.
func FuzzUnmarshalMessage(f *testing.F) {
	id := vectorKey(&testing.T{})
	envs := bundleEnvs(id, 3, func(i int) int { return 7 * i })
	f.Add(envs[0].Marshal())
	f.Add(AppendBundle(nil, envs))
	f.Add(AppendBundle(nil, envs[:2])[:40])
	f.Add([]byte{BundleTag, 2, 0, 0, 0, 0})
	f.Fuzz(func(t *testing.T, b []byte) {
		dec, err := UnmarshalMessage(b)
		if err != nil {
			if dec != nil {
				t.Fatal("envelopes with an error")
			}
			return
		}
		var again []byte
		if len(dec) == 1 {
			again = dec[0].Marshal()
		} else {
			again = AppendBundle(nil, dec)
			for _, e := range dec[1:] {
				if e.Author != dec[0].Author {
					t.Fatal("a bundle of two authors decoded")
				}
			}
		}
		if !bytes.Equal(again, b) {
			t.Fatalf("decoded %d envelopes that encode to other bytes", len(dec))
		}
	})
}

func mustIdentity(t *testing.T) *Identity {
	seed := bytes.Repeat([]byte{0x5a}, 32)
	id, err := GenerateIdentity(bytes.NewReader(seed))
	if err != nil {
		t.Fatal(err)
	}
	return id
}
