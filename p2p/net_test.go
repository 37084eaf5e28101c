package p2p

import (
	"bytes"
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/core/peer"
)

func newTestHost(t *testing.T) host.Host {
	t.Helper()
	h, err := NewHost(HostConfig{NoQUIC: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return h
}

func connect(t *testing.T, a, b host.Host) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := a.Connect(ctx, peer.AddrInfo{ID: b.ID(), Addrs: b.Addrs()}); err != nil {
		t.Fatal(err)
	}
}

// testVerify stands in for lockstep's envelope check: "bad" messages carry
// a bad signature, "other:" ones belong to another session.
func testVerify(_ peer.ID, data []byte) (Verdict, any) {
	switch {
	case bytes.HasPrefix(data, []byte("bad")):
		return Reject, nil
	case bytes.HasPrefix(data, []byte("other:")):
		return Reject, nil
	}
	return Accept, nil
}

// TestTopicValidatorStopsForwarding builds a line a—b—c, so everything c
// gets comes through b's validator: b must forward good envelopes and
// nothing that is provably bad.
func TestTopicValidatorStopsForwarding(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	hs := []host.Host{newTestHost(t), newTestHost(t), newTestHost(t)}
	connect(t, hs[0], hs[1])
	connect(t, hs[1], hs[2])
	var topics []*Topic
	for _, h := range hs {
		ps, err := NewPubSub(ctx, h, nil)
		if err != nil {
			t.Fatal(err)
		}
		tp, err := JoinTopic(ps, h.ID(), TopicName("s1"), testVerify)
		if err != nil {
			t.Fatal(err)
		}
		defer tp.Close()
		topics = append(topics, tp)
	}
	if err := topics[0].WaitPeers(ctx, []peer.ID{hs[1].ID()}); err != nil {
		t.Fatal(err)
	}
	if err := topics[2].WaitPeers(ctx, []peer.ID{hs[1].ID()}); err != nil {
		t.Fatal(err)
	}
	// a's own local validation would refuse "bad", so b publishes it as a
	// relay would; b's validator runs on local publishes as well.
	if err := topics[1].Publish(ctx, []byte("bad signature")); err == nil {
		t.Fatal("publishing a provably bad envelope succeeded")
	}
	send := []string{"good 1", "other:session", "good 2", "good 1"}
	for _, m := range send {
		topics[0].Publish(ctx, []byte(m)) // errors for the rejected and duplicate ones are expected
	}
	if err := topics[0].Publish(ctx, []byte("good 3")); err != nil {
		t.Fatal(err)
	}
	var got []string
	for len(got) < 3 {
		m, err := topics[2].Next(ctx)
		if err != nil {
			t.Fatalf("c got %q before: %v", got, err)
		}
		got = append(got, string(m.Data))
		if m.From != hs[1].ID() {
			t.Fatalf("c got %q from %s, not from its only neighbour b", m.Data, m.From)
		}
	}
	// Gossipsub validates concurrently, so the order may differ.
	sort.Strings(got)
	if strings.Join(got, ",") != "good 1,good 2,good 3" {
		t.Fatalf("c got %q, want the three good envelopes once each", got)
	}
	// Nothing else may arrive: the rejected and duplicate ones are gone.
	short, cancel2 := context.WithTimeout(ctx, 500*time.Millisecond)
	defer cancel2()
	if m, err := topics[2].Next(short); err == nil {
		t.Fatalf("c got %q after the good ones", m.Data)
	}
}

func TestCatchup(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	a, b := newTestHost(t), newTestHost(t)
	connect(t, a, b)
	var log [][]byte
	for i := range 300 {
		log = append(log, bytes.Repeat([]byte{byte(i)}, i*7))
	}
	ServeCatchup(a, nil, func(from peer.ID, q []byte) ([][]byte, error) {
		if from != b.ID() {
			return nil, fmt.Errorf("unexpected asker %s", from)
		}
		var lo, hi int
		if _, err := fmt.Sscanf(string(q), "%d-%d", &lo, &hi); err != nil {
			return nil, err
		}
		return log[lo:hi], nil
	})
	got, err := Fetch(ctx, b, a.ID(), []byte("10-300"))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 290 {
		t.Fatalf("got %d envelopes, want 290", len(got))
	}
	for i, g := range got {
		if !bytes.Equal(g, log[10+i]) {
			t.Fatalf("envelope %d differs", i)
		}
	}
	// A query the server cannot answer is an error for the asker, not a hang.
	if _, err := Fetch(ctx, b, a.ID(), []byte("nonsense")); err == nil {
		t.Fatal("a failed query returned no error")
	}
}
