package p2p_test

import (
	"bytes"
	"context"
	"encoding/binary"
	"testing"
	"time"

	"github.com/boardmesh/boardmesh/crypto"
	"github.com/boardmesh/boardmesh/p2p"
)

// TestAttackCatchupOutsider: the catch-up stream serves the table's
// members. An outsider (the hostile peer, over real libp2p) that asks a
// member's questions (mode 0: everything held, mode 2: lockstep's answer)
// gets nothing; as a spectator (mode 1) it gets the committed log and
// nothing else; streams it opens and leaves silent, and frames that claim
// a gigabyte, are cut off by the server on its own. Meanwhile a member
// still gets its answers, and the game ends identically everywhere.
func TestAttackCatchupOutsider(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	a := newArena(t, ctx, arenaConfig{botDelay: 20 * time.Millisecond})
	a.start(ctx)
	a.waitPlaying(ctx, ada, 3)
	ask := func(p int, q []byte) ([][]byte, error) {
		sctx, scancel := context.WithTimeout(ctx, 10*time.Second)
		defer scancel()
		return a.bad.Fetch(sctx, a.tbl.Peers[p].Host.ID(), q)
	}
	for p := range a.tbl.Peers {
		for _, q := range [][]byte{p2p.AnswerQuery(0), binary.AppendUvarint(nil, 0)} {
			if items, err := ask(p, q); err == nil {
				t.Errorf("%s answered an outsider's member query %x with %d items", a.name(p), q, len(items))
			}
		}
	}
	// Silent streams: opened, nothing written, never closed by the
	// outsider. The server must end each by itself, and a member must be
	// served meanwhile.
	silent := make(chan error, 8)
	for range cap(silent) {
		go func() {
			s, err := a.bad.Host.NewStream(ctx, a.tbl.Peers[ada].Host.ID(), p2p.CatchupProtocol)
			if err != nil {
				silent <- nil // refused at once: fine
				return
			}
			_, err = s.Read(make([]byte, 1))
			silent <- err
		}()
	}
	member, err := p2p.Fetch(ctx, a.tbl.Peers[bob].Host, a.tbl.Peers[ada].Host.ID(), p2p.AnswerQuery(0))
	if err != nil {
		t.Fatalf("bob, a member, was not served while an outsider held streams open: %v", err)
	}
	if _, err := p2p.DecodeAnswer(a.tbl.Peers[ada].Host.ID(), member); err != nil {
		t.Fatalf("bob's answer: %v", err)
	}
	for range cap(silent) {
		select {
		case err := <-silent:
			if err == nil {
				continue
			}
		case <-ctx.Done():
			t.Fatal("ada kept an outsider's silent catch-up stream open until the test's deadline")
		}
	}
	// A frame claiming a gigabyte gets no answer and no allocation.
	sctx, scancel := context.WithTimeout(ctx, 10*time.Second)
	b, _ := a.bad.RawStream(sctx, a.tbl.Peers[ada].Host.ID(), p2p.CatchupProtocol, binary.AppendUvarint(nil, 1<<30), 1<<20)
	scancel()
	if len(b) != 0 {
		t.Errorf("ada answered a 1 GiB query frame with %d bytes", len(b))
	}
	// As a spectator: committed entries, each one of the log.
	var watched [][]byte
	for try := 0; len(watched) == 0 && try < 20; try++ {
		watched, err = ask(cy, p2p.CommittedQuery(0))
		if err != nil {
			time.Sleep(300 * time.Millisecond) // the spectators' bucket refills
		}
	}
	if len(watched) == 0 {
		t.Fatalf("a spectator got no committed entries from cy: %v", err)
	}
	a.wait(all3, 80*time.Second)
	a.finishedIdentical(all3)
	log := a.tbl.Peers[cy].Entries()
	if len(watched) > len(log) {
		t.Fatalf("the spectator got %d items, more than cy's %d committed entries", len(watched), len(log))
	}
	for i, w := range watched {
		if !bytes.Equal(w, log[i]) {
			t.Fatalf("the spectator's item %d is not cy's committed entry %d", i, i)
		}
	}
	if d := a.tbl.Peers[ada].Runner.Drops(); d.CatchupRefused == 0 {
		t.Errorf("ada counted none of the outsider's refused catch-up streams: %+v", d)
	}
	a.framesNobody(all3, all3)
	a.outsiderLeftNoTrace(all3, a.bad.Identity)
}

// TestAttackCatchupNoSpectators: with spectating closed, an outsider gets
// nothing at all from the catch-up stream, not even the committed log
// (nor, with it, the session id).
func TestAttackCatchupNoSpectators(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	a := newArena(t, ctx, arenaConfig{botDelay: 20 * time.Millisecond, noSpectators: true})
	a.start(ctx)
	v := a.waitPlaying(ctx, ada, 3)
	for p := range a.tbl.Peers {
		for _, q := range [][]byte{p2p.CommittedQuery(0), p2p.AnswerQuery(0), binary.AppendUvarint(nil, 0)} {
			sctx, scancel := context.WithTimeout(ctx, 10*time.Second)
			items, err := a.bad.Fetch(sctx, a.tbl.Peers[p].Host.ID(), q)
			scancel()
			if err == nil {
				t.Errorf("%s answered an outsider's query %x with %d items", a.name(p), q, len(items))
			}
			for _, it := range items {
				if env, err := crypto.Unmarshal(it); err == nil && env.Session == v.st.Session {
					t.Errorf("%s told an outsider the session id", a.name(p))
				}
			}
		}
	}
	a.wait(all3, 80*time.Second)
	a.finishedIdentical(all3)
}
