package p2p

import (
	"context"
	"crypto/rand"
	"testing"
	"time"

	"github.com/boardmesh/boardmesh/crypto"
	"github.com/boardmesh/boardmesh/engine/games"
	"github.com/boardmesh/boardmesh/lockstep"
)

// TestCatchupInTheLobbyServesJoinersOnly: before there is a roster, the
// host's catch-up stream serves the peers whose joins its node holds. An
// outsider that sent a join but never answered the host's challenge, like
// one that sent nothing, gets nothing, in any mode; a real joiner, once
// admitted, gets its answer.
func TestCatchupInTheLobbyServesJoinersOnly(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 40*time.Second)
	defer cancel()
	p := hostLobby(t, 0)
	runUntilCleanup(t, ctx, p)
	o := newOutsider(t, ctx, p.Host, p.Lobby)
	o.publish(t, ctx, joinEnvelope(t, o.id, "Fake", p.Lobby).Marshal())
	outsiderGetsNothing := func(when string) {
		t.Helper()
		for _, q := range [][]byte{AnswerQuery(0), CommittedQuery(0), {0}} {
			if items, err := Fetch(ctx, o.h, p.Host.ID(), q); err == nil {
				t.Errorf("%s: the host answered an outsider's query %x with %d items", when, q, len(items))
			}
		}
	}
	outsiderGetsNothing("before anyone joined")
	id, err := crypto.GenerateIdentity(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	j, _, err := JoinLobby(ctx, NetConfig{Identity: id, Name: "Bob", Home: t.TempDir(), NoQUIC: true, Games: games.Lookup},
		Addrs(p.Host)[0].String(), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(j.Close)
	runUntilCleanup(t, ctx, j)
	for joined := false; !joined; {
		err := p.Runner.Do(ctx, func(n *lockstep.Node) error {
			for _, m := range n.Joined() {
				joined = joined || m.ID == id.ID()
			}
			return nil
		})
		if err != nil {
			t.Fatalf("Bob never joined: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	// The host's policy learns of the join with the Ready that follows.
	var items [][]byte
	for try := 0; try < 20; try++ {
		if items, err = Fetch(ctx, j.Host, p.Host.ID(), AnswerQuery(0)); err == nil {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil {
		t.Fatalf("Bob, admitted, got no catch-up answer in the lobby: %v", err)
	}
	a, err := DecodeAnswer(p.Host.ID(), items)
	if err != nil {
		t.Fatal(err)
	}
	sawHost := false
	for _, e := range a.Pending {
		sawHost = sawHost || e.Kind == crypto.KindJoin && e.Author == crypto.PeerID(p.Host.ID())
	}
	if !sawHost {
		t.Errorf("Bob's lobby answer does not hold the host's join (%d pending)", len(a.Pending))
	}
	outsiderGetsNothing("with Bob in the lobby")
}
