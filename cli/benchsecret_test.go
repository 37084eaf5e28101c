package cli

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/boardmesh/boardmesh/p2p"
)

type p2pModel = p2p.ModelGame

// TestBenchSecretJSON runs bench secret at its smallest (Dominion, two
// peers) and checks that every figure the issue asks for is filled in and
// that they agree with each other (the figures themselves are not judged).
func TestBenchSecretJSON(t *testing.T) {
	out, errOut, code := run(t, "bench", "secret", "--game", "dominion", "--setup", "2,3", "--peers", "2", "--broadcasts", "5", "--think", "0", "--model-games", "2", "--json")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var all BenchSecretResult
	if err := json.Unmarshal([]byte(out), &all); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if a := all.Aim; a.Peers != 8 || a.Decks != 1 || a.Cards != 120 || a.Critical <= 0 || a.Envelopes < 8*2 {
		t.Fatalf("setup of 120 cards at 8 peers = %+v", a)
	}
	res := all.Games
	if len(res) != 1 || res[0].Game != "dominion" || res[0].Peers != 2 || res[0].Broadcasts != 5 || res[0].GossipP50 <= 0 {
		t.Fatalf("bench secret = %+v", res)
	}
	r := res[0]
	if len(r.Setup) != 2 || r.Setup[0].Peers != 2 || r.Setup[1].Peers != 3 {
		t.Fatalf("setup = %+v", r.Setup)
	}
	for _, s := range r.Setup {
		// Dominion shuffles each player's starting deck of 10.
		if s.Decks != s.Peers || s.Cards != 10*s.Peers || s.Critical <= 0 || s.SeatCPU <= 0 || s.SeatCPU > s.TotalCPU || s.Bytes <= 0 || s.Envelopes < s.Peers*(1+s.Decks) {
			t.Fatalf("setup = %+v", s)
		}
	}
	sec, open := r.Secret, r.Open
	if sec.Mode != "secret table" || open.Mode != "open hands" {
		t.Fatalf("modes %q and %q", sec.Mode, open.Mode)
	}
	if sec.CardBytes <= 0 || sec.CardBytes >= sec.Bytes || open.CardBytes != 0 || open.Bytes <= 0 || open.Draws+open.Reveals != 0 {
		t.Fatalf("bytes: secret %+v, open %+v", sec, open)
	}
	// Every Dominion turn draws a new hand: private draws, each one round.
	if sec.Draws < 5 || sec.DrawP50 <= 0 || sec.DrawP99 < sec.DrawP50 || sec.Batches1 < 5 {
		t.Fatalf("draws: %+v", sec)
	}
	if sec.CPU > 0 && sec.CPUPerStep != sec.CPU/time.Duration(sec.Steps) {
		t.Fatalf("CPU per step: %+v", sec)
	}
	if sec.Wall <= 0 || open.Wall <= 0 || r.WallRatio != float64(sec.Wall)/float64(open.Wall) || r.DrawPerGossip != float64(sec.DrawP50)/float64(r.GossipP50) {
		t.Fatalf("ratios: %+v", r)
	}
	// The same games modelled with a core per seat: both end, the secret
	// one with its table's mode, no gap asked for (nothing is lost), a
	// seat's CPU within the wall, and the ratio of the two walls.
	ms, mo := r.ModelSecret, r.ModelOpen
	if ms.Mode != "secret table" || mo.Mode != "open hands" || ms.Games != 2 || mo.Games != 2 || ms.Asks+mo.Asks != 0 || r.FsyncP50 <= 0 || r.DeliveryCPU <= 0 {
		t.Fatalf("modelled games: secret %+v, open %+v", ms, mo)
	}
	for _, m := range []struct {
		name string
		g    p2pModel
	}{{"secret", ms}, {"open", mo}} {
		if m.g.Steps < 10 || m.g.Wall <= 0 || m.g.SeatCPU <= 0 || m.g.SeatCPU > m.g.Wall || m.g.SeatCPU > m.g.TotalCPU || m.g.StartToMove <= 0 || m.g.StartToMove > m.g.Wall || m.g.Envelopes < int(m.g.Steps) {
			t.Fatalf("modelled %s game = %+v", m.name, m.g)
		}
	}
	if r.ModelRatio != float64(ms.Wall)/float64(mo.Wall) {
		t.Fatalf("modelled ratio %v of walls %v and %v", r.ModelRatio, ms.Wall, mo.Wall)
	}
	for _, bad := range [][]string{{"--setup", "1"}, {"--game", "nosuch"}, {"--game", "dominion", "--peers", "9"}, {"--broadcasts", "0"}, {"--model-games", "0"}} {
		_, errOut, code := run(t, append([]string{"bench", "secret"}, bad...)...)
		if code != ExitUsage || strings.TrimSpace(errOut) == "" {
			t.Errorf("bench secret %v: exit %d, %q", bad, code, errOut)
		}
	}
}
