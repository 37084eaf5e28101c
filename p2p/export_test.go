package p2p

import (
	"testing"

	"github.com/boardmesh/boardmesh/crypto"
)

// EnvelopesOf decodes a peer's committed entries (Peer.Entries), for
// lockstep.Verify and for the tests that read what a log holds. It is
// exported for the external test package too (p2p_test); a _test.go file
// is no part of the package outside its tests.
func EnvelopesOf(t *testing.T, entries [][]byte) []*crypto.Envelope {
	t.Helper()
	log := make([]*crypto.Envelope, 0, len(entries))
	for k, b := range entries {
		env, err := crypto.Unmarshal(b)
		if err != nil {
			t.Fatalf("entry %d does not parse: %v", k, err)
		}
		log = append(log, env)
	}
	return log
}
