package lockstep

import (
	"fmt"

	"github.com/boardmesh/boardmesh/crypto"
	"github.com/boardmesh/boardmesh/engine"
)

// Bodies are written with engine's canonical primitives (unsigned LEB128
// varints, length-prefixed byte strings) and must decode canonically:
// each decoder re-encodes what it read and compares, so one message has
// exactly one byte string and one signature.

const (
	maxName    = 64
	maxMembers = 64
	maxOptions = 64
	maxText    = 256
	maxSeats   = 64
	maxChain   = 1 << 20
	maxHashes  = 1 << 16
	maxState   = crypto.MaxBody
)

// joinBody is a join: who, and the commitment of the hash chain. The host's
// join also names the game, rules version and options of the lobby, so a
// joiner can show what it is joining before the roster arrives.
type joinBody struct {
	Name       string
	Commitment crypto.Hash
	ChainLen   uint64
	Game       string
	Version    string
	Options    engine.Options
}

func (b *joinBody) encode() []byte {
	e := engine.NewEncoder(nil)
	e.Text("name", b.Name)
	e.Blob("commitment", b.Commitment[:])
	e.Uint("chain_len", b.ChainLen)
	e.Text("game", b.Game)
	e.Text("version", b.Version)
	encodeOptions(e, b.Options)
	return e.Bytes()
}

func encodeOptions(e *engine.Encoder, o engine.Options) {
	e.Len("options", len(o))
	for _, x := range o {
		e.Text("name", x.Name)
		e.Text("value", x.Value)
	}
}

func decodeOptions(d *engine.Decoder) engine.Options {
	n := d.Len(maxOptions)
	var o engine.Options
	for i := 0; i < n; i++ {
		o = append(o, engine.Option{Name: d.Text(maxText), Value: d.Text(engine.MaxOptionValue)})
	}
	return o
}

func decodeHash(d *engine.Decoder) crypto.Hash {
	var h crypto.Hash
	// A blob shorter than 32 bytes decodes zero-padded; the canonical
	// re-encoding check then rejects it, since a Hash always encodes 32.
	copy(h[:], d.Blob(32))
	return h
}

// canonical finishes d and checks that enc(decoded) equals the input.
func canonical(d *engine.Decoder, kind crypto.Kind, in, re []byte) error {
	if err := d.Finish(); err != nil {
		return fmt.Errorf("%w: %s: %v", ErrBadBody, kind, err)
	}
	if string(in) != string(re) {
		return fmt.Errorf("%w: %s body is not canonical", ErrBadBody, kind)
	}
	return nil
}

func decodeJoin(b []byte) (*joinBody, error) {
	d := engine.NewDecoder(b)
	j := &joinBody{Name: d.Text(maxName)}
	j.Commitment = decodeHash(d)
	j.ChainLen = d.Uint()
	j.Game = d.Text(maxText)
	j.Version = d.Text(maxText)
	j.Options = decodeOptions(d)
	if d.Err() == nil && (j.ChainLen < 1 || j.ChainLen > maxChain) {
		return nil, fmt.Errorf("%w: join: chain length %d", ErrBadBody, j.ChainLen)
	}
	if d.Err() != nil {
		return nil, fmt.Errorf("%w: join: %v", ErrBadBody, d.Err())
	}
	return j, canonical(d, crypto.KindJoin, b, j.encode())
}

// rosterBody is the host's proposal. Its hash is the session id.
type rosterBody struct {
	Lobby   crypto.Hash
	Game    string
	Version string
	Options engine.Options
	Members []Member // sorted by peer ID bytes
	// Secret makes the table a secret one (lockstep/secret.go). It is
	// written as a trailing 1 only when set, so an open table's roster is
	// byte for byte what it was before secret tables.
	Secret bool
	// Draw is the beacon round of the seat draw: 0 for the first roster,
	// one more for each re-proposal (lobby.go). Its members' hash chains
	// were committed in their joins; the rounds before Draw were revealed
	// (or may have been) in the sessions it replaced, so its seat draw
	// uses chain elements nobody but their owners has seen. Written after
	// Secret (then written even when false) only when set, so a roster
	// with no re-proposal is byte for byte what it was.
	Draw uint64
}

func (b *rosterBody) encode() []byte {
	e := engine.NewEncoder(nil)
	e.Blob("lobby", b.Lobby[:])
	e.Text("game", b.Game)
	e.Text("version", b.Version)
	encodeOptions(e, b.Options)
	e.Len("members", len(b.Members))
	for _, m := range b.Members {
		e.Blob("id", []byte(m.ID))
		e.Text("name", m.Name)
		e.Blob("commitment", m.Commitment[:])
		e.Uint("chain_len", m.ChainLen)
	}
	if b.Secret || b.Draw > 0 {
		e.Uint("secret", boolUint(b.Secret))
	}
	if b.Draw > 0 {
		e.Uint("draw", b.Draw)
	}
	return e.Bytes()
}

func decodeRoster(b []byte) (*rosterBody, error) {
	d := engine.NewDecoder(b)
	r := &rosterBody{Lobby: decodeHash(d), Game: d.Text(maxText), Version: d.Text(maxText)}
	r.Options = decodeOptions(d)
	n := d.Len(maxMembers)
	for i := 0; i < n && d.Err() == nil; i++ {
		id := crypto.PeerID(d.Blob(crypto.IDLen))
		m := Member{ID: id, Name: d.Text(maxName), Commitment: decodeHash(d), ChainLen: d.Uint()}
		if d.Err() == nil {
			if _, err := crypto.PublicKey(id); err != nil {
				return nil, fmt.Errorf("%w: roster member %d: %v", ErrBadBody, i, err)
			}
			if i > 0 && r.Members[i-1].ID >= id {
				return nil, fmt.Errorf("%w: roster members not sorted by peer ID", ErrBadBody)
			}
		}
		r.Members = append(r.Members, m)
	}
	if d.Err() == nil && len(b) > len(r.encode()) {
		r.Secret = d.Uint() == 1
		if d.Err() == nil && len(b) > len(r.encode()) {
			r.Draw = d.Uint()
		}
	}
	if d.Err() != nil {
		return nil, fmt.Errorf("%w: roster: %v", ErrBadBody, d.Err())
	}
	return r, canonical(d, crypto.KindRoster, b, r.encode())
}

func encodeHashBody(h crypto.Hash) []byte {
	e := engine.NewEncoder(nil)
	e.Blob("value", h[:])
	return e.Bytes()
}

// decodeHashBody reads the body of a reveal or extension's commitment.
func decodeHashBody(kind crypto.Kind, b []byte) (crypto.Hash, error) {
	d := engine.NewDecoder(b)
	h := decodeHash(d)
	return h, canonical(d, kind, b, encodeHashBody(h))
}

// extendBody is a new hash chain starting at beacon round Seq.
type extendBody struct {
	Commitment crypto.Hash
	ChainLen   uint64
}

func (b *extendBody) encode() []byte {
	e := engine.NewEncoder(nil)
	e.Blob("commitment", b.Commitment[:])
	e.Uint("chain_len", b.ChainLen)
	return e.Bytes()
}

func decodeExtend(b []byte) (*extendBody, error) {
	d := engine.NewDecoder(b)
	x := &extendBody{Commitment: decodeHash(d), ChainLen: d.Uint()}
	if d.Err() == nil && (x.ChainLen < 1 || x.ChainLen > maxChain) {
		return nil, fmt.Errorf("%w: extend: chain length %d", ErrBadBody, x.ChainLen)
	}
	return x, canonical(d, crypto.KindExtend, b, x.encode())
}

func encodeUintBody(v uint64) []byte {
	e := engine.NewEncoder(nil)
	e.Uint("turn", v)
	return e.Bytes()
}

func decodeUintBody(kind crypto.Kind, b []byte) (uint64, error) {
	d := engine.NewDecoder(b)
	v := d.Uint()
	return v, canonical(d, kind, b, encodeUintBody(v))
}

func encodeSeats(seats []int) []byte {
	e := engine.NewEncoder(nil)
	e.Len("seats", len(seats))
	for _, s := range seats {
		e.Uint("seat", uint64(s))
	}
	return e.Bytes()
}

// decodeSeats reads a drop vote: seats in strictly ascending order.
func decodeSeats(b []byte, players int) ([]int, error) {
	d := engine.NewDecoder(b)
	n := d.Len(maxSeats)
	seats := make([]int, 0, n)
	for i := 0; i < n && d.Err() == nil; i++ {
		v := d.Uint()
		if d.Err() == nil && (v >= uint64(players) || (i > 0 && int(v) <= seats[i-1])) {
			return nil, fmt.Errorf("%w: drop: seats must be distinct, ascending and below %d", ErrBadBody, players)
		}
		seats = append(seats, int(v))
	}
	if d.Err() == nil && n == 0 {
		return nil, fmt.Errorf("%w: drop: no seats", ErrBadBody)
	}
	return seats, canonical(d, crypto.KindDrop, b, encodeSeats(seats))
}

// decodeSettle reads a settle's body: a drop vote's seats, or none (the
// settle of a peer that takes no drop at its position).
func decodeSettle(b []byte, players int) ([]int, error) {
	if len(b) == 1 && b[0] == 0 {
		return []int{}, nil // encodeSeats of no seats
	}
	return decodeSeats(b, players)
}

// wellFormed checks that an envelope's body decodes for its kind, with no
// other context. A malformed envelope is rejected for what it is and is
// never half of an equivocation: two different accepts, say, cannot both
// be well formed.
func wellFormed(env *crypto.Envelope) error {
	var err error
	switch env.Kind {
	case crypto.KindJoin:
		_, err = decodeJoin(env.Body)
	case crypto.KindRoster:
		_, err = decodeRoster(env.Body)
	case crypto.KindAccept:
		if len(env.Body) != 0 || !env.StateHash.IsZero() || env.Seq != 0 {
			err = fmt.Errorf("%w: accept with a body, a seq or a state hash", ErrBadBody)
		}
	case crypto.KindReveal:
		_, err = decodeHashBody(env.Kind, env.Body)
	case crypto.KindAction:
		// An open table's action, or a secret table's (with the cards it
		// shows); the machine checks which one the table's mode takes.
		if _, derr := engine.DecodeAction(env.Body); derr != nil {
			if _, serr := decodeSecretAction(env.Body); serr != nil {
				err = fmt.Errorf("%w: %v", ErrBadBody, derr)
			}
		}
	case crypto.KindCheckpoint:
		_, err = decodeUintBody(env.Kind, env.Body)
	case crypto.KindClaim:
		_, err = decodeClaim(env.Body)
	case crypto.KindDrop:
		_, err = decodeSeats(env.Body, maxSeats)
	case crypto.KindSettle:
		_, err = decodeSettle(env.Body, maxSeats)
		if err == nil && !env.StateHash.IsZero() {
			err = fmt.Errorf("%w: settle with a state hash", ErrBadBody)
		}
	case crypto.KindExtend:
		_, err = decodeExtend(env.Body)
	case crypto.KindEvidence:
		_, _, err = decodeEvidence(env.Body)
	case crypto.KindState:
		_, err = decodeState(env.Body)
	}
	return err
}

// evidenceBody holds two envelopes of one author for one slot.
func encodeEvidence(a, b *crypto.Envelope) []byte {
	e := engine.NewEncoder(nil)
	e.Blob("first", a.Marshal())
	e.Blob("second", b.Marshal())
	return e.Bytes()
}

func decodeEvidence(b []byte) (x, y *crypto.Envelope, err error) {
	d := engine.NewDecoder(b)
	ab, bb := d.Blob(crypto.MaxBody), d.Blob(crypto.MaxBody)
	if err := d.Finish(); err != nil {
		return nil, nil, fmt.Errorf("%w: evidence: %v", ErrBadBody, err)
	}
	if x, err = crypto.Unmarshal(ab); err != nil {
		return nil, nil, err
	}
	if y, err = crypto.Unmarshal(bb); err != nil {
		return nil, nil, err
	}
	return x, y, canonical(d, crypto.KindEvidence, b, encodeEvidence(x, y))
}

// stateBody is what a peer sends to explain a desync: the hashes after each
// step since the last agreed checkpoint, and its canonical state now.
type stateBody struct {
	From   uint64        // seq of the first hash in Hashes
	Hashes []crypto.Hash // state hash at From, From+1, …, the envelope's Seq
	State  []byte
}

func (b *stateBody) encode() []byte {
	e := engine.NewEncoder(nil)
	e.Uint("from", b.From)
	e.Len("hashes", len(b.Hashes))
	for _, h := range b.Hashes {
		e.Blob("hash", h[:])
	}
	e.Blob("state", b.State)
	return e.Bytes()
}

// fits checks a state body against its envelope: one hash for every step
// from From to the envelope's Seq, both included, the last one being the
// envelope's state hash. It is written so that nothing can wrap around
// 2^64 (a Seq of 2^64-1 with no hashes once made seq-from+1 zero).
func (b *stateBody) fits(env *crypto.Envelope) error {
	if len(b.Hashes) == 0 || b.From > env.Seq || uint64(len(b.Hashes)-1) != env.Seq-b.From ||
		b.Hashes[len(b.Hashes)-1] != env.StateHash {
		return fmt.Errorf("%w: state envelope of step %d: its hashes from step %d do not add up to it", ErrBadBody, env.Seq, b.From)
	}
	return nil
}

func decodeState(b []byte) (*stateBody, error) {
	d := engine.NewDecoder(b)
	s := &stateBody{From: d.Uint()}
	n := d.Len(maxHashes)
	for i := 0; i < n && d.Err() == nil; i++ {
		s.Hashes = append(s.Hashes, decodeHash(d))
	}
	s.State = d.Blob(maxState)
	return s, canonical(d, crypto.KindState, b, s.encode())
}

func boolUint(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// claimBody is a claim of the win (claim.go): the claimant's seat and,
// when the claim follows a cheat its card layer proved against the other
// seat, which cheat (one of cheatWords' names) and the envelope of the
// other seat's that proves it. A plain claim encodes as a uint body, so
// the claims of earlier versions read the same.
type claimBody struct {
	Seat  uint64
	Cheat string
	Proof []byte // the marshalled envelope; empty with Cheat ""
}

func (b *claimBody) encode() []byte {
	e := engine.NewEncoder(nil)
	e.Uint("seat", b.Seat)
	if b.Cheat != "" {
		e.Text("cheat", b.Cheat)
		e.Blob("proof", b.Proof)
	}
	return e.Bytes()
}

// maxCheatName bounds a claim's cheat name (cheatWords' names are short).
const maxCheatName = 32

func decodeClaim(b []byte) (*claimBody, error) {
	d := engine.NewDecoder(b)
	c := &claimBody{Seat: d.Uint()}
	if d.Err() == nil && len(b) > len(encodeUintBody(c.Seat)) {
		// More than the seat: the cheat and its proof.
		c.Cheat, c.Proof = d.Text(maxCheatName), d.Blob(crypto.MaxBody)
		if d.Err() == nil && (c.Cheat == "" || len(c.Proof) == 0) {
			return nil, fmt.Errorf("%w: claim: a cheat with no name or no proof", ErrBadBody)
		}
	}
	return c, canonical(d, crypto.KindClaim, b, c.encode())
}
