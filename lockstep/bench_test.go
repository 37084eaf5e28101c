package lockstep

import (
	"crypto/ed25519"
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

// BenchmarkVerifySignaturesOneByOne is the single-verify ceiling of
// BenchmarkVerifyLog: the same log's signatures checked one at a time with
// crypto.VerifyBuf (ZIP-215, what the live path does) and nothing else.
// Log verification beyond this figure comes from batching.
func BenchmarkVerifySignaturesOneByOne(b *testing.B) {
	log, _ := benchLog(b)
	scratch := make([]byte, 0, 1024)
	b.ResetTimer()
	for b.Loop() {
		for _, env := range log {
			if err := crypto.VerifyBuf(env, scratch); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ReportMetric(float64(len(log))*float64(b.N)/b.Elapsed().Seconds(), "entries/s")
}

// BenchmarkVerifySignaturesStdlib is the same ceiling with Go's
// crypto/ed25519 (cofactorless), for comparison with the figures before
// the ZIP-215 rules.
func BenchmarkVerifySignaturesStdlib(b *testing.B) {
	log, _ := benchLog(b)
	scratch := make([]byte, 0, 1024)
	b.ResetTimer()
	for b.Loop() {
		for _, env := range log {
			pub, _ := crypto.PublicKey(env.Author)
			scratch = env.AppendSigned(scratch[:0])
			if !ed25519.Verify(pub, scratch, env.Sig) {
				b.Fatal("bad signature")
			}
		}
	}
	b.ReportMetric(float64(len(log))*float64(b.N)/b.Elapsed().Seconds(), "entries/s")
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

// BenchmarkStepPerAction measures the protocol's own CPU cost, signatures
// excluded: a spectator node takes a whole game's log through Step with a
// verifier that checks nothing (the signatures were checked once when the
// log was made), so what remains is decoding, buffering, ordering, the
// checks of §5 of docs/protocol.md, the engine's replay and state hashing.
func BenchmarkStepPerAction(b *testing.B) {
	log, _ := benchLog(b)
	actions := 0
	for _, env := range log {
		if env.Kind == crypto.KindAction {
			actions++
		}
	}
	spectator, err := crypto.GenerateIdentity(seededReader("spectator"))
	if err != nil {
		b.Fatal(err)
	}
	wire := make([][]byte, len(log))
	for i, env := range log {
		wire[i] = env.Marshal()
	}
	b.ResetTimer()
	for b.Loop() {
		n, err := New(Config{Identity: spectator, Games: games.Lookup, Verifier: func(*crypto.Envelope) error { return nil }})
		if err != nil {
			b.Fatal(err)
		}
		_ = n.Join(log[0].Session)
		for _, w := range wire {
			env, err := crypto.Unmarshal(w)
			if err != nil {
				b.Fatal(err)
			}
			_ = n.Step(env)
			n.Advance()
		}
		if n.Status().Phase != PhaseOver {
			b.Fatalf("spectator ended in %v", n.Status().Phase)
		}
	}
	b.ReportMetric(b.Elapsed().Seconds()*1e9/float64(b.N)/float64(actions), "ns/action")
	b.ReportMetric(b.Elapsed().Seconds()*1e9/float64(b.N)/float64(len(log)), "ns/entry")
}
