package p2p

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
)

// askAndNeverRead opens a spectator's catch-up stream from h to p, sends a
// whole query for every committed entry and never reads a byte of the
// answer: a slow reader, which the stream's flow control stalls the
// server's write for, up to its deadline.
func askAndNeverRead(t *testing.T, ctx context.Context, h host.Host, p peer.ID) network.Stream {
	t.Helper()
	s, err := h.NewStream(ctx, p, CatchupProtocol)
	if err != nil {
		t.Fatalf("outsider: open a stream: %v", err)
	}
	q := CommittedQuery(0)
	if _, err := s.Write(append(binary.AppendUvarint(nil, uint64(len(q))), q...)); err != nil {
		t.Fatalf("outsider: write the query: %v", err)
	}
	if err := s.CloseWrite(); err != nil {
		t.Fatalf("outsider: close the query: %v", err)
	}
	return s
}

// TestSlowReadersKeepNoSpectatorOut: a player's log is a few hundred KB
// (a secret table's, late in the game), more than a stream's flow-control
// window. Outsiders, a throwaway peer id for each of a player's places for
// spectators and more, each ask for the whole log and then never read it.
// Each of those answers is stalled, its write held until the server's
// deadline; while it is, an honest spectator asking the same player must
// get the log, not be told busy (before, a stalled answer kept its place
// for the 15 s deadline, so a few peer ids from one address kept every
// spectator out). The outsiders' answers are bounded all the same: one per
// peer id at a time, and what they hold in all within watchBytes.
func TestSlowReadersKeepNoSpectatorOut(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	const items, itemSize = 48, 16 << 10 // 768 KiB, over yamux's 256 KiB window
	log := make([][]byte, items)
	for i := range log {
		log[i] = bytes.Repeat([]byte{byte(i)}, itemSize)
	}
	server := newTestHost(t)
	ServeCatchup(server, func(peer.ID) CatchupAccess { return CatchupCommitted }, func(_ peer.ID, q []byte) ([][]byte, error) {
		from, _, err := ParseQuery(q)
		if err != nil {
			return nil, err
		}
		if from >= uint64(len(log)) {
			return nil, nil
		}
		return log[from:], nil
	})
	target := peer.AddrInfo{ID: server.ID(), Addrs: server.Addrs()}
	var held []network.Stream
	var outsiders []host.Host
	for range watchTotal + 2 {
		o := newTestHost(t)
		if err := o.Connect(ctx, target); err != nil {
			t.Fatal(err)
		}
		outsiders = append(outsiders, o)
		held = append(held, askAndNeverRead(t, ctx, o, server.ID()))
	}
	defer func() {
		for _, s := range held {
			s.Reset()
		}
	}()
	// Every outsider's answer is being written (stalled) before the
	// spectator asks: its first byte has come.
	for i, s := range held {
		s.SetReadDeadline(time.Now().Add(10 * time.Second))
		var b [1]byte
		if _, err := s.Read(b[:]); err != nil {
			t.Fatalf("outsider %d got no answer started: %v", i, err)
		}
	}
	spectator := newTestHost(t)
	if err := spectator.Connect(ctx, target); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	got, err := Fetch(ctx, spectator, server.ID(), CommittedQuery(0))
	if errors.Is(err, ErrCatchupBusy) {
		t.Fatalf("slow-reading outsiders (%d peer ids) kept an honest spectator out: told busy", len(held))
	}
	if err != nil {
		t.Fatalf("the spectator's fetch: %v", err)
	}
	if len(got) != items {
		t.Fatalf("the spectator got %d of the %d entries", len(got), items)
	}
	for i := range got {
		if !bytes.Equal(got[i], log[i]) {
			t.Fatalf("entry %d differs from the player's", i)
		}
	}
	t.Logf("served in %s with %d stalled answers to outsiders", time.Since(start).Round(time.Millisecond), len(held))
	// An outsider's second ask while its first answer is stalled gets
	// busy, not a second answer to hold.
	if _, err := Fetch(ctx, outsiders[0], server.ID(), CommittedQuery(0)); !errors.Is(err, ErrCatchupBusy) {
		t.Fatalf("an outsider whose answer is stalled asked again: %v, want busy", err)
	}
}

// TestSendBudgetBoundsWhatSlowReadersHold: the answers being written to
// spectators are at most one per peer and watchBytes in all; what leaves
// frees its bytes.
func TestSendBudgetBoundsWhatSlowReadersHold(t *testing.T) {
	b := newSendBudget(1, 10)
	a, c, d := peer.ID("a"), peer.ID("c"), peer.ID("d")
	if !b.enter(a, 6) {
		t.Fatal("the first answer was refused")
	}
	if b.enter(a, 1) || !b.holds(a) {
		t.Fatal("a second answer to the same peer was admitted")
	}
	if b.enter(c, 5) {
		t.Fatal("an answer over the bytes left was admitted")
	}
	if !b.enter(c, 4) {
		t.Fatal("an answer within the bytes left was refused")
	}
	b.leave(a, 6)
	if b.holds(a) || !b.enter(d, 6) {
		t.Fatal("what left did not free its place and bytes")
	}
	if got := b.refused.Load(); got != 3 {
		t.Fatalf("refused %d, want 3 (the second answer, the bytes, holds(a))", got)
	}
}

func TestCapBytesKeepsAPrefix(t *testing.T) {
	items := [][]byte{make([]byte, 3), make([]byte, 3), make([]byte, 3)}
	if got := capBytes(items, 7); len(got) != 2 {
		t.Fatalf("capBytes(9 bytes, 7) kept %d items, want 2", len(got))
	}
	if got := capBytes(items[:1], 1); len(got) != 1 {
		t.Fatalf("capBytes kept %d items of one over the cap, want the first", len(got))
	}
}
