package deal

import (
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"testing"

	"github.com/boardmesh/boardmesh/crypto"
	"github.com/boardmesh/boardmesh/engine/golden"
)

var printVectors = flag.Bool("print", false, "print the golden vectors in the format of docs/protocol.md")

// vectorRun is the run docs/protocol.md §10.6 describes: two seats (the
// identities of seeds 00…1f and 20…3f), session 5e…5e, one deck 0 of
// cards 100, 101, 102; seat 1 draws position 0, seat 2 peeks at position 1
// (a batch declared at the shared state 77…77) and then seat 1 draws it
// (a re-masking by seat 1 first). It returns
// every envelope sent, by kind, seat and seq.
func vectorRun(t *testing.T) map[string]*crypto.Envelope {
	tb := newTable(t, 2, []Deck{{ID: 0, Cards: []uint16{100, 101, 102}}})
	got := map[string]*crypto.Envelope{}
	tb.hook = func(to int, env *crypto.Envelope) *crypto.Envelope {
		name := fmt.Sprintf("%s.seat%d.seq%d", env.Kind, tb.ms[0].seatOf(env.Author)+1, env.Seq)
		got[name] = env
		return env
	}
	tb.run()
	tb.open(Opening{Deck: 0, Pos: 0, To: 0})
	tb.run()
	// Batch 1 answers the shared state 77…77 (At): its envelopes carry it.
	var at crypto.Hash
	for i := range at {
		at[i] = 0x77
	}
	for _, m := range tb.ms {
		m.At(at)
	}
	tb.open(Opening{Deck: 0, Pos: 1, To: 1})
	tb.run()
	tb.open(Opening{Deck: 0, Pos: 1, To: 0})
	tb.run()
	tb.noCheats()
	return got
}

// TestBodyVectors checks the card protocol's bodies and one whole
// envelope against docs/protocol.md §10.6.
func TestBodyVectors(t *testing.T) {
	got := vectorRun(t)
	var v []golden.Vector
	for _, name := range []string{"card-key.seat1.seq0", "card-key.seat2.seq0", "share.seat2.seq0", "remask.seat1.seq2", "share.seat2.seq2"} {
		env := got[name]
		if env == nil {
			t.Fatalf("the run has no %s", name)
		}
		v = append(v, golden.Vector{"deal." + name + ".body", hex.EncodeToString(env.Body)})
	}
	for _, name := range []string{"shuffle.seat1.seq0", "shuffle.seat2.seq0"} {
		env := got[name]
		sum := sha256.Sum256(env.Body)
		v = append(v, golden.Vector{"deal." + name + ".body", fmt.Sprintf("%d bytes, sha256 %x", len(env.Body), sum)})
	}
	// Escrow and a drop: three seats (seeds 00…1f, 20…3f, 40…5f; streams
	// of 1s, 2s, 3s), the same deck; after setup seat 3 is dropped.
	tb := newTable(t, 3, []Deck{{ID: 0, Cards: []uint16{100, 101, 102}}})
	esc := map[string]*crypto.Envelope{}
	tb.hook = func(to int, env *crypto.Envelope) *crypto.Envelope {
		esc[fmt.Sprintf("%s.seat%d.seq%d", env.Kind, tb.ms[0].seatOf(env.Author)+1, env.Seq)] = env
		return env
	}
	tb.run()
	tb.drop(2)
	tb.run()
	tb.noCheats()
	e := esc["escrow.seat1.seq0"]
	sum := sha256.Sum256(e.Body)
	v = append(v, golden.Vector{"deal.escrow.seat1.seq0.body", fmt.Sprintf("%d bytes, sha256 %x", len(e.Body), sum)})
	v = append(v, golden.Vector{"deal.piece.seat1.seq2.body", hex.EncodeToString(esc["piece.seat1.seq2"].Body)})
	v = append(v, golden.Vector{"deal.card-key.seat1.seq0.wire", hex.EncodeToString(got["card-key.seat1.seq0"].Marshal())})
	if got["share.seat1.seq1"].StateHash.IsZero() {
		t.Fatal("the share of batch 1 carries no state hash")
	}
	v = append(v, golden.Vector{"deal.share.seat1.seq1.wire", hex.EncodeToString(got["share.seat1.seq1"].Marshal())})
	golden.Check(t, "../../docs/protocol.md", v, *printVectors)
}
