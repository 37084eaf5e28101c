package p2p

import (
	"bufio"
	"context"
	"encoding/binary"
	"sync"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
)

// TestCatchupServerLimits: one peer gets at most servePerPeer streams
// served at once and serveBurst in a row; a query frame that claims a
// huge length is refused unread; the server keeps serving others.
func TestCatchupServerLimits(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	server, asker, other := newTestHost(t), newTestHost(t), newTestHost(t)
	connect(t, asker, server)
	connect(t, other, server)
	release := make(chan struct{})
	var mu sync.Mutex
	entered := 0
	refused := ServeCatchup(server, nil, func(from peer.ID, q []byte) ([][]byte, error) {
		mu.Lock()
		entered++
		mu.Unlock()
		if from == asker.ID() && string(q) == "slow" {
			<-release
		}
		return [][]byte{[]byte("ok")}, nil
	})
	// servePerPeer slow streams are held; one more is refused.
	var wg sync.WaitGroup
	for range servePerPeer {
		wg.Add(1)
		go func() { defer wg.Done(); Fetch(ctx, asker, server.ID(), []byte("slow")) }()
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		mu.Lock()
		n := entered
		mu.Unlock()
		if n == servePerPeer {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("only %d slow streams were served", n)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if _, err := Fetch(ctx, asker, server.ID(), []byte("fast")); err == nil {
		t.Fatalf("a third concurrent stream of one peer was served (limit %d)", servePerPeer)
	}
	// Another peer is still served meanwhile.
	if items, err := Fetch(ctx, other, server.ID(), []byte("fast")); err != nil || len(items) != 1 {
		t.Fatalf("another peer was not served while the first was at its limit: %v", err)
	}
	close(release)
	wg.Wait()
	// A burst: after serveBurst streams in a row the peer is refused.
	served := 0
	for range 3 * serveBurst {
		if _, err := Fetch(ctx, other, server.ID(), []byte("fast")); err == nil {
			served++
		}
	}
	if served >= 3*serveBurst {
		t.Fatalf("all %d streams of a burst were served", served)
	}
	if refused() == 0 {
		t.Fatal("no refusal was counted")
	}
	// A query frame claiming 1 GiB is refused without reading it.
	s, err := asker.NewStream(ctx, server.ID(), CatchupProtocol)
	if err == nil {
		w := bufio.NewWriter(s)
		w.Write(binary.AppendUvarint(nil, 1<<30))
		w.Flush()
		s.CloseWrite()
		s.SetDeadline(time.Now().Add(5 * time.Second))
		if _, err := readFrames(bufio.NewReader(s)); err == nil {
			t.Fatal("a 1 GiB query frame got an answer")
		}
		s.Close()
	}
}

// TestCatchupAskerRefusesHugeAnswers: a server that claims more items, or
// a larger frame, than the limits allow gets an error, not an allocation.
func TestCatchupAskerRefusesHugeAnswers(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	server, asker := newTestHost(t), newTestHost(t)
	connect(t, asker, server)
	for _, answer := range [][]byte{
		binary.AppendUvarint(nil, 1<<40),                                  // items
		binary.AppendUvarint(binary.AppendUvarint(nil, 1), uint64(1<<40)), // one frame of 1 TiB
		binary.AppendUvarint(binary.AppendUvarint(nil, 1), uint64(MaxEnvelope+1)),
	} {
		server.SetStreamHandler(CatchupProtocol, rawAnswer(answer))
		if _, err := Fetch(ctx, asker, server.ID(), []byte{0}); err == nil {
			t.Fatalf("answer %x was accepted", answer)
		}
	}
}

// rawAnswer is a catch-up handler that reads the query and writes b.
func rawAnswer(b []byte) network.StreamHandler {
	return func(s network.Stream) {
		defer s.Close()
		readFrame(bufio.NewReader(s), maxQuery)
		s.Write(b)
	}
}
