package crypto

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha512"
	"encoding/hex"
	"testing"

	"filippo.io/edwards25519"
)

func batchOf(envs []*Envelope) bool {
	b := NewBatchVerifier(len(envs))
	for _, e := range envs {
		b.Add(e)
	}
	return b.Verify()
}

// TestBatchAgreesWithVerify: a batch of good envelopes passes, and a batch
// with any one envelope that Verify refuses (a flipped signature bit, a
// changed body, a short signature, an author that is no key) fails.
func TestBatchAgreesWithVerify(t *testing.T) {
	id := vectorKey(t)
	var envs []*Envelope
	for i := range 20 {
		e := &Envelope{Session: fill(1), Seq: uint64(i), Kind: KindAction, StateHash: fill(byte(i)), Body: []byte{byte(i)}}
		Sign(id, e)
		envs = append(envs, e)
	}
	if !batchOf(envs) {
		t.Fatal("a batch of good envelopes failed")
	}
	if batchOf(nil) {
		t.Fatal("an empty batch passed")
	}
	breaks := map[string]func(e *Envelope){
		"signature bit": func(e *Envelope) { e.Sig = bytes.Clone(e.Sig); e.Sig[40] ^= 1 },
		"body":          func(e *Envelope) { e.Body = []byte("other") },
		"short sig":     func(e *Envelope) { e.Sig = e.Sig[:63] },
		"author":        func(e *Envelope) { e.Author = "nobody" },
		"s not reduced": func(e *Envelope) { e.Sig = bytes.Clone(e.Sig); e.Sig[63] |= 0xf0 },
	}
	for name, brk := range breaks {
		for _, at := range []int{0, 9, 19} {
			l := append([]*Envelope(nil), envs...)
			c := *l[at]
			brk(&c)
			l[at] = &c
			if Verify(&c) == nil {
				t.Fatalf("%s: Verify accepted it", name)
			}
			if batchOf(l) {
				t.Errorf("%s at %d: the batch passed", name, at)
			}
		}
	}
}

// TestZIP215SignatureAcceptedAlike crafts what only a signer can: a
// signature whose R has a small-order component, so that it satisfies
// the cofactored equation of ZIP-215 but not Go's cofactorless one. Verify
// and the batch must agree on it (both accept), which is why the batch is
// never paired with crypto/ed25519's single check.
func TestZIP215SignatureAcceptedAlike(t *testing.T) {
	id := vectorKey(t)
	e := &Envelope{Session: fill(3), Seq: 9, Kind: KindReveal, StateHash: fill(4), Body: []byte("crafted")}
	e.Author = id.ID()
	msg := e.AppendSigned(nil)
	h := sha512.Sum512(id.key.Seed())
	a, err := new(edwards25519.Scalar).SetBytesWithClamping(h[:32])
	if err != nil {
		t.Fatal(err)
	}
	pub, _ := PublicKey(id.ID())
	if !bytes.Equal(new(edwards25519.Point).ScalarBaseMult(a).Bytes(), pub) {
		t.Fatal("secret scalar does not match the public key")
	}
	// A point of order 8 (ZIP-215's list of small-order encodings).
	tb, _ := hex.DecodeString("26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05")
	tor, err := new(edwards25519.Point).SetBytes(tb)
	if err != nil {
		t.Fatal(err)
	}
	if new(edwards25519.Point).MultByCofactor(tor).Equal(edwards25519.NewIdentityPoint()) != 1 {
		t.Fatal("the torsion point is not of small order")
	}
	rh := sha512.Sum512([]byte("nonce"))
	r, _ := new(edwards25519.Scalar).SetUniformBytes(rh[:])
	R := new(edwards25519.Point).Add(new(edwards25519.Point).ScalarBaseMult(r), tor)
	kh := sha512.New()
	kh.Write(R.Bytes())
	kh.Write(pub)
	kh.Write(msg)
	k, _ := new(edwards25519.Scalar).SetUniformBytes(kh.Sum(nil))
	s := new(edwards25519.Scalar).MultiplyAdd(k, a, r)
	e.Sig = append(R.Bytes(), s.Bytes()...)

	if ed25519.Verify(pub, msg, e.Sig) {
		t.Fatal("crypto/ed25519 accepted the crafted signature: the test crafts the wrong thing")
	}
	if err := Verify(e); err != nil {
		t.Fatalf("Verify refused a ZIP-215 signature: %v", err)
	}
	good := &Envelope{Session: fill(3), Seq: 10, Kind: KindReveal, Body: []byte("plain")}
	Sign(id, good)
	if !batchOf([]*Envelope{good, e, good}) {
		t.Fatal("the batch refused what Verify accepts")
	}
}
