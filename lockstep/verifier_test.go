package lockstep

import (
	"errors"
	"testing"

	"github.com/boardmesh/boardmesh/crypto"
	"github.com/boardmesh/boardmesh/engine"
)

// Fed one entry at a time, the Verifier agrees with Verify at every
// prefix of a finished game's log, and a snapshot does not change when
// more entries are fed.
func TestVerifierMatchesVerify(t *testing.T) {
	log, _ := playedDice(t)
	v := NewVerifier(testGames)
	var early *Replay
	var earlyHash [32]byte
	for i, env := range log {
		if err := v.Feed(env); err != nil {
			t.Fatalf("entry %d: %v", i, err)
		}
		if i%17 != 0 && i != len(log)-1 {
			continue
		}
		want, err := Verify(log[:i+1], testGames)
		if err != nil {
			t.Fatal(err)
		}
		got := v.Replay()
		if got.Phase != want.Phase || len(got.Hashes) != len(want.Hashes) || len(got.Steps) != len(want.Steps) || v.Len() != i+1 {
			t.Fatalf("after %d entries: phase %v, %d hashes, %d steps; Verify: %v, %d, %d", i+1, got.Phase, len(got.Hashes), len(got.Steps), want.Phase, len(want.Hashes), len(want.Steps))
		}
		for s := range want.Hashes {
			if got.Hashes[s] != want.Hashes[s] {
				t.Fatalf("after %d entries: hash %d differs", i+1, s)
			}
		}
		if early == nil && got.Final != nil && i > len(log)/3 {
			early, earlyHash = got, engine.Hash(got.Final)
		}
	}
	if early == nil || engine.Hash(early.Final) != earlyHash {
		t.Fatal("an earlier snapshot changed when more entries were fed")
	}
	if r := v.Replay(); r.Phase != PhaseOver || r.Result == nil {
		t.Fatalf("the whole log: phase %v, result %v", r.Phase, r.Result)
	}
}

// A tampered entry fails at the same index as in Verify, and the Verifier
// stays failed.
func TestVerifierNamesBadEntry(t *testing.T) {
	log, _ := playedDice(t)
	bad := firstIndex(log, crypto.KindAction, 0)
	tampered := append([]*crypto.Envelope(nil), log...)
	c := *tampered[bad]
	c.Body = append([]byte(nil), c.Body...)
	c.Body[len(c.Body)-1] ^= 1
	tampered[bad] = &c
	_, werr := Verify(tampered, testGames)
	var want *VerifyError
	if !errors.As(werr, &want) {
		t.Fatalf("Verify: %v", werr)
	}
	v := NewVerifier(testGames)
	var got *VerifyError
	for _, env := range tampered {
		if err := v.Feed(env); err != nil {
			if !errors.As(err, &got) {
				t.Fatalf("Feed: %v", err)
			}
			break
		}
	}
	if got == nil || got.Index != want.Index || !errors.Is(got.Err, want.Err) && got.Err.Error() != want.Err.Error() {
		t.Fatalf("Verifier failed at %v, Verify at %v", got, want)
	}
	if err := v.Feed(log[len(log)-1]); err == nil || v.Len() != want.Index {
		t.Fatalf("after a failure Feed returned %v with %d entries verified", err, v.Len())
	}
}
