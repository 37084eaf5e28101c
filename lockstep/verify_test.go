package lockstep

import (
	"errors"
	"fmt"
	"testing"

	"github.com/boardmesh/boardmesh/crypto"
	"github.com/boardmesh/boardmesh/engine"
)

// playedDice returns a finished 3-player dice game's log and its network
// (for the peers' keys).
func playedDice(t *testing.T) ([]*crypto.Envelope, *simNet) {
	t.Helper()
	n := newSimNet(t, "verify", 3, faults{maxDelay: 1}, testGames, Config{})
	n.setBots(diceGame)
	n.lobby(diceGame, nil)
	if !n.run(100000, n.allOver(n.all()...)) {
		t.Fatal("game did not finish")
	}
	return append([]*crypto.Envelope(nil), n.peers[0].node.Log()...), n
}

// keyOf finds the identity of an author among the network's peers.
func keyOf(n *simNet, author string) *crypto.Identity {
	for _, p := range n.peers {
		if string(p.id.ID()) == author {
			return p.id
		}
	}
	return nil
}

func firstIndex(log []*crypto.Envelope, kind crypto.Kind, after int) int {
	for i := after; i < len(log); i++ {
		if log[i].Kind == kind {
			return i
		}
	}
	return -1
}

// TestVerifyNamesFirstBadEntry tampers with a good log in the ways a
// forger would (re-signing with the author's own key where needed) and
// checks that Verify names the tampered entry and the reason.
func TestVerifyNamesFirstBadEntry(t *testing.T) {
	log, n := playedDice(t)
	if _, err := Verify(log, testGames); err != nil {
		t.Fatalf("good log: %v", err)
	}
	resign := func(env *crypto.Envelope) *crypto.Envelope {
		id := keyOf(n, string(env.Author))
		c := *env
		crypto.Sign(id, &c)
		return &c
	}
	mid := len(log) / 2
	act := firstIndex(log, crypto.KindAction, mid)
	rev := firstIndex(log, crypto.KindReveal, mid)
	cp := firstIndex(log, crypto.KindCheckpoint, mid)
	cases := []struct {
		name  string
		index int
		edit  func(l []*crypto.Envelope)
		want  error
	}{
		{"forged body", act, func(l []*crypto.Envelope) {
			c := *l[act]
			c.Body = engine.AppendAction(nil, engine.Action{Op: opEnd})
			l[act] = &c
		}, ErrBadSignature},
		{"illegal action, re-signed", act, func(l []*crypto.Envelope) {
			c := *l[act]
			c.Body = engine.AppendAction(nil, engine.Action{Op: 77})
			l[act] = resign(&c)
		}, ErrIllegal},
		{"wrong pre-state hash", act, func(l []*crypto.Envelope) {
			c := *l[act]
			c.StateHash[0] ^= 1
			l[act] = resign(&c)
		}, ErrStateHash},
		{"bad reveal", rev, func(l []*crypto.Envelope) {
			c := *l[rev]
			c.Body = encodeHashBody(crypto.Hash{1})
			l[rev] = resign(&c)
		}, ErrBadReveal},
		{"checkpoint hash", cp, func(l []*crypto.Envelope) {
			c := *l[cp]
			c.StateHash[5] ^= 1
			l[cp] = resign(&c)
		}, ErrCheckpoint},
		{"swapped entries", cp, func(l []*crypto.Envelope) { l[cp], l[cp+1] = l[cp+1], l[cp] }, ErrUnexpected},
		{"other session", act, func(l []*crypto.Envelope) {
			c := *l[act]
			c.Session[0] ^= 1
			l[act] = resign(&c)
		}, ErrWrongSession},
	}
	for _, c := range cases {
		l := append([]*crypto.Envelope(nil), log...)
		c.edit(l)
		_, err := Verify(l, testGames)
		var ve *VerifyError
		if !errors.As(err, &ve) || ve.Index != c.index || !errors.Is(err, c.want) {
			t.Errorf("%s: got %v, want entry %d with %v", c.name, err, c.index, c.want)
		}
	}
	// A log cut short verifies as far as it goes, and says the game is
	// not over.
	r, err := Verify(log[:mid], testGames)
	if err != nil || r.Phase == PhaseOver || r.Result != nil {
		t.Fatalf("prefix: %v, phase %v", err, r.Phase)
	}
	// A removed entry is named where the gap shows.
	l := append(append([]*crypto.Envelope(nil), log[:rev]...), log[rev+1:]...)
	if _, err := Verify(l, testGames); !errors.As(err, new(*VerifyError)) {
		t.Fatalf("log with a reveal missing verified: %v", err)
	}
}

// FuzzParseLog: no input makes the log reader or Verify panic.
func FuzzParseLog(f *testing.F) {
	f.Add([]byte(LogMagic))
	env := &crypto.Envelope{Kind: crypto.KindJoin, Body: (&joinBody{Name: "x", ChainLen: 1}).encode()}
	id, _ := crypto.GenerateIdentity(seededReader("fuzz"))
	crypto.Sign(id, env)
	f.Add(EncodeLog([]*crypto.Envelope{env, env}))
	f.Fuzz(func(t *testing.T, b []byte) {
		lf, _ := ParseLog(b)
		if lf != nil {
			_, _ = Verify(lf.Entries, testGames)
		}
		_, _ = crypto.Unmarshal(b)
		_, _ = decodeJoin(b)
		_, _ = decodeRoster(b)
		_, _ = decodeState(b)
		_, _, _ = decodeEvidence(b)
		_, _ = decodeSeats(b, 8)
		_, _ = decodeExtend(b)
	})
}

// TestStepSurvivesGarbage feeds nodes mid-game thousands of mutated
// envelopes that pass the signature check (the verifier is told to accept
// everything) so that they reach the protocol's deeper checks: nothing may
// panic. A node that stops (garbage under an honest author's name is an
// equivocation once signatures are off) is replaced by a fresh one.
func TestStepSurvivesGarbage(t *testing.T) {
	r := engine.NewRand([]byte("garbage"))
	stepped, stops := 0, 0
	for stepped < 5000 {
		n := startDice(t, fmt.Sprint("garbage", stops), 3, Config{Verifier: func(*crypto.Envelope) error { return nil }})
		victim := n.peers[1].node
		src := append([]*crypto.Envelope(nil), victim.Log()...)
		for victim.Status().Phase != PhaseStopped && stepped < 5000 {
			c := *src[r.Intn(len(src))]
			c.Body = append([]byte(nil), c.Body...)
			c.Seq = victim.Status().Seq + uint64(r.Intn(4))
			for k := 0; k < 1+r.Intn(3); k++ {
				switch r.Intn(6) {
				case 0:
					c.Kind = crypto.Kind(1 + r.Intn(10))
				case 1:
					c.Seq = victim.Status().Seq + uint64(r.Intn(4))
				case 2:
					if len(c.Body) > 0 {
						c.Body[r.Intn(len(c.Body))] ^= byte(1 + r.Intn(255))
					}
				case 3:
					c.StateHash[r.Intn(32)] ^= 1
				case 4:
					c.Author = n.peers[r.Intn(3)].id.ID()
				case 5:
					c.Body = c.Body[:r.Intn(len(c.Body)+1)]
				}
			}
			c.Sig = append([]byte(nil), c.Sig...)
			c.Sig[0] ^= byte(stepped)
			_ = victim.Step(&c)
			n.drain(1)
			stepped++
		}
		stops++
	}
	t.Logf("%d garbage envelopes over %d nodes", stepped, stops)
}
