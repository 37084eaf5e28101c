package lockstep

import (
	"bytes"
	"encoding/hex"
	"flag"
	"fmt"
	"sort"
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

	// A re-proposal: the host Ada first proposed Ada, Bo and Cy (seed
	// 40…5f, commitment 99…99); Cy never accepted, so after the accept
	// time-out Ada signs body.roster (Ada and Bo) for the same lobby. Bo's
	// accept of the first roster is for its session id, not the second's.
	c := vectorIdentity(t, 0x40)
	three := append([]Member{{ID: c.ID(), Name: "Cy", Commitment: fillHash(0x99), ChainLen: 1024}}, members...)
	sort.Slice(three, func(i, j int) bool { return three[i].ID < three[j].ID })
	r3 := &rosterBody{Lobby: fillHash(0x44), Game: "dicerace", Version: "dicerace/1", Options: j.Options, Members: three}
	add("body.roster_ada_bo_cy", r3.encode())
	if !strictSubset(r.Members, r3.Members) {
		t.Fatal("the re-proposed roster is not a strict subset of the first")
	}
	if back, err := decodeRoster(r3.encode()); err != nil || len(back.Members) != 3 {
		t.Fatalf("the roster of three does not decode: %v", err)
	}
	sid3 := crypto.SessionID(r3.encode())
	add("body.roster_ada_bo_cy_session_id", sid3[:])
	signed := func(id *crypto.Identity, e *crypto.Envelope) []byte {
		crypto.Sign(id, e)
		if err := wellFormed(e); err != nil {
			t.Fatalf("vector envelope %s: %v", e.Kind, err)
		}
		return e.Marshal()
	}
	add("envelope.accept_by_bo_of_roster_ada_bo_cy", signed(b, &crypto.Envelope{Session: sid3, Kind: crypto.KindAccept}))
	add("envelope.roster_reproposed_by_ada", signed(a, &crypto.Envelope{Session: fillHash(0x44), Kind: crypto.KindRoster, Body: r.encode()}))
	add("envelope.accept_by_bo_of_roster", signed(b, &crypto.Envelope{Session: sid, Kind: crypto.KindAccept}))

	// Evidence: Bo signs two different actions for step 3 of the session
	// of body.roster (pre-state hash 22…22, op 1 with argument 5, then 6);
	// Ada signs the evidence holding them, in the order she got them.
	act := func(arg int32) *crypto.Envelope {
		e := &crypto.Envelope{Session: sid, Seq: 3, Kind: crypto.KindAction, StateHash: fillHash(0x22),
			Body: engine.AppendAction(nil, engine.Action{Op: 1, Args: []int32{arg}})}
		crypto.Sign(b, e)
		return e
	}
	x, y := act(5), act(6)
	add("evidence.first_wire", x.Marshal())
	add("evidence.second_wire", y.Marshal())
	add("body.evidence", encodeEvidence(x, y))
	ev := &crypto.Envelope{Session: sid, Kind: crypto.KindEvidence, Body: encodeEvidence(x, y)}
	add("envelope.evidence_by_ada", signed(a, ev))
	if who, err := CheckEvidence(ev); err != nil || who != b.ID() {
		t.Fatalf("the vector evidence does not prove Bo cheated: %v, %v", who, err)
	}
	// A state envelope: Bo's hashes after steps 2 and 3 (d2…d2, d3…d3)
	// and a 3-byte canonical state, for step 3.
	st := &stateBody{From: 2, Hashes: []crypto.Hash{fillHash(0xd2), fillHash(0xd3)}, State: []byte{1, 2, 3}}
	add("body.state_from2_d2_d3", st.encode())
	if back, err := decodeState(st.encode()); err != nil || back.fits(&crypto.Envelope{Seq: 3, StateHash: fillHash(0xd3)}) != nil {
		t.Fatalf("the state body does not decode to one that fits step 3: %v", err)
	}
	add("envelope.state_by_bo_step3", signed(b, &crypto.Envelope{Session: sid, Seq: 3, Kind: crypto.KindState, StateHash: fillHash(0xd3), Body: st.encode()}))
	// A claim (claim.go): Bo, in seat 2 of a table of two, claims the win
	// at log position 9, in the state 22…22.
	add("body.claim_seat_2", encodeUintBody(1))
	add("envelope.claim_by_bo_at_9", signed(b, &crypto.Envelope{Session: sid, Seq: 9, Kind: crypto.KindClaim, StateHash: fillHash(0x22), Body: encodeUintBody(1)}))
	// A claim after a cheat: Ada (seat 1) signed a share envelope for
	// batch 4 (body 01 02 03: what it holds does not matter here) whose
	// proof Bo's card layer found wrong; Bo's claim names the cheat and
	// holds that envelope.
	share := &crypto.Envelope{Session: sid, Seq: 4, Kind: crypto.KindShare, Body: []byte{1, 2, 3}}
	crypto.Sign(a, share)
	add("claim.proof_share_by_ada_batch4", share.Marshal())
	cb := &claimBody{Seat: 1, Cheat: "wrong share", Proof: share.Marshal()}
	add("body.claim_seat_2_after_wrong_share", cb.encode())
	if back, err := decodeClaim(cb.encode()); err != nil || back.Seat != 1 || back.Cheat != "wrong share" || !bytes.Equal(back.Proof, share.Marshal()) {
		t.Fatalf("the claim body does not decode to itself: %+v, %v", back, err)
	}
	add("envelope.claim_by_bo_at_9_after_wrong_share", signed(b, &crypto.Envelope{Session: sid, Seq: 9, Kind: crypto.KindClaim, StateHash: fillHash(0x22), Body: cb.encode()}))
	// A settle (settle.go): Bo settles at log position 9 on the drop of
	// seats 1 and 3 (0-based), the body of body.drop_seats_1_3.
	add("envelope.settle_by_bo_at_9_seats_1_3", signed(b, &crypto.Envelope{Session: sid, Seq: 9, Kind: crypto.KindSettle, Body: encodeSeats([]int{1, 3})}))
	add("envelope.settle_by_bo_at_9_no_drop", signed(b, &crypto.Envelope{Session: sid, Seq: 9, Kind: crypto.KindSettle, Body: encodeSeats(nil)}))

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
