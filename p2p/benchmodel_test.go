package p2p

import (
	"testing"
	"time"

	"github.com/boardmesh/boardmesh/engine/dominion"
	"github.com/boardmesh/boardmesh/engine/dragonslair"
)

// TestModelGameTimesTheRounds: the model's clock is the protocol's
// critical path. An open Dragon's Lair game modelled with a broadcast of
// 10 ms takes longer than its rounds × 10 ms and less than the rounds ×
// (10 ms + what a seat spent), with 20 ms nearly 10 ms a round more, and
// with 5 ms of the 10 the receiver's CPU no less a round;
// two secret Dominion games end too, with their mode, no gap asked for,
// and every seat's shuffle proofs in its CPU.
func TestModelGameTimesTheRounds(t *testing.T) {
	seed := []byte("model")
	a, err := ModelGames(dragonslair.Game, 3, seed, false, 10*time.Millisecond, 0, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	if a.Rounds < 20 || a.Wall < a.Floor || a.Floor != time.Duration(a.Rounds)*10*time.Millisecond ||
		a.Wall > a.Floor+time.Duration(a.Rounds)*a.SeatCPU || a.CommitP50 < 10*time.Millisecond || a.Asks != 0 {
		t.Fatalf("open game at 10 ms a broadcast: %+v", a)
	}
	b, err := ModelGames(dragonslair.Game, 3, seed, false, 20*time.Millisecond, 0, 0, 1)
	if err != nil {
		t.Fatal(err)
	}
	// Each game draws fresh identities, so the seat draw and the game
	// differ; per round, the wall grows by the broadcast's 10 ms.
	perA, perB := a.Wall/time.Duration(a.Rounds), b.Wall/time.Duration(b.Rounds)
	if d := perB - perA; d < 8*time.Millisecond || d > 12*time.Millisecond {
		t.Fatalf("a round took %v at 10 ms a broadcast and %v at 20 ms", perA, perB)
	}
	// Each envelope received costs its receiver perDelivery, out of the
	// broadcast's 10 ms: a hop still takes the 10 ms, so a round no less,
	// and the seats' cores spend it.
	c, err := ModelGames(dragonslair.Game, 3, seed, false, 10*time.Millisecond, 0, 5*time.Millisecond, 1)
	if err != nil {
		t.Fatal(err)
	}
	if perC := c.Wall / time.Duration(c.Rounds); perC < perA-time.Millisecond || c.SeatCPU < a.SeatCPU+5*time.Millisecond*time.Duration(c.Rounds)/3 {
		t.Fatalf("a round took %v without delivery CPU and %v with 5 ms of the 10 an envelope (seat CPU %v, %v)", perA, perC, a.SeatCPU, c.SeatCPU)
	}
	// The seats send as the runner does, what leaves at once in one
	// bundle: fewer messages than envelopes.
	if c.Messages <= 0 || c.Messages >= c.Envelopes {
		t.Fatalf("%d envelopes in %d messages", c.Envelopes, c.Messages)
	}
	s, err := ModelGames(dominion.Game, 2, seed, true, time.Millisecond, time.Millisecond, 100*time.Microsecond, 2)
	if err != nil {
		t.Fatal(err)
	}
	if s.Mode != "secret table" || s.Games != 2 || s.Asks != 0 || s.Steps < 40 || s.SeatCPU <= 0 || s.TotalCPU < s.SeatCPU || s.Wall <= s.SeatCPU {
		t.Fatalf("secret Dominion game: %+v", s)
	}
}
