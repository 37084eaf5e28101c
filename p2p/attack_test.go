package p2p_test

import (
	"context"
	"crypto/rand"
	"testing"
	"time"

	"github.com/boardmesh/boardmesh/crypto"
	"github.com/boardmesh/boardmesh/engine"
	"github.com/boardmesh/boardmesh/p2p/hostile"
)

// The attacks of issue 10 and docs/protocol.md, each tried by a hostile
// peer (package hostile) over real libp2p on loopback against a table of
// honest peers running the production runner. Each test checks what a
// player would: no honest peer panics or stops wrongly, the game goes on
// (or stops, for proof of cheating) with identical logs everywhere, the
// cheater is named in plain words with its seat counted from 1, and
// nothing an outsider sends changes any state or file.

var all3 = []int{0, 1, 2}

const (
	ada = 0
	bob = 1
	cy  = 2
)

// TestArenaSilentHostile is the control: the hostile peer is on the
// topic and connected to everyone but sends nothing; the game plays to
// the end. Every attack test below differs from it by the attack only.
func TestArenaSilentHostile(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	a := newArena(t, ctx, arenaConfig{})
	a.start(ctx)
	a.wait(all3, 80*time.Second)
	a.finishedIdentical(all3)
}

// TestAttackForgedSignature: the outsider publishes an action claiming to
// be ada's with a signature that is not hers. It must change nothing and
// frame nobody: ada did not sign it.
func TestAttackForgedSignature(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	a := newArena(t, ctx, arenaConfig{})
	a.start(ctx)
	v := a.waitPlaying(ctx, ada, 2)
	for k := range uint64(5) {
		env := hostile.Forged(a.bad.Identity, a.keys[ada], &crypto.Envelope{Session: v.st.Session, Seq: v.st.Seq + k, Kind: crypto.KindAction,
			StateHash: v.hash, Body: hostile.ActionBody(engine.Action{Op: 1})})
		if err := a.bad.Publish(ctx, env); err != nil {
			t.Fatal(err)
		}
	}
	a.wait(all3, 80*time.Second)
	a.finishedIdentical(all3)
	a.framesNobody(all3, all3)
}

// TestAttackReplay: the outsider re-publishes envelopes the table sent
// earlier, and envelopes ada signed for another session. Old ones are
// duplicates, the others belong elsewhere: nothing changes, nobody is
// framed (ada signed each of them once, honestly).
func TestAttackReplay(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	a := newArena(t, ctx, arenaConfig{botDelay: 10 * time.Millisecond})
	a.start(ctx)
	v := a.waitPlaying(ctx, ada, 6)
	old := a.bad.Seen()
	for _, e := range old {
		if err := a.bad.Publish(ctx, e); err != nil {
			t.Fatal(err)
		}
	}
	// ada's envelopes as they would be in another session (another game
	// she played): same slots, another session id.
	var other crypto.Hash
	rand.Read(other[:])
	for _, e := range old {
		if e.Author != a.keys[ada].ID() || e.Session != v.st.Session {
			continue
		}
		c := *e
		c.Session = other
		if err := a.bad.Publish(ctx, hostile.Signed(a.keys[ada], &c)); err != nil {
			t.Fatal(err)
		}
	}
	a.wait(all3, 80*time.Second)
	a.finishedIdentical(all3)
	a.framesNobody(all3, all3)
}
