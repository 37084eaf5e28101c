package p2p

import (
	"context"
	"crypto/rand"
	"os"
	"testing"
	"time"

	"github.com/boardmesh/boardmesh/crypto"
	"github.com/boardmesh/boardmesh/engine"
	"github.com/boardmesh/boardmesh/engine/dragonslair"
	"github.com/boardmesh/boardmesh/lockstep"
	"github.com/libp2p/go-libp2p/core/peer"
)

// TestCatchupAnswerKeepsEntriesApart sends a lockstep GapAnswer over a
// real catch-up stream: the asker gets the committed entries told apart
// from the pending envelopes, at the right log index, and the answer is
// credited to the stream's remote peer, not to what the answer claims
// (StepAnswer trusts an answer about its author's choices only).
func TestCatchupAnswerKeepsEntriesApart(t *testing.T) {
	t.Parallel()
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
	sent := lockstep.GapAnswer{Peer: crypto.PeerID("someone else"), From: 5,
		Entries: []*crypto.Envelope{env(5, crypto.KindAction), env(6, crypto.KindCheckpoint)},
		Pending: []*crypto.Envelope{env(7, crypto.KindAction)}}
	var asked []byte
	ServeCatchup(a, nil, func(from peer.ID, q []byte) ([][]byte, error) {
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
	if got.Peer != crypto.PeerID(a.ID()) || got.From != 5 || len(got.Entries) != 2 || len(got.Pending) != 1 {
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

// slowFirstBot thinks for a long time over its first move only. It blocks
// its runner meanwhile, as a peer with a stalled process would.
type slowFirstBot struct {
	engine.Bot
	pause time.Duration
	moved bool
}

func (b *slowFirstBot) Choose(s engine.State, legal []engine.Action, r *engine.Rand) engine.Action {
	if !b.moved {
		b.moved = true
		time.Sleep(b.pause)
	}
	return b.Bot.Choose(s, legal, r)
}

// TestDropVoterGoesOnWhenOthersDid: cy votes to drop ada, who is slow
// over her first move, but nobody else votes, so the drop cannot pass and
// ada's move is committed by the others. cy, having voted at that log
// position, must not commit it on her own say-so; the catch-up answer of
// bob, who went on without voting, shows her that the drop can never
// complete, and the game finishes with identical logs. (With the answer's
// committed entries stepped like any envelope, as catch-up did before
// Answer/StepAnswer, cy stays stuck at the position forever; so she does
// if nobody asks for an answer: holding ada's move she waits for nobody,
// and lockstep's Tick asks, as it does whenever a drop vote holds the node.)
func TestDropVoterGoesOnWhenOthersDid(t *testing.T) {
	t.Parallel()
	g := dragonslair.Game
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	names := []string{"ada", "bob", "cy"}
	bots := []engine.Bot{&slowFirstBot{Bot: g.Bots[0].New(), pause: 2 * time.Second}, g.Bots[0].New(), g.Bots[0].New()}
	tbl, err := NewTable(ctx, TableConfig{Game: g, Names: names, Bots: bots, Seed: []byte("drop-vote"), Dir: t.TempDir(),
		Tune: func(i int, lc *lockstep.Config) {
			if i == 2 {
				lc.DropAfter = 200 // ms
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer tbl.Close()
	if err := tbl.Run(ctx); err != nil {
		for _, p := range tbl.Peers {
			st := p.Status()
			t.Logf("%s: phase %v, seq %d, %d entries, waiting for %v", p.Name, st.Phase, st.Seq, st.Entries, st.Waiting)
		}
		t.Fatalf("the game did not finish: %v", err)
	}
	// cy did vote (else this test shows nothing): her vote is in her log.
	cy := tbl.Peers[2]
	cy.Log.Sync()
	data, err := os.ReadFile(cy.Log.Path())
	if err != nil {
		t.Fatal(err)
	}
	lf, err := lockstep.ParseLog(data)
	if err != nil {
		t.Fatal(err)
	}
	votes := 0
	for _, env := range lf.Sent {
		if env.Kind == crypto.KindDrop {
			votes++
		}
	}
	if votes == 0 {
		t.Fatal("cy never voted to drop ada; the scenario did not happen")
	}
	for _, env := range lf.Entries {
		if env.Kind == crypto.KindDrop {
			t.Fatal("a drop was committed although only cy voted")
		}
	}
	for _, p := range tbl.Peers {
		if p.Result() == nil || p.LogHash() != tbl.Peers[0].LogHash() {
			t.Fatalf("%s: result %v, log %s; ada's log %s", p.Name, p.Result(), p.LogHash(), tbl.Peers[0].LogHash())
		}
	}
}
