package mentalpoker

import (
	"fmt"
	"io"

	"go.dedis.ch/kyber/v4"

	r255 "github.com/gtank/ristretto255"
)

// Preparing a shuffle: half of a Neff shuffle proof's multiplications do
// not depend on the deck it shuffles. The masks β (β·G and β·H of every
// card), the permutation, and the prover's first secrets (kyber's u, w, a,
// τ0, ν, γ) with their commitments Γ = γ·G, A_i = a_i·G, C_i = γa_π(i)·G,
// U_i = u_i·G, W_i = γw_i·G and (τ0 + Σ w_iβ_π(i))·(G, H) need only the
// deck's size and the joint key. A seat that waits for the seat before it
// in a chain can compute them (PrepareShuffle) while it waits, and make
// its proof from the deck it is handed with the rest (ShufflePrep.Shuffle)
// — about half the CPU of a whole proof, which is what lies on the
// chain's critical path.
//
// The proof is the same proof: the prepared secrets are read from the
// caller's reader in the order Shuffle read them before (the permutation,
// the masks, then kyber's PriRand of its first step), kyber's prover is
// handed a stream that gives it those same bytes again, and every product
// it asks for that was prepared is taken from the prepared list. So a
// seeded reader gives the same bytes as ever (the golden vectors check it).

// ShufflePrep is the deck-independent part of one shuffle proof: secret
// (its scalars are the shuffle's masks and nonces). It is used once.
type ShufflePrep struct {
	s     *stream
	n     int
	h     PublicKey
	pi    []int
	beta  []kyber.Scalar
	masks []Ciphertext // masks[j] = (β_j·G, β_j·H)
	// secrets: the bytes kyber's first PriRand reads, replayed to it.
	secrets []byte
	memo    *mulMemo
	used    bool
}

// PrepareShuffle computes what a shuffle of n cards under the joint key h
// can compute before the deck is known. rand is read now and again by
// Shuffle (for the proof's later nonces).
func PrepareShuffle(rand io.Reader, h PublicKey, n int) (*ShufflePrep, error) {
	if n < 2 || n > MaxDeck {
		return nil, fmt.Errorf("%w: a shuffled deck has 2 to %d cards, not %d", ErrBadInput, MaxDeck, n)
	}
	if h.p == nil {
		return nil, fmt.Errorf("%w: no joint key", ErrBadInput)
	}
	s := &stream{r: rand}
	p := &ShufflePrep{s: s, n: n, h: h, pi: permutation(s, n), beta: make([]kyber.Scalar, n)}
	for i := range p.beta {
		p.beta[i] = randomScalar(s)
	}
	// kyber's PairShuffle.Prove starts with ctx.PriRand(u, w, a, &tau0,
	// &nu, &gamma): read them here as it will, recording the bytes.
	u, w, a := make([]kyber.Scalar, n), make([]kyber.Scalar, n), make([]kyber.Scalar, n)
	var tau0, nu, gamma kyber.Scalar
	rec := &recordStream{s: s}
	if err := base.Read(rec, u, w, a, &tau0, &nu, &gamma); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrBadInput, err)
	}
	if err := s.check(); err != nil {
		return nil, err
	}
	p.secrets = rec.got

	p.masks = make([]Ciphertext, n)
	for j, b := range p.beta {
		p.masks[j] = Ciphertext{base.Point().Mul(b, nil), base.Point().Mul(b, h.p)}
	}
	// The products of kyber's first step, in the order it asks for them
	// (shuffle/pair.go, P step 1).
	m := &mulMemo{}
	m.add(gamma, nil)
	z := base.Scalar()
	wbetasum := base.Scalar().Set(tau0)
	for i := range n {
		m.add(a[i], nil)
		m.add(z.Mul(gamma, a[p.pi[i]]), nil)
		m.add(u[i], nil)
		m.add(z.Mul(gamma, w[i]), nil)
		wbetasum.Add(wbetasum, z.Mul(w[i], p.beta[p.pi[i]]))
	}
	m.add(wbetasum, nil)
	m.add(wbetasum, h.p)
	p.memo = m
	return p, nil
}

// Shuffle is the package's Shuffle with this preparation: it permutes and
// re-masks in (which must have the prepared size) and proves it.
func (p *ShufflePrep) Shuffle(ctx Context, seat int, in Deck) (Deck, []byte, error) {
	if p.used {
		return nil, nil, fmt.Errorf("%w: a prepared shuffle is used once", ErrBadInput)
	}
	if err := checkDeck(in); err != nil {
		return nil, nil, err
	}
	if len(in) != p.n {
		return nil, nil, fmt.Errorf("%w: a shuffle prepared for %d cards, handed %d", ErrBadInput, p.n, len(in))
	}
	p.used = true
	return shuffleWith(p, ctx, seat, in)
}

// For reports whether p was prepared for n cards under h.
func (p *ShufflePrep) For(h PublicKey, n int) bool {
	return p != nil && !p.used && p.n == n && h.p != nil && p.h.p.Equal(h.p)
}

// recordStream passes s through and keeps the key stream it gave.
type recordStream struct {
	s   *stream
	got []byte
}

func (r *recordStream) XORKeyStream(dst, src []byte) {
	ks := make([]byte, len(src)) // dst and src may be one slice
	r.s.XORKeyStream(ks, ks)
	r.got = append(r.got, ks...)
	for i := range src {
		dst[i] = src[i] ^ ks[i]
	}
}

// Read makes it the reader kyber's prover reads its secrets with (its
// cipherStreamReader, proof/hash.go): a scalar read from a cipher.Stream
// is picked from its key stream.
func (r *recordStream) Read(b []byte) (int, error) {
	x := make([]byte, len(b))
	r.XORKeyStream(x, x)
	copy(b, x)
	return len(b), nil
}

// replayStream gives the recorded key stream first, then s's.
type replayStream struct {
	s    *stream
	left []byte
}

func (r *replayStream) XORKeyStream(dst, src []byte) {
	n := min(len(r.left), len(src))
	for i := range n {
		dst[i] = src[i] ^ r.left[i]
	}
	r.left = r.left[n:]
	if n < len(src) {
		r.s.XORKeyStream(dst[n:], src[n:])
	}
}

// mulMemo is the list of prepared products x·P (P nil for G), in the
// order the prover asks for them. A multiplication by a point of the
// prover's group that matches the next one takes it (with its encoding,
// which the proof writes); any other is computed as ever, so a prover
// that asked in another order would be slower, not wrong.
type mulMemo struct {
	next  int
	items []memoItem
}

type memoItem struct {
	x    *r255.Scalar
	on   *r255.Element // nil: G
	prod point
}

func (m *mulMemo) add(x kyber.Scalar, on kyber.Point) {
	it := memoItem{x: toScalar(x)}
	if on != nil {
		it.on = &our(on).p
		it.prod.p.ScalarMult(it.x, it.on)
	} else {
		it.prod.p.ScalarBaseMult(it.x)
	}
	it.prod.bytes()
	m.items = append(m.items, it)
}

// take sets P to the next prepared product if it is x·A (A nil for G).
func (m *mulMemo) take(P *point, x *r255.Scalar, A *point) bool {
	if m == nil || m.next >= len(m.items) {
		return false
	}
	it := &m.items[m.next]
	if it.x.Equal(x) != 1 {
		return false
	}
	switch {
	case it.on == nil && (A == nil || A.p.Equal(rBase) == 1):
	case it.on != nil && A != nil && it.on.Equal(&A.p) == 1:
	default:
		return false
	}
	m.next++
	P.p, P.enc, P.encOK = it.prod.p, it.prod.enc, true
	return true
}

// proverGroup is proverSuite with the prepared products: kyber's prover
// builds its points with Point, which here carry the memo.
type proverGroup struct {
	group
	memo *mulMemo
}

func (g proverGroup) Point() kyber.Point {
	q := newPoint()
	q.memo = g.memo
	return q
}
