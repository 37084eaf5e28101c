// Package enginetest is the shared test harness of the game packages:
// seeded random playouts that check the engine contract after every step
// (exactly one actor, Apply atomic on illegal actions, the GGPO-style sync
// test of encode/decode/re-encode and replay on a copy) plus a game's own
// invariants, determinism checks over hash sequences, and SecretTable: a
// game of hidden cards played on one state per seat with a trusted dealer
// in the card layer's place, for spy tests.
package enginetest
