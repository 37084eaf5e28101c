package p2p

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"
)

// TestFetchStopsWhenItsCallerGivesUp: a peer takes the catch-up stream
// and never answers. A caller that gives up (a runner told to stop, a
// user's Ctrl-C) gets its Fetch back at once, as cancelled, not after
// the stream's own 30 s deadline: before, a stopping runner could sit
// out that deadline on a silent peer.
func TestFetchStopsWhenItsCallerGivesUp(t *testing.T) {
	t.Parallel()
	quit := make(chan struct{})
	defer close(quit)
	silent := &silentCatchup{quit: quit, from: map[peer.ID]int{}}
	asker, err := NewHost(HostConfig{NoQUIC: true})
	if err != nil {
		t.Fatal(err)
	}
	defer asker.Close()
	holder, err := NewHost(HostConfig{NoQUIC: true})
	if err != nil {
		t.Fatal(err)
	}
	defer holder.Close()
	holder.SetStreamHandler(CatchupProtocol, silent.handle)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if err := asker.Connect(ctx, addrInfo(holder)); err != nil {
		t.Fatal(err)
	}
	fctx, giveUp := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		_, err := Fetch(fctx, asker, holder.ID(), []byte("query"))
		done <- err
	}()
	// Give up once the holder has the stream.
	for silent.streams(asker.ID()) == 0 {
		select {
		case err := <-done:
			t.Fatalf("Fetch returned before the holder took the stream: %v", err)
		case <-ctx.Done():
			t.Fatal("the holder never got the catch-up stream")
		case <-time.After(10 * time.Millisecond):
		}
	}
	giveUp()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("Fetch returned %v, want it cancelled", err)
		}
	case <-ctx.Done():
		t.Fatal("Fetch still waits on a silent peer after its caller gave up")
	}
}
