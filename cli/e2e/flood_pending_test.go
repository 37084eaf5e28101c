//go:build hostilepending

package e2e

import (
	"crypto/rand"

	"github.com/boardmesh/boardmesh/crypto"
	"github.com/boardmesh/boardmesh/p2p/hostile"
)

// A member's state envelopes for future steps are kept without bound
// yet (issue 10: bounded buffers, per author and kind): the flood takes
// an honest peer close to 100 MB and stalls the game. It joins
// TestFloodMemory with -tags hostilepending, and moves to flood_test.go
// with the fix.
func init() {
	pendingFloods = append(pendingFloods, floodKind{"member state envelopes", true, func(f *floodCtx, i int) []byte {
		state := make([]byte, 2048)
		rand.Read(state)
		h := crypto.Hash(sha256Sum(state))
		seq := 1000 + uint64(i)
		return hostile.Signed(f.signer, &crypto.Envelope{Session: f.session, Seq: seq, Kind: crypto.KindState, StateHash: h,
			Body: hostile.StateBody(seq, []crypto.Hash{h}, state)}).Marshal()
	}})
}
