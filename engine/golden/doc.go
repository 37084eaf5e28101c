// Package golden checks golden vectors against the document that
// publishes them. docs/protocol.md (and docs/mentalpoker.md) print each
// vector on a line of its own, indented by four spaces, as
//
//	name = value
//
// and the tests of crypto, crypto/mentalpoker, lockstep and p2p compute
// the same names from the code and call Check, so the document an
// implementer reads and the code cannot drift apart. It is test support
// (it reads a file), imported only by _test files; it is not part of the
// deterministic core.
package golden
