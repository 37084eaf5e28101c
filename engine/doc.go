// Package engine is the contract every boardmesh game implements, and the
// deterministic machinery they share: the canonical state encoding and its
// SHA-256 state hash, the conversion of beacon bytes into dice, picks and
// shuffles, named game options, and the loop that plays a state to its end
// with bots.
//
// The contract, in short:
//
//   - One actor at a time. [State.ToAct] names exactly one seat, or chance
//     (the state needs random bytes), or over. Effects that touch several
//     players ask them one at a time, so a game's log is one total order.
//   - [State.Apply] validates, then mutates. An illegal action returns an
//     error a player understands and leaves the state byte for byte as it was.
//   - [State.Legal] enumerates every legal action of the seat to act.
//   - All randomness enters through [State.ApplyChance], which receives
//     beacon bytes and turns them into results with [Rand]. Games draw at the
//     latest moment a result becomes known, never by shuffling up front.
//   - [State.Encode] writes one canonical byte string per state; its SHA-256
//     is the state hash ([Hash]). The same encoder, in trace mode, names every
//     field, which is what turns a desync into a field-level report ([Diff]).
//
// Nothing in this package or its game sub-packages may use maps in ordered
// logic, floats in rules, the clock, a global random source, or goroutines:
// every peer of a table must compute the same bytes. A test in this package
// enforces the import side of that rule.
package engine
