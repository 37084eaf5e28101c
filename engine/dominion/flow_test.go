package dominion

import (
	"fmt"
	"testing"

	"github.com/boardmesh/boardmesh/engine"
)

// shape is what every peer of a secret table must agree on after a step:
// who is asked what, which chance step is pending, the card effects in
// progress, the public counts. It leaves out only the cards a seat may keep
// to itself (its hand, the order and contents of its deck and discard
// pile), which is why it is the test of the flow below.
func shape(s *State) string {
	out := fmt.Sprintf("phase %d cur %d ask %d/%d req %d/%d/%d a/b/$ %d/%d/%d stack %v aside %d:%d end %q",
		s.phase, s.cur, s.ask, s.askSeat, s.req, s.reqWho, s.reqN, s.actions, s.buys, s.coins, s.stack, s.asideOwner, len(s.aside), s.reason)
	for i := range s.p {
		p := &s.p[i]
		out += fmt.Sprintf(" | seat %d: hand %d deck %d disc %d play %v", i+1, p.hand.total(), p.deckSize(), p.disc.total(), p.play)
	}
	return out
}

// swapHidden exchanges, in seat's cards, one card of kind a in from with
// one of kind b in to: two positions nobody but seat may tell apart.
func swapHidden(from, to *counts, a, b int) {
	from[a]--
	from[b]++
	to[b]--
	to[a]++
}

// TestFlowDependsOnPublicCardsOnly: on a secret table every peer runs the
// state machine without the other seats' hands, so whether the game asks a
// seat something, answers a choice by itself, or waits for chance may
// depend only on what everyone sees. At every step of bot games with
// random Kingdoms, a copy of the state in which some seat holds another
// card in hand (swapped with one of its deck, or of its discard pile) must
// take the same step to the same shape. It fails on an engine that skips
// the Moat question because a hand has no Moat, that asks Throne Room,
// Mine or Moneylender only with a card to use, that answers a Militia
// discard by itself because a hand holds one kind of card, or that asks
// Library only about an Action card drawn.
func TestFlowDependsOnPublicCardsOnly(t *testing.T) {
	bots := []engine.Bot{explorer{}, explorer{}, explorer{}, explorer{}}
	checked, games := 0, 40
	if testing.Short() {
		games = 10
	}
	for g := 0; g < games; g++ {
		players := 2 + g%3
		s, err := newState(players, engine.Options{{Name: optRandom, Value: "true"}})
		if err != nil {
			t.Fatal(err)
		}
		r := engine.NewRand([]byte(fmt.Sprintf("flow %d", g)))
		for step := 0; step < 3000 && s.phase != phaseOver; step++ {
			who := s.ToAct()
			var move func(*State) error
			var named []int
			switch who.Kind {
			case engine.ActorChance:
				beacon := engine.Derive([]byte("flow beacon"), fmt.Sprint(g), uint64(step))
				move = func(x *State) error { return x.ApplyChance(beacon) }
			case engine.ActorSeat:
				legal := s.Legal(nil)
				a := bots[who.Seat].Choose(s, legal, r)
				if a.Op == opAllTreasures {
					named = []int{Copper, Silver, Gold}
				}
				for _, x := range a.Args {
					named = append(named, int(x))
				}
				move = func(x *State) error { return x.Apply(who.Seat, a) }
			default:
				t.Fatalf("game %d: actor %v", g, who)
			}
			// A chance step that reveals cards to everyone (Vassal, Bandit)
			// may show other cards when the revealing seat's deck differs,
			// or its discard pile is shuffled in: its cards are left alone.
			public := s.req == reqReveal && len(s.stack) > 0 && (s.top().card == Vassal || s.top().card == Bandit)
			for j := 0; j < players && s.req != reqKingdom; j++ {
				if public && j == s.reqWho {
					continue
				}
				p := &s.p[j]
				tried := 0 // a few swaps per seat and step keep the test quick
				for k := 0; k < NumCards && tried < 3; k++ {
					a := (k + step) % NumCards
					if p.hand[a] == 0 || contains(named, a) {
						continue
					}
					for b := 0; b < NumCards && tried < 3; b++ {
						if b == a || contains(named, b) {
							continue
						}
						for _, zone := range []int{0, 1} {
							x := s.clone()
							to := &x.p[j].disc
							if zone == 0 {
								to = &x.p[j].pool
							}
							if to[b] == 0 {
								continue
							}
							swapHidden(&x.p[j].hand, to, a, b)
							y := s.clone()
							if err := move(y); err != nil {
								t.Fatalf("game %d step %d: %v", g, step, err)
							}
							if err := move(x); err != nil {
								continue // the move needs the card swapped away
							}
							checked++
							tried++
							if shape(x) != shape(y) {
								t.Fatalf("game %d step %d: seat %d holding %s instead of a %s in its %s changes what every peer sees after seat %d's step (0: chance):\n%s\nvs\n%s",
									g, step, j+1, cards[b].name, cards[a].name, [...]string{"deck", "discard pile"}[zone], map[bool]int{true: who.Seat + 1}[who.Kind == engine.ActorSeat], shape(y), shape(x))
							}
						}
					}
				}
			}
			if err := move(s); err != nil {
				t.Fatalf("game %d step %d: %v", g, step, err)
			}
		}
	}
	if checked < 1000 {
		t.Fatalf("only %d swaps checked", checked)
	}
	t.Logf("%d swaps checked", checked)
}

func contains(xs []int, x int) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
