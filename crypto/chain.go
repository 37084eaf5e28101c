package crypto

import (
	"crypto/sha256"
	"encoding/binary"
	"errors"
)

// ErrBadReveal is returned for a reveal that does not hash to the element
// before it.
var ErrBadReveal = errors.New("crypto: reveal does not hash to the previous chain element")

// ChainHash is the one-way step of a hash chain:
// SHA-256("boardmesh/chain/v1" || x).
func ChainHash(x Hash) Hash {
	var buf [len(chainDomain) + 32]byte
	copy(buf[:], chainDomain)
	copy(buf[len(chainDomain):], x[:])
	return sha256.Sum256(buf[:])
}

// Chain is a hash chain c_0 … c_N with c_N = seed and c_{i-1} = H(c_i).
// c_0 is published as the commitment; the owner then reveals c_1, c_2, … one
// per beacon round, and anyone checks H(c_k) = c_{k-1}. Because the chain is
// fixed before the first round, its owner cannot steer any beacon, only
// withhold a reveal.
type Chain struct {
	elems []Hash // elems[i] = c_i
}

// NewChain builds the chain of length n (n reveals) from seed.
func NewChain(seed Hash, n int) *Chain {
	if n < 1 {
		n = 1
	}
	elems := make([]Hash, n+1)
	elems[n] = seed
	for i := n; i > 0; i-- {
		elems[i-1] = ChainHash(elems[i])
	}
	return &Chain{elems: elems}
}

// Commitment is c_0.
func (c *Chain) Commitment() Hash { return c.elems[0] }

// Len is N, the number of reveals the chain holds.
func (c *Chain) Len() int { return len(c.elems) - 1 }

// Reveal returns c_k for 1 <= k <= N.
func (c *Chain) Reveal(k int) (Hash, bool) {
	if k < 1 || k >= len(c.elems) {
		return Hash{}, false
	}
	return c.elems[k], true
}

// CheckReveal checks that reveal is the element after prev: H(reveal) = prev.
func CheckReveal(prev, reveal Hash) error {
	if ChainHash(reveal) != prev {
		return ErrBadReveal
	}
	return nil
}

// ChainSeed derives the seed of a peer's chain number segment for a lobby
// from its private key. The seed is secret (only the key's owner can
// compute it), fresh for every lobby (lobby ids are random), and needs no
// storage: a peer that restarts recomputes its chain from its key, so it
// can keep revealing. segment numbers the chain extensions (0 is the chain
// committed in the join).
func (i *Identity) ChainSeed(lobby Hash, segment uint64) Hash {
	h := sha256.New()
	h.Write([]byte(seedDomain))
	h.Write(i.key.Seed())
	h.Write(lobby[:])
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], segment)
	h.Write(b[:])
	var out Hash
	h.Sum(out[:0])
	return out
}
