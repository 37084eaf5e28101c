package p2p

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"testing"

	"github.com/boardmesh/boardmesh/crypto"
	"github.com/boardmesh/boardmesh/lockstep"
	"github.com/libp2p/go-libp2p/core/peer"
)

// The fuzz targets cover every decoder of bytes a peer sends us on a
// stream: catch-up answers (framing and lockstep answers), catch-up
// queries, lobby answers, admit answers. Each must refuse what is not
// well formed without panicking or allocating beyond its limits, and what
// it accepts must encode back to the same value. Their seed corpora are in
// testdata/fuzz; .ci/run runs each for a bounded time.

func FuzzCatchupFrames(f *testing.F) {
	f.Add([]byte{0})
	f.Add(append([]byte{2, 1, 'a', 2}, "bc"...))
	f.Add([]byte{1, 0xff, 0xff, 0xff, 0xff, 0x0f})
	f.Fuzz(func(t *testing.T, data []byte) {
		items, err := readFrames(bufio.NewReader(bytes.NewReader(data)))
		if err != nil {
			return
		}
		if len(items) > maxCatchupItems {
			t.Fatalf("%d items, limit %d", len(items), maxCatchupItems)
		}
		total := 0
		for _, it := range items {
			if len(it) > MaxEnvelope {
				t.Fatalf("a frame of %d bytes, limit %d", len(it), MaxEnvelope)
			}
			total += len(it)
		}
		if total > maxCatchupAnswer {
			t.Fatalf("%d bytes in all, limit %d", total, maxCatchupAnswer)
		}
		var buf bytes.Buffer
		w := bufio.NewWriter(&buf)
		if err := writeFrames(w, items); err != nil {
			t.Fatal(err)
		}
		w.Flush()
		again, err := readFrames(bufio.NewReader(&buf))
		if err != nil || len(again) != len(items) {
			t.Fatalf("re-encoded answer does not read back: %v", err)
		}
		for i := range items {
			if !bytes.Equal(again[i], items[i]) {
				t.Fatalf("item %d differs after a round trip", i)
			}
		}
	})
}

func FuzzCatchupQuery(f *testing.F) {
	f.Add([]byte{0})
	f.Add(AnswerQuery(300))
	f.Add(NoCardsQuery(300))
	f.Add(CommittedQuery(1 << 40))
	f.Add([]byte{0x80, 0x00})
	f.Fuzz(func(t *testing.T, q []byte) {
		from, mode, err := ParseQuery(q)
		if err != nil {
			return
		}
		var again []byte
		switch mode {
		case 0:
			again = appendUvarint(nil, from)
		case queryCommitted:
			again = CommittedQuery(from)
		case queryAnswer:
			again = AnswerQuery(from)
		case queryNoCards:
			again = NoCardsQuery(from)
		default:
			t.Fatalf("mode %d accepted", mode)
		}
		if !bytes.Equal(again, q) {
			t.Fatalf("query %x parsed as (%d, %d), which encodes as %x", q, from, mode, again)
		}
	})
}

func FuzzDecodeAnswer(f *testing.F) {
	id, _ := crypto.GenerateIdentity(bytes.NewReader(make([]byte, 64)))
	e := &crypto.Envelope{Seq: 5, Kind: crypto.KindAction, Body: []byte{1}}
	crypto.Sign(id, e)
	var buf bytes.Buffer
	w := bufio.NewWriter(&buf)
	writeFrames(w, EncodeAnswer(lockstep.GapAnswer{From: 5, Entries: []*crypto.Envelope{e}, Pending: []*crypto.Envelope{e}}))
	w.Flush()
	f.Add(buf.Bytes())
	f.Add([]byte{1, 2, 5, 9})
	from := peer.ID("answering peer")
	f.Fuzz(func(t *testing.T, data []byte) {
		items, err := readFrames(bufio.NewReader(bytes.NewReader(data)))
		if err != nil {
			return
		}
		a, err := DecodeAnswer(from, items)
		if err != nil {
			return
		}
		if a.Peer != crypto.PeerID(from) {
			t.Fatalf("answer credited to %q, not the stream's peer", a.Peer)
		}
		if len(a.Entries)+len(a.Pending) > len(items)-1 {
			t.Fatalf("%d entries and %d pending from %d items", len(a.Entries), len(a.Pending), len(items))
		}
	})
}

func FuzzLobbyInfo(f *testing.F) {
	f.Add([]byte(`{"lobby":"ab","game":"dragonslair","players":1,"max_players":6,"members":[{"id":"x","addrs":["/ip4/127.0.0.1/tcp/1"]}]}`))
	f.Add([]byte(`{} {}`))
	f.Add([]byte(`{"members":[` + string(bytes.Repeat([]byte(`{},`), 70)) + `{}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		info, err := DecodeLobbyInfo(bytes.NewReader(data))
		if err != nil {
			return
		}
		if len(data) > maxLobbyAnswer || len(info.Members) > 64 || len(info.Names) > 64 || info.Players < 0 {
			t.Fatalf("accepted %d bytes with %d members", len(data), len(info.Members))
		}
	})
}

func FuzzAdmitAnswer(f *testing.F) {
	f.Add(make([]byte, 64))
	f.Add(make([]byte, 65))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		b, err := readExactly(bytes.NewReader(data), 64)
		if (err == nil) != (len(data) == 64) {
			t.Fatalf("%d bytes: err %v", len(data), err)
		}
		if err == nil && !bytes.Equal(b, data) {
			t.Fatal("the signature read differs from what was sent")
		}
	})
}

func appendUvarint(b []byte, v uint64) []byte { return binary.AppendUvarint(b, v) }
