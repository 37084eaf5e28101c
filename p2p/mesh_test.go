package p2p

import (
	"testing"

	"github.com/boardmesh/boardmesh/crypto"

	"github.com/libp2p/go-libp2p/core/peer"
)

// TestMeshWatch: the watch says a peer is reached once it is a direct peer
// or grafted into the topic's mesh, not after a prune or in another topic,
// and wakes whoever waits at every change.
func TestMeshWatch(t *testing.T) {
	w := newMeshWatch()
	a, b := peer.ID("a"), peer.ID("b")
	ok, changed := w.reaches("t", a)
	if ok {
		t.Fatal("a fresh watch reaches a peer")
	}
	w.Graft(a, "t")
	select {
	case <-changed:
	default:
		t.Fatal("a graft did not wake the waiter")
	}
	if ok, _ := w.reaches("t", a); !ok {
		t.Fatal("a grafted peer is not reached")
	}
	if ok, _ := w.reaches("other", a); ok {
		t.Fatal("a graft in one topic counts in another")
	}
	w.Prune(a, "t")
	if ok, _ := w.reaches("t", a); ok {
		t.Fatal("a pruned peer is still reached")
	}
	w.update(func() { w.direct[b] = true })
	if ok, _ := w.reaches("any", b); !ok {
		t.Fatal("a direct peer is not reached")
	}
	var none *meshWatch
	none.update(func() { t.Fatal("a nil watch ran an update") })
}

// TestCriticalRounds: one round per distinct (kind, seq) slot.
func TestCriticalRounds(t *testing.T) {
	var log []*crypto.Envelope
	add := func(k crypto.Kind, seq uint64, times int) {
		for range times {
			log = append(log, &crypto.Envelope{Kind: k, Seq: seq})
		}
	}
	add(crypto.KindJoin, 0, 3)
	add(crypto.KindRoster, 0, 1)
	add(crypto.KindAccept, 0, 3)
	add(crypto.KindReveal, 0, 3) // the seat draw
	add(crypto.KindAction, 1, 1)
	add(crypto.KindReveal, 1, 3)
	add(crypto.KindAction, 2, 1)
	add(crypto.KindCheckpoint, 3, 3)
	if got := CriticalRounds(log); got != 8 {
		t.Fatalf("CriticalRounds = %d, want 8", got)
	}
}
