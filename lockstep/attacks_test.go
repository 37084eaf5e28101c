package lockstep

import (
	"errors"
	"strings"
	"testing"

	"github.com/boardmesh/boardmesh/crypto"
	"github.com/boardmesh/boardmesh/engine"
)

// startDice runs a dice-race lobby on a clean network until every peer
// waits for the first action; nobody has a bot.
func startDice(t *testing.T, seed string, players int, cfg Config) *simNet {
	t.Helper()
	n := newSimNet(t, seed, players, faults{maxDelay: 1}, testGames, cfg)
	n.lobby(diceGame, nil)
	ok := n.run(10000, func() bool {
		for _, p := range n.peers {
			st := p.node.Status()
			if st.Phase != PhasePlaying || st.Actor.Kind != engine.ActorSeat || !n.quiet() {
				return false
			}
		}
		return true
	})
	if !ok {
		t.Fatalf("game did not reach the first action: %+v", n.peers[0].node.Status())
	}
	return n
}

// quiet reports whether nothing is in flight.
func (n *simNet) quiet() bool { return len(n.flight) == 0 }

// actor returns the index of the peer whose seat is to act, and its seat.
func (n *simNet) actor() (int, int) {
	st := n.peers[0].node.Status()
	for i, p := range n.peers {
		if p.node.mySeat() == st.Actor.Seat {
			return i, st.Actor.Seat
		}
	}
	n.t.Fatal("no actor")
	return -1, -1
}

// others lists every peer but skip, in order.
func (n *simNet) others(skip int) []int {
	var out []int
	for i := range n.peers {
		if i != skip {
			out = append(out, i)
		}
	}
	return out
}

// noAccusations fails the test if any of peers raised a cheat or an
// equivocation.
func (n *simNet) noAccusations(peers ...int) {
	n.t.Helper()
	for _, i := range peers {
		for _, ev := range n.peers[i].events {
			if ev.Kind == EventCheat || ev.Kind == EventEquivocation {
				n.t.Fatalf("%s accused a peer: %s", n.peers[i].name, ev.Text)
			}
		}
	}
}

// signAs signs an envelope as peer i, outside its node (an attacker).
func (n *simNet) signAs(i int, env *crypto.Envelope) *crypto.Envelope {
	crypto.Sign(n.peers[i].id, env)
	return env
}

// legalAction is a legal action of the current state.
func legalAction(n *simNet) engine.Action { return n.peers[0].node.State().Legal(nil)[0] }

// expectRejected steps env into peer i and checks that it is refused with
// want, that an event names it, and that nothing was committed.
func expectRejected(t *testing.T, n *simNet, i int, env *crypto.Envelope, want error) {
	t.Helper()
	p := n.peers[i]
	before := len(p.node.Log())
	hashBefore := p.node.Hashes()[len(p.node.Hashes())-1]
	counted := p.node.Status().Counters.Rejected
	err := p.node.Step(env)
	n.drain(i)
	if !errors.Is(err, want) {
		t.Fatalf("Step returned %v, want %v", err, want)
	}
	if len(p.node.Log()) != before || p.node.Hashes()[len(p.node.Hashes())-1] != hashBefore {
		t.Fatalf("something was committed from a rejected envelope")
	}
	if want == ErrDuplicate || want == ErrStale {
		return
	}
	if p.node.Status().Counters.Rejected != counted+1 {
		t.Fatalf("the rejection was not counted")
	}
	// The event may have been raised by an earlier envelope of the same
	// author, kind and reason at this step: one is shown, all are counted.
	found := false
	for _, ev := range p.events {
		found = found || ((ev.Kind == EventRejected || ev.Kind == EventCheat) && errors.Is(ev.Err, want) && ev.Peer == env.Author)
	}
	if !found {
		t.Fatalf("no rejection event for %v; events: %v", want, p.events)
	}
}

func TestRejectsForgedSignature(t *testing.T) {
	n := startDice(t, "forge", 3, Config{})
	a, seat := n.actor()
	_ = seat
	env := n.signAs(a, &crypto.Envelope{Session: n.peers[0].node.Status().Session, Seq: n.peers[0].node.Status().Seq,
		Kind: crypto.KindAction, StateHash: n.peers[0].node.Hashes()[n.peers[0].node.Status().Seq],
		Body: engine.AppendAction(nil, legalAction(n))})
	// Change the move after signing: the signature no longer covers it.
	env.Body = engine.AppendAction(nil, engine.Action{Op: opMoveHalf})
	if string(env.Body) == string(engine.AppendAction(nil, legalAction(n))) {
		env.Body = engine.AppendAction(nil, engine.Action{Op: opMoveAll})
	}
	expectRejected(t, n, (a+1)%3, env, ErrBadSignature)
	// A signature by someone else under the actor's name fails too.
	env2 := &crypto.Envelope{Session: env.Session, Seq: env.Seq, Kind: crypto.KindAction, StateHash: env.StateHash, Body: env.Body}
	crypto.Sign(n.peers[(a+2)%3].id, env2)
	env2.Author = n.peers[a].id.ID()
	expectRejected(t, n, (a+1)%3, env2, ErrBadSignature)
}

func TestRejectsOtherSession(t *testing.T) {
	n := startDice(t, "session", 3, Config{})
	a, _ := n.actor()
	st := n.peers[0].node.Status()
	other := st.Session
	other[0] ^= 1
	env := n.signAs(a, &crypto.Envelope{Session: other, Seq: st.Seq, Kind: crypto.KindAction,
		StateHash: n.peers[0].node.Hashes()[st.Seq], Body: engine.AppendAction(nil, legalAction(n))})
	expectRejected(t, n, (a+1)%3, env, ErrWrongSession)
	// Envelopes of another table (another lobby and session) are refused
	// by a peer of this one, lobby entries included.
	m := startDice(t, "session-b", 3, Config{})
	for _, old := range []*crypto.Envelope{m.peers[0].node.Log()[0], m.peers[0].node.Log()[len(m.peers[0].node.Log())-1]} {
		wire, _ := crypto.Unmarshal(old.Marshal())
		expectRejected(t, n, 1, wire, ErrWrongSession)
	}
}

func TestRejectsReplayedEnvelope(t *testing.T) {
	n := startDice(t, "replay", 3, Config{})
	log := n.peers[1].node.Log()
	for _, old := range []*crypto.Envelope{log[0], log[len(log)/2], log[len(log)-1]} {
		wire, _ := crypto.Unmarshal(old.Marshal())
		expectRejected(t, n, 1, wire, ErrDuplicate)
	}
	// A peer's old envelope re-sent to a peer that never saw it (it
	// restarted with an empty memory but its log) is recognised as well.
	n.crash(2)
	n.restart(2)
	wire, _ := crypto.Unmarshal(log[len(log)-1].Marshal())
	expectRejected(t, n, 2, wire, ErrDuplicate)
}

func TestRejectsActionOutOfTurn(t *testing.T) {
	n := startDice(t, "turn", 3, Config{})
	a, _ := n.actor()
	other := (a + 1) % 3
	st := n.peers[0].node.Status()
	env := n.signAs(other, &crypto.Envelope{Session: st.Session, Seq: st.Seq, Kind: crypto.KindAction,
		StateHash: n.peers[0].node.Hashes()[st.Seq], Body: engine.AppendAction(nil, legalAction(n))})
	expectRejected(t, n, (a+2)%3, env, ErrNotYourTurn)
}

func TestRejectsIllegalAction(t *testing.T) {
	n := startDice(t, "illegal", 3, Config{})
	a, _ := n.actor()
	st := n.peers[0].node.Status()
	env := n.signAs(a, &crypto.Envelope{Session: st.Session, Seq: st.Seq, Kind: crypto.KindAction,
		StateHash: n.peers[0].node.Hashes()[st.Seq], Body: engine.AppendAction(nil, engine.Action{Op: opEnd})})
	expectRejected(t, n, (a+1)%3, env, ErrIllegal)
}

func TestRejectsWrongPreStateHash(t *testing.T) {
	n := startDice(t, "hash", 3, Config{})
	a, _ := n.actor()
	st := n.peers[0].node.Status()
	env := n.signAs(a, &crypto.Envelope{Session: st.Session, Seq: st.Seq, Kind: crypto.KindAction,
		StateHash: crypto.Hash{1, 2, 3}, Body: engine.AppendAction(nil, legalAction(n))})
	expectRejected(t, n, (a+1)%3, env, ErrStateHash)
}

func TestRejectsBadReveal(t *testing.T) {
	n := newSimNet(t, "reveal", 3, faults{maxDelay: 1}, testGames, Config{})
	cheat := 2
	n.peers[cheat].hook = func(env *crypto.Envelope) []*crypto.Envelope {
		if env.Kind != crypto.KindReveal {
			return []*crypto.Envelope{env}
		}
		bad := *env
		bad.Body = encodeHashBody(crypto.Hash{0xba, 0xd})
		return []*crypto.Envelope{n.signAs(cheat, &bad)}
	}
	n.lobby(diceGame, nil)
	n.run(2000, func() bool { return false })
	for i := 0; i < 2; i++ {
		p := n.peers[i]
		found := false
		for _, ev := range p.events {
			found = found || (ev.Kind == EventCheat && ev.Cheat == CheatBadReveal && errors.Is(ev.Err, ErrBadReveal) && ev.Peer == n.peers[cheat].id.ID())
		}
		if !found {
			t.Fatalf("%s did not reject the bad reveal", p.name)
		}
		for _, env := range p.node.Log() {
			if env.Kind == crypto.KindReveal && env.Author == n.peers[cheat].id.ID() {
				t.Fatalf("%s committed a reveal of the cheater", p.name)
			}
		}
		// Past the seat draw only at a table without the cheater: after the
		// lobby's time-out the host proposes the table again without the
		// member whose good reveal it lacks (lobby.go).
		if st := p.node.Status(); st.Phase != PhaseSeats {
			for _, m := range st.Members {
				if m.ID == n.peers[cheat].id.ID() {
					t.Fatalf("%s got past the seat draw without the cheater's reveal: %v", p.name, st.Phase)
				}
			}
		}
	}
}

func TestWithheldRevealStallsThenDrops(t *testing.T) {
	cfg := Config{StallAfter: 2000, DropAfter: 6000}
	n := newSimNet(t, "withhold", 3, faults{maxDelay: 20}, testGames, cfg)
	n.setBots(diceGame)
	cheat := 1
	rounds := 0
	n.peers[cheat].hook = func(env *crypto.Envelope) []*crypto.Envelope {
		if env.Kind == crypto.KindReveal && env.Seq >= 3 {
			rounds++
			return nil // withhold from round 3 on
		}
		return []*crypto.Envelope{env}
	}
	n.lobby(diceGame, nil)
	honest := []int{0, 2}
	if !n.run(400000, n.allOver(honest...)) {
		t.Fatalf("honest peers did not finish: %+v", n.peers[0].node.Status())
	}
	cheatName := n.peers[cheat].name
	for _, i := range honest {
		var waited, dropped bool
		for _, ev := range n.peers[i].events {
			if ev.Kind == EventWaiting && strings.Contains(ev.Text, "waiting for "+cheatName+" (a reveal, ") {
				waited = true
			}
			if ev.Kind == EventDropped && len(ev.Seats) == 1 && ev.Seats[0] == n.peers[cheat].node.mySeat() {
				dropped = true
			}
		}
		if !waited || !dropped {
			t.Fatalf("%s: waited=%v dropped=%v; events %v", n.peers[i].name, waited, dropped, n.peers[i].events)
		}
	}
	r := n.checkAgree(honest...)
	if !r.Dropped[n.peers[cheat].node.mySeat()] {
		t.Fatalf("the verified log does not show the drop")
	}
}

func TestEquivocationProof(t *testing.T) {
	n := startDice(t, "equiv", 3, Config{})
	a, _ := n.actor()
	st := n.peers[0].node.Status()
	legal := n.peers[0].node.State().Legal(nil)
	mk := func(act engine.Action) *crypto.Envelope {
		return n.signAs(a, &crypto.Envelope{Session: st.Session, Seq: st.Seq, Kind: crypto.KindAction,
			StateHash: n.peers[0].node.Hashes()[st.Seq], Body: engine.AppendAction(nil, act)})
	}
	x, y := mk(legal[0]), mk(legal[1])
	victim, third := (a+1)%3, (a+2)%3
	if err := n.peers[victim].node.Step(x); err != nil {
		t.Fatal(err)
	}
	n.drain(victim)
	err := n.peers[victim].node.Step(y)
	n.drain(victim)
	if !errors.Is(err, ErrEquivocation) {
		t.Fatalf("second envelope for one slot: %v", err)
	}
	var proof *crypto.Envelope
	for _, ev := range n.peers[victim].events {
		if ev.Kind == EventEquivocation {
			proof = ev.Evidence
		}
	}
	if proof == nil {
		t.Fatal("no equivocation event")
	}
	// Any third party verifies the proof with nothing but the proof.
	cheat, err := CheckEvidence(proof)
	if err != nil || cheat != n.peers[a].id.ID() {
		t.Fatalf("CheckEvidence = %v, %v", cheat, err)
	}
	// The third peer receives the broadcast proof and stops as well.
	n.run(100, func() bool { return false })
	found := false
	for _, ev := range n.peers[third].events {
		found = found || (ev.Kind == EventEquivocation && ev.Peer == n.peers[a].id.ID())
	}
	if !found || n.peers[third].node.Status().Phase != PhaseStopped {
		t.Fatalf("third peer did not take the proof")
	}
	// The victim's log ends with the evidence and verifies, naming the cheater.
	r, err := Verify(n.peers[victim].node.Log(), testGames)
	if err != nil || r.Cheater != n.peers[a].id.ID() || r.Phase != PhaseStopped {
		t.Fatalf("Verify: %v, cheater %v", err, r.Cheater)
	}
	// A forged "proof" (the same envelope twice, or two slots) is refused.
	if _, err := CheckEvidence(&crypto.Envelope{Kind: crypto.KindEvidence, Body: encodeEvidence(x, x)}); err == nil {
		t.Fatal("evidence of one envelope accepted")
	}
	z := mk(legal[0])
	z.Seq++
	crypto.Sign(n.peers[a].id, z)
	if _, err := CheckEvidence(&crypto.Envelope{Kind: crypto.KindEvidence, Body: encodeEvidence(x, z)}); err == nil {
		t.Fatal("evidence of two slots accepted")
	}
}

// glitchGames is the dice race whose Apply corrupts the state at the
// given apply: one peer with a bug.
func glitchGames(at int) func(string) (*engine.Game, error) {
	g := *diceGame
	g.New = func(players int, opts engine.Options) (engine.State, error) {
		s, err := diceGame.New(players, opts)
		if err == nil {
			s.(*diceRace).glitch = at
		}
		return s, err
	}
	return func(name string) (*engine.Game, error) {
		if name == g.Name {
			return &g, nil
		}
		return testGames(name)
	}
}

func TestDesyncReport(t *testing.T) {
	n := newSimNet(t, "desync", 3, faults{maxDelay: 5}, testGames, Config{})
	const glitchAt = 3
	bad := 2
	n.peers[bad].games = glitchGames(glitchAt)
	n.peers[bad].cfg.Games = n.peers[bad].games
	node, err := New(n.peers[bad].cfg)
	if err != nil {
		t.Fatal(err)
	}
	n.peers[bad].node = node
	n.setBots(diceGame)
	n.lobby(diceGame, nil)
	var rep *DesyncReport
	n.run(20000, func() bool {
		for _, ev := range n.peers[0].events {
			if ev.Kind == EventDesync {
				rep = ev.Desync
			}
		}
		return rep != nil
	})
	if rep == nil {
		t.Fatalf("no desync report on an honest peer; events %v", n.peers[0].events)
	}
	// The corrupted field is named, with both values.
	var posDiff bool
	for _, d := range rep.Diff {
		posDiff = posDiff || strings.HasPrefix(d.Path, "pos")
	}
	if !posDiff || rep.Peer != n.peers[bad].id.ID() || rep.Mine == rep.Theirs {
		t.Fatalf("report does not name the corrupted field or peer: %s", rep)
	}
	// The first divergent entry is the glitch's action: the third action
	// applied in the game.
	r, err := Verify(n.peers[0].node.Log(), testGames)
	if err != nil {
		t.Fatal(err)
	}
	actions := 0
	want := -1
	for s, st := range r.Steps {
		if st.Kind == "action" {
			actions++
			if actions == glitchAt {
				want = s
			}
		}
	}
	if int(rep.Entry) != want || rep.EntryAuthor != r.Steps[want].Author {
		t.Fatalf("report names entry %d by %v, want step %d by %v\n%s", rep.Entry, rep.EntryAuthor, want, r.Steps[want].Author, rep)
	}
	// The honest peer's log file is the desync bundle: replaying it
	// explains the other peer's state from the log alone.
	n.drain(0)
	lf, err := ParseLog(n.peers[0].disk)
	if err != nil || len(lf.States) == 0 {
		t.Fatalf("no state record kept on disk: %v", err)
	}
	again, err := ExplainDesync(lf.Entries, testGames, lf.States[0])
	if err != nil || again == nil || again.Entry != rep.Entry || again.EntryAuthor != rep.EntryAuthor || len(again.Diff) == 0 {
		t.Fatalf("ExplainDesync: %v, %v (live report %s)", again, err, rep)
	}
}
