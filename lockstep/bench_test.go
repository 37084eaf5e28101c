package lockstep

import (
	"testing"

	"github.com/boardmesh/boardmesh/crypto"
	"github.com/boardmesh/boardmesh/engine/dragonslair"
	"github.com/boardmesh/boardmesh/engine/games"
)

// benchLog plays one 4-player Dragon's Lair game on a clean simulated
// network and returns the agreed log and the network's counters.
func benchLog(b *testing.B) ([]*crypto.Envelope, *simNet) {
	b.Helper()
	n := newSimNet(b, "bench", 4, faults{maxDelay: 1}, games.Lookup, Config{ResendAfter: 1 << 40, StallAfter: 1 << 40})
	n.setBots(dragonslair.Game)
	n.lobby(dragonslair.Game, nil)
	if !n.run(1000000, n.allOver(n.all()...)) {
		b.Fatal("game did not finish")
	}
	return n.peers[0].node.Log(), n
}

// BenchmarkVerifyLog measures Verify over a whole game log on one core:
// one ed25519 verification per entry plus the engine's replay.
func BenchmarkVerifyLog(b *testing.B) {
	log, _ := benchLog(b)
	b.ResetTimer()
	for b.Loop() {
		if _, err := VerifyFast(log, games.Lookup); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(log))*float64(b.N)/b.Elapsed().Seconds(), "entries/s")
	b.ReportMetric(float64(len(log)), "entries/log")
}

// BenchmarkProtocolOverhead reports, for a whole game, what the protocol
// costs per action beyond the action itself, signatures excluded: the
// framing bytes of an action envelope, and all protocol bytes and
// messages (reveals, checkpoints, lobby) amortised over the actions.
func BenchmarkProtocolOverhead(b *testing.B) {
	var log []*crypto.Envelope
	for b.Loop() {
		log, _ = benchLog(b)
	}
	var actions, actionFraming, total, bodies int
	for _, env := range log {
		total += env.Size() - len(env.Sig)
		if env.Kind == crypto.KindAction {
			actions++
			actionFraming += env.Size() - len(env.Sig) - len(env.Body)
			bodies += len(env.Body)
		}
	}
	b.ReportMetric(float64(actionFraming)/float64(actions), "framing-B/action")
	b.ReportMetric(float64(total-bodies)/float64(actions), "protocol-B/action")
	b.ReportMetric(float64(len(log))/float64(actions), "entries/action")
}
