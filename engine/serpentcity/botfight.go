package serpentcity

import (
	"github.com/boardmesh/boardmesh/engine"
)

// This file holds the StrategyBot's fighting, retreating and trading. It
// reads only what the seat p may see: the board, everyone's Resources and
// card counts, its own hand, and the cards already played face up in the
// conflict being fought.

// baseDefence is q's Strength at loc before cards: its pawns plus the
// dominance defence bonus on a Territory (none in the Capital).
func (s *State) baseDefence(q, loc int) int {
	d := s.pawnsAt(q, loc)
	if loc < s.cfg.T {
		if lv := s.level(d); lv > 0 {
			d += s.cfg.r.DefenceBonus[lv-1]
		}
	}
	return d
}

// defFear is the Strength a defender q may add with a card p cannot see,
// guessed from public facts only: nothing if q holds at most one Military
// Card (about half the deck adds no defender Strength, so the bot takes
// that gamble; in duels against BuilderBot this won more games than
// fearing every card), else the largest defender bonus any kind of the
// deck would give q at loc.
func (s *State) defFear(q, loc int) int {
	if s.handCount(q, milDeck) < 2 {
		return 0 // one unseen card: the bot takes the gamble
	}
	best := 0
	ip := s.pl[q].ip
	for k, spec := range s.cfg.decks[milDeck] {
		if ip < spec.MinIP || ip > spec.MaxIP {
			continue
		}
		if b := s.cardBonus(k, q, loc, false); b > best {
			best = b
		}
	}
	return best
}

// attackMargin is p's expected lead in Strength attacking q at loc with
// extra pawns more than p has there now, and the card to play for it (-1
// none): every attacker card p may play is tried, and q is assumed to
// answer with the strongest card it might hold (Ambush makes that card
// void). The defender wins ties, so a margin above 0 wins.
func (s *State) attackMargin(p, q, loc, extra int) (margin, card int) {
	as := s.pawnsAt(p, loc) + extra
	ds := s.baseDefence(q, loc)
	fear := s.defFear(q, loc)
	margin, card = as-ds-fear, -1
	hc := s.counts(p, milDeck)
	for k := range s.cfg.decks[milDeck] {
		if hc[k] == 0 {
			continue
		}
		if !s.inRange(p, milDeck, k) {
			continue
		}
		spec := s.cfg.decks[milDeck][k]
		if spec.Key == kBarricade || loc == s.cfg.T && (spec.Key == kConvoy || spec.Key == kTunnels) {
			continue
		}
		b, f := s.cardBonus(k, p, loc, true), fear
		switch spec.Key {
		case kSmall:
			b = 0
			if as == 1 {
				b = spec.Value
			}
		case kAmbush:
			f = 0
		}
		if m := as + b - ds - f; m > margin {
			margin, card = m, k
		}
	}
	return margin, card
}

// smartCard chooses the StrategyBot's Military Card in a conflict. The
// attacker plays nothing if it wins without a card, else the card of its
// best margin; the defender, who sees the attacker's card, plays the
// smallest card that holds, or else the one that softens the loss most.
func (s *State) smartCard(p int, legal []engine.Action) engine.Action {
	loc := s.cLoc
	if s.ph == phAttCard {
		q := s.cDef
		if s.pawnsAt(p, loc)-s.baseDefence(q, loc)-s.defFear(q, loc) > 0 {
			return act(opNoCard)
		}
		if m, k := s.attackMargin(p, q, loc, 0); k >= 0 && m > 0 {
			if a, ok := s.cardAct(opMil, p, milDeck, k); ok {
				return a
			}
		}
		// The count is against us if the defender holds a card; play the
		// card that wins if it holds none.
		best, bestM := engine.Action{}, 0
		for _, l := range legal {
			if l.Op != opMil {
				continue
			}
			if as, ds := s.strengthWith(s.argKind(l.Args[0], p), -1); as-ds > bestM {
				best, bestM = l, as-ds
			}
		}
		if best.Op != 0 {
			return best
		}
		return s.softener(p, legal)
	}
	if s.cardKey(s.cAttCard) == kAmbush {
		return act(opNoCard) // our card would be void and kept anyway
	}
	as, ds := s.strengthWith(s.cAttCard, -1)
	if ds >= as {
		return act(opNoCard)
	}
	best, bestB := engine.Action{}, 1<<30
	for _, l := range legal {
		if l.Op != opMil {
			continue
		}
		k := s.argKind(l.Args[0], p)
		if b := s.cardBonus(k, p, loc, false); b > 0 && ds+b >= as && b < bestB {
			best, bestB = l, b
		}
	}
	if best.Op != 0 {
		return best
	}
	return s.softener(p, legal)
}

// softener is the card that limits a lost conflict: Tactical Retreat
// saves the pawns, Sabotage burns the Buildings the winner would take;
// whichever saves more, or no card.
func (s *State) softener(p int, legal []engine.Action) engine.Action {
	pawns := s.pawnsAt(p, s.cLoc)
	blds := 0
	if s.cLoc < s.cfg.T {
		blds = s.ownBuildings(p, s.cLoc)
	}
	best, bestV := act(opNoCard), 0
	for _, l := range legal {
		if l.Op != opMil {
			continue
		}
		v := 0
		switch s.cardKey(s.argKind(l.Args[0], p)) {
		case kRetreat:
			v = pawns
		case kSabotage:
			v = blds
		}
		if v > bestV {
			best, bestV = l, v
		}
	}
	return best
}

// bestAttack is the voluntary conflict the StrategyBot expects to win
// that takes the most from the loser (pawns, Buildings, a Capital seat).
func (s *State) bestAttack(p int, legal []engine.Action) (engine.Action, bool) {
	best, bestV := engine.Action{}, 0
	for _, l := range legal {
		if l.Op != opAttack {
			continue
		}
		loc, q := int(l.Args[0]), int(l.Args[1])
		if m, _ := s.attackMargin(p, q, loc, 0); m <= 0 || s.pl[q].ip+bullyGap < s.pl[p].ip || s.round < quietRounds {
			continue
		}
		v := 1 + s.pawnsAt(q, loc)
		if loc < s.cfg.T {
			v += 2 * s.ownBuildings(q, loc)
		} else {
			v += s.cfg.r.CapitalIP
		}
		if s.pl[q].ip > s.pl[p].ip {
			v++ // hit the leader
		}
		if v > bestV {
			best, bestV = l, v
		}
	}
	return best, bestV > 0
}

// bullyGap is how far behind the bot a rival may be and still be
// attacked: the bot leaves players well behind it alone and turns on the
// leaders, so an early lead does not snowball.
const bullyGap = 2

// quietRounds: the bot starts no voluntary conflict before this round.
// Earlier raids let the players who move first pick off the later seats'
// first pawns: with raids from round 5 the first two of five seats won
// 47% of 800 seeded games (fair: 40%), from round 10 they won 42%.
const quietRounds = 10

// joinValue rates entering a Territory where two or more rivals stand:
// it forces a conflict at the end of our turn, in which we choose the
// defender, so it is worth it only if we beat one of them with the pawn
// entering.
func (s *State) joinValue(p, t int) int {
	if s.occupancy(t) >= s.cfg.r.OccupationSlots {
		return 0
	}
	best := 0
	for q := range s.pl {
		if q == p || s.pl[q].terr[t] == 0 {
			continue
		}
		if m, _ := s.attackMargin(p, q, t, 1); m > best {
			best = m
		}
	}
	if best <= 0 {
		return 0
	}
	v := 4
	if s.cfg.isMine(t) && !s.holdsMine(p) {
		v++
	}
	return v
}

// landValue is territoryValue with the StrategyBot's wish to force a
// conflict it wins.
func (s *State) landValue(p, t int, smart bool) int {
	v := s.territoryValue(p, t)
	if !smart || v > 0 {
		return v
	}
	others := s.occupiers(t)
	if s.pl[p].terr[t] > 0 {
		others--
	}
	if others < 2 {
		return v
	}
	return s.joinValue(p, t)
}

// retreat names a Territory the StrategyBot should pull a pawn out of:
// one where the forced conflict at its turn end would be lost, one where a
// rival could attack next turn and win, or one holding pawns beyond the
// top dominance level while free land waits.
func (s *State) retreat(p int, legal []engine.Action) (engine.Action, bool) {
	pl := &s.pl[p]
	c := s.cfg
	free := false
	for t := 0; t < c.T; t++ {
		free = free || s.occupiers(t) == 0 && s.occupancy(t) < c.r.OccupationSlots
	}
	for _, l := range legal {
		if l.Op != opLeave {
			continue
		}
		t := int(l.Args[0])
		mine := pl.terr[t]
		others := s.occupiers(t) - 1
		if others >= 2 {
			win := false
			for q := range s.pl {
				if q != p && s.pl[q].terr[t] > 0 {
					if m, _ := s.attackMargin(p, q, t, 0); m > 0 {
						win = true
					}
				}
			}
			if !win {
				return l, true
			}
			continue
		}
		if others == 1 && mine >= 2 {
			for q := range s.pl {
				if q == p || s.pl[q].terr[t] <= mine {
					continue
				}
				if m, _ := s.attackMargin(p, q, t, 0); m > 0 {
					continue // we strike first instead
				}
				threat := s.pl[q].terr[t]
				if s.handCount(q, milDeck) > 0 {
					threat += 2
				}
				if threat > s.baseDefence(p, t)+s.bestDefBonus(p, t) {
					return l, true
				}
			}
			continue
		}
		if others == 0 && mine > c.r.Levels[2] && free && pl.res[Fuel] > c.leave[Fuel]+c.promote[Fuel] {
			return l, true
		}
	}
	return engine.Action{}, false
}

// bestDefBonus is the largest Strength bonus p's own cards give a
// defender at loc.
func (s *State) bestDefBonus(p, loc int) int {
	best := 0
	hc := s.counts(p, milDeck)
	for k := range s.cfg.decks[milDeck] {
		if hc[k] == 0 {
			continue
		}
		if s.inRange(p, milDeck, k) {
			if b := s.cardBonus(k, p, loc, false); b > best {
				best = b
			}
		}
	}
	return best
}

// planNeed is what the bots save for: a promotion and a Building.
func (s *State) planNeed() [nRes]int { return addCost(s.cfg.promote, s.cfg.building) }

// tradeWish is the StrategyBot's trade offer: 1 (2 when rich) of its most
// plentiful basic Resource for 1 of the one it lacks most, to the player
// holding most of that who is not close to winning.
func (s *State) tradeWish(p int) (give, n, get, partner int, ok bool) {
	need := s.planNeed()
	res := &s.pl[p].res
	give, get = -1, -1
	for r := 0; r < Diamond; r++ {
		if res[r] < need[r] && (get < 0 || need[r]-res[r] > need[get]-res[get]) {
			get = r
		}
	}
	for r := 0; r < Diamond; r++ {
		if r != get && res[r] > need[r] && (give < 0 || res[r]-need[r] > res[give]-need[give]) {
			give = r
		}
	}
	if get < 0 || give < 0 {
		return 0, 0, 0, 0, false
	}
	n = 1
	if res[give]-need[give] >= 4 {
		n = 2
	}
	partner = -1
	for q := range s.pl {
		if q == p || s.pl[q].dropped || s.pl[q].ip+3 >= s.winIP || s.pl[q].res[get] < 2 {
			continue
		}
		if partner < 0 || s.pl[q].res[get] > s.pl[partner].res[get] {
			partner = q
		}
	}
	if s.ph == phOffer {
		partner = s.tPartner
	}
	return give, n, get, partner, partner >= 0
}

// acceptOffer is the StrategyBot's answer: yes when the trade evens out
// its own holdings against what it saves for and the offerer is not close
// to winning; never a Diamond.
func (s *State) acceptOffer(p int) bool {
	if s.tGet == Diamond || s.pl[s.cur].ip+3 >= s.winIP {
		return false
	}
	need := s.planNeed()
	res := &s.pl[p].res
	if res[s.tGet] < 2 {
		return false
	}
	recv := res[s.tGive] - need[s.tGive]
	gave := res[s.tGet] - need[s.tGet]
	return gave+s.tGiveN >= recv+2
}

// bankToward is the bank trade that makes cost payable at once, if one
// does: 3 of a Resource we can spare for the one missing unit.
func (s *State) bankToward(p int, cost [nRes]int, legal []engine.Action) (engine.Action, bool) {
	res := s.pl[p].res
	rate := s.cfg.r.BankRate
	for x := 0; x < Diamond; x++ {
		if res[x] >= cost[x] {
			continue
		}
		for y := 0; y < Diamond; y++ {
			if y == x || res[y]-rate < cost[y] {
				continue
			}
			try := res
			try[x]++
			try[y] -= rate
			if payable(try, cost) && has(legal, act(opBank, int32(y), int32(x))) {
				return act(opBank, int32(y), int32(x)), true
			}
		}
	}
	return engine.Action{}, false
}

// payable is canPay on a given purse.
func payable(res, cost [nRes]int) bool {
	missing := 0
	for r := 0; r < Diamond; r++ {
		if cost[r] > res[r] {
			missing += cost[r] - res[r]
		}
	}
	return cost[Diamond]+2*missing <= res[Diamond]
}

// contested says whether p shares a Territory or the Capital with a
// rival, so a Military Card in hand would deter an attack.
func (s *State) contested(p int) bool {
	for t := 0; t < s.cfg.T; t++ {
		if s.pl[p].terr[t] > 0 && s.shared(t) {
			return true
		}
	}
	return s.pl[p].capital > 0 && s.pl[p].capital < s.capitalUsed()
}
