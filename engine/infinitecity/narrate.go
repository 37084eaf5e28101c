package infinitecity

import (
	"fmt"
	"strings"

	"github.com/boardmesh/boardmesh/engine"
)

// Narrate tells a step as seat may know it (engine.Narrator), from the
// two views of that seat: the tile laid and what a face-down tile turned
// into, markers placed, moved or removed, protection gained, tiles drawn
// (named to their owner alone) and scores.
func (s *State) Narrate(next engine.State, who engine.Actor, a engine.Action, seat int) engine.Narration {
	n, ok := next.(*State)
	if !ok {
		return engine.Narration{What: s.Describe(a)}
	}
	before, after := s.View(seat).(*View), n.View(seat).(*View)
	var out engine.Narration
	if who.Kind == engine.ActorSeat {
		out.What = s.Describe(a)
	}
	var news []string
	at := func(t ViewTile) string { return fmt.Sprintf("(%d,%d)", t.X, t.Y) }
	old := map[[2]int]ViewTile{}
	for _, t := range before.Tiles {
		old[[2]int{t.X, t.Y}] = t
	}
	for _, t := range after.Tiles {
		o, had := old[[2]int{t.X, t.Y}]
		switch {
		case !had && t.FaceDown:
			news = append(news, "a face-down tile at "+at(t))
		case !had:
			news = append(news, t.Name+" laid at "+at(t))
		case o.FaceDown && !t.FaceDown:
			news = append(news, "the tile at "+at(t)+" turned over: "+t.Name)
		case o.Name != t.Name && !t.FaceDown:
			news = append(news, fmt.Sprintf("%s at %s is now %s", o.Name, at(t), t.Name))
		}
		for p := range t.Markers {
			was := 0
			if had && p < len(o.Markers) {
				was = o.Markers[p]
			}
			if d := t.Markers[p] - was; d > 0 {
				news = append(news, fmt.Sprintf("seat %d marker on %s %s", p+1, nameOf(t), at(t)))
			} else if d < 0 {
				news = append(news, fmt.Sprintf("seat %d marker gone from %s %s", p+1, nameOf(t), at(t)))
			}
		}
		if t.Protected && had && !o.Protected {
			news = append(news, nameOf(t)+" "+at(t)+" is protected")
		}
	}
	// A swap of hands changes two hand sizes without a draw: it is told
	// as the swap (and to either of the two, the hand it got), not as
	// "drew 1 tile".
	swapped := [2]int{-1, -1}
	if who.Kind == engine.ActorSeat && a.Op == OpSeat && len(a.Args) == 1 {
		swapped = [2]int{who.Seat, int(a.Args[0])}
		news = append(news, fmt.Sprintf("%s and %s swapped hands", seatName(swapped[0]), seatName(swapped[1])))
	}
	// On a secret table the tiles a swap brings are opened to their new
	// holder in the card step after it: a hand the viewer knew none of,
	// once the game is under way (a tile face up; before, it is the first
	// deal), is that swap's, and is told as the hand it now is.
	swapOpened := who.Kind != engine.ActorSeat && seat >= 0 && seat < len(before.HandSizes) &&
		len(before.Hand) == 0 && before.HandSizes[seat] > 0 && anyFaceUp(before.Tiles)
	if got := diffTiles(after.Hand, before.Hand); len(got) > 0 {
		if seat == swapped[0] || seat == swapped[1] || swapOpened {
			news = append(news, "your hand now: "+strings.Join(diffTiles(after.Hand, nil), ", "))
		} else {
			news = append(news, "you drew "+strings.Join(got, ", "))
		}
	}
	// A tile laid from the hand left it in the step that drew: counted
	// back, so a Post Office's two draws are told as two.
	laid := -1
	if who.Kind == engine.ActorSeat && a.Op == OpPlay && len(a.Args) == 3 && s.reason == endNone && len(s.stack) > 0 && s.top().kind != tkPlayPeek {
		laid = who.Seat
	}
	for p := range after.HandSizes {
		if p == seat || p >= len(before.HandSizes) || p == swapped[0] || p == swapped[1] {
			continue
		}
		d := after.HandSizes[p] - before.HandSizes[p]
		if p == laid {
			d++
		}
		if d > 0 {
			news = append(news, fmt.Sprintf("seat %d drew %s", p+1, tiles(d)))
		}
	}
	if len(after.Peek) > 0 && len(before.Peek) == 0 {
		var names []string
		for _, t := range after.Peek {
			names = append(names, t.Name)
		}
		news = append(news, "you look at "+strings.Join(names, ", "))
	}
	if after.Over && !before.Over {
		var sc []string
		for p, x := range after.Scores {
			sc = append(sc, fmt.Sprintf("seat %d %d", p+1, x.Total))
		}
		news = append(news, "game over: "+strings.Join(sc, ", "))
	}
	out.Outcome = strings.Join(news, "; ")
	return out
}

// tiles is "1 tile" or "n tiles".
func tiles(n int) string {
	if n == 1 {
		return "1 tile"
	}
	return fmt.Sprintf("%d tiles", n)
}

func nameOf(t ViewTile) string {
	if t.FaceDown {
		return "the face-down tile"
	}
	return t.Name
}

// anyFaceUp reports whether a tile lies face up: a player has laid one.
func anyFaceUp(ts []ViewTile) bool {
	for _, t := range ts {
		if !t.FaceDown {
			return true
		}
	}
	return false
}

func diffTiles(a, b []TileInfo) []string {
	left := map[string]int{}
	for _, t := range b {
		left[t.Name]++
	}
	var out []string
	for _, t := range a {
		if left[t.Name] > 0 {
			left[t.Name]--
			continue
		}
		out = append(out, t.Name)
	}
	return out
}

// ScoreParts is seat's points by kind (engine.Scorer); scores are public.
func (s *State) ScoreParts(seat, viewer int) ([]engine.ScorePart, bool) {
	sc := s.Scores()
	if seat < 0 || seat >= len(sc) {
		return nil, false
	}
	x := sc[seat]
	var parts []engine.ScorePart
	for _, p := range []engine.ScorePart{{Label: "tiles in groups of 3+", Points: x.Groups}, {Label: "tile bonuses", Points: x.Bonus},
		{Label: "rings", Points: x.Rings}, {Label: "most rings", Points: x.RingBonus}} {
		if p.Points != 0 {
			parts = append(parts, p)
		}
	}
	return parts, true
}

// Terms lists the tiles in the seat's hand and on the table with their
// texts (engine.Glossary).
func (s *State) Terms(seat int) []engine.Term {
	v := s.View(seat).(*View)
	seen := map[string]bool{}
	var out []engine.Term
	for _, t := range append(append([]TileInfo(nil), v.Hand...), v.Legend...) {
		if seen[t.Name] {
			continue
		}
		seen[t.Name] = true
		text := t.Text
		if t.Bonus != 0 {
			text += fmt.Sprintf(" (+%d points)", t.Bonus)
		}
		if t.Rings {
			text += " (silver ring)"
		}
		out = append(out, engine.Term{Name: t.Name, Kind: "tile", Text: text})
	}
	return out
}

// ActionInfo points a move at its square, or at the tile in hand
// (engine.ActionInformer).
func (s *State) ActionInfo(a engine.Action) engine.ActionInfo {
	var info engine.ActionInfo
	switch {
	case a.Op == OpPlay && len(a.Args) == 3:
		info.Target = engine.Target{Kind: engine.TargetSquare, ID: fmt.Sprintf("%d,%d", a.Args[1], a.Args[2]), X: int(a.Args[1]), Y: int(a.Args[2])}
		if k := s.tileOf(handlePos(a.Args[0]), s.current); k >= 0 {
			info.Text = s.set.Kinds[k].Instr.Text()
		}
	case len(a.Args) == 2:
		info.Target = engine.Target{Kind: engine.TargetSquare, ID: fmt.Sprintf("%d,%d", a.Args[0], a.Args[1]), X: int(a.Args[0]), Y: int(a.Args[1])}
	}
	return info
}
