package lockstep

import (
	"bytes"
	"encoding/hex"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/boardmesh/boardmesh/crypto"
	"github.com/boardmesh/boardmesh/engine"
	"github.com/boardmesh/boardmesh/engine/games"
)

// The secret action body and the roster's mode field (docs/protocol.md
// §10.8), pinned.
const (
	vecSecretActionHex = "0502030a02010801051104abababab02090382800428"
	vecSecretRosterHex = "2001000000000000000000000000000000000000000000000000000000000000000c696e66696e697465636974790131000001"
)

func TestSecretActionBody(t *testing.T) {
	s := &secretAction{a: engine.Action{Op: 2, Args: []int32{5, 1, -1}},
		reveals: EncodeReveals([]Revealed{{Handle: engine.Handle{Pos: 5}, Card: 17, Share: bytes.Repeat([]byte{0xab}, 4)}}),
		opened:  []pubCard{{engine.Handle{Pos: 9}, 3}, {engine.Handle{Deck: 1, Pos: 2}, 40}}}
	b := s.encode()
	if got := hex.EncodeToString(b); got != vecSecretActionHex {
		t.Errorf("secret action body = %s, want %s", got, vecSecretActionHex)
	}
	d, err := decodeSecretAction(b)
	if err != nil || !d.a.Equal(s.a) || !bytes.Equal(d.reveals, s.reveals) || len(d.opened) != 2 || d.opened[1] != s.opened[1] {
		t.Fatalf("round trip: %+v %v", d, err)
	}
	for i := 0; i < len(b); i++ {
		if _, err := decodeSecretAction(b[:i]); !errors.Is(err, ErrBadBody) {
			t.Fatalf("a body cut to %d bytes: %v", i, err)
		}
	}
	if _, err := decodeSecretAction(append(append([]byte(nil), b...), 0)); err == nil {
		t.Fatal("a trailing byte decoded")
	}
	r := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < 5000; i++ {
		x := make([]byte, r.IntN(200))
		for j := range x {
			x[j] = byte(r.Uint32())
		}
		_, _ = decodeSecretAction(x) // no panic, whatever the bytes
	}
}

func TestRosterMode(t *testing.T) {
	open := &rosterBody{Lobby: crypto.Hash{1}, Game: "infinitecity", Version: "1"}
	secret := *open
	secret.Secret = true
	ob, sb := open.encode(), secret.encode()
	if !bytes.Equal(sb[:len(ob)], ob) || len(sb) != len(ob)+1 {
		t.Fatal("the mode is not one trailing field after an open roster's bytes")
	}
	if got := hex.EncodeToString(sb); got != vecSecretRosterHex {
		t.Errorf("secret roster = %s, want %s", got, vecSecretRosterHex)
	}
	for _, c := range []struct {
		b      []byte
		secret bool
		draw   uint64
		ok     bool
	}{{ob, false, 0, true}, {sb, true, 0, true}, {append(append([]byte(nil), ob...), 2), false, 0, false},
		{append(append([]byte(nil), ob...), 0), false, 0, false},
		// A re-proposal's seat-draw round (rosterBody.Draw) follows the
		// mode, written then even for an open table; a zero round is not
		// written.
		{append(append([]byte(nil), sb...), 1), true, 1, true}, {append(append([]byte(nil), ob...), 0, 1), false, 1, true},
		{append(append([]byte(nil), sb...), 0), false, 0, false}, {append(append([]byte(nil), ob...), 1, 0), false, 0, false}} {
		r, err := decodeRoster(c.b)
		if (err == nil) != c.ok || err == nil && (r.Secret != c.secret || r.Draw != c.draw) {
			t.Errorf("roster %x: %v, %v", c.b, r, err)
		}
	}
}

// TestJoinerKeepsItsMode: a joiner sits only at the table it asked for.
func TestJoinerKeepsItsMode(t *testing.T) {
	id, _ := crypto.GenerateIdentity(bytes.NewReader(bytes.Repeat([]byte{9}, 32)))
	maker := CardMaker(func(engine.CardState, CardConfig) (CardLayer, error) { return nil, errors.New("unused") })
	secretR := &rosterBody{Game: "infinitecity", Secret: true}
	openR := &rosterBody{Game: "infinitecity"}
	// A game without hidden cards, if one is left: an open roster of it
	// needs no --open-hands.
	var noCards *rosterBody
	for _, g := range games.All() {
		if st, err := g.Setup(g.MinPlayers, nil); err == nil {
			if _, ok := st.(engine.CardState); !ok {
				noCards = &rosterBody{Game: g.Name}
				break
			}
		}
	}
	type mode struct {
		cfg    Config
		r      *rosterBody
		refuse bool
	}
	cases := []mode{
		{Config{Cards: maker}, secretR, false},
		{Config{Cards: maker}, openR, true},
		{Config{Cards: maker, OpenHands: true}, openR, false},
		{Config{Cards: maker, OpenHands: true}, secretR, true},
		{Config{}, secretR, true},
		{Config{}, openR, false},
	}
	if noCards != nil {
		cases = append(cases, mode{Config{Cards: maker}, noCards, false})
	}
	for _, c := range cases {
		c.cfg.Identity, c.cfg.Games = id, games.Lookup
		n, err := New(c.cfg)
		if err != nil {
			t.Fatal(err)
		}
		err = n.modeAgrees(c.r)
		if (err != nil) != c.refuse || err != nil && !errors.Is(err, ErrRefused) {
			t.Errorf("cards %v, open hands %v, secret roster %v: %v", c.cfg.Cards != nil, c.cfg.OpenHands, c.r.Secret, err)
		}
	}
}
