// Package enginetest is the shared test harness of the game packages:
// seeded random playouts that check the engine contract after every step
// (exactly one actor, Apply atomic on illegal actions, the GGPO-style sync
// test of encode/decode/re-encode and replay on a copy) plus a game's own
// invariants, and determinism checks over hash sequences.
package enginetest
