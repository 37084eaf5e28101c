package dominion

import (
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/boardmesh/boardmesh/engine"
)

// visibleNames is every card name seat's view shows outside the Supply:
// its hand, what is in play, the trash, the cards aside it may see, the
// known top of its deck.
func visibleNames(v *View) map[string]bool {
	known := map[string]bool{}
	for _, z := range [][]CardCount{v.Hand, v.InPlay, v.Trash} {
		for _, c := range z {
			known[c.Card] = true
		}
	}
	for _, c := range v.Aside {
		known[c] = true
	}
	for _, p := range v.Players {
		for _, c := range p.KnownTop {
			known[c] = true
		}
	}
	return known
}

var cardWord = func() *regexp.Regexp {
	var names []string
	for c := 0; c < NumCards; c++ {
		names = append(names, regexp.QuoteMeta(cards[c].name))
	}
	return regexp.MustCompile(`\b(` + strings.Join(names, "|") + `)\b`)
}()

// TestNoSeatLearnsHiddenCards plays whole bot games with the Kingdoms of
// the leaks reported (Sentry, Artisan, Harbinger, Library, with Militia,
// Bureaucrat, Cellar and Moat) and random ones; at every step, for every
// seat and a spectator, the line its history shows and the prompt its
// screen shows may name only cards that seat can see: in its own view
// outside the Supply (before or after the step), or a Supply pile that
// changed in the step (a gain is public). Moat and a Bureaucrat's Victory
// card are revealed by the rules when the line says so.
func TestNoSeatLearnsHiddenCards(t *testing.T) {
	kingdoms := []engine.Options{
		{{Name: optKingdom, Value: "Sentry+Artisan+Harbinger+Library+Militia+Bureaucrat+Cellar+Moat+Vassal+Village"}},
		{{Name: optKingdom, Value: "Sentry+Artisan+Harbinger+Library+Chapel+Throne Room+Mine+Remodel+Poacher+Bandit"}},
	}
	for range 4 {
		kingdoms = append(kingdoms, kingdoms[0], kingdoms[1])
	}
	for i := range 6 {
		kingdoms = append(kingdoms, randomKingdom(i))
	}
	lines := 0
	// seen counts the private choices met, so the test is known to have
	// met each of the reported leaks.
	seen := map[int]int{}
	for gi, opts := range kingdoms {
		for _, players := range []int{2, 3} {
			st, err := Game.Setup(players, opts)
			if err != nil {
				t.Fatal(err)
			}
			bots := make([]engine.Bot, players)
			for i := range bots {
				// The explorer buys and plays Kingdom cards; one seat plays
				// another bot by turns.
				bots[i] = Game.Bots[len(Game.Bots)-1].New()
				if i == 1 {
					bots[i] = Game.Bots[gi%len(Game.Bots)].New()
				}
			}
			seed := []byte(fmt.Sprintf("privacy-%d-%d", gi, players))
			_, err = engine.PlayOut(st, bots, engine.SeededChance{Seed: seed}, engine.NewRand(seed), 20000, true, func(prev, next engine.State, step engine.Step) {
				p, n := prev.(*State), next.(*State)
				if step.Who.Kind == engine.ActorSeat {
					seen[p.ask]++
				}
				for seat := -1; seat < players; seat++ {
					bv, av := p.View(seat).(*View), n.View(seat).(*View)
					known := visibleNames(bv)
					for c := range visibleNames(av) {
						known[c] = true
					}
					for i, pile := range av.Supply {
						if i >= len(bv.Supply) || pile.Count != bv.Supply[i].Count {
							known[pile.Card] = true
						}
					}
					nar := p.Narrate(next, step.Who, step.Action, seat)
					line := nar.What + " — " + nar.Outcome
					lines++
					for _, name := range cardWord.FindAllString(line, -1) {
						if known[name] || name == "Moat" && strings.Contains(line, "Reveal Moat") ||
							strings.HasPrefix(nar.What, "Reveal "+name) && isVictory(CardByName(name)) ||
							// Bureaucrat: the rules reveal a hand with no Victory card.
							strings.HasPrefix(nar.What, "Reveal their hand, with no Victory card") {
							continue
						}
						t.Fatalf("game %d, %d players: %s is told %q about a step of %v, but cannot see %s", gi, players, who(seat), line, step.Who, name)
					}
					aknown := visibleNames(av)
					for _, name := range cardWord.FindAllString(av.Prompt, -1) {
						if !aknown[name] && !inSupply(av, name) {
							t.Fatalf("%s's screen asks %q naming %s, which it cannot see", who(seat), av.Prompt, name)
						}
					}
					if strings.Contains(av.Prompt, "Library drew") && seat != n.askSeat {
						for _, name := range cardWord.FindAllString(av.Prompt, -1) {
							if name != "Library" && name != "Action" {
								t.Fatalf("%s's screen names the card Library drew for seat %d: %q", who(seat), n.askSeat+1, av.Prompt)
							}
						}
					}
				}
			})
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	if lines < 1000 {
		t.Fatalf("only %d lines checked", lines)
	}
	for _, ask := range []int{askSentry, askArtisanTop, askHarbinger, askLibrary} {
		if seen[ask] == 0 {
			t.Errorf("the games never met the private choice %d; the test proves nothing about it", ask)
		}
	}
}

func who(seat int) string {
	if seat < 0 {
		return "a spectator"
	}
	return fmt.Sprintf("seat %d", seat+1)
}

func inSupply(v *View, name string) bool {
	for _, p := range v.Supply {
		if p.Card == name {
			return true
		}
	}
	return false
}

// TestNarrationOfDraws: the first deal names each seat's own cards to it,
// and only how many the others drew.
func TestNarrationOfDraws(t *testing.T) {
	st, _ := Game.Setup(2, nil)
	prev := st.Clone()
	if err := st.ApplyChance(make([]byte, 32)); err != nil {
		t.Fatal(err)
	}
	mine := prev.(*State).Narrate(st, engine.ChanceActor(), engine.Action{}, 0)
	theirs := prev.(*State).Narrate(st, engine.ChanceActor(), engine.Action{}, 1)
	if !strings.Contains(mine.Outcome, "your new hand: ") || !strings.Contains(mine.Outcome, "seat 2 drew a new hand") {
		t.Fatalf("seat 1 is told %+v about the first deal", mine)
	}
	if !strings.Contains(theirs.Outcome, "seat 1 drew a new hand") || strings.Contains(theirs.Outcome, "seat 2 drew") || strings.Contains(theirs.Outcome, "Copper") && !strings.Contains(theirs.Outcome, "your new hand") {
		t.Fatalf("seat 2 is told %+v about the first deal", theirs)
	}
}

// TestNarrationOfTheCleanUpDraw: a seat that ends its turn with cards
// still in hand discards them and draws a new hand. Its owner is told
// the new hand, every card of it; the others that it drew a new hand,
// not the difference of two hand sizes ("drew 3 cards", which the
// history said before). Clean-up draws the cards, then the beacon tells
// their values: the two steps together tell it.
func TestNarrationOfTheCleanUpDraw(t *testing.T) {
	st, _ := Game.Setup(2, nil)
	if err := st.ApplyChance(make([]byte, 32)); err != nil {
		t.Fatal(err)
	}
	s := st.(*State)
	mover := s.cur
	if err := s.Apply(mover, legalOp(t, s, opAllTreasures)); err != nil {
		t.Fatal(err)
	}
	if s.View(mover).(*View).Players[mover].Hand == 0 {
		t.Fatal("the opening hand was all Treasures; the test needs a card left in hand")
	}
	var told [2][]string
	tell := func(prev engine.State, who engine.Actor, a engine.Action) {
		for seat := range told {
			if o := prev.(*State).Narrate(s, who, a, seat).Outcome; o != "" {
				told[seat] = append(told[seat], o)
			}
		}
	}
	end := legalOp(t, s, opEndTurn)
	prev := s.Clone()
	if err := s.Apply(mover, end); err != nil {
		t.Fatal(err)
	}
	tell(prev, engine.SeatActor(mover), end)
	if s.ToAct().Kind != engine.ActorChance {
		t.Fatalf("after the end of the turn %v acts, want chance (the values of the clean-up draw)", s.ToAct())
	}
	prev = s.Clone()
	if err := s.ApplyChance(bytes.Repeat([]byte{7}, 32)); err != nil {
		t.Fatal(err)
	}
	tell(prev, engine.ChanceActor(), engine.Action{})
	mine, theirs := strings.Join(told[mover], "; "), strings.Join(told[1-mover], "; ")
	want := "your new hand: " + strings.Join(diffCounts(s.View(mover).(*View).Hand, nil), ", ")
	if !strings.Contains(mine, want) || strings.Contains(mine, "you got") {
		t.Errorf("the mover is told %q, want %q", mine, want)
	}
	wantTheirs := fmt.Sprintf("seat %d drew a new hand", mover+1)
	if !strings.Contains(theirs, wantTheirs) || strings.Contains(theirs, "card") {
		t.Errorf("the other seat is told %q, want %q", theirs, wantTheirs)
	}
}

// legalOp is the legal action of s with operation op.
func legalOp(t *testing.T, s *State, op uint16) engine.Action {
	t.Helper()
	for _, a := range s.Legal(nil) {
		if a.Op == op {
			return a
		}
	}
	t.Fatalf("no legal action with op %d in %v", op, s.Legal(nil))
	return engine.Action{}
}

// TestNarrationCountsTheCardsAPlayDrew: Smithy played from the hand
// draws three cards, and the others are told three, not the two more
// cards in hand that the history said before; a Throne Room's Smithy six.
func TestNarrationCountsTheCardsAPlayDrew(t *testing.T) {
	told := func(s *State, a engine.Action) string {
		t.Helper()
		a = resolve(s, a)
		prev := s.Clone().(*State)
		do(t, s, 0, a)
		return prev.Narrate(s, engine.SeatActor(0), a, 1).Outcome
	}
	s := table(t, 2, Smithy)
	give(s, 0, &s.p[0].hand, Smithy, Estate)
	deck(s, 0, Copper, Silver, Gold, Estate)
	if o := told(s, play(Smithy)); !strings.Contains(o, "seat 1 drew 3 cards") {
		t.Errorf("Smithy: seat 2 is told %q, want \"seat 1 drew 3 cards\"", o)
	}
	s = table(t, 2, ThroneRoom, Smithy)
	give(s, 0, &s.p[0].hand, ThroneRoom, Smithy)
	deck(s, 0, Copper, Copper, Copper, Copper, Copper, Copper, Estate)
	do(t, s, 0, play(ThroneRoom))
	if o := told(s, pick(Smithy)); !strings.Contains(o, "seat 1 drew 6 cards") {
		t.Errorf("Throne Room's Smithy: seat 2 is told %q, want \"seat 1 drew 6 cards\"", o)
	}
}

// TestNarrationNamesADrawnCardOfThePlayedKind: Smithy played from the
// hand draws a Smithy; its owner is told that Smithy among the cards it
// got (the list was a difference of counts, and the Smithy drawn made up
// for the one played).
func TestNarrationNamesADrawnCardOfThePlayedKind(t *testing.T) {
	s := table(t, 2, Smithy)
	give(s, 0, &s.p[0].hand, Smithy, Estate)
	deck(s, 0, Smithy, Copper, Copper, Estate)
	a := resolve(s, play(Smithy))
	prev := s.Clone().(*State)
	do(t, s, 0, a)
	o := prev.Narrate(s, engine.SeatActor(0), a, 0).Outcome
	got := ""
	if i := strings.Index(o, "you got "); i >= 0 {
		got = strings.SplitN(o[i+len("you got "):], ";", 2)[0]
	}
	if parts := strings.Split(got, ", "); len(parts) != 2 || !slices.Contains(parts, "Smithy") || !slices.Contains(parts, "2×Copper") {
		t.Fatalf("the owner is told %q, want it got a Smithy and 2×Copper", o)
	}
}

// TestNarrationTellsAReshuffle: a seat whose deck runs out while it draws
// shuffles its discard pile into a new deck; players keep track of when
// that happens, and the history now says it, to everyone, with the pile's
// size, in the step it happens and in no other.
func TestNarrationTellsAReshuffle(t *testing.T) {
	st, _ := Game.Setup(2, nil)
	s := st.(*State)
	told := 0
	for step := 0; step < 40 && told == 0; step++ {
		prev := s.Clone().(*State)
		var who engine.Actor
		var a engine.Action
		switch act := s.ToAct(); act.Kind {
		case engine.ActorChance:
			who = engine.ChanceActor()
			if err := s.ApplyChance(bytes.Repeat([]byte{byte(step)}, 32)); err != nil {
				t.Fatal(err)
			}
		case engine.ActorSeat:
			who, a = act, legalOp(t, s, opEndTurn)
			if err := s.Apply(act.Seat, a); err != nil {
				t.Fatal(err)
			}
		default:
			t.Fatalf("step %d: %v acts", step, act)
		}
		for seat := 0; seat < 2; seat++ {
			out := prev.Narrate(s, who, a, seat).Outcome
			for i := 0; i < 2; i++ {
				n := reshuffledWant(prev, s, i)
				mine := fmt.Sprintf("you shuffled your discard pile (%d cards) into a new deck", n)
				theirs := fmt.Sprintf("seat %d shuffled their discard pile (%d cards) into a new deck", i+1, n)
				want := theirs
				if i == seat {
					want = mine
				}
				if got := strings.Contains(out, want); got != (n > 0) {
					t.Errorf("step %d, seat %d is told %q; seat %d shuffled %d cards", step, seat+1, out, i+1, n)
				}
				if n > 0 {
					told++
				}
			}
		}
	}
	if told == 0 {
		t.Fatal("40 steps of turns without buying and no reshuffle")
	}
}

// reshuffledWant is the discard pile seat i shuffled from prev to next,
// from the piles' sizes: its discard pile went into its deck.
func reshuffledWant(prev, next *State, i int) int {
	b, a := &prev.p[i], &next.p[i]
	if len(b.disc) > 0 && len(a.deck)+len(a.hand) > len(b.deck)+len(b.hand) && len(a.disc) < len(b.disc) {
		return len(b.disc) + len(b.hand) // a Clean-up discards its hand first, then draws
	}
	return 0
}
