// Package mentalpoker deals hidden cards without a dealer: Barnett–Smart
// mental poker over ristretto255 (RFC 9496, the prime-order group built on
// edwards25519), with kyber's Neff shuffle proof and Schnorr/Chaum–Pedersen
// proofs from kyber's proof framework (go.dedis.ch/kyber/v4 at exactly
// v4.0.2).
//
// The points are github.com/gtank/ristretto255's elements behind kyber's
// Point interface (point.go), so kyber's proof code runs unchanged on
// them; the scalars (modulo the same order L), the hashes and the proof
// layouts are kyber's edwards25519 suite's. ristretto255 rather than
// edwards25519 points: every string its decoder accepts is the one
// encoding of an element of a prime-order group, so no received point
// needs a subgroup check (which was about 70% of a shuffle check).
//
// A shuffle proof is made by kyber and checked by this package
// (shuffleverify.go): kyber's messages and challenges, kyber's equations
// plus the link between the inner simple shuffle and the commitments that
// kyber's verifier leaves out, all in one batch check (one multi-scalar
// multiplication with random weights).
//
// The package is a set of pure functions over canonical byte encodings.
// It does no I/O and knows nothing of envelopes, seats' peer ids or the
// engine: the caller (lockstep, later) decides what travels in which
// envelope and feeds the received bytes back in. Every function that
// needs randomness reads it from an io.Reader the caller passes, so a
// seeded reader makes every output reproducible (the golden vectors of
// docs/mentalpoker.md depend on it). Seats are 0-based in the API and
// counted from 1 in every error message.
//
// # The protocol
//
//  1. Keys. Each seat i draws x_i (GenerateKey), publishes X_i = x_i·G
//     with a Schnorr proof of knowledge (ProveKey) bound to the session,
//     the context and the seat; every seat checks every proof (VerifyKey).
//     The joint key is H = Σ X_i (JointKey). The proof stops a rogue key
//     X_j = Y − Σ others, which would give seat j the joint key alone.
//  2. Escrow (3+ seats). Each seat splits x_i = Σ_{j≠i} s_ij among the
//     others, publishes S_ij = s_ij·G and seals s_ij to seat j with a
//     Diffie–Hellman key (MakeEscrow). Everyone checks Σ_j S_ij = X_i
//     (ParseEscrow); each holder unseals and checks its piece (Escrow.Open)
//     and, if it is bad, publishes a proof of it (Escrow.Accuse, checked by
//     Escrow.VerifyAccusation). If seat i drops, the holders publish their
//     pieces (Escrow.VerifyPiece) and anyone rebuilds x_i (Escrow.Recover);
//     the dropped seat's cards then become known to all. The price: all
//     other seats together can read a seat's hand, and two seats dropping
//     at once cannot both be rebuilt.
//  3. The deck starts public (OpenDeck): card k (0-based) is the point
//     M_k = (k+1)·G, masked with nothing, (identity, M_k). Each seat in
//     turn permutes and re-masks the whole deck, (C1, C2) → (C1 + β·G,
//     C2 + β·H), and proves it with a Neff shuffle proof (Shuffle,
//     VerifyShuffle). After one honest seat, nobody knows the order.
//  4. A private draw of ciphertext (C1, C2) to seat d: every other seat j
//     posts D_j = x_j·C1 with a Chaum–Pedersen proof that log_G X_j =
//     log_C1 D_j (MakeShare, VerifyShare); seat d alone adds its own share
//     and computes M = C2 − Σ D (OpenPrivate). One broadcast round.
//  5. A public reveal: the holder posts its own share (MakeShare) and
//     every seat opens the card (OpenPublic, VerifyReveal to check a
//     claimed card against the ciphertext).
//
// # Peeks and passed cards
//
// Once the shares of every seat but d are public for a ciphertext, the
// ciphertext is only as secret as d's share. A peek (a look that leaves the
// card in place) therefore works on a copy: the peeker re-masks the card
// with a proof (RemaskProved, VerifyRemask) and the others post shares of
// the copy; the deck keeps the original, for which no share was posted.
// Likewise a card that passes from one hand to another is first re-masked
// with a proof by the seat giving it, so that the new holder's draw shares
// cannot be combined with the old holder's.
//
// # Why k·G for card k
//
// The cards need fixed public points that an opener maps back to an index;
// with M_k = (k+1)·G that is a table of at most MaxDeck additions, no label
// registry and no hash-to-curve. ElGamal's secrecy (DDH) does not depend on
// the messages' discrete logs being unknown. (k+1) rather than k keeps the
// identity, which C1 of the open deck uses, out of the card points.
//
// # The three pitfalls of the issue, and the fixes
//
//  1. kyber's HashProve seeds Fiat–Shamir with the "protocol name" only;
//     the statement (bases, inputs, outputs) is not hashed, so outputs can
//     be fitted to a fixed proof. Here the protocol name is the SHA-256 of
//     a transcript that holds a domain tag per proof type, the Context
//     (session, seq, slot, kind), the seat, the bases and every element of
//     the statement (shuffle: G, H, the input and output decks).
//  2. kyber's edwards25519 decoder accepts points with a small-order
//     component. The points here are ristretto255's, which has none: a
//     torsion-tagged edwards25519 point has no encoding distinct from the
//     untagged one, and every point received, in a key, a ciphertext, a
//     share or inside a proof, is decoded strictly (a valid, so canonical,
//     ristretto255 encoding; RFC 9496's invalid encodings are refused);
//     the identity is refused where it cannot occur. Scalars must be below
//     the group order. Proof lengths are exact.
//  3. kyber's dleq package hashes only the commitments and the two points,
//     not the bases or any context. Shares are proved with proof.Rep under
//     the same bound transcript as above, which names both bases.
//
// The wire encodings and golden vectors are in docs/mentalpoker.md.
package mentalpoker
