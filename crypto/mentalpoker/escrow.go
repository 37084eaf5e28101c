package mentalpoker

import (
	"crypto/hkdf"
	"crypto/sha256"
	"fmt"
	"io"

	"go.dedis.ch/kyber/v4"
	"go.dedis.ch/kyber/v4/proof"
)

// EscrowPieceLen is the size of one holder's entry in an escrow: the
// public commitment S = s·G to its piece s, the ephemeral key R = r·G, and
// the piece sealed under the Diffie–Hellman key r·X of the holder.
const EscrowPieceLen = 3 * PointLen

// EscrowLen is the size of a dealer's escrow at a table of n seats.
func EscrowLen(n int) int { return (n - 1) * EscrowPieceLen }

// AccusationLen is the size of an accusation: the Diffie–Hellman point
// K = x·R and its Chaum–Pedersen proof.
const AccusationLen = PointLen + 2*PointLen + ScalarLen

// Escrow is a dealer's secret key split additively among the other seats,
// x = Σ s_j, one sealed piece per holder, with public commitments S_j that
// everyone checks sum to the dealer's public key. Only parsed escrows
// (ParseEscrow) exist, so holding one means that check passed.
type Escrow struct {
	ctx     Context
	dealer  int
	keys    []PublicKey
	commits []kyber.Point // by seat; nil at the dealer
	eph     []kyber.Point
	sealed  [][]byte
}

// Piece is one holder's plaintext piece of a dealer's key, checked
// against the escrow's commitment.
type Piece struct {
	holder int
	s      kyber.Scalar
}

// Holder is the (0-based) seat that held the piece.
func (p Piece) Holder() int { return p.holder }

// Bytes is the piece's 32-byte scalar, what a holder publishes when the
// dealer has been dropped.
func (p Piece) Bytes() []byte { return scalarBytes(p.s) }

func checkTable(keys []PublicKey, seat int) error {
	if len(keys) < 3 || len(keys) > 255 {
		return fmt.Errorf("%w: escrow needs a table of 3 to 255 seats, not %d", ErrBadInput, len(keys))
	}
	if seat < 0 || seat >= len(keys) {
		return fmt.Errorf("%w: seat %d of %d", ErrBadInput, seat+1, len(keys))
	}
	for i, k := range keys {
		if k.p == nil {
			return fmt.Errorf("%w: no key for seat %d", ErrBadInput, i+1)
		}
	}
	return nil
}

// sealPad derives the 32-byte pad that seals a piece: HKDF-SHA256 of the
// Diffie–Hellman point, salted with everything the piece belongs to. This
// is kyber's ecies shape (HKDF of r·X) without its AES-GCM: the piece's
// integrity is the public commitment S = s·G, which anyone can check, and
// kyber's ecies.Encrypt draws its randomness from crypto/rand (so no
// reproducible vectors), binds no context, and gives a third party no way
// to check an accusation from the Diffie–Hellman point.
func sealPad(ctx Context, dealer, holder int, holderKey PublicKey, s, r, k kyber.Point) ([]byte, error) {
	t, err := newTranscript("escrow", ctx, dealer)
	if err != nil {
		return nil, err
	}
	t.count(holder).points(holderKey.p, s, r)
	return hkdf.Key(sha256.New, pointBytes(k), []byte(t.name()), "boardmesh/mentalpoker/v2 escrow piece", ScalarLen)
}

func xor(a, b []byte) []byte {
	out := make([]byte, len(a))
	for i := range a {
		out[i] = a[i] ^ b[i]
	}
	return out
}

// MakeEscrow splits dealer's key among the other seats of the table whose
// verified public keys are keys (dealer's own included, in seat order).
func MakeEscrow(rand io.Reader, ctx Context, dealer int, sk *SecretKey, keys []PublicKey) ([]byte, error) {
	if err := checkTable(keys, dealer); err != nil {
		return nil, err
	}
	if !sk.Public().Equal(keys[dealer]) {
		return nil, fmt.Errorf("%w: the secret key is not seat %d's", ErrBadInput, dealer+1)
	}
	st := &stream{r: rand}
	n := len(keys)
	pieces := make([]kyber.Scalar, n)
	rest := base.Scalar().Set(sk.x)
	last := n - 1
	if dealer == last {
		last = n - 2
	}
	for j := 0; j < n; j++ {
		if j == dealer || j == last {
			continue
		}
		pieces[j] = randomScalar(st)
		rest.Sub(rest, pieces[j])
	}
	pieces[last] = rest
	out := make([]byte, 0, EscrowLen(n))
	for j := 0; j < n; j++ {
		if j == dealer {
			continue
		}
		r := randomScalar(st)
		s := base.Point().Mul(pieces[j], nil)
		R := base.Point().Mul(r, nil)
		K := base.Point().Mul(r, keys[j].p)
		pad, err := sealPad(ctx, dealer, j, keys[j], s, R, K)
		if err != nil {
			return nil, err
		}
		out = append(out, pointBytes(s)...)
		out = append(out, pointBytes(R)...)
		out = append(out, xor(scalarBytes(pieces[j]), pad)...)
	}
	if err := st.check(); err != nil {
		return nil, err
	}
	return out, nil
}

// ParseEscrow decodes dealer's escrow and makes the check every seat
// makes: the commitments sum to the dealer's public key.
func ParseEscrow(ctx Context, dealer int, keys []PublicKey, b []byte) (*Escrow, error) {
	if err := checkTable(keys, dealer); err != nil {
		return nil, err
	}
	n := len(keys)
	if len(b) != EscrowLen(n) {
		return nil, fmt.Errorf("%w: seat %d's escrow is %d bytes, not %d", ErrMalformed, dealer+1, len(b), EscrowLen(n))
	}
	e := &Escrow{ctx: ctx, dealer: dealer, keys: append([]PublicKey(nil), keys...),
		commits: make([]kyber.Point, n), eph: make([]kyber.Point, n), sealed: make([][]byte, n)}
	sum := base.Point().Null()
	off := 0
	for j := 0; j < n; j++ {
		if j == dealer {
			continue
		}
		s, err := decodePoint(b[off:off+PointLen], false)
		if err != nil {
			return nil, fmt.Errorf("seat %d's escrow, commitment for seat %d: %w", dealer+1, j+1, err)
		}
		r, err := decodePoint(b[off+PointLen:off+2*PointLen], false)
		if err != nil {
			return nil, fmt.Errorf("seat %d's escrow, ephemeral key for seat %d: %w", dealer+1, j+1, err)
		}
		e.commits[j], e.eph[j] = s, r
		e.sealed[j] = append([]byte(nil), b[off+2*PointLen:off+3*PointLen]...)
		sum.Add(sum, s)
		off += EscrowPieceLen
	}
	if !sum.Equal(keys[dealer].p) {
		return nil, fmt.Errorf("%w: seat %d's escrow commitments do not add up to its public key", ErrInvalidProof, dealer+1)
	}
	return e, nil
}

// Dealer is the (0-based) seat whose key the escrow holds.
func (e *Escrow) Dealer() int { return e.dealer }

func (e *Escrow) holderOK(holder int) error {
	if holder < 0 || holder >= len(e.keys) || holder == e.dealer {
		return fmt.Errorf("%w: seat %d holds no piece of seat %d's key", ErrBadInput, holder+1, e.dealer+1)
	}
	return nil
}

func (e *Escrow) unseal(holder int, k kyber.Point) (kyber.Scalar, error) {
	pad, err := sealPad(e.ctx, e.dealer, holder, e.keys[holder], e.commits[holder], e.eph[holder], k)
	if err != nil {
		return nil, err
	}
	s, err := decodeScalar(xor(e.sealed[holder], pad))
	if err != nil || !base.Point().Mul(s, nil).Equal(e.commits[holder]) {
		return nil, fmt.Errorf("%w: seat %d's escrow piece for seat %d does not match its commitment", ErrInvalidProof, e.dealer+1, holder+1)
	}
	return s, nil
}

// Open is the holder's check at setup and its step at a drop: unseal its
// piece and check it against the commitment. An error means the dealer
// cheated; the holder then publishes Accuse's proof of it.
func (e *Escrow) Open(holder int, sk *SecretKey) (Piece, error) {
	if err := e.holderOK(holder); err != nil {
		return Piece{}, err
	}
	if !sk.Public().Equal(e.keys[holder]) {
		return Piece{}, fmt.Errorf("%w: the secret key is not seat %d's", ErrBadInput, holder+1)
	}
	s, err := e.unseal(holder, base.Point().Mul(sk.x, e.eph[holder]))
	if err != nil {
		return Piece{}, err
	}
	return Piece{holder: holder, s: s}, nil
}

// VerifyPiece checks a piece a holder published after the dealer dropped.
func (e *Escrow) VerifyPiece(holder int, b []byte) (Piece, error) {
	if err := e.holderOK(holder); err != nil {
		return Piece{}, err
	}
	s, err := decodeScalar(b)
	if err != nil {
		return Piece{}, fmt.Errorf("seat %d's piece of seat %d's key: %w", holder+1, e.dealer+1, err)
	}
	if !base.Point().Mul(s, nil).Equal(e.commits[holder]) {
		return Piece{}, fmt.Errorf("%w: seat %d's piece of seat %d's key does not match the commitment", ErrInvalidProof, holder+1, e.dealer+1)
	}
	return Piece{holder: holder, s: s}, nil
}

// Recover rebuilds the dealer's secret key from one verified piece per
// other seat.
func (e *Escrow) Recover(pieces []Piece) (*SecretKey, error) {
	have := make([]bool, len(e.keys))
	x := base.Scalar().Zero()
	for _, p := range pieces {
		if p.s == nil || e.holderOK(p.holder) != nil || have[p.holder] {
			return nil, fmt.Errorf("%w: an unexpected or repeated piece from seat %d", ErrBadInput, p.holder+1)
		}
		if !base.Point().Mul(p.s, nil).Equal(e.commits[p.holder]) {
			return nil, fmt.Errorf("%w: seat %d's piece does not match the commitment", ErrInvalidProof, p.holder+1)
		}
		have[p.holder] = true
		x.Add(x, p.s)
	}
	for j, ok := range have {
		if !ok && j != e.dealer {
			return nil, fmt.Errorf("%w: no piece from seat %d", ErrBadInput, j+1)
		}
	}
	sk := newSecretKey(x)
	if !sk.Public().Equal(e.keys[e.dealer]) { // cannot happen once every piece matched
		return nil, fmt.Errorf("%w: the pieces do not rebuild seat %d's key", ErrInvalidProof, e.dealer+1)
	}
	return sk, nil
}

func accuseTranscript(e *Escrow, holder int, k kyber.Point) (string, error) {
	t, err := newTranscript("accuse", e.ctx, holder)
	if err != nil {
		return "", err
	}
	t.count(e.dealer).points(base.Point().Base(), e.keys[holder].p, e.eph[holder], k)
	return t.name(), nil
}

// Accuse is what a holder whose piece failed Open publishes: the
// Diffie–Hellman point K = x·R with a proof that log_G X = log_R K. Anyone
// can then unseal the piece and see that it is wrong; K reveals nothing
// about x, and the piece it unseals is worthless anyway.
func (e *Escrow) Accuse(rand io.Reader, holder int, sk *SecretKey) ([]byte, error) {
	if err := e.holderOK(holder); err != nil {
		return nil, err
	}
	if !sk.Public().Equal(e.keys[holder]) {
		return nil, fmt.Errorf("%w: the secret key is not seat %d's", ErrBadInput, holder+1)
	}
	k := base.Point().Mul(sk.x, e.eph[holder])
	name, err := accuseTranscript(e, holder, k)
	if err != nil {
		return nil, err
	}
	st := &stream{r: rand}
	prover := dleqPred.Prover(proverSuite(st), map[string]kyber.Scalar{"x": sk.x},
		map[string]kyber.Point{"A": e.keys[holder].p, "G": base.Point().Base(), "B": k, "H": e.eph[holder]}, nil)
	prf, err := proof.HashProve(proverSuite(st), name, prover)
	if err == nil {
		err = st.check()
	}
	if err != nil {
		return nil, err
	}
	return append(pointBytes(k), prf...), nil
}

// VerifyAccusation returns nil when the accusation proves that the
// dealer's piece for holder is wrong, and an error (the accuser's fault)
// otherwise.
func (e *Escrow) VerifyAccusation(holder int, b []byte) error {
	if err := e.holderOK(holder); err != nil {
		return err
	}
	if len(b) != AccusationLen {
		return fmt.Errorf("%w: seat %d's accusation is %d bytes, not %d", ErrMalformed, holder+1, len(b), AccusationLen)
	}
	k, err := decodePoint(b[:PointLen], false)
	if err != nil {
		return fmt.Errorf("seat %d's accusation: %w", holder+1, err)
	}
	name, err := accuseTranscript(e, holder, k)
	if err != nil {
		return err
	}
	verifier := dleqPred.Verifier(verifierSuite, map[string]kyber.Point{"A": e.keys[holder].p, "G": base.Point().Base(), "B": k, "H": e.eph[holder]})
	if err := proof.HashVerify(verifierSuite, name, verifier, b[PointLen:]); err != nil {
		return proofErr(err, "seat %d's accusation of seat %d", holder+1, e.dealer+1)
	}
	if _, err := e.unseal(holder, k); err == nil {
		return fmt.Errorf("%w: seat %d accuses seat %d of a bad escrow piece, but the piece is good", ErrInvalidProof, holder+1, e.dealer+1)
	}
	return nil
}
