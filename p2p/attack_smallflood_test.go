package p2p_test

import (
	"context"
	"crypto/rand"
	"regexp"
	"testing"
	"time"

	"github.com/boardmesh/boardmesh/crypto"
	"github.com/boardmesh/boardmesh/engine"
	"github.com/boardmesh/boardmesh/p2p/hostile"
)

// smallFlood is the size of issue 10's stalling flood: 20,000 small
// envelopes sent as fast as gossipsub takes them.
const smallFlood = 20000

// TestAttackSmallFloodMember: bob's key signs 20,000 small envelopes
// while bob's own runner plays on honestly: malformed checkpoints for the
// coming steps (a body that is no turn number), well-formed actions,
// reveals and checkpoints too far ahead to keep. None is a well-formed
// envelope for a slot bob himself signs, so none is an equivocation (a
// second action for a step bob took would be, and would stop the game,
// rightly). The table
// must not stall: the game ends, identical everywhere; ada and cy name
// bob, and nobody else.
func TestAttackSmallFloodMember(t *testing.T) {
	t.Parallel()
	// Generous: signing and sending 20,000 envelopes under -race on a
	// loaded 2-core machine took most of a minute (the whole test 77 s of
	// the old 120 s); a stalled table still fails at the wait below.
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Second)
	defer cancel()
	a := newArena(t, ctx, arenaConfig{botDelay: 20 * time.Millisecond})
	a.start(ctx)
	v := a.waitPlaying(ctx, ada, 3)
	key := a.keys[bob]
	var junk crypto.Hash
	rand.Read(junk[:])
	env := func(i int) *crypto.Envelope {
		k := uint64(i / 4)
		switch i % 4 {
		case 0: // a checkpoint whose body is no canonical turn number
			return &crypto.Envelope{Session: v.st.Session, Seq: v.st.Seq + 1 + k%64, Kind: crypto.KindCheckpoint,
				StateHash: junk, Body: []byte{0x00, byte(k), byte(k >> 8)}}
		case 1: // an action far beyond what anyone keeps
			return &crypto.Envelope{Session: v.st.Session, Seq: v.st.Seq + 100000 + k, Kind: crypto.KindAction,
				StateHash: junk, Body: hostile.ActionBody(engine.Action{Op: 1})}
		case 2: // a reveal for a beacon round far ahead
			return &crypto.Envelope{Session: v.st.Session, Seq: 100000 + k, Kind: crypto.KindReveal, Body: hostile.HashBody(junk)}
		default: // a well-formed checkpoint far ahead
			return &crypto.Envelope{Session: v.st.Session, Seq: v.st.Seq + 100000 + k, Kind: crypto.KindCheckpoint,
				StateHash: junk, Body: hostile.UintBody(k)}
		}
	}
	// Signed on the other core while the flood goes out: signing all of
	// them first took longer under -race on a slow machine than the game
	// itself, and a flood that starts after the game has ended tests
	// nothing.
	msgs := make(chan []byte, smallFlood)
	go func() {
		defer close(msgs)
		for i := range smallFlood {
			if ctx.Err() != nil {
				return
			}
			msgs <- hostile.Signed(key, env(i)).Marshal()
		}
	}()
	n, bytes := a.bad.Flood(ctx, time.Minute, func(int) []byte { return <-msgs })
	t.Logf("flooded %d envelopes, %d bytes, as bob", n, bytes)
	a.wait(all3, 240*time.Second)
	a.finishedIdentical(all3)
	a.named([]int{ada, cy}, bob, regexp.MustCompile(`(?i)malformed|flood`))
	a.framesNobody(all3, []int{ada, cy})
	for _, i := range []int{ada, cy} {
		t.Logf("%s: drops %+v, counters %+v", a.name(i), a.tbl.Peers[i].Runner.Drops(), a.tbl.Peers[i].Status().Counters)
	}
}

// TestAttackSmallFloodOutsider: the outsider sends 20,000 small
// envelopes: a third signed by its own key for the session, a third
// claiming to be ada's (forged), a third bytes that are no envelope. The
// table must not stall: the game ends, identical everywhere, nobody is
// blamed, and nothing of the outsider's is on any disk.
func TestAttackSmallFloodOutsider(t *testing.T) {
	t.Parallel()
	// Generous: signing and sending 20,000 envelopes under -race on a
	// loaded 2-core machine took most of a minute (the whole test 77 s of
	// the old 120 s); a stalled table still fails at the wait below.
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Second)
	defer cancel()
	a := newArena(t, ctx, arenaConfig{botDelay: 20 * time.Millisecond})
	a.start(ctx)
	v := a.waitPlaying(ctx, ada, 3)
	var junk crypto.Hash
	rand.Read(junk[:])
	msgs := make([][]byte, smallFlood)
	for i := range msgs {
		e := &crypto.Envelope{Session: v.st.Session, Seq: v.st.Seq + uint64(i), Kind: crypto.KindAction,
			StateHash: junk, Body: hostile.ActionBody(engine.Action{Op: 1})}
		switch i % 3 {
		case 0:
			msgs[i] = hostile.Signed(a.bad.Identity, e).Marshal()
		case 1:
			msgs[i] = hostile.Forged(a.bad.Identity, a.keys[ada], e).Marshal()
		default:
			b := make([]byte, 40+i%64)
			rand.Read(b)
			msgs[i] = b
		}
	}
	n, bytes := a.bad.Flood(ctx, time.Minute, func(i int) []byte {
		if i >= len(msgs) {
			return nil
		}
		return msgs[i]
	})
	t.Logf("flooded %d envelopes, %d bytes, as an outsider", n, bytes)
	a.wait(all3, 240*time.Second)
	a.finishedIdentical(all3)
	a.framesNobody(all3, all3)
	a.outsiderLeftNoTrace(all3, a.bad.Identity)
	if d := a.tbl.Peers[ada].Runner.Drops(); d.Total() == 0 {
		t.Errorf("ada counted nothing of the outsider's flood: %+v", d)
	}
}
