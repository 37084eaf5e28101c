package dragonslair

import (
	"fmt"
	"strings"

	"github.com/boardmesh/boardmesh/engine"
)

// Narrate tells a step as seat may know it (engine.Narrator): what was
// done, and the table's new events (the card turned over, the gold
// escaped with, the dragon's move), which are public; the cards a seat
// has peeked at stay in its own view.
func (s *State) Narrate(next engine.State, who engine.Actor, a engine.Action, seat int) engine.Narration {
	n, ok := next.(*State)
	if !ok {
		return engine.Narration{What: s.Describe(a)}
	}
	var out engine.Narration
	if who.Kind == engine.ActorSeat {
		out.What = s.Describe(a)
	}
	before, after := s.View(seat).(*View), n.View(seat).(*View)
	news := newEvents(before.Recent, after.Recent)
	if who.Kind == engine.ActorChance && s.phase == phaseDealHeroes {
		var hs []string
		for _, sv := range after.Seats {
			hs = append(hs, fmt.Sprintf("seat %d the %s", sv.Seat+1, sv.Hero))
		}
		out.What = "The heroes are dealt"
		news = []string{strings.Join(hs, ", ")}
	}
	if who.Kind == engine.ActorChance && s.phase == phaseDraw && len(news) > 0 {
		// The card turned over: the outcome of "Turn over the next card".
		out.What = ""
	}
	if after.Over && !before.Over {
		news = append(news, "game over: "+scoreLine(n))
	}
	out.Outcome = strings.Join(news, "; ")
	return out
}

// newEvents is what after lists that before did not, oldest first; both
// are newest first and after is before with new events in front (the
// oldest fall off the end).
func newEvents(before, after []string) []string {
	var k int
	// The fewest new events that make the rest the start of before.
	for k = 0; k <= len(after); k++ {
		rest := after[k:]
		if len(rest) <= len(before) && equal(rest, before[:len(rest)]) {
			break
		}
	}
	var out []string
	for i := k - 1; i >= 0; i-- {
		out = append(out, after[i])
	}
	return out
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// eggPart is the egg-majority bonus seat got at the end (0 before it).
func (s *State) eggPart(seat int) int {
	if s.phase != phaseOver && !s.tiebreak {
		return 0
	}
	most := uint8(0)
	for i := 0; i < int(s.n); i++ {
		most = max(most, s.seats[i].eggs)
	}
	if most == 0 || s.eggBonus == 0 || s.seats[seat].eggs != most {
		return 0
	}
	k := 0
	for i := 0; i < int(s.n); i++ {
		if s.seats[i].eggs == most {
			k++
		}
	}
	return int(s.eggBonus) / k
}

// ScoreParts is seat's gold: what it escaped with (and took with its
// hero), and at the end the egg-majority bonus (engine.Scorer). Scores
// are public.
func (s *State) ScoreParts(seat, viewer int) ([]engine.ScorePart, bool) {
	if seat < 0 || seat >= int(s.n) {
		return nil, false
	}
	egg := s.eggPart(seat)
	parts := []engine.ScorePart{{Label: "gold", Points: int(s.seats[seat].score) - egg}}
	if egg > 0 {
		parts = append(parts, engine.ScorePart{Label: fmt.Sprintf("egg majority (%d eggs)", s.seats[seat].eggs), Points: egg})
	}
	return parts, true
}

func scoreLine(s *State) string {
	var out []string
	for i := 0; i < int(s.n); i++ {
		t := fmt.Sprintf("seat %d %d gold", i+1, s.seats[i].score)
		if e := s.eggPart(i); e > 0 {
			t += fmt.Sprintf(" (with %+d for the most eggs, %d)", e, s.seats[i].eggs)
		}
		out = append(out, t)
	}
	return strings.Join(out, ", ")
}

// Terms lists the heroes in play with their powers (engine.Glossary).
func (s *State) Terms(seat int) []engine.Term {
	var out []engine.Term
	for i := 0; i < int(s.n); i++ {
		if h := s.seats[i].hero; h != noHero {
			out = append(out, engine.Term{Name: h.String(), Kind: "hero", Text: fmt.Sprintf("seat %d: %s", i+1, heroes[h].power)})
		}
	}
	return out
}

// ActionInfo points the moves at their buttons and heroes; escaping with
// an empty bag is risky (engine.ActionInformer).
func (s *State) ActionInfo(a engine.Action) engine.ActionInfo {
	var info engine.ActionInfo
	switch a.Op {
	case opDraw:
		info.Target = engine.Target{Kind: engine.TargetPile, ID: "deck"}
	case opEscape:
		info.Target = engine.Target{Kind: engine.TargetButton, ID: "escape"}
		info.Risky = s.bagValue() == 0 && s.hall == 0
	case opChooseHero:
		if len(a.Args) == 1 && a.Args[0] >= 0 && a.Args[0] < int32(numHeroes) {
			h := hero(a.Args[0])
			info.Target = engine.Target{Kind: engine.TargetHero, ID: h.String()}
			info.Text = heroes[h].power
		}
	default:
		if h := s.seats[s.turnSeat].hero; h != noHero {
			info.Target = engine.Target{Kind: engine.TargetHero, ID: h.String()}
			info.Text = heroes[h].power
		}
	}
	return info
}
