package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/boardmesh/boardmesh/cli/present"
	"github.com/boardmesh/boardmesh/crypto"
	"github.com/boardmesh/boardmesh/engine"
	"github.com/boardmesh/boardmesh/engine/dragonslair"
	"github.com/boardmesh/boardmesh/engine/games"
	"github.com/boardmesh/boardmesh/lockstep"
	"github.com/boardmesh/boardmesh/p2p"
)

// replayTestLog plays a 3-player Dragon's Lair game between in-process
// nodes delivering every message at once, and returns the log file bytes.
func replayTestLog(t *testing.T) ([]byte, []*crypto.Envelope) {
	t.Helper()
	var nodes []*lockstep.Node
	for i := 0; i < 3; i++ {
		id, err := crypto.GenerateIdentity(bytes.NewReader(bytes.Repeat([]byte{byte(i + 1)}, 32)))
		if err != nil {
			t.Fatal(err)
		}
		n, err := lockstep.New(lockstep.Config{Identity: id, Name: fmt.Sprintf("P%d", i), Games: games.Lookup})
		if err != nil {
			t.Fatal(err)
		}
		nodes = append(nodes, n)
	}
	lobby := crypto.Hash{1, 2, 3}
	if err := nodes[0].Host(lobby, dragonslair.Game, nil); err != nil {
		t.Fatal(err)
	}
	for _, n := range nodes[1:] {
		if err := n.Join(lobby); err != nil {
			t.Fatal(err)
		}
	}
	bot := engine.RandomBot{}
	r := engine.NewRand([]byte("replay test"))
	pump := func() {
		for again := true; again; {
			again = false
			for i, n := range nodes {
				for n.HasReady() {
					rd := n.Ready()
					n.Advance()
					for _, env := range rd.Messages {
						for j, m := range nodes {
							if j != i {
								_ = m.Step(env)
								again = true
							}
						}
					}
				}
			}
		}
	}
	pump()
	if err := nodes[0].Propose(); err != nil {
		t.Fatal(err)
	}
	for step := 0; step < 100000 && nodes[0].Status().Phase != lockstep.PhaseOver; step++ {
		pump()
		for _, n := range nodes {
			if n.CanAct() {
				st := n.State()
				if err := n.Act(bot.Choose(st, st.Legal(nil), r)); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	pump()
	log := nodes[0].Log()
	return lockstep.EncodeLog(log), log
}

func runReplay(t *testing.T, data []byte, args ...string) (string, error) {
	t.Helper()
	io, _, out, _ := TestIO()
	cmd := newCmdReplay(&Factory{IO: io}, func(o *ReplayOptions) error {
		o.ReadFile = func(context.Context, string) ([]byte, error) { return data, nil }
		return replayRun(o)
	})
	cmd.SetArgs(args)
	cmd.SetOut(out)
	cmd.SetErr(out)
	err := cmd.Execute()
	return out.String(), err
}

func TestReplayValidLog(t *testing.T) {
	data, log := replayTestLog(t)
	out, err := runReplay(t, data, "game.log")
	if err != nil {
		t.Fatalf("replay: %v\n%s", err, out)
	}
	for _, want := range []string{"The Sleeping Dragon's Lair", "seat 1 (", "game over:", fmt.Sprintf("verified: %d entries", len(log))} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	out, err = runReplay(t, data, "--json", "game.log")
	if err != nil {
		t.Fatal(err)
	}
	var j struct {
		Game     string
		Verified bool
		Entries  int
		Steps    []struct{ Kind, What string }
		Result   *engine.Result
	}
	if err := json.Unmarshal([]byte(out), &j); err != nil {
		t.Fatalf("JSON: %v\n%s", err, out)
	}
	if j.Game != "dragonslair" || !j.Verified || j.Entries != len(log) || len(j.Steps) == 0 || j.Result == nil {
		t.Fatalf("JSON replay incomplete: %+v", j)
	}
	out, err = runReplay(t, data, "--at", "10", "game.log")
	if err != nil || !strings.Contains(out, "state after 10 steps") {
		t.Fatalf("--at 10: %v\n%s", err, out)
	}
	if _, err := runReplay(t, data, "--at", "1000000", "game.log"); err == nil || !strings.Contains(err.Error(), "beyond its end") {
		t.Fatalf("--at beyond the end: %v", err)
	}
}

func TestReplayBadInput(t *testing.T) {
	data, log := replayTestLog(t)
	// Where record 5 starts, to aim the damage.
	off := len(lockstep.LogMagic)
	for i := 0; i < 5; i++ {
		off += 4 + 1 + log[i].Size() + 4
	}
	corrupt := append([]byte(nil), data...)
	corrupt[off+20] ^= 1
	// A forged entry: a re-encoded record with a valid checksum whose
	// body no longer matches its signature.
	forged := log[len(log)/2]
	bad := *forged
	bad.Body = append([]byte(nil), forged.Body...)
	bad.Body = append(bad.Body, 0)
	tampered := lockstep.AppendLogHeader(nil)
	for _, env := range log {
		if env == forged {
			env = &bad
		}
		tampered = lockstep.AppendRecord(tampered, lockstep.RecordEntry, env)
	}
	cases := []struct {
		name string
		data []byte
		want []string
	}{
		{"truncated", data[:len(data)-7], []string{"truncated", fmt.Sprintf("entry %d", len(log)-1)}},
		{"corrupted", corrupt, []string{"corrupted", "record 5", "entry 5", "checksum"}},
		{"foreign", []byte("{\"not\": \"a log\"}\n"), []string{"not a boardmesh log file"}},
		{"empty", nil, []string{"not a boardmesh log file"}},
		{"header only", lockstep.AppendLogHeader(nil), []string{"no log entries"}},
		{"forged entry", tampered, []string{fmt.Sprintf("entry %d", len(log)/2), "signature"}},
	}
	for _, c := range cases {
		out, err := runReplay(t, c.data, "game.log")
		if err == nil {
			t.Errorf("%s: no error\n%s", c.name, out)
			continue
		}
		msg := err.Error() + "\n" + out
		for _, w := range c.want {
			if !strings.Contains(msg, w) {
				t.Errorf("%s: error lacks %q: %v", c.name, w, msg)
			}
		}
	}
	var ec *ExitCodeError
	if _, err := runReplay(t, tampered, "game.log"); !errors.As(err, &ec) || ec.Code != ExitCheating {
		t.Errorf("a forged log should exit with the cheating code, got %v", err)
	}
}

// TestReplayDesyncBundle keeps, with a valid log, a state envelope in
// which a peer claims a different state at step 10: replay explains it
// from the log alone, naming the step and the differing fields.
func TestReplayDesyncBundle(t *testing.T) {
	data, log := replayTestLog(t)
	r, _, err := lockstep.ReplayAt(log, games.Lookup, 10)
	if err != nil {
		t.Fatal(err)
	}
	// The peer's state: the log's state at step 10 after one more legal
	// step of its own, as a peer with a bug might hold.
	other := r.Final.Clone()
	if other.ToAct().Kind == engine.ActorChance {
		_ = other.ApplyChance(bytes.Repeat([]byte{9}, 32))
	} else {
		legal := other.Legal(nil)
		_ = other.Apply(other.ToAct().Seat, legal[len(legal)-1])
	}
	h := crypto.Hash(engine.Hash(other))
	e := engine.NewEncoder(nil)
	e.Uint("from", 9)
	e.Len("hashes", 2)
	e.Blob("hash", r.Hashes[9][:])
	e.Blob("hash", h[:])
	e.Blob("state", engine.Encode(other))
	id, _ := crypto.GenerateIdentity(bytes.NewReader(bytes.Repeat([]byte{2}, 32)))
	env := &crypto.Envelope{Session: r.Session, Seq: 10, Kind: crypto.KindState, StateHash: h, Body: e.Bytes()}
	crypto.Sign(id, env)
	bundle := lockstep.AppendRecord(append([]byte(nil), data...), lockstep.RecordState, env)
	out, err := runReplay(t, bundle, "game.log")
	var ec *ExitCodeError
	if !errors.As(err, &ec) || ec.Code != ExitDesync {
		t.Fatalf("want the desync exit code, got %v\n%s", err, out)
	}
	if !strings.Contains(out, "first divergent entry is step 9") || !strings.Contains(out, "mine ") {
		t.Fatalf("report does not name the step or fields:\n%s", out)
	}
}

// TestReplayTellsOutcomes: the replay says what came out of each step (the
// card turned over), not "beacon round N"; --seat tells it as that seat;
// --json counts seats from 1 and carries the history.
func TestReplayTellsOutcomes(t *testing.T) {
	data, _ := replayTestLog(t)
	out, err := runReplay(t, data, "game.log")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out, "beacon round") || !strings.Contains(out, "turned over") || !strings.Contains(out, "as a spectator saw it") {
		t.Fatalf("the replay does not tell the outcomes:\n%s", out)
	}
	out, err = runReplay(t, data, "--seat", "1", "game.log")
	if err != nil || !strings.Contains(out, "as seat 1 saw it") {
		t.Fatalf("--seat 1: %v\n%s", err, out)
	}
	if _, err := runReplay(t, data, "--seat", "9", "game.log"); err == nil {
		t.Fatal("--seat 9 of a smaller table was accepted")
	}
	out, err = runReplay(t, data, "--json", "game.log")
	if err != nil {
		t.Fatal(err)
	}
	var j struct {
		Seats   []struct{ Seat int }
		Steps   []struct{ Kind, What, Outcome string }
		History []struct{ Kind, Text, Outcome string }
		Result  struct{ Winners []int }
	}
	if err := json.Unmarshal([]byte(out), &j); err != nil {
		t.Fatal(err)
	}
	if len(j.Seats) == 0 || j.Seats[0].Seat != 1 || len(j.History) == 0 || len(j.Result.Winners) == 0 || j.Result.Winners[0] < 1 {
		t.Fatalf("replay --json: seats %+v, %d history lines, winners %v", j.Seats, len(j.History), j.Result.Winners)
	}
	for _, s := range j.Steps {
		if strings.Contains(s.What, "beacon round") {
			t.Fatalf("a step still reads %q", s.What)
		}
	}
}

// TestSpectatorSeesTheScoreTable: the spectator's game-over screen has the
// score table and the history told with outcomes.
func TestSpectatorSeesTheScoreTable(t *testing.T) {
	_, log := replayTestLog(t)
	rp, err := lockstep.Verify(log, games.Lookup)
	if err != nil {
		t.Fatal(err)
	}
	h, err := p2p.NewHost(p2p.HostConfig{NoQUIC: true})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	snap := spectatorSnapshot(rp.Game, h, log, present.NewRecorder(games.Lookup), rp, len(log))
	if !snap.Over || !strings.Contains(snap.Result, "winner") || !strings.Contains(snap.Result, "gold") || snap.Seat != -1 {
		t.Fatalf("the spectator's game over: over %v, result %q", snap.Over, snap.Result)
	}
	told := false
	for _, e := range snap.History {
		told = told || strings.Contains(e.Outcome, "turned over")
	}
	if !told {
		t.Fatalf("the spectator's history has no outcomes: %+v", snap.History)
	}
}

// TestSpectatorScreenSaysTheMode: the spectator's screen says the card
// mode every member agreed to in the roster, as a player's does.
func TestSpectatorScreenSaysTheMode(t *testing.T) {
	_, log := replayTestLog(t)
	rp, err := lockstep.Verify(log, games.Lookup)
	if err != nil {
		t.Fatal(err)
	}
	if rp.Mode != "open hands" {
		t.Fatalf("the replay of an open Dragon's Lair table says %q", rp.Mode)
	}
	h, err := p2p.NewHost(p2p.HostConfig{NoQUIC: true})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	snap := spectatorSnapshot(rp.Game, h, log, present.NewRecorder(games.Lookup), rp, len(log))
	if !strings.Contains(snap.Status, "open hands") {
		t.Fatalf("the spectator's status line does not say the mode: %q", snap.Status)
	}
}

// TestReplayClaimAfterCheat: the replay of a log whose claim of the win
// followed a cheat (lockstep/cardsource's golden log: at a secret table of
// two, P2 signed a wrong decryption share and P1 claimed) says, from the
// log alone, who was convicted of which cheat and who claimed; so does
// --json.
func TestReplayClaimAfterCheat(t *testing.T) {
	data, err := os.ReadFile("../lockstep/cardsource/testdata/claim-after-cheat.log")
	if err != nil {
		t.Fatal(err)
	}
	const want = "P2 was convicted of a cheat (a wrong decryption share: the share envelope P2 signed is in the claim); P1 claimed the win"
	out, err := runReplay(t, data, "game.log")
	if err != nil || !strings.Contains(out, "game over: "+want+"\n") || !strings.Contains(out, "winner: seat 2 (P1)") {
		t.Fatalf("replay: %v\n%s", err, out)
	}
	out, err = runReplay(t, data, "--json", "game.log")
	if err != nil {
		t.Fatal(err)
	}
	var j struct {
		Result struct {
			Winners []int
			Reason  string
		}
	}
	if err := json.Unmarshal([]byte(out), &j); err != nil || j.Result.Reason != want || fmt.Sprint(j.Result.Winners) != "[2]" {
		t.Fatalf("replay --json: %v: %+v\n%s", err, j.Result, out)
	}
}
