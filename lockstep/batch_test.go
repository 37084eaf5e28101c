package lockstep

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/boardmesh/boardmesh/crypto"
	"github.com/boardmesh/boardmesh/engine"
	"github.com/boardmesh/boardmesh/engine/dragonslair"
	"github.com/boardmesh/boardmesh/engine/games"
)

// verifyOneByOne is Verify as it was before signatures were batched: every
// entry's signature checked by the machine itself, one at a time. The
// batched Verify must say exactly what it says.
func verifyOneByOne(log []*crypto.Envelope, games func(string) (*engine.Game, error)) (*Replay, error) {
	m := newMachine(games)
	m.checkSigs, m.record = true, true
	m.scratch = make([]byte, 0, 1024)
	for i, env := range log {
		if env == nil {
			return nil, &VerifyError{Index: i, Err: fmt.Errorf("%w: missing entry", ErrMalformed)}
		}
		if err := m.feed(env); err != nil {
			return replayOf(m), &VerifyError{Index: i, Entry: env, Err: err}
		}
		for _, ev := range m.events {
			if ev.Kind == EventEquivocation {
				m.phase = PhaseStopped
			}
		}
		m.events = m.events[:0]
	}
	return replayOf(m), nil
}

// TestBatchedVerifyNamesTheBadSignature breaks one signature at a time, at
// the start, the middle and the end of a log and on both sides of a batch
// boundary, and checks that Verify (which checks signatures in batches)
// fails at that entry with the error it gave before batching, that the
// replay up to it is the same, and that a restarting Node refuses the log
// at the same entry.
func TestBatchedVerifyNamesTheBadSignature(t *testing.T) {
	n := newSimNet(t, "batch", 4, faults{maxDelay: 1}, games.Lookup, Config{})
	n.setBots(dragonslair.Game)
	n.lobby(dragonslair.Game, nil)
	if !n.run(1000000, n.allOver(n.all()...)) {
		t.Fatal("game did not finish")
	}
	log := append([]*crypto.Envelope(nil), n.peers[0].node.Log()...)
	if len(log) < 2*sigBatch+2 {
		t.Fatalf("log of %d entries is too short to cross two batches", len(log))
	}
	if _, err := Verify(log, games.Lookup); err != nil {
		t.Fatalf("good log: %v", err)
	}
	for _, bad := range []int{0, 1, sigBatch - 1, sigBatch, sigBatch + 1, len(log) / 2, len(log) - 1} {
		l := append([]*crypto.Envelope(nil), log...)
		c := *l[bad]
		c.Sig = append([]byte(nil), c.Sig...)
		c.Sig[10] ^= 0x40
		l[bad] = &c
		r, err := Verify(l, games.Lookup)
		var ve *VerifyError
		if !errors.As(err, &ve) || ve.Index != bad || !errors.Is(err, ErrBadSignature) {
			t.Errorf("bad signature at %d: got %v", bad, err)
			continue
		}
		r1, want := verifyOneByOne(l, games.Lookup)
		if err.Error() != want.Error() {
			t.Errorf("bad signature at %d: batched says %q, one by one %q", bad, err, want)
		}
		if len(r.EntrySeq) != bad || !slices.Equal(r.Hashes, r1.Hashes) {
			t.Errorf("bad signature at %d: replay holds %d entries and %d steps, want %d and %d", bad, len(r.EntrySeq), len(r.Hashes), bad, len(r1.Hashes))
		}
		if _, err := New(Config{Identity: n.peers[0].id, Games: games.Lookup, Log: l}); !errors.As(err, &ve) || ve.Index != bad || !errors.Is(err, ErrBadSignature) {
			t.Errorf("restart from a log with a bad signature at %d: got %v", bad, err)
		}
	}
}

// TestBatchedVerifyKeepsTheFirstError puts a protocol error (an illegal
// action, validly signed) before a bad signature in the same batch: the
// error is still the first one in log order, as without batching.
func TestBatchedVerifyKeepsTheFirstError(t *testing.T) {
	log, n := playedDice(t)
	act := firstIndex(log, crypto.KindAction, len(log)/2)
	l := append([]*crypto.Envelope(nil), log...)
	c := *l[act]
	c.Body = engine.AppendAction(nil, engine.Action{Op: 77})
	crypto.Sign(keyOf(n, string(c.Author)), &c)
	l[act] = &c
	d := *l[act+2]
	d.Sig = append([]byte(nil), d.Sig...)
	d.Sig[3] ^= 1
	l[act+2] = &d
	_, err := Verify(l, testGames)
	var ve *VerifyError
	if !errors.As(err, &ve) || ve.Index != act || !errors.Is(err, ErrIllegal) {
		t.Fatalf("got %v, want entry %d with %v", err, act, ErrIllegal)
	}
	if _, want := verifyOneByOne(l, testGames); err.Error() != want.Error() {
		t.Fatalf("batched says %q, one by one %q", err, want)
	}
}
