package lockstep

import (
	"errors"
	"testing"

	"github.com/boardmesh/boardmesh/crypto"
)

// TestDropVotesForTwoStatesAreEquivocation: drop votes of one log
// position make one drop whichever of its states they name (voteStep),
// so a voter that signs two votes there for one seat set, naming two
// states, could have two peers take two drops: a proof of cheating that
// stops the game and that Verify names. Votes for two different seat
// sets at one position are not.
func TestDropVotesForTwoStatesAreEquivocation(t *testing.T) {
	n := startDice(t, "two states", 4, Config{})
	p := n.peers[0].node
	at := uint64(len(p.Log()))
	target := n.peers[3].node.mySeat()
	other := n.peers[2].node.mySeat()
	vote := func(h crypto.Hash, seats []int) *crypto.Envelope {
		return n.signAs(1, &crypto.Envelope{Session: p.Status().Session, Seq: at, Kind: crypto.KindDrop,
			StateHash: h, Body: encodeSeats(sortedSeats(seats))})
	}
	here := p.m.hashes[p.m.seq]
	if err := p.Step(vote(here, []int{target})); err != nil {
		t.Fatalf("a drop vote: %v", err)
	}
	if err := p.Step(vote(here, []int{target, other})); err != nil {
		t.Fatalf("a vote for another seat set at the same position: %v", err)
	}
	if st := p.Status(); st.Phase == PhaseStopped {
		t.Fatal("two votes for two seat sets stopped the game")
	}
	err := p.Step(vote(crypto.Hash{1}, []int{target}))
	if !errors.Is(err, ErrEquivocation) {
		t.Fatalf("a second vote for the same seats naming another state: %v, want an equivocation", err)
	}
	if st := p.Status(); st.Phase != PhaseStopped {
		t.Fatalf("the equivocation did not stop the game: phase %v", st.Phase)
	}
	r, verr := Verify(p.Log(), testGames)
	if verr != nil {
		t.Fatalf("the log with the evidence does not verify: %v", verr)
	}
	if r.Cheater != n.peers[1].id.ID() {
		t.Fatalf("Verify names %s as the cheater, want peer 2", r.Cheater)
	}
}

// TestDropVoteForAnotherStateNeverCounts: a round of drop votes with one
// that names a state this log position never was in is never taken, on a
// peer or by Verify: a drop is taken at a state its votes name, and only
// at one of its position's.
func TestDropVoteForAnotherStateNeverCounts(t *testing.T) {
	n := startDice(t, "another state", 3, Config{})
	p := n.peers[0].node
	target := n.peers[2].node.mySeat()
	if err := p.VoteDrop([]int{target}); err != nil {
		t.Fatal(err)
	}
	n.drain(0)
	at := uint64(len(p.Log()))
	bogus := n.signAs(1, &crypto.Envelope{Session: p.Status().Session, Seq: at, Kind: crypto.KindDrop,
		StateHash: crypto.Hash{9}, Body: encodeSeats([]int{target})})
	_ = p.Step(bogus)
	if st := p.Status(); st.Dropped[target] || uint64(len(p.Log())) != at {
		t.Fatalf("a round with a vote for another state was taken: dropped %v, log %d (was %d)", st.Dropped, len(p.Log()), at)
	}
	// The same round as a log: refused, naming the vote.
	var own *crypto.Envelope
	for _, env := range p.sent {
		if env.Kind == crypto.KindDrop && env.Seq == at {
			own = env
		}
	}
	if own == nil {
		t.Fatal("the node's own vote is not among what it signed")
	}
	round := []*crypto.Envelope{own, bogus}
	if p.mySeat() > n.peers[1].node.mySeat() {
		round = []*crypto.Envelope{bogus, own}
	}
	log := append(append([]*crypto.Envelope(nil), p.Log()...), round...)
	_, err := Verify(log, testGames)
	var ve *VerifyError
	if !errors.As(err, &ve) || !errors.Is(err, ErrStateHash) || ve.Entry != bogus {
		t.Fatalf("Verify of a round with a vote for another state: %v, want the vote refused for its state", err)
	}
}
