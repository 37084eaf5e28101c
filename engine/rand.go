package engine

import (
	"crypto/sha256"
	"encoding/binary"
)

// randDomain separates the engine's random stream from every other use of
// SHA-256 in boardmesh. Changing it changes every roll: it is pinned by the
// golden vectors in rand_test.go.
const randDomain = "boardmesh/rand/v1"

// Rand turns a seed (a beacon value) into a stream of numbers, with our own
// code rather than math/rand, so that no Go release can change a roll and
// split a table. Block i of the stream is
//
//	SHA-256("boardmesh/rand/v1" || seed || uint64_be(i))
//
// and each block yields four big-endian uint64s in order. Uniform numbers
// below n use rejection sampling, so every result is exactly equally likely.
type Rand struct {
	in    []byte // domain || seed || counter; the counter is rewritten per block
	block uint64
	buf   [32]byte
	used  int // uint64s of buf already handed out; 4 = empty
}

// NewRand returns the stream for seed. The seed is copied.
func NewRand(seed []byte) *Rand {
	r := randIn(seed, nil)
	return &r
}

// randIn is the stream for seed, its input kept in room if it fits (a
// caller's array on the stack: the stream then costs no allocation). The
// Rand must not outlive room.
func randIn(seed, room []byte) Rand {
	in := room[:0]
	if n := len(randDomain) + len(seed) + 8; n > cap(room) {
		in = make([]byte, 0, n)
	}
	in = append(in, randDomain...)
	in = append(in, seed...)
	in = append(in, 0, 0, 0, 0, 0, 0, 0, 0)
	return Rand{in: in, used: 4}
}

// Uint64 returns the next 64 bits of the stream.
func (r *Rand) Uint64() uint64 {
	if r.used == 4 {
		binary.BigEndian.PutUint64(r.in[len(r.in)-8:], r.block)
		r.buf = sha256.Sum256(r.in)
		r.block++
		r.used = 0
	}
	v := binary.BigEndian.Uint64(r.buf[r.used*8:])
	r.used++
	return v
}

// Intn returns a uniform number in [0, n). It panics if n <= 0, which is a
// bug in the calling game, never a consequence of input.
func (r *Rand) Intn(n int) int {
	if n <= 0 {
		panic("engine: Rand.Intn with n <= 0")
	}
	un := uint64(n)
	// limit is the largest multiple of n that fits; values at or above it
	// would make small results more likely, so they are drawn again.
	limit := ^uint64(0) - (^uint64(0) % un)
	for {
		v := r.Uint64()
		if v < limit {
			return int(v % un)
		}
	}
}

// Die returns a roll of a die with the given number of sides, 1..sides.
func (r *Rand) Die(sides int) int { return r.Intn(sides) + 1 }

// Pick returns an index into weights chosen with probability proportional
// to its weight (for example: how many copies of each card remain). It
// returns -1 if all weights are zero.
func (r *Rand) Pick(weights []int) int {
	total := 0
	for _, w := range weights {
		if w > 0 {
			total += w
		}
	}
	if total == 0 {
		return -1
	}
	x := r.Intn(total)
	for i, w := range weights {
		if w <= 0 {
			continue
		}
		if x < w {
			return i
		}
		x -= w
	}
	return -1 // unreachable: x < total
}

// Shuffle permutes n elements with Fisher–Yates from the last element
// down, calling swap(i, j) for each step.
func (r *Rand) Shuffle(n int, swap func(i, j int)) {
	for i := n - 1; i > 0; i-- {
		j := r.Intn(i + 1)
		swap(i, j)
	}
}

// Derive returns a 32-byte seed for a sub-stream named label, for callers
// that need several independent streams from one seed (simulations).
func Derive(seed []byte, label string, n uint64) []byte {
	const domain = "boardmesh/derive/v1"
	var room [128]byte // on the stack for the usual seeds and labels
	in := room[:0]
	in = append(in, domain...)
	in = binary.BigEndian.AppendUint64(in, uint64(len(seed)))
	in = append(in, seed...)
	in = binary.BigEndian.AppendUint64(in, uint64(len(label)))
	in = append(in, label...)
	in = binary.BigEndian.AppendUint64(in, n)
	sum := sha256.Sum256(in)
	return sum[:]
}
