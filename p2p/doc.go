// Package p2p carries boardmesh sessions over libp2p: a host with TCP and
// QUIC and nothing else switched on, one gossipsub topic per session whose
// validator checks envelope signatures before gossip forwards anything, a
// stream protocol that lets a peer fetch what gossip lost (gaps, or a whole
// log after a restart), the on-disk log that makes a crash survivable, mDNS
// discovery of lobbies with short join codes, and the runner that drives the
// pure lockstep state machine with real time and I/O.
//
// The package treats envelopes as opaque bytes wherever it can: signing,
// ordering and the rules belong to lockstep and crypto. What it adds is the
// I/O those layers leave out on purpose, with the ordering rules of
// lockstep's Ready honoured (persist, then send, then apply).
//
// Gap answers go back to the node through lockstep's StepAnswer, credited
// to the stream's remote peer, so a peer that voted to drop a seat where
// the others went on learns it and goes on too. State envelopes that
// explain a desync (Ready.Keep) are appended to the log file, which makes
// that file the desync bundle `boardmesh replay` explains on its own.
// InjectDesync gives a developer a peer with a buggy engine to see that
// work.
package p2p
