package lockstep

import (
	"bytes"
	"encoding/hex"
	"flag"
	"fmt"
	"testing"

	"github.com/boardmesh/boardmesh/engine/golden"

	"github.com/boardmesh/boardmesh/crypto"
	"github.com/boardmesh/boardmesh/engine"
)

var printVectors = flag.Bool("print", false, "print the golden vectors in the format of docs/protocol.md")

func vectorIdentity(t *testing.T, first byte) *crypto.Identity {
	seed := make([]byte, 32)
	for i := range seed {
		seed[i] = first + byte(i)
	}
	id, err := crypto.GenerateIdentity(bytes.NewReader(seed))
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func fillHash(b byte) crypto.Hash {
	var h crypto.Hash
	for i := range h {
		h[i] = b
	}
	return h
}

// TestBodyVectors checks the body formats, the session id of a roster, the
// seat draw and the dice of a beacon against docs/protocol.md.
func TestBodyVectors(t *testing.T) {
	a, b := vectorIdentity(t, 0x00), vectorIdentity(t, 0x20)
	var v []golden.Vector
	add := func(name string, x []byte) { v = append(v, golden.Vector{name, hex.EncodeToString(x)}) }
	j := &joinBody{Name: "Ada", Commitment: fillHash(0x55), ChainLen: 1024, Game: "dicerace", Version: "dicerace/1",
		Options: engine.Options{{Name: "goal", Value: "20"}}}
	add("body.join_host", j.encode())
	add("body.join_guest", (&joinBody{Name: "Bo", Commitment: fillHash(0x66), ChainLen: 1024}).encode())
	members := []Member{{ID: a.ID(), Name: "Ada", Commitment: fillHash(0x55), ChainLen: 1024},
		{ID: b.ID(), Name: "Bo", Commitment: fillHash(0x66), ChainLen: 1024}}
	if members[0].ID > members[1].ID {
		members[0], members[1] = members[1], members[0]
	}
	r := &rosterBody{Lobby: fillHash(0x44), Game: "dicerace", Version: "dicerace/1", Options: j.Options, Members: members}
	add("body.roster", r.encode())
	sid := crypto.SessionID(r.encode())
	add("body.roster_session_id", sid[:])
	add("body.reveal", encodeHashBody(fillHash(0x77)))
	add("body.checkpoint_turn_300", encodeUintBody(300))
	add("body.drop_seats_1_3", encodeSeats([]int{1, 3}))
	add("body.extend", (&extendBody{Commitment: fillHash(0x88), ChainLen: 1024}).encode())
	add("body.action_op1_args_5_-2", engine.AppendAction(nil, engine.Action{Op: 1, Args: []int32{5, -2}}))

	// The seat draw: members in roster order shuffled by beacon round 0.
	beacon := crypto.Beacon(fillHash(0x11), 0, []crypto.Hash{fillHash(0xaa), fillHash(0xbb)})
	for _, n := range []int{2, 5, 8} {
		seats := make([]int, n)
		for i := range seats {
			seats[i] = i
		}
		engine.NewRand(beacon[:]).Shuffle(n, func(i, j int) { seats[i], seats[j] = seats[j], seats[i] })
		v = append(v, golden.Vector{fmt.Sprintf("seats.beacon_round0_aa_bb.%d_members", n), fmt.Sprint(seats)})
	}
	rolls := make([]int, 10)
	rnd := engine.NewRand(beacon[:])
	for i := range rolls {
		rolls[i] = rnd.Die(6)
	}
	v = append(v, golden.Vector{"dice.beacon_round0_aa_bb.ten_d6", fmt.Sprint(rolls)})
	rnd = engine.NewRand(beacon[:])
	v = append(v, golden.Vector{"pick.beacon_round0_aa_bb.weights_1_0_3", fmt.Sprint(rnd.Pick([]int{1, 0, 3}), rnd.Pick([]int{1, 0, 3}), rnd.Pick([]int{1, 0, 3}))})

	golden.Check(t, "../docs/protocol.md", v, *printVectors)
}
