package lockstep

import (
	"errors"
	"testing"

	"github.com/boardmesh/boardmesh/crypto"
)

// TestCardKindsAreNotTheNodes: an envelope of the card protocol (kinds
// 11-17, package deal) changes nothing in a node: Step refuses it without
// an event, and one in Config.Sent or Config.Log neither panics (the
// node's buffers are sized for its own kinds) nor is taken as the node's.
func TestCardKindsAreNotTheNodes(t *testing.T) {
	id := vectorIdentity(t, 0)
	for k := crypto.KindCardKey; k <= crypto.KindAccuse; k++ {
		if !k.Card() || !k.Valid() {
			t.Fatalf("kind %d: Card %v, Valid %v", k, k.Card(), k.Valid())
		}
		env := &crypto.Envelope{Session: fillHash(0x11), Seq: 3, Kind: k, Body: []byte{1}}
		crypto.Sign(id, env)
		n, err := New(Config{Identity: id, Name: "Ada", Sent: []*crypto.Envelope{env}})
		if err != nil {
			t.Fatalf("%s in Config.Sent: %v", k, err)
		}
		// A node that knows no session yet (no lobby joined) keeps no card
		// envelope: it could be of any session.
		if err := n.Step(env); !errors.Is(err, ErrCardKind) && !errors.Is(err, ErrStale) {
			t.Errorf("%s: Step gives %v", k, err)
		}
		if n.HasReady() {
			t.Errorf("%s: the node has something to do: %+v", k, n.Ready())
		}
		if _, err := New(Config{Identity: id, Name: "Ada", Log: []*crypto.Envelope{env}}); err == nil {
			t.Errorf("%s as a log entry is accepted", k)
		}
	}
	for k := crypto.KindJoin; k <= crypto.KindState; k++ {
		if k.Card() {
			t.Errorf("%s is taken for a card kind", k)
		}
	}
}
