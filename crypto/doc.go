// Package crypto holds the cryptography of a boardmesh session: peer
// identities (ed25519 keys; a PeerID holds the bytes of the libp2p peer ID,
// which embeds the public key, so this package needs no libp2p code),
// signed envelopes with a domain tag per kind and the session id under the
// signature, hash-chain commitments for the randomness beacon, and the
// beacon derivation itself.
//
// Everything here is deterministic given its inputs: key generation reads
// an io.Reader the caller passes, so tests are reproducible, and every
// byte format is pinned by golden vectors (vectors_test.go, repeated in
// docs/protocol.md) so that an independent verifier can be written from the
// documentation alone.
//
// The package knows nothing of the protocol's rules: which envelope may
// follow which, and what a body means, is package lockstep's business.
package crypto
