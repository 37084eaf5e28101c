package serpentcity

import (
	"github.com/boardmesh/boardmesh/engine"
)

// StrategyBot is the opponent a new player meets: it takes free
// Territories near its road pawns, deepens dominance, builds sets, saves
// for the Capital and buys Influence when rich, like BuilderBot, and on
// top of that it fights. It attacks when its expected Strength wins
// (its own Military Cards, the defender's dominance bonus, a card the
// defender may hold, ties to the defender) — but not before round 10, nor
// against a player more than 2 IP behind it —, joins a Territory where two
// rivals stand when the forced conflict at its turn end is one it wins,
// pulls pawns back to the Road from a fight it would lose or from land
// where they add nothing, answers attacks with the card that holds or
// softens the loss, offers fair trades to other players and the bank when
// one Resource is missing, and routes a pawn across START for the bonus
// and the Pact's cards. It looks at its own cards and at what every seat
// sees (the others' card counts, never their cards). Its scoring is
// integer only.
type StrategyBot struct{}

// BuilderBot is the first strategy bot, kept as an opponent: it builds
// and occupies well, fights only when a Territory's count says it wins,
// never offers trades, never returns pawns to the Road and never crowds a
// Territory with two rivals.
type BuilderBot struct{}

// Choose picks an action for the seat to act.
func (b *StrategyBot) Choose(es engine.State, legal []engine.Action, r *engine.Rand) engine.Action {
	return choose(es, legal, true)
}

// Choose picks an action for the seat to act.
func (b *BuilderBot) Choose(es engine.State, legal []engine.Action, r *engine.Rand) engine.Action {
	return choose(es, legal, false)
}

func has(legal []engine.Action, a engine.Action) bool {
	for _, l := range legal {
		if l.Equal(a) {
			return true
		}
	}
	return false
}

// choose is both bots' policy; smart adds the StrategyBot's fighting,
// trading and retreating to the BuilderBot's plan.
func choose(es engine.State, legal []engine.Action, smart bool) engine.Action {
	s, ok := es.(*State)
	if !ok {
		return legal[0]
	}
	p := s.ToAct().Seat
	var a engine.Action
	switch s.ph {
	case phPick:
		a = act(opPick, econDeck)
		if s.handCount(p, milDeck) < 2 {
			a = act(opPick, milDeck)
		}
	case phAttCard, phDefCard:
		if smart {
			a = s.smartCard(p, legal)
		} else {
			a = s.botCard(p, legal)
		}
	case phForced:
		best, bestM := -1, 0
		for _, l := range legal {
			q := int(l.Args[0])
			m := -s.pl[q].terr[s.cLoc]
			if smart {
				m, _ = s.attackMargin(p, q, s.cLoc, 0)
			}
			if best < 0 || m > bestM {
				best, bestM = q, m
			}
		}
		a = act(opForced, int32(best))
	case phOffer:
		a = act(opCancel)
		if smart {
			if give, n, get, _, ok := s.tradeWish(p); ok {
				a = act(opOffer, int32(give), int32(n), int32(get))
			}
		}
	case phAnswer:
		a = act(opDecline)
		if smart {
			if s.acceptOffer(p) {
				a = act(opAccept)
			}
		} else if s.pl[p].res[s.tGet] >= 3 && s.pl[p].res[s.tGive] <= 1 {
			a = act(opAccept)
		}
	case phMain:
		a = s.botMain(p, legal, smart)
	}
	if has(legal, a) {
		return a
	}
	return legal[len(legal)-1] // "end the turn" or "no card": always safe
}

// handCount is the number of cards p holds of deck d: public.
func (s *State) handCount(p, d int) int { return len(s.pl[p].hand[d]) }

// botCard plays the cheapest Military Card that turns the fight, a loss
// softener when it cannot win, or nothing.
func (s *State) botCard(p int, legal []engine.Action) engine.Action {
	attacker := s.ph == phAttCard
	var as, ds int
	if attacker {
		as, ds = s.strengthWith(-1, -1)
		if s.handCount(s.cDef, milDeck) > 0 {
			ds += 2
		}
	} else {
		if s.cardKey(s.cAttCard) == kAmbush {
			return act(opNoCard)
		}
		as, ds = s.strengthWith(s.cAttCard, -1)
	}
	winning := func(bonus int) bool {
		if attacker {
			return as+bonus > ds
		}
		return ds+bonus >= as
	}
	if winning(0) {
		return act(opNoCard)
	}
	soften := engine.Action{}
	for _, l := range legal {
		if l.Op != opMil {
			continue
		}
		k := s.argKind(l.Args[0], p)
		key := s.cardKey(k)
		bonus := s.cardBonus(k, p, s.cLoc, attacker)
		if attacker && key == kAmbush && s.handCount(s.cDef, milDeck) > 0 {
			bonus = 2 // it cancels the card we feared
		}
		if bonus > 0 && winning(bonus) {
			return l
		}
		if key == kRetreat || key == kSabotage {
			soften = l
		}
	}
	if soften.Op != 0 {
		return soften
	}
	return act(opNoCard)
}

// territoryValue rates entering t for p: free land is best (a Diamond
// Mine most of all while we hold none), then deepening our own dominance;
// crowded land is avoided.
func (s *State) territoryValue(p, t int) int {
	mine := s.pl[p].terr[t]
	others := s.occupiers(t)
	if mine > 0 {
		others--
	}
	if others >= 2 || s.occupancy(t) >= s.cfg.r.OccupationSlots {
		return 0
	}
	bonus := 0
	if s.cfg.isMine(t) && !s.holdsMine(p) {
		bonus = 3
	}
	if others == 1 {
		// A thin rival presence is worth contesting: bring one pawn more
		// than they can count in a fight, then attack.
		k := 0
		for q := range s.pl {
			if q != p {
				k += s.pl[q].terr[t]
			}
		}
		need := k + 1
		if lv := s.level(k); lv > 0 {
			need += s.cfg.r.DefenceBonus[lv-1]
		}
		if k <= 2 && mine < need {
			return 4 + bonus/3
		}
		if mine > 0 {
			return 0
		}
		return 1 + bonus/3 // sharing still pays a Resource and Pact cards
	}
	switch {
	case mine == 0:
		return 6 + bonus
	case mine < s.cfg.r.Levels[2] && !s.cfg.isMine(t):
		return 5 - mine
	}
	return 0
}

func (s *State) holdsMine(p int) bool {
	for t := 0; t < s.cfg.T; t++ {
		if s.cfg.isMine(t) && s.pl[p].terr[t] > 0 {
			return true
		}
	}
	return false
}

func addCost(a, b [nRes]int) [nRes]int {
	for i := range a {
		a[i] += b[i]
	}
	return a
}

func (s *State) botMain(p int, legal []engine.Action, smart bool) engine.Action {
	pl := &s.pl[p]
	c := s.cfg
	roadPawns := pl.start
	for i := range pl.road {
		roadPawns += pl.road[i]
	}
	promotable := false
	for t := range pl.terr {
		promotable = promotable || pl.terr[t]-pl.fresh[t] > 0
	}
	// Save for the Capital when a pawn is ready and Diamonds can come.
	var reserve [nRes]int
	diamondsOK := pl.res[Diamond] >= c.promote[Diamond] || s.holdsMine(p)
	if promotable && s.capitalUsed() < c.r.CapitalSlots && diamondsOK {
		reserve = c.promote
	}
	afford := func(cost [nRes]int) bool { return s.canPay(p, addCost(cost, reserve)) }
	fight, canFight := engine.Action{}, false
	if smart {
		fight, canFight = s.bestAttack(p, legal)
	}
	if has(legal, act(opPass)) && !canFight && roadPawns == 0 && !s.canPay(p, c.promote) && !s.canPay(p, c.building) && !s.canPay(p, c.buyIP) && !s.usefulCard(p, legal) {
		return act(opPass)
	}
	// Cards from hand.
	for _, l := range legal {
		if l.Op != opEcon {
			continue
		}
		switch c.decks[econDeck][max(s.argKind(l.Args[0], p), 0)].Key {
		case kEviction:
			t, q := int(l.Args[1]), int(l.Args[2])
			if s.pl[q].terr[t] == 1 && (pl.terr[t] > 0 || !s.shared(t) && s.pl[q].src[srcDominance] > 0) {
				return l
			}
		case kExpress:
			if roadPawns > 0 {
				return l
			}
		default:
			return l
		}
	}
	if smart {
		if canFight {
			return fight
		}
		if l, ok := s.retreat(p, legal); ok {
			return l
		}
		if _, _, _, q, ok := s.tradeWish(p); ok && has(legal, act(opTrade, int32(q))) {
			return act(opTrade, int32(q))
		}
		if promotable && s.capitalUsed() < c.r.CapitalSlots {
			if l, ok := s.bankToward(p, c.promote, legal); ok {
				return l
			}
		}
	}
	// Promote from the Territory where we hold the most pawns.
	bestT, bestK := -1, 0
	for _, l := range legal {
		if l.Op == opPromote {
			t := int(l.Args[0])
			if k := pl.terr[t]; k > bestK {
				bestT, bestK = t, k
			}
		}
	}
	if bestT >= 0 {
		return act(opPromote, int32(bestT))
	}
	if has(legal, act(opBuyIP)) && (afford(c.buyIP) || s.totalRes(p) >= 14 || pl.ip+1 >= s.winIP) {
		return act(opBuyIP)
	}
	// Build, completing sets first.
	bestT, bestV := -1, 0
	for _, l := range legal {
		if l.Op == opBuild {
			t := int(l.Args[0])
			v := 1 + s.ownBuildings(p, t)*2
			if !s.shared(t) {
				v++
			}
			if v > bestV {
				bestT, bestV = t, v
			}
		}
	}
	if bestT >= 0 && (afford(c.building) || bestV >= 3) {
		return act(opBuild, int32(bestT))
	}
	// Fight when the count says we win.
	for _, l := range legal {
		if smart {
			break
		}
		if l.Op != opAttack {
			continue
		}
		loc, q := int(l.Args[0]), int(l.Args[1])
		as := s.pawnsAt(p, loc) + s.bestMilBonus(p, loc)
		ds := s.pawnsAt(q, loc)
		if loc < c.T {
			if lv := s.level(ds); lv > 0 {
				ds += c.r.DefenceBonus[lv-1]
			}
		}
		if s.handCount(q, milDeck) > 0 {
			ds += 2
		}
		if as > ds {
			return l
		}
	}
	// Occupy good land within reach.
	bestT, bestV = -1, 0
	for _, l := range legal {
		if l.Op == opEnter {
			t := int(l.Args[0])
			if v := s.landValue(p, t, smart); v > bestV {
				bestT, bestV = t, v
			}
		}
	}
	if bestT >= 0 {
		return act(opEnter, int32(bestT))
	}
	if s.active(p) < 8 && has(legal, act(opBuyPawn)) && afford(c.pawn) {
		return act(opBuyPawn)
	}
	if s.totalRes(p) >= 10 {
		d := econDeck
		if s.handCount(p, milDeck) < 1 {
			d = milDeck
		}
		if (d == milDeck || s.handCount(p, econDeck) < 2) && has(legal, act(opBuyCard, int32(d))) && afford(c.cards[d]) {
			return act(opBuyCard, int32(d))
		}
	}
	if smart && s.handCount(p, milDeck) == 0 && s.contested(p) && has(legal, act(opBuyCard, milDeck)) && afford(c.cards[milDeck]) {
		return act(opBuyCard, milDeck)
	}
	if mv, ok := s.botMove(p, legal, smart); ok {
		return mv
	}
	// Turn a surplus into what the plan lacks most.
	need := addCost(c.promote, c.building)
	most, least := -1, -1
	for r := 0; r < Diamond; r++ {
		if most < 0 || pl.res[r]-need[r] > pl.res[most]-need[most] {
			most = r
		}
		if least < 0 || pl.res[r]-need[r] < pl.res[least]-need[least] {
			least = r
		}
	}
	if pl.res[most] >= c.r.BankRate+need[most] && pl.res[least] < need[least] && has(legal, act(opBank, int32(most), int32(least))) {
		return act(opBank, int32(most), int32(least))
	}
	return act(opEnd)
}

// usefulCard says whether p holds an Economic Card worth more than a
// Reward Roll right now.
func (s *State) usefulCard(p int, legal []engine.Action) bool {
	for _, l := range legal {
		if l.Op != opEcon {
			continue
		}
		switch s.cfg.decks[econDeck][max(s.argKind(l.Args[0], p), 0)].Key {
		case kEviction, kExpress:
		default:
			return true
		}
	}
	return false
}

// bestMilBonus is the largest Strength bonus p's playable cards give an
// attacker at loc.
func (s *State) bestMilBonus(p, loc int) int {
	best := 0
	hc := s.counts(p, milDeck)
	for k := range s.cfg.decks[milDeck] {
		if hc[k] == 0 {
			continue
		}
		if s.inRange(p, milDeck, k) {
			if b := s.cardBonus(k, p, loc, true); b > best {
				best = b
			}
		}
	}
	return best
}

// botMove steps the road pawn that is nearest a worthwhile Territory it
// can still reach this turn; failing that, one that can cross START for
// the bonus; failing that, the pawn nearest START.
func (s *State) botMove(p int, legal []engine.Action, smart bool) (engine.Action, bool) {
	c := s.cfg
	R := c.R
	bestPos, bestD := -2, 1<<30
	crossPos, crossD := -2, 1<<30
	anyPos, anyD := -2, 1<<30
	canEnter := s.canPay(p, c.enter)
	for _, l := range legal {
		if l.Op != opMove {
			continue
		}
		pos := int(l.Args[0])
		for t := 0; t < c.T; t++ {
			if s.landValue(p, t, smart) < 3 || !canEnter {
				continue
			}
			d := c.troad[t] - pos
			if pos == -1 {
				d = c.troad[t] + 1
			}
			if d <= 0 {
				d += R
			}
			if d*c.r.StepMP+c.r.EnterMP <= s.mp && d < bestD {
				bestPos, bestD = pos, d
			}
		}
		if pos >= 0 {
			d := R - pos
			if !s.bonusTaken && d*c.r.StepMP <= s.mp && d < crossD {
				crossPos, crossD = pos, d
			}
			if d < anyD {
				anyPos, anyD = pos, d
			}
		} else if anyPos == -2 {
			anyPos, anyD = -1, R+1
		}
	}
	pact := 0
	for t := 0; t < c.T; t++ {
		if s.pl[p].terr[t] > 0 && s.shared(t) {
			pact++
		}
	}
	switch {
	case smart && pact > 0 && crossPos != -2:
		return act(opMove, int32(crossPos)), true // the bonus and a card per shared Territory
	case bestPos != -2:
		return act(opMove, int32(bestPos)), true
	case crossPos != -2:
		return act(opMove, int32(crossPos)), true
	case anyPos != -2:
		return act(opMove, int32(anyPos)), true
	}
	return engine.Action{}, false
}
