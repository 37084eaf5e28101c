package crypto

import (
	"bytes"
	"encoding/hex"
	"flag"
	"fmt"
	"testing"

	"github.com/boardmesh/boardmesh/engine/golden"
)

var printVectors = flag.Bool("print", false, "print the golden vectors in the format of docs/protocol.md")

// vectorKey is the identity of the golden vectors: its ed25519 seed is the
// bytes 0x00, 0x01, …, 0x1f.
func vectorKey(t *testing.T) *Identity {
	seed := make([]byte, 32)
	for i := range seed {
		seed[i] = byte(i)
	}
	id, err := GenerateIdentity(bytes.NewReader(seed))
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func fill(b byte) Hash {
	var h Hash
	for i := range h {
		h[i] = b
	}
	return h
}

// Vectors computes every golden vector of the crypto formats.
func vectors(t *testing.T) []golden.Vector {
	id := vectorKey(t)
	pub, _ := PublicKey(id.ID())
	var v []golden.Vector
	add := func(name string, b []byte) { v = append(v, golden.Vector{name, hex.EncodeToString(b)}) }
	add("key.ed25519_seed", id.key.Seed())
	add("key.public", pub)
	add("key.peer_id_bytes", []byte(id.ID()))
	v = append(v, golden.Vector{"key.peer_id_text", id.ID().String()})

	env := &Envelope{Session: fill(0x11), Seq: 7, Kind: KindAction, StateHash: fill(0x22), Body: []byte{0x01, 0x01, 0x04}}
	Sign(id, env)
	add("envelope.signed_bytes", env.AppendSigned(nil))
	add("envelope.signature", env.Sig)
	add("envelope.wire", env.Marshal())
	reveal := &Envelope{Session: fill(0x11), Seq: 7, Kind: KindReveal, StateHash: fill(0x22), Body: func() []byte { h := fill(0x55); return h[:] }()}
	Sign(id, reveal)
	add("bundle.action_and_reveal", AppendBundle(nil, []*Envelope{env, reveal}))

	add("chain.hash_of_zero", func() []byte { h := ChainHash(Hash{}); return h[:] }())
	c := NewChain(fill(0x33), 3)
	for k := 0; k <= 3; k++ {
		e := c.elems[k]
		add(fmt.Sprintf("chain.seed33_n3.c%d", k), e[:])
	}
	seed := id.ChainSeed(fill(0x44), 0)
	add("chain.seed_for_lobby44_segment0", seed[:])
	b0 := Beacon(fill(0x11), 0, []Hash{fill(0xaa), fill(0xbb)})
	add("beacon.session11_round0_aa_bb", b0[:])
	b5 := Beacon(fill(0x11), 5, []Hash{fill(0xaa), fill(0xbb), fill(0xcc)})
	add("beacon.session11_round5_aa_bb_cc", b5[:])
	s := SessionID([]byte("roster"))
	add("session.of_text_roster", s[:])
	return v
}

// TestGoldenVectors checks every vector against docs/protocol.md, which
// is where an independent implementer reads them: the document and the
// code cannot drift apart.
func TestGoldenVectors(t *testing.T) {
	v := vectors(t)
	golden.Check(t, "../docs/protocol.md", v, *printVectors)
}

func TestEnvelopeRoundTripAndStrictness(t *testing.T) {
	id := vectorKey(t)
	env := &Envelope{Session: fill(1), Seq: 1 << 40, Kind: KindCheckpoint, StateHash: fill(2), Body: []byte("body")}
	Sign(id, env)
	if err := Verify(env); err != nil {
		t.Fatal(err)
	}
	wire := env.Marshal()
	back, err := Unmarshal(wire)
	if err != nil || !Equal(back, env) {
		t.Fatalf("round trip: %v", err)
	}
	// Every single-byte change is either malformed or a bad signature.
	for i := range wire {
		bad := append([]byte(nil), wire...)
		bad[i] ^= 0x40
		e, err := Unmarshal(bad)
		if err == nil {
			err = Verify(e)
		}
		if err == nil {
			t.Fatalf("flipping byte %d went unnoticed", i)
		}
	}
	// Truncations and trailing bytes are malformed.
	for n := 0; n < len(wire); n++ {
		if _, err := Unmarshal(wire[:n]); err == nil {
			t.Fatalf("truncated to %d bytes accepted", n)
		}
	}
	if _, err := Unmarshal(append(wire, 0)); err == nil {
		t.Fatal("trailing byte accepted")
	}
	// The kind is under the signature through the domain tag: the same
	// bytes relabelled as another kind do not verify.
	other := *env
	other.Kind = KindAction
	if Verify(&other) == nil {
		t.Fatal("signature verified under another kind")
	}
}

func TestChainAndReveals(t *testing.T) {
	c := NewChain(fill(9), 5)
	prev := c.Commitment()
	for k := 1; k <= 5; k++ {
		r, ok := c.Reveal(k)
		if !ok || CheckReveal(prev, r) != nil {
			t.Fatalf("reveal %d does not check", k)
		}
		if CheckReveal(prev, fill(byte(k))) == nil {
			t.Fatalf("a wrong reveal %d checks", k)
		}
		prev = r
	}
	if _, ok := c.Reveal(6); ok {
		t.Fatal("reveal beyond the chain")
	}
}

func TestIdentityKeys(t *testing.T) {
	id := vectorKey(t)
	again, err := NewIdentity(id.PrivateKey())
	if err != nil || again.ID() != id.ID() {
		t.Fatalf("NewIdentity of the same key: %v", err)
	}
	k := id.PrivateKey()
	k[40] ^= 1 // a public half that is not the seed's
	if _, err := NewIdentity(k); err == nil {
		t.Fatal("a key whose public half does not match its seed was accepted")
	}
	if _, err := NewIdentity(k[:32]); err == nil {
		t.Fatal("a 32-byte key was accepted")
	}
	if _, err := GenerateIdentity(bytes.NewReader(make([]byte, 31))); err == nil {
		t.Fatal("an identity from 31 random bytes")
	}
	if p, err := ParsePeerID(id.ID().String()); err != nil || p != id.ID() {
		t.Fatalf("ParsePeerID(String()) = %q, %v", p, err)
	}
	for _, s := range []string{"", "0OIl", "12D3KooW"} {
		if _, err := ParsePeerID(s); err == nil {
			t.Fatalf("ParsePeerID(%q) accepted", s)
		}
	}
}
