package present

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"github.com/boardmesh/boardmesh/crypto"
	"github.com/boardmesh/boardmesh/engine"
	"github.com/boardmesh/boardmesh/engine/games"
	"github.com/boardmesh/boardmesh/lockstep"
	"github.com/boardmesh/boardmesh/lockstep/cardsource"
)

// playLog plays a whole game of the named game between n in-memory nodes
// played by random bots and returns the committed log of the first node
// and its final status.
func playLog(t testing.TB, game string, n int) ([]*crypto.Envelope, lockstep.Status) {
	t.Helper()
	g, err := games.Lookup(game)
	if err != nil {
		t.Fatal(err)
	}
	var peers []*lockstep.Node
	for i := range n {
		id, _ := crypto.GenerateIdentity(bytes.NewReader(bytes.Repeat([]byte{byte(i + 1)}, 32)))
		nd, err := lockstep.New(lockstep.Config{Identity: id, Name: fmt.Sprintf("P%d", i+1), Games: games.Lookup})
		if err != nil {
			t.Fatal(err)
		}
		peers = append(peers, nd)
	}
	lobby := crypto.Hash{7}
	if err := peers[0].Host(lobby, g, nil); err != nil {
		t.Fatal(err)
	}
	for _, p := range peers[1:] {
		if err := p.Join(lobby); err != nil {
			t.Fatal(err)
		}
	}
	var log []*crypto.Envelope
	handle := func() (busy bool) {
		for i, nd := range peers {
			for nd.HasReady() {
				rd := nd.Ready()
				if i == 0 {
					log = append(log, rd.Entries...)
				}
				for _, env := range rd.Messages {
					for j, o := range peers {
						if j != i {
							_ = o.Step(env)
						}
					}
				}
				nd.Advance()
				busy = true
			}
		}
		return busy
	}
	handle()
	// Every join must be in before the roster is proposed.
	for range 10 {
		handle()
	}
	if err := peers[0].Propose(); err != nil {
		t.Fatal(err)
	}
	bot, r := engine.RandomBot{}, engine.NewRand([]byte("present"))
	for steps := 0; peers[0].Status().Phase != lockstep.PhaseOver && steps < 200000; steps++ {
		busy := handle()
		for _, nd := range peers {
			if nd.CanAct() {
				st := nd.State()
				if err := nd.Act(bot.Choose(st, st.Legal(nil), r)); err != nil {
					t.Fatal(err)
				}
				busy = true
			}
		}
		if !busy {
			break
		}
	}
	handle()
	if peers[0].Status().Phase != lockstep.PhaseOver {
		t.Fatalf("the %s game did not end", game)
	}
	return log, peers[0].Status()
}

// TestHistoryTellsEveryStep: every action of a whole game has one line
// naming its seat, in order, and the game over is the last line.
func TestHistoryTellsEveryStep(t *testing.T) {
	for _, g := range games.All() {
		t.Run(g.Name, func(t *testing.T) {
			log, st := playLog(t, g.Name, g.MinPlayers)
			rep, err := lockstep.Verify(log, games.Lookup)
			if err != nil {
				t.Fatal(err)
			}
			r := NewRecorder(games.Lookup)
			r.SetViewer(0)
			r.Feed(log...)
			h := r.History()
			var actions []Entry
			for _, e := range h {
				if e.Kind == "action" {
					actions = append(actions, e)
				}
				if strings.HasPrefix(e.Text, "the history stops") {
					t.Fatal(e.Text)
				}
			}
			var want []lockstep.ReplayStep
			for _, s := range rep.Steps {
				if s.Kind == "action" {
					want = append(want, s)
				}
			}
			if len(actions) != len(want) {
				t.Fatalf("%d action lines for %d actions", len(actions), len(want))
			}
			for i, e := range actions {
				if e.Seat != want[i].Seat+1 || e.Text == "" || !strings.Contains(e.Who, fmt.Sprintf("seat %d", want[i].Seat+1)) {
					t.Fatalf("line %d is %+v for a step of seat %d", i, e, want[i].Seat+1)
				}
			}
			tb := Build(r, st, rep.Final, Env{Human: true, Self: st.Members[0].ID.String()})
			if tb.Phase != "over" || tb.Result == nil || len(tb.Scores) != g.MinPlayers {
				t.Fatalf("game over table: phase %q, result %v, %d scores", tb.Phase, tb.Result, len(tb.Scores))
			}
		})
	}
}

// TestTableJSONIsSnakeCase: every key of the marshalled table is
// snake_case, the engine's view included, and seats count from 1.
func TestTableJSONIsSnakeCase(t *testing.T) {
	for _, g := range games.All() {
		log, st := playLog(t, g.Name, g.MinPlayers)
		rep, err := lockstep.Verify(log, games.Lookup)
		if err != nil {
			t.Fatal(err)
		}
		r := NewRecorder(games.Lookup)
		r.Feed(log...)
		tb := Build(r, st, rep.Final, Env{Human: true, Self: st.Members[0].ID.String()})
		b, err := json.Marshal(tb)
		if err != nil {
			t.Fatal(err)
		}
		keys := regexp.MustCompile(`"([A-Za-z0-9_]+)":`).FindAllStringSubmatch(string(b), -1)
		for _, k := range keys {
			if k[1] != strings.ToLower(k[1]) {
				t.Errorf("%s: key %q is not snake_case", g.Name, k[1])
			}
		}
		for i, s := range tb.Seats {
			if s.Number != i+1 || s.Color == "" {
				t.Errorf("%s: seat %d is %+v", g.Name, i+1, s)
			}
		}
	}
}

func TestActionIDsAndGroups(t *testing.T) {
	a := engine.Action{Op: 3, Args: []int32{1, -2}}
	if id := ActionID(a); id != "3.1.-2" {
		t.Fatalf("id %q", id)
	}
	got, ok := Choose([]Action{{ID: "3.1.-2", Action: a}}, "3.1.-2")
	if !ok || !got.Equal(a) {
		t.Fatal("Choose does not find the move by its id")
	}
	if _, ok := Choose([]Action{{ID: "3.1.-2", Action: a}}, "3.1.2"); ok {
		t.Fatal("Choose found a move that is not legal")
	}
	for label, want := range map[string]string{"Play Post Office at (1,2)": "Play Post Office", "Buy Gold ($6)": "Buy Gold", "End turn": "End turn"} {
		if g := GroupOf(label); g != want {
			t.Errorf("GroupOf(%q) = %q, want %q", label, g, want)
		}
	}
}

// TestDefaultNeverRisky: the default highlight is the first move that is
// not risky.
func TestDefaultNeverRisky(t *testing.T) {
	as := []Action{{ID: "1", Risky: true}, {ID: "2"}, {ID: "3"}}
	if d := DefaultAction(as); d != "2" {
		t.Fatalf("default %q, want 2", d)
	}
}

// TestMergeOutcome: chance outcomes without a line of their own join the
// line before, counted when repeated.
func TestMergeOutcome(t *testing.T) {
	r := &Recorder{}
	r.add(Entry{Kind: "action", Text: "Play Smithy"})
	r.mergeOutcome("drew a card")
	r.mergeOutcome("drew a card")
	r.mergeOutcome("drew a card")
	r.add(Entry{Kind: "table", Text: "waiting"})
	r.mergeOutcome("Curse gained")
	if got := r.history[0].Outcome; got != "drew a card ×3; Curse gained" {
		t.Fatalf("outcome %q", got)
	}
}

// TestSinceYourMove: what the others did after the viewer's last move.
func TestSinceYourMove(t *testing.T) {
	h := []Entry{{Kind: "action", Seat: 2, Text: "Buy Silver"}, {Kind: "action", Seat: 1, Text: "Buy Gold"},
		{Kind: "table", Text: "waiting for bo"}, {Kind: "action", Seat: 2, Text: "Buy Militia"}, {Kind: "action", Seat: 3, Text: "Play Witch", Outcome: "seat 1 gained Curse"}}
	got := since(h, 1)
	if len(got) != 2 || got[0].Text != "Buy Militia" || got[1].Outcome != "seat 1 gained Curse" {
		t.Fatalf("since = %+v", got)
	}
	if got := since(h[:2], 1); len(got) != 0 {
		t.Fatalf("right after our move, since = %+v", got)
	}
}

// TestMovesOfferedOnlyWhenTheNodeTakesThem: at every point of a game
// whose envelopes arrive one at a time (so a turn's checkpoint round is
// open for a while: the engine's next mover is already known, but every
// seat's checkpoint must come first), the table offers the viewer moves
// exactly when its node would take one. A page once offered moves while
// a dead player's checkpoint was missing, and every click was refused
// with "it is not this peer's move".
func TestMovesOfferedOnlyWhenTheNodeTakesThem(t *testing.T) {
	g, err := games.Lookup("dragonslair")
	if err != nil {
		t.Fatal(err)
	}
	const n = 3
	var peers []*lockstep.Node
	var recs []*Recorder
	var self []string
	for i := range n {
		id, _ := crypto.GenerateIdentity(bytes.NewReader(bytes.Repeat([]byte{byte(i + 1)}, 32)))
		self = append(self, id.ID().String())
		nd, err := lockstep.New(lockstep.Config{Identity: id, Name: fmt.Sprintf("P%d", i+1), Games: games.Lookup})
		if err != nil {
			t.Fatal(err)
		}
		peers = append(peers, nd)
		recs = append(recs, NewRecorder(games.Lookup))
	}
	lobby := crypto.Hash{9}
	if err := peers[0].Host(lobby, g, nil); err != nil {
		t.Fatal(err)
	}
	for _, p := range peers[1:] {
		if err := p.Join(lobby); err != nil {
			t.Fatal(err)
		}
	}
	// queue[j] holds the envelopes on their way to peer j, delivered one
	// per call of pump, oldest first.
	queue := make([][]*crypto.Envelope, n)
	drain := func() {
		for i, nd := range peers {
			for nd.HasReady() {
				rd := nd.Ready()
				recs[i].Feed(rd.Entries...)
				for _, env := range rd.Messages {
					for j := range peers {
						if j != i {
							queue[j] = append(queue[j], env)
						}
					}
				}
				nd.Advance()
			}
		}
	}
	pump := func() bool {
		moved := false
		for j := range peers {
			if len(queue[j]) > 0 {
				_ = peers[j].Step(queue[j][0])
				queue[j] = queue[j][1:]
				moved = true
			}
		}
		drain()
		return moved
	}
	drain()
	for pump() {
	}
	if err := peers[0].Propose(); err != nil {
		t.Fatal(err)
	}
	drain()
	bot, r := engine.RandomBot{}, engine.NewRand([]byte("offered"))
	held := 0 // points where the engine named the viewer but the node would not take a move
	sent := 0 // of them, points where its move was sent and waits for the checkpoint round
	for steps := 0; peers[0].Status().Phase != lockstep.PhaseOver && steps < 200000; steps++ {
		for i, nd := range peers {
			st := nd.Status()
			tb := Build(recs[i], st, nd.State(), Env{Human: true, Self: self[i]})
			if offered := len(tb.Actions) > 0; offered != nd.CanAct() {
				t.Fatalf("step %d, P%d: moves offered %v (%q) but the node takes one: %v", st.Seq, i+1, offered, tb.Status, nd.CanAct())
			}
			if st.Phase == lockstep.PhasePlaying && st.Actor.Kind == engine.ActorSeat && st.Actor.Seat == st.MySeat && !nd.CanAct() {
				held++
				want := "your move next"
				if st.Moved {
					// Sent with its checkpoint (an open table's first
					// move of a turn), waiting for the others'.
					want, sent = "your move is sent", sent+1
				}
				if !strings.Contains(tb.Status, want) {
					t.Fatalf("P%d is next to move but may not yet; the status says %q", i+1, tb.Status)
				}
			}
		}
		busy := pump()
		for _, nd := range peers {
			if nd.CanAct() {
				st := nd.State()
				if err := nd.Act(bot.Choose(st, st.Legal(nil), r)); err != nil {
					t.Fatal(err)
				}
				busy = true
			}
		}
		drain()
		if !busy {
			break
		}
	}
	if peers[0].Status().Phase != lockstep.PhaseOver {
		t.Fatalf("the game did not end: %v at step %d", peers[0].Status().Phase, peers[0].Status().Seq)
	}
	if held == 0 {
		t.Fatal("no checkpoint round ever held the next mover back: the test did not test it")
	}
	if sent == 0 {
		t.Fatal("no first move of a turn ever waited, sent, for the checkpoint round: the test did not test it")
	}
}

// TestPausedTableOfTwoOffersTheClaim: at a secret table of two, the other
// player vanishes when it is their move. The model says the game is
// paused and why in plain words, offers the claim to the player only once
// the drop time has passed (and never to a watcher's screen), lists the
// absent player as a stall that no vote can drop, and after the claim
// shows the game over with the claimant as the only winner. The nodes are
// configured as the runner configures a person's (no drop time of the
// node's own: the player decides), so the node would take a claim after
// its stall time, and the screen offers it after the player's
// --drop-after.
func TestPausedTableOfTwoOffersTheClaim(t *testing.T) {
	const stallAfter, dropAfter = 500, 3000
	var peers []*lockstep.Node
	var recs []*Recorder
	var self []string
	for i := range 2 {
		id, _ := crypto.GenerateIdentity(bytes.NewReader(bytes.Repeat([]byte{byte(i + 1)}, 32)))
		self = append(self, id.ID().String())
		var k [32]byte
		copy(k[:], fmt.Sprintf("claim cards %d", i))
		nd, err := lockstep.New(lockstep.Config{Identity: id, Name: fmt.Sprintf("P%d", i+1), Games: games.Lookup,
			Cards: cardsource.Maker(rand.NewChaCha8(k)), StallAfter: stallAfter})
		if err != nil {
			t.Fatal(err)
		}
		peers = append(peers, nd)
		recs = append(recs, NewRecorder(games.Lookup))
	}
	g, err := games.Lookup("infinitecity")
	if err != nil {
		t.Fatal(err)
	}
	lobby := crypto.Hash{11}
	if err := peers[0].Host(lobby, g, nil); err != nil {
		t.Fatal(err)
	}
	if err := peers[1].Join(lobby); err != nil {
		t.Fatal(err)
	}
	gone := false // P2 has vanished: nothing more reaches it or comes from it
	run := func() bool {
		busy := false
		for moved := true; moved; {
			moved = false
			for i, nd := range peers {
				if gone && i == 1 {
					continue
				}
				for nd.HasReady() {
					rd := nd.Ready()
					recs[i].Feed(rd.Entries...)
					for _, env := range rd.Messages {
						if o := peers[1-i]; !gone {
							_ = o.Step(env)
						}
					}
					nd.Advance()
					moved = true
				}
				if !moved && nd.HasWork() {
					moved = nd.Work()
				}
			}
			busy = busy || moved
		}
		return busy
	}
	run()
	if err := peers[0].Propose(); err != nil {
		t.Fatal(err)
	}
	a, r, now := peers[0], engine.NewRand([]byte("claim")), int64(0)
	for steps := 0; !gone; steps++ {
		if steps > 20000 || a.Status().Phase != lockstep.PhasePlaying && a.Status().Phase > lockstep.PhasePlaying {
			t.Fatal("P2 never had a move to vanish at")
		}
		busy := run()
		if peers[1].CanAct() && a.Status().Seq > 4 {
			gone = true // P2 vanishes instead of moving
			break
		}
		for _, nd := range peers {
			if nd.CanAct() {
				st := nd.State()
				if err := nd.Act(engine.RandomBot{}.Choose(st, st.Legal(nil), r)); err != nil {
					t.Fatal(err)
				}
				busy = true
			}
		}
		if !busy {
			now += 100
			for _, nd := range peers {
				nd.Tick(now)
			}
		}
	}
	if !a.Secret() {
		t.Fatal("the table is not secret")
	}
	other := 2 - a.Status().MySeat // P2's seat, from 1
	table := func(human bool) Table {
		return Build(recs[0], a.Status(), a.State(), Env{Human: human, Self: self[0], DropAfter: dropAfter})
	}
	tick := func(ms int64) {
		for end := now + ms; now < end; {
			now += 100
			a.Tick(now)
			run()
		}
	}
	tick(stallAfter + 500)
	tb := table(true)
	if !strings.Contains(tb.Pause, "paused: P2 is away") || !strings.Contains(tb.Pause, "both players' keys") || !strings.Contains(tb.Pause, "claim of the win is possible after 3 s") {
		t.Fatalf("before the drop time the pause reads %q", tb.Pause)
	}
	if tb.CanClaim || !a.Status().CanClaim {
		t.Fatalf("before the drop time the screen may claim: %v (the node would take it: %v)", tb.CanClaim, a.Status().CanClaim)
	}
	tick(dropAfter)
	tb = table(true)
	if !tb.CanClaim || !strings.Contains(tb.Pause, "it goes on if P2 comes back, or claim the win") {
		t.Fatalf("after the drop time: may claim %v, pause %q", tb.CanClaim, tb.Pause)
	}
	stalled := false
	for _, s := range tb.Stalls {
		if s.Seat == other {
			stalled = true
			if s.Droppable || s.CanDrop || s.For < dropAfter {
				t.Fatalf("the absent player's stall: %+v (a table of two cannot vote them out)", s)
			}
		}
	}
	if !stalled {
		t.Fatalf("no stall for the absent seat %d: %+v", other, tb.Stalls)
	}
	if w := table(false); w.Pause == "" || w.CanClaim {
		t.Fatalf("a watcher's screen: pause %q, may claim %v", w.Pause, w.CanClaim)
	}
	if err := a.Claim(); err != nil {
		t.Fatal(err)
	}
	run()
	tb = table(true)
	if tb.Phase != "over" || tb.Result == nil || len(tb.Result.Winners) != 1 || tb.Result.Winners[0] != tb.You || !strings.Contains(tb.Result.Reason, "P1 claimed the win") {
		t.Fatalf("after the claim: phase %q, result %+v (you are seat %d)", tb.Phase, tb.Result, tb.You)
	}
	if tb.Pause != "" || tb.CanClaim {
		t.Fatalf("the game is over but the model still says %q, may claim %v", tb.Pause, tb.CanClaim)
	}
}

// TestStallSaysWhyItIsHeld: a wait the node reports as held keeps its
// reason in the model's stall (and its JSON), the seat counted from 1; a
// plain wait has none.
func TestStallSaysWhyItIsHeld(t *testing.T) {
	var members []lockstep.Member
	for i := range 3 {
		id, _ := crypto.GenerateIdentity(bytes.NewReader(bytes.Repeat([]byte{byte(i + 1)}, 32)))
		members = append(members, lockstep.Member{ID: id.ID(), Name: []string{"Al", "Bo", "Cy"}[i]})
	}
	why := "held: waiting for Cy (seat 3) to answer the card catch-up after restart"
	st := lockstep.Status{Phase: lockstep.PhasePlaying, Members: members, Seats: []int{0, 1, 2}, MySeat: 0, Dropped: make([]bool, 3),
		Actor: engine.Actor{Kind: engine.ActorCards}, Mode: "secret table",
		Waiting: []lockstep.Wait{
			{Peer: members[1].ID, Name: "Bo", Seat: 1, What: "its decryption shares for batch 3", For: 6000},
			{Peer: members[2].ID, Name: "Cy", Seat: 2, What: "an answer to the card catch-up", For: 6000, Why: why}}}
	tb := Build(NewRecorder(games.Lookup), st, nil, Env{Human: true, Self: members[0].ID.String()})
	if len(tb.Stalls) != 2 || tb.Stalls[0].Why != "" || tb.Stalls[1].Seat != 3 || tb.Stalls[1].Why != why {
		t.Fatalf("the stalls are %+v", tb.Stalls)
	}
	b, err := json.Marshal(tb.Stalls)
	if err != nil || !strings.Contains(string(b), `"why":"`+why+`"`) || strings.Count(string(b), `"why"`) != 1 {
		t.Fatalf("the stalls' JSON: %s (%v)", b, err)
	}
	if !strings.Contains(tb.Status, "waiting for Cy (an answer to the card catch-up, 6 s)") {
		t.Fatalf("the status line does not name the held wait: %q", tb.Status)
	}
}
