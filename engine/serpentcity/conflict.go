package serpentcity

import "github.com/boardmesh/boardmesh/engine"

// startConflict opens a conflict at loc (a Territory, or T for the
// Capital): the attacker may now play a Military Card.
func (s *State) startConflict(loc, att, def int, forced bool) {
	s.cLoc, s.cAtt, s.cDef, s.cForced = loc, att, def, forced
	s.cAttCard, s.cDefCard, s.cAttH, s.cDefH = -1, -1, -1, -1
	s.ph = phAttCard
}

// pawnsAt counts p's pawns fighting at loc.
func (s *State) pawnsAt(p, loc int) int {
	if loc == s.cfg.T {
		return s.pl[p].capital
	}
	return s.pl[p].terr[loc]
}

// cardKey is the effect key of a Military Card kind, "" for none.
func (s *State) cardKey(k int) string {
	if k < 0 {
		return ""
	}
	return s.cfg.decks[milDeck][k].Key
}

// cardBonus is the Strength a Military Card adds to side p at loc.
func (s *State) cardBonus(k, p, loc int, attacker bool) int {
	if k < 0 {
		return 0
	}
	spec := s.cfg.decks[milDeck][k]
	capital := loc == s.cfg.T
	switch spec.Key {
	case kConvoy:
		if !capital {
			return spec.Value
		}
	case kTunnels:
		if !capital {
			if tw := s.cfg.twin[loc]; tw >= 0 && s.pl[p].terr[tw] > 0 {
				return spec.Value * s.pl[p].terr[tw]
			}
		}
	case kSmall:
		if attacker && s.pawnsAt(p, loc) == 1 {
			return spec.Value
		}
	case kReinforce:
		return spec.Value
	case kBarricade:
		if !attacker {
			return spec.Value
		}
	}
	return 0
}

// strength is the Strength Points of both sides as the rules count them.
func (s *State) strength() (att, def int) { return s.strengthWith(s.cAttCard, s.cDefCard) }

// strengthWith counts Strength with the given cards (-1 for none), so a
// bot can weigh a card without touching the state.
func (s *State) strengthWith(attCard, defCard int) (att, def int) {
	loc := s.cLoc
	ambush := s.cardKey(attCard) == kAmbush
	att = s.pawnsAt(s.cAtt, loc) + s.cardBonus(attCard, s.cAtt, loc, true)
	def = s.pawnsAt(s.cDef, loc)
	if !ambush {
		def += s.cardBonus(defCard, s.cDef, loc, false)
	}
	if loc < s.cfg.T {
		if lv := s.level(s.pawnsAt(s.cDef, loc)); lv > 0 {
			def += s.cfg.r.DefenceBonus[lv-1]
		}
	}
	return att, def
}

// resolveConflict settles the conflict once both cards are chosen: the
// loser's pawns there are lost, Buildings change hands, cards are spent,
// and the winner makes a Reward Roll.
func (s *State) resolveConflict() {
	loc, att, def := s.cLoc, s.cAtt, s.cDef
	as, ds := s.strength()
	winner, loser := def, att
	if as > ds {
		winner, loser = att, def
	}
	loserCard := s.cDefCard
	if loser == att {
		loserCard = s.cAttCard
	}
	ambush := s.cardKey(s.cAttCard) == kAmbush
	if loser == def && ambush {
		loserCard = -1 // an ambushed card has no effect
	}
	lost := s.pawnsAt(loser, loc)
	lp := &s.pl[loser]
	if loc == s.cfg.T {
		lp.capital = 0
	} else {
		lp.terr[loc] = 0
		lp.fresh[loc] = 0
		// Buildings: the loser's pass to the winner, or burn under Sabotage.
		kept := s.bld[loc][:0]
		for _, o := range s.bld[loc] {
			switch {
			case o != loser:
				kept = append(kept, o)
			case s.cardKey(loserCard) != kSabotage:
				kept = append(kept, winner)
			}
		}
		s.bld[loc] = kept
	}
	if s.cardKey(loserCard) == kRetreat {
		for ; lost > 0 && lp.start < s.cfg.r.StartSlots; lost-- {
			lp.start++
		}
	}
	for s.active(loser) < topUpPawns && lp.start < s.cfg.r.StartSlots {
		lp.start++
	}
	// Both cards are spent, but the defender's under Ambush.
	if h, ok := engine.HandleArg(s.cAttH); ok && s.removeFromHand(att, milDeck, h) {
		s.disc[milDeck] = append(s.disc[milDeck], h)
	}
	if h, ok := engine.HandleArg(s.cDefH); ok && !ambush && s.removeFromHand(def, milDeck, h) {
		s.disc[milDeck] = append(s.disc[milDeck], h)
	}
	where := "the Capital"
	if loc < s.cfg.T {
		where = s.cfg.r.Territories[loc].Name
	}
	s.lastFight = seatName(att) + " attacked " + seatName(def) + " in " + where + ": " + itoa(as) + " to " + itoa(ds) + ", " + seatName(winner) + " won"
	s.ph, s.who = phReward, winner
}
