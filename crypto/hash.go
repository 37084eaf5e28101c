package crypto

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
)

// Hash is a SHA-256 value: session ids, state hashes, chain elements, beacons.
type Hash [32]byte

func (h Hash) String() string { return hex.EncodeToString(h[:]) }

// Short is the first eight hex digits, for messages to players.
func (h Hash) Short() string { return hex.EncodeToString(h[:4]) }

// IsZero reports whether h is all zero bytes (no hash).
func (h Hash) IsZero() bool { return h == Hash{} }

// Domain tags. Every hash boardmesh computes starts with one of them, so a
// value computed for one purpose can never be passed off as another.
const (
	chainDomain   = "boardmesh/chain/v1"
	beaconDomain  = "boardmesh/beacon/v1"
	sessionDomain = "boardmesh/session/v1"
	seedDomain    = "boardmesh/chain-seed/v1"
)

// SessionID is the id of a session: the hash of its roster body. Every
// envelope after the lobby carries it under its signature, so nothing
// signed for one table can be replayed at another.
func SessionID(rosterBody []byte) Hash {
	h := sha256.New()
	h.Write([]byte(sessionDomain))
	h.Write(rosterBody)
	var out Hash
	h.Sum(out[:0])
	return out
}

// Beacon is beacon round k of a session: SHA-256 of the domain tag, the
// session id, k as a big-endian uint64, the number of reveals as a
// big-endian uint32, and the 32-byte reveals in seat order (in roster order
// for round 0, which draws the seats).
func Beacon(session Hash, k uint64, reveals []Hash) Hash {
	h := sha256.New()
	h.Write([]byte(beaconDomain))
	h.Write(session[:])
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], k)
	h.Write(b[:])
	binary.BigEndian.PutUint32(b[:4], uint32(len(reveals)))
	h.Write(b[:4])
	for i := range reveals {
		h.Write(reveals[i][:])
	}
	var out Hash
	h.Sum(out[:0])
	return out
}
