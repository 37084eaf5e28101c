//go:build hostilepending

package e2e

import (
	"crypto/rand"

	"github.com/boardmesh/boardmesh/crypto"
	"github.com/boardmesh/boardmesh/engine"
	"github.com/boardmesh/boardmesh/p2p/hostile"
)

// A member flooding at full speed with envelopes its signature makes
// valid (future steps, state envelopes) still takes honest peers over
// 100 MB resident on an idle machine (111-403 MB measured; lockstep's
// buffers are bounded, the rest is in the gossip layer and not yet
// found). They join TestFloodMemory with -tags hostilepending, and move
// to flood_test.go with the fix.
func init() {
	pendingFloods = append(pendingFloods, floodKind{"member future-step envelopes", true, func(f *floodCtx, i int) []byte {
		return hostile.Signed(f.signer, &crypto.Envelope{Session: f.session, Seq: 1000 + uint64(i), Kind: crypto.KindAction,
			Body: hostile.ActionBody(engine.Action{Op: 1, Args: []int32{int32(i)}})}).Marshal()
	}})
	pendingFloods = append(pendingFloods, floodKind{"member state envelopes", true, func(f *floodCtx, i int) []byte {
		state := make([]byte, 2048)
		rand.Read(state)
		h := crypto.Hash(sha256Sum(state))
		seq := 1000 + uint64(i)
		return hostile.Signed(f.signer, &crypto.Envelope{Session: f.session, Seq: seq, Kind: crypto.KindState, StateHash: h,
			Body: hostile.StateBody(seq, []crypto.Hash{h}, state)}).Marshal()
	}})
}
