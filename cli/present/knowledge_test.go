package present

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/boardmesh/boardmesh/crypto"
	"github.com/boardmesh/boardmesh/engine"
	"github.com/boardmesh/boardmesh/engine/games"
	"github.com/boardmesh/boardmesh/lockstep"
	"github.com/boardmesh/boardmesh/lockstep/cardsource"
)

// TestSecretHistoryNamesYourOwnCards: at a secret Dominion table the
// history tells each player its own new hands, as an open table does,
// once its recorder is given the peer's knowledge (as the table view does
// with every update), although the peer reads its private openings only
// after the steps that drew them commit. It names no card of the other
// seat's hand, and the lines stay in log order. Without the knowledge,
// not one of its own hands is named.
func TestSecretHistoryNamesYourOwnCards(t *testing.T) {
	for _, withKnowledge := range []bool{true, false} {
		hist, mySeat, turns := secretDominionHistory(t, withKnowledge)
		var hands, lines []string
		for _, e := range hist {
			lines = append(lines, e.Text+" — "+e.Outcome)
			if strings.Contains(e.Outcome, "your new hand: ") {
				hands = append(hands, e.Outcome)
			}
			if strings.Contains(e.Outcome, fmt.Sprintf("seat %d drew", mySeat+1)) {
				t.Fatalf("the viewer's own draw is told as another seat's: %q", e.Outcome)
			}
		}
		if !withKnowledge {
			if len(hands) != 0 {
				t.Fatalf("without the peer's knowledge the history named its hand: %q", hands)
			}
			continue
		}
		// A hand at the first deal and one after each turn the viewer
		// ended (the last one may still be on its way).
		if len(hands) < turns {
			t.Fatalf("%d of the viewer's hands named after %d of its turns:\n%s", len(hands), turns, strings.Join(lines, "\n"))
		}
		for _, h := range hands {
			n := 0
			for _, part := range strings.Split(strings.SplitN(h, "your new hand: ", 2)[1], ", ") {
				part = strings.SplitN(part, ";", 2)[0]
				k := 1
				if i := strings.Index(part, "×"); i > 0 {
					fmt.Sscanf(part[:i], "%d", &k)
				}
				n += k
			}
			if n != 5 {
				t.Fatalf("a new hand of %d cards: %q", n, h)
			}
		}
		for i := 1; i < len(hist); i++ {
			if hist[i].Seq < hist[i-1].Seq {
				t.Fatalf("history out of order at line %d: %d after %d", i, hist[i].Seq, hist[i-1].Seq)
			}
		}
	}
}

// secretDominionHistory is secretHistory's Dominion, the knowledge one
// update late.
func secretDominionHistory(t *testing.T, withKnowledge bool) ([]Entry, int, int) {
	return secretHistory(t, "dominion", withKnowledge, 1)
}

// secretHistory plays a secret two-seat game of random bots for a few
// turns and returns the first peer's history, its seat and how many
// turns it ended. Its recorder gets the peer's knowledge of its cards
// knowLag updates late (none if !withKnowledge).
func secretHistory(t *testing.T, game string, withKnowledge bool, knowLag int) ([]Entry, int, int) {
	t.Helper()
	var peers []*lockstep.Node
	for i := range 2 {
		id, _ := crypto.GenerateIdentity(bytes.NewReader(bytes.Repeat([]byte{byte(i + 1)}, 32)))
		var k [32]byte
		copy(k[:], fmt.Sprintf("history cards %d", i))
		nd, err := lockstep.New(lockstep.Config{Identity: id, Name: fmt.Sprintf("P%d", i+1), Games: games.Lookup,
			Cards: cardsource.Maker(rand.NewChaCha8(k))})
		if err != nil {
			t.Fatal(err)
		}
		peers = append(peers, nd)
	}
	rec := NewRecorder(games.Lookup)
	g, err := games.Lookup(game)
	if err != nil {
		t.Fatal(err)
	}
	lobby := crypto.Hash{12}
	if err := peers[0].Host(lobby, g, nil); err != nil {
		t.Fatal(err)
	}
	if err := peers[1].Join(lobby); err != nil {
		t.Fatal(err)
	}
	viewerSet := false
	var knows []*engine.Knowledge
	run := func() {
		for moved := true; moved; {
			moved = false
			for i, nd := range peers {
				for nd.HasReady() {
					rd := nd.Ready()
					if i == 0 {
						if !viewerSet && nd.Status().MySeat >= 0 && nd.Status().Phase >= lockstep.PhasePlaying {
							rec.SetViewer(nd.Status().MySeat)
							viewerSet = true
						}
						// The state as it is, with the knowledge it had
						// knowLag updates ago: a runner's peer reads a private
						// opening off its loop, after the step that drew the
						// card commits and is reported.
						if st := nd.State(); st != nil {
							cs := st.(engine.CardState)
							if k := cs.Cards().Knowledge(); k != nil {
								knows = append(knows, k.Clone())
							}
							if withKnowledge && len(knows) > 0 {
								k := engine.NewKnowledge(knows[0].Seat) // nothing read yet
								if i := len(knows) - 1 - knowLag; i >= 0 {
									k = knows[i]
								}
								view := st.Clone()
								view.(engine.CardState).Cards().SetKnowledge(k)
								rec.SetKnowledge(view)
							}
						}
						rec.Feed(rd.Entries...)
					}
					for _, env := range rd.Messages {
						_ = peers[1-i].Step(env)
					}
					nd.Advance()
					moved = true
				}
				if !moved && nd.HasWork() {
					moved = nd.Work()
				}
			}
		}
	}
	run()
	if err := peers[0].Propose(); err != nil {
		t.Fatal(err)
	}
	r := engine.NewRand([]byte("history"))
	for steps := 0; peers[0].Status().Phase == lockstep.PhasePlaying || peers[0].Status().Phase < lockstep.PhasePlaying; steps++ {
		if steps > 5000 {
			t.Fatal("the game did not get going")
		}
		run()
		if st := peers[0].State(); st != nil && st.Turn() >= 8 {
			break
		}
		for _, nd := range peers {
			if nd.CanAct() {
				st := nd.State()
				if err := nd.Act(engine.RandomBot{}.Choose(st, st.Legal(nil), r)); err != nil {
					t.Fatal(err)
				}
			}
		}
	}
	if !peers[0].Secret() {
		t.Fatal("the table is not secret")
	}
	if withKnowledge {
		rec.SetKnowledge(peers[0].State().Clone())
	}
	// Turns alternate from the seat that begins, seat 0 of the draw.
	me, ended := peers[0].Status().MySeat, 0
	for turn := 0; turn < peers[0].State().Turn(); turn++ {
		if turn%2 == me {
			ended++
		}
	}
	return rec.History(), me, ended
}

// TestSecretHistoryWaitsForTheFirstHand: at the start of a secret game a
// peer reads its first hand behind the setup's proofs, a dozen updates
// after the deal is committed (as measured at a four-seat Infinite City
// table), and the deal is still told with the tiles the viewer drew.
func TestSecretHistoryWaitsForTheFirstHand(t *testing.T) {
	hist, _, _ := secretHistory(t, "infinitecity", true, 16)
	for _, e := range hist {
		if e.Kind == "chance" || e.Kind == "action" {
			told := e.Text + "; " + e.Outcome
			i := strings.Index(told, "you drew ")
			if i < 0 || len(strings.Split(strings.SplitN(told[i+len("you drew "):], ";", 2)[0], ", ")) != 5 {
				t.Fatalf("the first deal is told as %q — %q, without the viewer's five tiles", e.Text, e.Outcome)
			}
			return
		}
	}
	t.Fatal("no step in the history")
}
