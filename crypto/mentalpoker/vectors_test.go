package mentalpoker

import (
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"testing"

	"github.com/boardmesh/boardmesh/engine/golden"
)

var printVectors = flag.Bool("print", false, "print the golden vectors in the format of docs/mentalpoker.md")

// vectorCtx is the context of every golden vector but where noted.
func vectorCtx(kind string, seq uint64, slot uint32) Context {
	c := Context{Seq: seq, Slot: slot, Kind: kind}
	for i := range c.Session {
		c.Session[i] = 0x11
	}
	return c
}

// vectors computes every golden vector. Randomness is math/rand/v2's
// ChaCha8 seeded with 32 bytes of 0x01, one stream read in this order.
func vectors(t *testing.T) []golden.Vector {
	var v []golden.Vector
	add := func(name string, b []byte) { v = append(v, golden.Vector{name, hex.EncodeToString(b)}) }
	digest := func(name string, b []byte) {
		h := sha256.Sum256(b)
		v = append(v, golden.Vector{name, fmt.Sprintf("%d bytes, sha256 %x", len(b), h)})
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	rnd := seeded(0x01)

	add("card.0", CardBytes(0))
	add("card.1", CardBytes(1))
	add("card.119", CardBytes(119))

	ctx := vectorCtx("setup", 1, 0)
	var sks []*SecretKey
	var pks []PublicKey
	for seat := 0; seat < 3; seat++ {
		sk, err := GenerateKey(rnd)
		must(err)
		prf, err := ProveKey(rnd, ctx, seat, sk)
		must(err)
		must(VerifyKey(ctx, seat, sk.Public(), prf))
		add(fmt.Sprintf("key.seat%d.secret", seat+1), sk.Bytes())
		add(fmt.Sprintf("key.seat%d.public", seat+1), sk.Public().Bytes())
		add(fmt.Sprintf("key.seat%d.proof", seat+1), prf)
		sks, pks = append(sks, sk), append(pks, sk.Public())
	}
	tr, err := newTranscript("key", ctx, 0)
	must(err)
	tr.points(base.Point().Base(), pks[0].p)
	add("key.seat1.transcript", tr.b)
	add("key.seat1.transcript_sha256", []byte(tr.name()))
	joint, err := JointKey(pks)
	must(err)
	add("joint_key", joint.Bytes())

	open, err := OpenDeck(3)
	must(err)
	add("deck3.open", open.Bytes())
	sctx := vectorCtx("shuffle", 2, 0)
	out, prf, err := Shuffle(rnd, sctx, 0, joint, open)
	must(err)
	must(VerifyShuffle(sctx, 0, joint, open, out, prf))
	add("deck3.shuffled_by_seat1", out.Bytes())
	digest("deck3.shuffle_proof", prf)

	dctx := vectorCtx("draw", 3, 7)
	sh, err := MakeShare(rnd, dctx, 1, sks[1], out[0])
	must(err)
	add("share.seat2_of_card0", sh.Bytes())
	rctx := vectorCtx("peek", 4, 0)
	re, rprf, err := RemaskProved(rnd, rctx, 2, joint, out[1])
	must(err)
	add("remask.seat3_of_card1", re.Bytes())
	add("remask.seat3_of_card1.proof", rprf)
	ectx := vectorCtx("escrow", 5, 0)
	esc, err := MakeEscrow(rnd, ectx, 0, sks[0], pks)
	must(err)
	add("escrow.seat1", esc)
	return v
}

// TestGoldenVectors checks every vector against docs/mentalpoker.md, where
// an independent implementer reads them.
func TestGoldenVectors(t *testing.T) {
	v := vectors(t)
	golden.Check(t, "../../docs/mentalpoker.md", v, *printVectors)
}

// TestVectorsDecode: the documented encodings decode back, strictly, to
// what made them (so the vectors are also test inputs for a decoder).
func TestVectorsDecode(t *testing.T) {
	v := vectors(t)
	get := func(name string) []byte {
		for _, x := range v {
			if x[0] == name {
				b, _ := hex.DecodeString(x[1])
				return b
			}
		}
		t.Fatalf("no vector %s", name)
		return nil
	}
	pk, err := ParsePublicKey(get("key.seat2.public"))
	if err != nil {
		t.Fatal(err)
	}
	if err := VerifyKey(vectorCtx("setup", 1, 0), 1, pk, get("key.seat2.proof")); err != nil {
		t.Fatal(err)
	}
	out, err := ParseDeck(get("deck3.shuffled_by_seat1"), 3)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := VerifyShare(vectorCtx("draw", 3, 7), 1, pk, out[0], get("share.seat2_of_card0")); err != nil {
		t.Fatal(err)
	}
	if _, err := ParseDeck(get("deck3.open"), 3); err != nil {
		t.Fatal(err)
	}
}
