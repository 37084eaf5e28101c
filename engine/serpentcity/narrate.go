package serpentcity

import (
	"fmt"
	"strings"

	"github.com/boardmesh/boardmesh/engine"
)

// Narrate tells a step as seat may know it (engine.Narrator): the dice
// rolled, the Reward Roll's face, the START bonus, every change of
// resources and Influence Points (public), the conflict's outcome, and a
// card drawn (named to its owner alone, as the view does).
func (s *State) Narrate(next engine.State, who engine.Actor, a engine.Action, seat int) engine.Narration {
	n, ok := next.(*State)
	if !ok {
		return engine.Narration{What: s.Describe(a)}
	}
	before, after := s.View(seat).(*View), n.View(seat).(*View)
	var out engine.Narration
	var news []string
	switch who.Kind {
	case engine.ActorSeat:
		// The cards the move names as seat may know them: its own, or
		// those the move showed everyone.
		out.What = s.describe(a, seat, n)
		if a.Op == opMove && strings.Contains(out.What, "across START") {
			news = append(news, seatName(who.Seat)+" crosses START: bonus "+amountText(s.cfg.r.StartBonus.arr()))
		}
	case engine.ActorChance:
		switch s.ph {
		case phRoll:
			out.What = fmt.Sprintf("%s rolls the dice", seatName(s.cur))
			news = append(news, fmt.Sprintf("rolled %d and %d: %d Movement Points", after.Dice[0], after.Dice[1], after.MP))
			if n.ph == phDraw {
				news = append(news, "a lucky double: a Special Card")
			}
		case phReward:
			out.What = fmt.Sprintf("%s makes a Reward Roll", seatName(s.who))
			face := n.lastRew
			if face >= 1 && face <= len(s.cfg.r.Reward) {
				rw := s.cfg.r.Reward[face-1]
				t := fmt.Sprintf("the die shows %d: %s", face, amountText(rw.Gain.arr()))
				if rw.Card {
					t += " and a Special Card of their choice"
				}
				news = append(news, t)
			}
		case phDraw:
			// The card drawn is the outcome of the step before.
		}
	}
	if after.LastDraw != "" && (after.LastDraw != before.LastDraw || n.lastDrw != s.lastDrw || n.drawSeat != s.drawSeat) {
		news = append(news, after.LastDraw)
	}
	if after.LastFight != "" && after.LastFight != before.LastFight {
		news = append(news, after.LastFight)
	}
	for i := range after.Players {
		if i >= len(before.Players) {
			break
		}
		var parts []string
		for r := 0; r < nRes; r++ {
			if d := after.Players[i].Resources[r] - before.Players[i].Resources[r]; d != 0 {
				parts = append(parts, fmt.Sprintf("%+d %s", d, resNames[r]))
			}
		}
		if d := after.Players[i].IP - before.Players[i].IP; d != 0 {
			parts = append(parts, fmt.Sprintf("%+d IP (now %d)", d, after.Players[i].IP))
		}
		// Pawns in play: Recruits, a pawn bought, pawns lost in a fight
		// (which the status line counts, and the history did not).
		if d := after.Players[i].Active - before.Players[i].Active; d != 0 {
			word := "pawns"
			if d == 1 || d == -1 {
				word = "pawn"
			}
			parts = append(parts, fmt.Sprintf("%+d %s (now %d of %d)", d, word, after.Players[i].Active, after.Players[i].Limit))
		}
		if len(parts) > 0 {
			news = append(news, seatName(i)+": "+strings.Join(parts, ", "))
		}
	}
	if after.Over && !before.Over {
		news = append(news, "game over: "+after.Reason)
	}
	out.Outcome = strings.Join(news, "; ")
	return out
}

// ScoreParts is seat's Influence Points by source (engine.Scorer); IP are
// public.
func (s *State) ScoreParts(seat, viewer int) ([]engine.ScorePart, bool) {
	if seat < 0 || seat >= s.n {
		return nil, false
	}
	v := s.View(viewer).(*View)
	p := v.Players[seat]
	var parts []engine.ScorePart
	for i, x := range p.Sources {
		if x != 0 {
			parts = append(parts, engine.ScorePart{Label: ipSourceName(i), Points: x})
		}
	}
	if len(parts) == 0 {
		parts = []engine.ScorePart{{Label: "Influence Points", Points: p.IP}}
	}
	return parts, true
}

// ActionInfo points moves at their Road space or Territory; passing for a
// Reward Roll and ending the turn with Movement Points left are risky
// (engine.ActionInformer).
func (s *State) ActionInfo(a engine.Action) engine.ActionInfo {
	var info engine.ActionInfo
	arg := -99
	if len(a.Args) > 0 {
		arg = int(a.Args[0])
	}
	switch a.Op {
	case opMove:
		info.Target = engine.Target{Kind: engine.TargetSquare, ID: fmt.Sprintf("road-%d", arg+1), X: arg + 1}
	case opEnter, opLeave, opPromote, opBuild, opAttack:
		info.Target = engine.Target{Kind: engine.TargetSquare, ID: s.locName(arg)}
	case opBuyCard:
		if arg == 0 || arg == 1 {
			info.Target = engine.Target{Kind: engine.TargetPile, ID: deckNames[arg]}
		}
	case opEcon:
		seat := engine.Public
		if who := s.ToAct(); who.Kind == engine.ActorSeat {
			seat = who.Seat
		}
		if k := s.argKind(int32(arg), seat); k >= 0 && k < len(s.cfg.decks[0]) {
			info.Target = engine.Target{Kind: engine.TargetCard, ID: s.cfg.decks[0][k].Name}
			info.Text = cardText(s.cfg.decks[0][k])
		}
	case opEnd:
		info.Target = engine.Target{Kind: engine.TargetButton, ID: "end-turn"}
		info.Risky = s.mp > 0
	case opPass:
		info.Target = engine.Target{Kind: engine.TargetButton, ID: "pass"}
		info.Risky = true
	}
	return info
}

// cardTexts are the Special Cards' effects (docs/rules/serpentcity.md).
var cardTexts = map[string]string{
	kInvestor:  "Permanent: +1 Coin at each of your income steps.",
	kArchitect: "Permanent: your Building sets give 2 IP instead of 1.",
	kPatronage: "+1 IP, kept for the game.",
	kWindfall:  "+1 Coin, Weapon, Document and Fuel.",
	kLevy:      "Each other player gives you 1 of the basic Resource they hold most of.",
	kEviction:  "Send another player's pawn from a Territory back to the Road space it touches.",
	kExpress:   "+4 Movement Points this turn.",
	kRecruits:  "One free pawn on your START.",
	kAmbush:    "Attacker: the defender's card has no effect and is not spent.",
	kConvoy:    "+2 Strength; not in the Capital.",
	kTunnels:   "+1 Strength per own pawn on the other Territory of the same type; not in the Capital.",
	kSmall:     "Attacker: +2 Strength when attacking with exactly 1 pawn.",
	kRetreat:   "If you lose, your lost pawns go to free START slots instead of being removed.",
	kSabotage:  "If you lose a Territory conflict, the Buildings that would pass to the winner are destroyed.",
	kReinforce: "+2 Strength.",
	kBarricade: "Defender: +2 Strength.",
}

// cardText is a Special Card's effect, with when it may be played.
func cardText(c CardSpec) string {
	t := cardTexts[c.Key]
	if c.Value != 0 && (c.Key == kExpress || c.Key == kReinforce || c.Key == kBarricade || c.Key == kConvoy || c.Key == kSmall) {
		t = strings.NewReplacer("+4", fmt.Sprintf("%+d", c.Value), "+2", fmt.Sprintf("%+d", c.Value)).Replace(t)
	}
	return fmt.Sprintf("%s (playable at %d–%d IP)", t, c.MinIP, c.MaxIP)
}

func ipSourceName(i int) string {
	if i >= 0 && i < nSrc {
		return srcNames[i]
	}
	return "other"
}

// Terms lists the Special Cards seat holds and the Territories with their
// resources (engine.Glossary).
func (s *State) Terms(seat int) []engine.Term {
	var out []engine.Term
	if seat >= 0 && seat < s.n {
		for _, c := range s.View(seat).(*View).Players[seat].Cards {
			for d := range s.cfg.decks {
				for _, spec := range s.cfg.decks[d] {
					if spec.Name == c.Name {
						out = append(out, engine.Term{Name: c.Name, Kind: "card", Text: cardText(spec)})
					}
				}
			}
		}
	}
	out = append(out, engine.Term{Name: "START", Kind: "space", Text: "A pawn that crosses START earns " + amountText(s.cfg.r.StartBonus.arr()) + "."},
		engine.Term{Name: "Reward Roll", Kind: "rule", Text: "Pass a whole turn, or win a conflict, to roll the Reward die."})
	return out
}

// Combos offers every walk of two spaces or more as one pick
// (engine.Combiner): "Walk a pawn from Road space 3 to space 8 (North
// Chancery), 5 MP", one step at a time underneath. A walk that crosses
// START says so (the bonus).
func (s *State) Combos(legal []engine.Action) []engine.Combo {
	if s.ph != phMain {
		return nil
	}
	var out []engine.Combo
	R := s.cfg.R
	for _, a := range legal {
		if a.Op != opMove || len(a.Args) != 1 {
			continue
		}
		from := int(a.Args[0])
		cur := s.Clone().(*State)
		steps := []engine.Action{}
		pos, crossed := from, false
		for {
			step := engine.Action{Op: opMove, Args: []int32{int32(pos)}}
			if cur.Apply(s.cur, step) != nil {
				break
			}
			steps = append(steps, step)
			if pos == R-1 {
				crossed = true
			}
			pos = (pos + 1) % R
			if pos < 0 {
				pos = 0
			}
			if len(steps) >= 2 {
				fromName := "START"
				if from >= 0 {
					fromName = "Road space " + itoa(from+1)
				}
				label := fmt.Sprintf("Walk a pawn from %s to space %d", fromName, pos+1)
				if t := s.territoryAt(pos); t != "" {
					label += " (" + t + ")"
				}
				label += fmt.Sprintf(", %d MP", len(steps)*s.cfg.r.StepMP)
				if crossed {
					label += ", across START"
				}
				out = append(out, engine.Combo{Label: label, Steps: append([]engine.Action(nil), steps...)})
			}
			if cur.ph != phMain || cur.cur != s.cur {
				break
			}
		}
	}
	return out
}

// territoryAt names the Territories beside Road space pos (0-based).
func (s *State) territoryAt(pos int) string {
	var names []string
	for t := range s.cfg.r.Territories {
		if s.cfg.troad[t] == pos {
			names = append(names, s.cfg.r.Territories[t].Name)
		}
	}
	return strings.Join(names, ", ")
}
