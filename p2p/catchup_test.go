package p2p

import (
	"context"
	"crypto/rand"
	"testing"
	"time"

	"github.com/boardmesh/boardmesh/crypto"
	"github.com/boardmesh/boardmesh/lockstep"
	"github.com/libp2p/go-libp2p/core/peer"
)

// TestCatchupAnswerKeepsEntriesApart sends a lockstep GapAnswer over a
// real catch-up stream: the asker gets the committed entries told apart
// from the pending envelopes, at the right log index, and the answer is
// credited to the stream's remote peer, not to what the answer claims
// (StepAnswer trusts an answer about its author's choices only).
func TestCatchupAnswerKeepsEntriesApart(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	a, b := newTestHost(t), newTestHost(t)
	connect(t, a, b)
	id, err := crypto.GenerateIdentity(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	env := func(seq uint64, kind crypto.Kind) *crypto.Envelope {
		e := &crypto.Envelope{Seq: seq, Kind: kind, Body: []byte{byte(seq)}}
		crypto.Sign(id, e)
		return e
	}
	sent := lockstep.GapAnswer{Peer: peer.ID("someone else"), From: 5,
		Entries: []*crypto.Envelope{env(5, crypto.KindAction), env(6, crypto.KindCheckpoint)},
		Pending: []*crypto.Envelope{env(7, crypto.KindAction)}}
	var asked []byte
	ServeCatchup(a, func(from peer.ID, q []byte) ([][]byte, error) {
		asked = q
		return EncodeAnswer(sent), nil
	})
	items, err := Fetch(ctx, b, a.ID(), AnswerQuery(5))
	if err != nil {
		t.Fatal(err)
	}
	if string(asked) != string(AnswerQuery(5)) {
		t.Fatalf("server got query %x, want %x", asked, AnswerQuery(5))
	}
	got, err := DecodeAnswer(a.ID(), items)
	if err != nil {
		t.Fatal(err)
	}
	if got.Peer != a.ID() || got.From != 5 || len(got.Entries) != 2 || len(got.Pending) != 1 {
		t.Fatalf("got answer from %s at %d with %d entries and %d pending; want %s at 5 with 2 and 1",
			got.Peer, got.From, len(got.Entries), len(got.Pending), a.ID())
	}
	for i, e := range got.Entries {
		if !crypto.Equal(e, sent.Entries[i]) {
			t.Fatalf("entry %d differs", i)
		}
	}
	if !crypto.Equal(got.Pending[0], sent.Pending[0]) {
		t.Fatal("pending envelope differs")
	}
	// A header that promises more entries than were sent is refused.
	if _, err := DecodeAnswer(a.ID(), [][]byte{{5, 9}}); err == nil {
		t.Fatal("an answer promising 9 entries and holding none was accepted")
	}
	if _, err := DecodeAnswer(a.ID(), nil); err == nil {
		t.Fatal("an empty answer was accepted")
	}
}
