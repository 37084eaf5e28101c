package mentalpoker

import "testing"

// FuzzDecoders feeds arbitrary bytes to every strict decoder and verifier
// (go test -fuzz FuzzDecoders ./crypto/mentalpoker/): none may panic, and
// whatever a decoder accepts must re-encode to the same bytes.
func FuzzDecoders(f *testing.F) {
	rnd := seeded(60)
	sk, _ := GenerateKey(rnd)
	h := sk.Public()
	ct, _ := Mask(rnd, h, 1)
	ctx := testCtx("fuzz", 1)
	share, _ := MakeShare(rnd, ctx, 0, sk, ct)
	f.Add(h.Bytes())
	f.Add(ct.Bytes())
	f.Add(share.Bytes())
	f.Add(mustHex("ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f"))
	f.Fuzz(func(t *testing.T, b []byte) {
		if pk, err := ParsePublicKey(b); err == nil && string(pk.Bytes()) != string(b) {
			t.Fatal("a public key re-encodes differently")
		}
		if c, err := ParseCiphertext(b); err == nil && string(c.Bytes()) != string(b) {
			t.Fatal("a ciphertext re-encodes differently")
		}
		if s, err := ParseSecretKey(b); err == nil && string(s.Bytes()) != string(b) {
			t.Fatal("a secret key re-encodes differently")
		}
		if len(b)%CiphertextLen == 0 && len(b) > 0 && len(b) <= 8*CiphertextLen {
			if d, err := ParseDeck(b, len(b)/CiphertextLen); err == nil && string(d.Bytes()) != string(b) {
				t.Fatal("a deck re-encodes differently")
			}
		}
		if s, err := VerifyShare(ctx, 0, h, ct, b); err == nil && !s.d.Equal(share.d) {
			t.Fatal("a wrong decryption share verified")
		}
		_ = VerifyKey(ctx, 0, h, b)
		_ = VerifyRemask(ctx, 0, h, ct, ct, b)
	})
}
