package lockstep

import (
	"errors"
	"math"
	"testing"

	"github.com/boardmesh/boardmesh/crypto"
)

// stateEnvelope signs a state envelope as peer i with the given fields.
func stateEnvelope(n *simNet, i int, seq uint64, body *stateBody, hash crypto.Hash) *crypto.Envelope {
	return n.signAs(i, &crypto.Envelope{Session: n.peers[0].node.Status().Session, Seq: seq, Kind: crypto.KindState,
		StateHash: hash, Body: body.encode()})
}

// TestStateEnvelopeSeqOverflow: a member's state envelope whose seq and
// hash count wrap around 2^64 (seq 2^64-1, no hashes: seq-from+1 = 0)
// once made every honest peer index Hashes[-1] and panic, and made
// ExplainDesync (boardmesh replay) panic on a crafted file. It must be a
// rejected malformed body that changes nothing.
func TestStateEnvelopeSeqOverflow(t *testing.T) {
	n := startDice(t, "overflow", 3, Config{})
	log := append([]*crypto.Envelope(nil), n.peers[0].node.Log()...)
	cases := []struct {
		seq  uint64
		body stateBody
	}{
		{math.MaxUint64, stateBody{From: 0}},
		{math.MaxUint64, stateBody{From: math.MaxUint64}},
		{math.MaxUint64, stateBody{From: 1, Hashes: []crypto.Hash{{}}}},
		{5, stateBody{From: 6, Hashes: []crypto.Hash{{}}}},
		{0, stateBody{From: 0}},
	}
	for _, c := range cases {
		env := stateEnvelope(n, 2, c.seq, &c.body, crypto.Hash{})
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Fatalf("seq %d from %d, %d hashes: Step panics: %v", c.seq, c.body.From, len(c.body.Hashes), r)
				}
			}()
			expectRejected(t, n, 0, env, ErrBadBody)
		}()
		if n.peers[0].node.Status().Phase == PhaseStopped {
			t.Fatalf("a malformed state envelope stopped the game")
		}
		func() {
			defer func() {
				if r := recover(); r != nil {
					t.Fatalf("seq %d from %d: ExplainDesync panics: %v", c.seq, c.body.From, r)
				}
			}()
			if _, err := ExplainDesync(log, testGames, env); !errors.Is(err, ErrBadBody) {
				t.Fatalf("ExplainDesync of seq %d from %d: %v, want ErrBadBody", c.seq, c.body.From, err)
			}
		}()
	}
}

// TestAnswerFromOverflow: an answer's From comes from the peer; From+i
// once wrapped to 0 and compared entry i with our log's first entry,
// reporting a fork where there is none.
func TestAnswerFromOverflow(t *testing.T) {
	n := startDice(t, "answer-overflow", 3, Config{})
	p := n.peers[0].node
	log := p.Log()
	before := len(log)
	a := GapAnswer{Peer: n.peers[1].id.ID(), From: math.MaxUint64, Entries: []*crypto.Envelope{log[1], log[2]}}
	if err := p.StepAnswer(a); err != nil {
		t.Fatalf("an answer whose From wraps: %v", err)
	}
	if len(p.Log()) != before || p.Status().Phase == PhaseStopped {
		t.Fatal("the answer changed the log or stopped the node")
	}
}

// TestStateEnvelopeBeforeSeats: an equivocation (two reveals for round
// 0) before the seat draw stops the session; a state envelope then must
// not index the seats that do not exist yet.
func TestStateEnvelopeBeforeSeats(t *testing.T) {
	n := newSimNet(t, "state-before-seats", 3, faults{maxDelay: 1}, testGames, Config{})
	n.lobby(diceGame, nil)
	n.run(10000, func() bool { return n.peers[0].node.Status().Phase >= PhaseAccept })
	p := n.peers[0].node
	if p.Status().Phase != PhaseAccept {
		t.Fatalf("phase %v, want accept", p.Status().Phase)
	}
	sess := p.Status().Session
	for _, r := range []crypto.Hash{{1}, {2}} {
		_ = p.Step(n.signAs(2, &crypto.Envelope{Session: sess, Kind: crypto.KindReveal, Body: encodeHashBody(r)}))
	}
	n.drain(0)
	if p.Status().Phase != PhaseStopped {
		t.Fatalf("two reveals of one member for round 0 did not stop the session: %v", p.Status().Phase)
	}
	env := stateEnvelope(n, 2, 0, &stateBody{Hashes: []crypto.Hash{{}}}, crypto.Hash{})
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("a state envelope after an accept-phase equivocation panics: %v", r)
		}
	}()
	_ = p.Step(env)
}
