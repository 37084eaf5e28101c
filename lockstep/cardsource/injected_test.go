package cardsource_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/boardmesh/boardmesh/crypto"
	"github.com/boardmesh/boardmesh/engine"
	"github.com/boardmesh/boardmesh/engine/games"
	"github.com/boardmesh/boardmesh/lockstep"
	"github.com/boardmesh/boardmesh/p2p"
)

// shufflePoint is a step of an honest seeded game at which a peer with a
// buggy engine (p2p.InjectDesync) makes the card layers disagree before
// any state hash is compared: the engine step right before a reshuffle
// (a new shuffle chain over a discard pile the wrong step changed), the
// step that reshuffles itself, or the step right before a private draw
// or peek (a batch of shares for cards the buggy peer's state names
// otherwise).
type shufflePoint struct {
	step   int    // the step's index in the game (Steps[step])
	entry  int    // the log index of its entry
	engine uint64 // its index among the engine's own steps: InjectDesync's seq
	why    string
}

// shufflePoints scans the honest game log for its shuffle points, in
// order, by kind: the engine steps (action or bot moves with another
// legal move, so that InjectDesync may go wrong there) right before a
// step that makes a new deck, those that make one themselves, and those
// right before a wait for cards that opens one to a seat only.
func shufflePoints(t *testing.T, log []*crypto.Envelope) map[string][]shufflePoint {
	t.Helper()
	type stepSeen struct {
		kind        string
		entry       int
		engine      uint64
		choices     int  // legal moves before an action step
		reshuffles  bool // the step makes a new deck
		privateDraw bool // a wait for cards that opens one to a seat only
	}
	var steps []stepSeen
	var n uint64
	v := lockstep.NewVerifier(games.Lookup)
	v.OnStep(func(prev, next engine.State, s lockstep.ReplayStep, _ engine.Action) {
		x := stepSeen{kind: s.Kind, entry: s.Entry, engine: n}
		pc, nc := prev.(engine.CardState), next.(engine.CardState)
		x.reshuffles = nc.Cards().NumDecks() > pc.Cards().NumDecks()
		switch s.Kind {
		case "action", "bot":
			x.choices = len(prev.Legal(nil))
			n++
		case "chance":
			n++
		case "cards":
			for _, o := range pc.Openings(nil) {
				x.privateDraw = x.privateDraw || o.To != engine.Public
			}
		}
		steps = append(steps, x)
	})
	for i, env := range log {
		if err := v.Feed(env); err != nil {
			t.Fatalf("the honest log does not verify at entry %d: %v", i, err)
		}
	}
	// before is the engine step right before step j (the wait's own
	// action, if j is a wait).
	before := func(j int) int {
		for k := j - 1; k >= 0; k-- {
			if steps[k].kind != "cards" {
				return k
			}
		}
		return -1
	}
	out := map[string][]shufflePoint{}
	add := func(j int, why string) {
		if j < 0 || steps[j].choices < 2 {
			return
		}
		for _, p := range out[why] {
			if p.step == j {
				return
			}
		}
		out[why] = append(out[why], shufflePoint{step: j, entry: steps[j].entry, engine: steps[j].engine, why: why})
	}
	for j := range steps {
		if steps[j].reshuffles {
			add(before(j), kindBefore)
			add(j, kindAt)
		}
		if steps[j].privateDraw && steps[j].kind == "cards" {
			add(before(j), kindPrivate)
		}
	}
	return out
}

// The kinds of shuffle points.
const (
	kindBefore  = "right before a reshuffle"
	kindAt      = "the step that reshuffles"
	kindPrivate = "right before a private draw"
)

// TestInjectedDesyncBeforeShuffles is the desync story of a secret table
// where the card layers disagree first: a peer whose engine applies one
// wrong step right before a reshuffle (Dominion's discard pile shuffled
// into a new deck), or a private draw or peek (Infinite City, The
// Sleeping Dragon's Lair), asks for a shuffle chain over other cards, or
// for shares of other cards, than the honest peers, before any action's
// state hash is compared. The steps are chosen from an honest game with
// the same seeds, so they stay right before its shuffles as the games
// change. What the developer checks, for each:
//   - every honest peer reports the desync, naming the buggy peer and
//     the wrong step as the first divergent entry, with the fields that
//     differ (the same report an open table gives);
//   - no honest peer calls anything a cheat: neither the buggy peer's
//     shuffle of its own pile nor an honest peer's shuffle, which the
//     buggy peer's layer cannot check against its state;
//   - the table never stands still without those reports.
func TestInjectedDesyncBeforeShuffles(t *testing.T) {
	t.Parallel() // its own simulated clock and disks: it runs beside the others
	// need says, per game, the kinds of point that must be shown: each
	// list at least once by a point at which the buggy engine does go
	// wrong. InjectDesync goes wrong later than the step asked where no
	// other move there changes the state usably (same actor, same turn,
	// game not over); the test then tries the next point, and the next
	// seed's game, and counts where the engine did go wrong. The Sleeping
	// Dragon's Lair reshuffles only when its deck runs out, near the end,
	// where no such move is left in these games: its reshuffle points are
	// run and checked, but only its private looks must be shown.
	need := map[string][][]string{
		"dominion":     {{kindBefore}, {kindAt}, {kindPrivate}},
		"infinitecity": {{kindPrivate}},
		"dragonslair":  {{kindPrivate}},
		"serpentcity":  {{kindPrivate}},
	}
	const seeds, tries = 6, 4 // games per game, points tried per kind and game
	for _, g := range hiddenCardGames(t, 3) {
		t.Run(g.Name, func(t *testing.T) {
			shown := map[string]bool{}
			met := func() bool {
				for _, kinds := range need[g.Name] {
					ok := false
					for _, k := range kinds {
						ok = ok || shown[k]
					}
					if !ok {
						return false
					}
				}
				return true
			}
			tried := 0
			for k := 0; k < seeds && (tried == 0 || !met()); k++ {
				// (Short: the harness takes 32 bytes of "<seed> cards <i>".)
				seed := fmt.Sprintf("sd %s %d", g.Name, k)
				honest := newNodeTableOf(t, g, 3, seed, false)
				honest.play()
				points := shufflePoints(t, honest.entries[0])
				for _, why := range []string{kindBefore, kindAt, kindPrivate} {
					for i, p := range points[why] {
						if i >= tries || shown[why] {
							break
						}
						tried++
						t.Run(fmt.Sprintf("seed %d step %d %s", k, p.step, p.why), func(t *testing.T) {
							// Where it went wrong may be a point of
							// another kind, or of this one further on.
							w := injectedBeforeShuffle(t, g, seed, honest, p)
							for kind, ps := range points {
								for _, q := range ps {
									shown[kind] = shown[kind] || q.step == w
								}
							}
						})
					}
				}
			}
			if tried == 0 {
				t.Fatal("no game had a step right before a shuffle or a private draw: the test shows nothing")
			}
			if !met() {
				t.Fatalf("the buggy engine went wrong right at none of the points of some kind the game needs shown (%v); shown: %v", need[g.Name], shown)
			}
		})
	}
}

// injectedBeforeShuffle plays the game of seed again with peer 3's
// engine going wrong at p, checks the honest peers' reports, and returns
// the step at which the buggy engine went wrong: p's, or a later one
// where p's had no usable wrong move (-1: none had).
func injectedBeforeShuffle(t *testing.T, g *engine.Game, seed string, honest *nodeTable, p shufflePoint) int {
	honestLog := honest.entries[0]
	const bad = 2
	buggy := p2p.InjectDesync(g, p.engine)
	nt := newNodeGameTable(t, g, 3, seed, false, func(i int, c *lockstep.Config) {
		if i == bad {
			c.Games = func(name string) (*engine.Game, error) {
				if name != g.Name {
					return nil, fmt.Errorf("unknown game %q", name)
				}
				return buggy, nil
			}
		}
	})
	nt.cheatsOK = true
	// Where the buggy engine went wrong: the first step after which its
	// state is not the honest game's.
	wrong := func() int {
		hb, hh := nt.nodes[bad].Hashes(), honest.nodes[0].Hashes()
		for k := 1; k < len(hb) && k < len(hh); k++ {
			if hb[k] != hh[k] {
				return k - 1
			}
		}
		return -1
	}
	reported := func() bool {
		for i := 0; i < bad; i++ {
			if len(nt.nodes[i].Reports()) == 0 {
				return false
			}
		}
		return true
	}
	// The bots play as in play (the same random stream), so the game is
	// the honest one up to the wrong step.
	r := engine.NewRand([]byte("bots"))
	idle := 0
	for steps := 0; steps < 5000 && !reported(); steps++ {
		busy := nt.run()
		for tick := 0; !busy && tick < 20; tick++ {
			nt.now += 1000
			for _, node := range nt.nodes {
				node.Tick(nt.now)
			}
			busy = nt.run()
		}
		for i, node := range nt.nodes {
			if node.CanAct() {
				st := node.State()
				var bot engine.Bot = engine.RandomBot{}
				if err := node.Act(bot.Choose(st, st.Legal(nil), r)); err != nil && i != bad {
					t.Fatalf("peer %d: %v", i+1, err)
				}
				busy = true
			}
		}
		if !busy {
			if idle++; idle > 30 {
				break
			}
		}
	}
	for i := 0; i < bad; i++ {
		// Up to the wrong step's entry the game is the honest one (the
		// seeds replay it), so the step is still right before the shuffle.
		for k := 0; k < p.entry; k++ {
			if k >= len(nt.entries[i]) || !bytes.Equal(nt.entries[i][k].Marshal(), honestLog[k].Marshal()) {
				t.Fatalf("peer %d's entry %d is not the honest game's, before the wrong step's entry %d: the seeds do not replay the game", i+1, k, p.entry)
			}
		}
	}
	w := wrong()
	if w < 0 {
		t.Logf("the buggy engine never went wrong: no step from step %d on had another usable move", p.step)
		return -1
	}
	id := nt.nodes[bad].ID()
	seat := nt.nodes[bad].Status().MySeat + 1
	for i := 0; i < bad; i++ {
		for _, ev := range nt.events[i] {
			if ev.Kind == lockstep.EventCheat || ev.Kind == lockstep.EventEquivocation {
				t.Errorf("honest peer %d calls a cheat: %s", i+1, ev.Text)
			}
			if ev.Kind == lockstep.EventDesync && (ev.Peer != id || ev.Seat != seat) {
				t.Errorf("honest peer %d's desync names seat %d, not the buggy peer (seat %d): %s", i+1, ev.Seat, seat, ev.Text)
			}
		}
	}
	if t.Failed() {
		t.FailNow()
	}
	for i := 0; i < bad; i++ {
		node := nt.nodes[i]
		reps := node.Reports()
		if len(reps) == 0 {
			t.Fatalf("honest peer %d reports no desync: the table stands still at step %d (%v); events:\n%s",
				i+1, node.Status().Seq, node.Waiting(), nt.eventLines())
		}
		rep := reps[0]
		if rep.Peer != id || rep.Mine == rep.Theirs || len(rep.Diff) == 0 {
			t.Fatalf("honest peer %d's report does not name the buggy peer or a differing field:\n%s", i+1, rep)
		}
		if rep.Entry != uint64(w) {
			t.Fatalf("honest peer %d's report names step %d as the first divergent entry, the buggy engine went wrong at step %d:\n%s", i+1, rep.Entry, w, rep)
		}
		mine, err1 := engine.DecodeState(g, rep.MyState)
		theirs, err2 := engine.DecodeState(g, rep.TheirState)
		if err1 != nil || err2 != nil {
			t.Fatalf("honest peer %d's report: states do not decode: %v, %v", i+1, err1, err2)
		}
		if crypto.Hash(engine.Hash(mine)) != node.Hashes()[rep.Seq] || crypto.Hash(engine.Hash(theirs)) != rep.Evidence.StateHash {
			t.Fatalf("honest peer %d's report holds states of other steps than step %d:\n%s", i+1, rep.Seq, rep)
		}
		if want := engine.Diff(mine, theirs); fmt.Sprint(want) != fmt.Sprint(rep.Diff) {
			t.Fatalf("honest peer %d's report names fields %v; the states differ in %v", i+1, rep.Diff, want)
		}
	}
	if w != p.step {
		t.Logf("the buggy engine went wrong at step %d, not at step %d (no other move there changes the state usably)", w, p.step)
	}
	t.Logf("%s", nt.nodes[0].Reports()[0])
	return w
}

// eventLines is what the peers were told, but for turns and joins.
func (nt *nodeTable) eventLines() string {
	out := ""
	for i, evs := range nt.events {
		for _, ev := range evs {
			if ev.Kind != lockstep.EventTurn && ev.Kind != lockstep.EventJoined {
				out += fmt.Sprintf("  peer %d: %s\n", i+1, ev)
			}
		}
	}
	return out
}
