// Package hostile is a misbehaving boardmesh peer for tests: a real libp2p
// host on loopback that joins a session's topic with the same gossipsub
// settings as the runner (p2p.NewPubSub) and then publishes whatever the
// test crafts, signed by a member's key or by its own outsider key; it
// opens catch-up and lobby streams with crafted frames, and floods.
//
// Nothing here is used by the boardmesh binary. It exists so that the
// attacks docs/reliability.md lists are tried against honest peers over
// the real network stack, not against a modified binary: the honest side
// of every such test is the production code, untouched.
//
// Bodies are encoded here from docs/protocol.md §4, independently of
// lockstep's encoders, as an outside implementation would; that is also
// what lets a test craft a body lockstep would never produce.
package hostile
