package crypto

import (
	"github.com/hdevalence/ed25519consensus"
)

// BatchVerifier checks the signatures of many envelopes at once, about
// twice as fast as checking them one by one. It answers only "all good" or
// "at least one bad": a caller whose batch fails checks the envelopes one
// by one (Verify) to learn which. Batch and single checks agree exactly:
// both follow the ZIP-215 rules (see Verify), so an envelope set passes the
// batch if and only if every envelope in it passes Verify (up to the 2^-128
// chance that a bad batch passes, which the random coefficients bound).
type BatchVerifier struct {
	bv      ed25519consensus.BatchVerifier
	n, size int
	scratch []byte
}

// NewBatchVerifier returns an empty batch with room for size envelopes.
func NewBatchVerifier(size int) *BatchVerifier {
	return &BatchVerifier{bv: ed25519consensus.NewPreallocatedBatchVerifier(size), size: size, scratch: make([]byte, 0, 1024)}
}

// Add puts e in the batch. It keeps no reference to e. An envelope whose
// author is not an ed25519 peer ID or whose signature has the wrong length
// makes the whole batch fail.
func (b *BatchVerifier) Add(e *Envelope) {
	b.n++
	pub, err := PublicKey(e.Author)
	if err != nil {
		pub = nil // the batch records an entry that never verifies
	}
	b.scratch = e.AppendSigned(b.scratch[:0])
	b.bv.Add(pub, b.scratch, e.Sig)
}

// Len is how many envelopes were added since the last Reset.
func (b *BatchVerifier) Len() int { return b.n }

// Verify reports whether every envelope added has a good signature. An
// empty batch is not good.
func (b *BatchVerifier) Verify() bool { return b.n > 0 && b.bv.Verify() }

// Reset empties the batch.
func (b *BatchVerifier) Reset() {
	b.bv = ed25519consensus.NewPreallocatedBatchVerifier(b.size)
	b.n = 0
}
