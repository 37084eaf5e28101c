package serpentcity

import (
	"github.com/boardmesh/boardmesh/engine"
)

// Action ops. Arguments are listed with each.
const (
	opMove    = 1  // from: Road space, or -1 for START; one step clockwise
	opEnter   = 2  // territory: a road pawn on the touching space occupies it
	opLeave   = 3  // territory: an occupying pawn returns to the Road
	opPromote = 4  // territory: an occupying pawn moves into the Capital
	opBuyPawn = 5  // a new pawn on START
	opBuild   = 6  // territory
	opBuyCard = 7  // deck (0 Economic, 1 Military)
	opBuyIP   = 8  // one Influence Point for Resources
	opBank    = 9  // give, get: BankRate of one basic Resource for 1 of another
	opTrade   = 10 // partner: start wording an offer to that player
	opEcon    = 11 // kind [, territory, seat for Eviction]
	opAttack  = 12 // location (territory, or T for the Capital), defender
	opEnd     = 13 // end movement and actions
	opPass    = 14 // pass the whole turn for a Reward Roll
	opPick    = 15 // deck
	opMil     = 16 // kind: play a Military Card in the conflict
	opNoCard  = 17 // play no Military Card
	opForced  = 18 // defender of a forced conflict
	opOffer   = 19 // give, count, get
	opCancel  = 20 // withdraw the offer being worded
	opAccept  = 21
	opDecline = 22
)

func act(op uint16, args ...int32) engine.Action { return engine.Action{Op: op, Args: args} }

// Legal lists every legal action of the seat to act. Candidates are
// generated broadly and filtered by check, the one place that states the
// rules, so Legal and Apply cannot disagree.
func (s *State) Legal(dst []engine.Action) []engine.Action {
	who := s.ToAct()
	if who.Kind != engine.ActorSeat {
		return dst
	}
	p := who.Seat
	add := func(a engine.Action) {
		if s.check(p, a, nil) == "" {
			dst = append(dst, a)
		}
	}
	T := int32(s.cfg.T)
	switch s.ph {
	case phMain:
		add(act(opPass))
		pl := &s.pl[p]
		if pl.start > 0 {
			add(act(opMove, -1))
		}
		for i, k := range pl.road {
			if k > 0 {
				add(act(opMove, int32(i)))
			}
		}
		for t := int32(0); t < T; t++ {
			add(act(opEnter, t))
			if pl.terr[t] > 0 {
				add(act(opLeave, t))
				add(act(opPromote, t))
				add(act(opBuild, t))
			}
		}
		add(act(opBuyPawn))
		add(act(opBuyCard, econDeck))
		add(act(opBuyCard, milDeck))
		add(act(opBuyIP))
		for g := int32(0); g < Diamond; g++ {
			if pl.res[g] >= s.cfg.r.BankRate {
				for r := int32(0); r < Diamond; r++ {
					add(act(opBank, g, r))
				}
			}
		}
		for q := 0; q < s.n; q++ {
			add(act(opTrade, int32(q)))
		}
		hc := s.counts(p, econDeck)
		for k := range s.cfg.decks[econDeck] {
			if hc[k] == 0 {
				continue
			}
			h, _ := s.firstCopy(p, econDeck, k)
			if s.cfg.decks[econDeck][k].Key == kEviction {
				for t := int32(0); t < T; t++ {
					for q := 0; q < s.n; q++ {
						add(act(opEcon, h.Arg(), t, int32(q)))
					}
				}
			} else {
				add(act(opEcon, h.Arg()))
			}
		}
		for loc := int32(0); loc <= T; loc++ {
			if loc < T && pl.terr[loc] == 0 || loc == T && pl.capital == 0 {
				continue
			}
			for q := 0; q < s.n; q++ {
				add(act(opAttack, loc, int32(q)))
			}
		}
		add(act(opEnd))
	case phPick:
		add(act(opPick, econDeck))
		add(act(opPick, milDeck))
	case phAttCard, phDefCard:
		hc := s.counts(p, milDeck)
		for k := range s.cfg.decks[milDeck] {
			if hc[k] == 0 {
				continue
			}
			if a, ok := s.cardAct(opMil, p, milDeck, k); ok {
				add(a)
			}
		}
		add(act(opNoCard))
	case phForced:
		for q := 0; q < s.n; q++ {
			add(act(opForced, int32(q)))
		}
	case phOffer:
		for g := int32(0); g < nRes; g++ {
			for c := int32(1); c <= 2; c++ {
				for r := int32(0); r < nRes; r++ {
					add(act(opOffer, g, c, r))
				}
			}
		}
		add(act(opCancel))
	case phAnswer:
		add(act(opAccept))
		add(act(opDecline))
	}
	return dst
}

// Apply performs seat's action after checking it; a refused action leaves
// the state untouched. It is ApplyRevealed with no values: on an open
// table, or on the acting seat's own peer of a secret one, the cards the
// move shows are known.
func (s *State) Apply(seat int, a engine.Action) error { return s.ApplyRevealed(seat, a, nil) }

func nargs(a engine.Action, n int) bool { return len(a.Args) == n }

// check returns why seat may not take a now, or "" if it may. It never
// changes the state. shown nil: the card a move names is read as p knows
// it (Legal, an open table); otherwise shown holds the value the move
// shows (a secret table's check of a move, the same on every peer), and an
// unshown card's kind is not known.
func (s *State) check(p int, a engine.Action, shown []int) string {
	c := s.cfg
	r := &c.r
	T, R := c.T, c.R
	pl := &s.pl[p]
	inMain := s.ph == phMain
	arg := func(i int) int { return int(a.Args[i]) }
	switch a.Op {
	case opMove:
		if !inMain {
			return "you cannot move pawns now"
		}
		if !nargs(a, 1) || arg(0) < -1 || arg(0) >= R {
			return "no such Road space"
		}
		if arg(0) == -1 && pl.start == 0 {
			return "you have no pawn on START"
		}
		if arg(0) >= 0 && pl.road[arg(0)] == 0 {
			return "you have no pawn there that may still move this turn"
		}
		if s.mp < r.StepMP {
			return "not enough Movement Points"
		}
	case opEnter:
		if !inMain {
			return "you cannot occupy now"
		}
		if !nargs(a, 1) || arg(0) < 0 || arg(0) >= T {
			return "no such Territory"
		}
		t := arg(0)
		if pl.road[c.troad[t]] == 0 {
			return "you have no movable pawn on the Road space that touches " + r.Territories[t].Name
		}
		if s.mp < r.EnterMP {
			return "not enough Movement Points"
		}
		if s.occupancy(t) >= r.OccupationSlots {
			return r.Territories[t].Name + " has no free occupation slot"
		}
		if !s.canPay(p, c.enter) {
			return "you cannot pay for occupying"
		}
	case opLeave, opPromote:
		if !inMain {
			return "you cannot move pawns now"
		}
		if !nargs(a, 1) || arg(0) < 0 || arg(0) >= T {
			return "no such Territory"
		}
		t := arg(0)
		if pl.terr[t]-pl.fresh[t] <= 0 {
			return "you have no pawn there that was not moved this turn (a pawn that changed mode stops, and a pawn reaches the Capital only from a Territory held since an earlier turn)"
		}
		if a.Op == opLeave {
			if s.mp < r.LeaveMP {
				return "not enough Movement Points"
			}
			if !s.canPay(p, c.leave) {
				return "you cannot pay for returning to the Road"
			}
		} else {
			if s.mp < r.PromoteMP {
				return "not enough Movement Points"
			}
			if s.capitalUsed() >= r.CapitalSlots {
				return "the Capital is full"
			}
			if !s.canPay(p, c.promote) {
				return "you cannot pay for promotion to the Capital"
			}
		}
	case opBuyPawn:
		if !inMain || !nargs(a, 0) {
			return "you cannot buy a pawn now"
		}
		if s.active(p) >= pawnLimit(s.n) {
			return "you have the most active pawns allowed"
		}
		if pl.start >= r.StartSlots {
			return "your START slots are full"
		}
		if !s.canPay(p, c.pawn) {
			return "you cannot pay for a pawn"
		}
	case opBuild:
		if !inMain || !nargs(a, 1) || arg(0) < 0 || arg(0) >= T {
			return "you cannot build there"
		}
		t := arg(0)
		if c.isMine(t) {
			return "nothing can be built on a Diamond Mine"
		}
		if pl.terr[t] == 0 {
			return "you need an occupying pawn there to build"
		}
		if len(s.bld[t]) >= maxBuildings {
			return "a Territory holds at most 2 Buildings"
		}
		if s.occupancy(t) >= r.OccupationSlots {
			return "no occupation slot is free there"
		}
		if !s.canPay(p, c.building) {
			return "you cannot pay for a Building"
		}
	case opBuyCard:
		if !inMain || !nargs(a, 1) || arg(0) < 0 || arg(0) > 1 {
			return "you cannot buy that card now"
		}
		if s.deckLeft(arg(0)) == 0 {
			return "that deck is empty"
		}
		if !s.canPay(p, c.cards[arg(0)]) {
			return "you cannot pay for the card"
		}
	case opBuyIP:
		if !inMain || !nargs(a, 0) {
			return "you cannot buy Influence now"
		}
		if s.ipBuys >= r.IPPerTurn {
			return "you have bought all the Influence a turn allows"
		}
		if !s.canPay(p, c.buyIP) {
			return "you cannot pay for an Influence Point"
		}
	case opBank:
		if !inMain || !nargs(a, 2) || arg(0) < 0 || arg(0) >= Diamond || arg(1) < 0 || arg(1) >= Diamond || arg(0) == arg(1) {
			return "the bank trades one basic Resource for another"
		}
		if pl.res[arg(0)] < r.BankRate {
			return "you do not have enough of that Resource"
		}
	case opTrade:
		if !inMain || !nargs(a, 1) || arg(0) < 0 || arg(0) >= s.n || arg(0) == p {
			return "you cannot trade with that seat"
		}
		if s.offers >= r.TradeOffers {
			return "you have made all the trade offers a turn allows"
		}
		if s.pl[arg(0)].dropped {
			return "that player has left"
		}
		if s.totalRes(p) == 0 || s.totalRes(arg(0)) == 0 {
			return "one of you has nothing to trade"
		}
	case opEcon:
		return s.checkEcon(p, a, shown)
	case opAttack:
		if !inMain || !nargs(a, 2) || arg(0) < 0 || arg(0) > T || arg(1) < 0 || arg(1) >= s.n || arg(1) == p {
			return "you cannot attack that"
		}
		if s.conflictUsed {
			return "you have already started a conflict this turn"
		}
		loc, q := arg(0), arg(1)
		if loc < T {
			if pl.terr[loc] == 0 || s.pl[q].terr[loc] == 0 {
				return "both of you need occupying pawns on the Territory"
			}
			if s.entered[loc] {
				return "a pawn of yours entered this Territory this turn, so you cannot start a conflict here"
			}
		} else {
			if pl.capital == 0 || s.pl[q].capital == 0 {
				return "both of you need pawns in the Capital"
			}
			if s.capitalEntered {
				return "a pawn of yours entered the Capital this turn, so you cannot start a conflict there"
			}
		}
	case opEnd:
		if !inMain || !nargs(a, 0) {
			return "you cannot end the turn now"
		}
	case opPass:
		if !inMain || !nargs(a, 0) {
			return "you cannot pass now"
		}
		if s.acted {
			return "you may pass only before any move or action"
		}
		occ := false
		for _, k := range pl.terr {
			occ = occ || k > 0
		}
		if !occ {
			return "you may pass only with a pawn occupying a Territory"
		}
		if !s.doublePass && pl.passedLast {
			return "you passed last turn"
		}
	case opPick:
		if s.ph != phPick || !nargs(a, 1) || arg(0) < 0 || arg(0) > 1 {
			return "there is no card to pick now"
		}
		if s.deckLeft(arg(0)) == 0 {
			return "that deck is empty"
		}
	case opMil:
		if (s.ph != phAttCard && s.ph != phDefCard) || !nargs(a, 1) {
			return "you cannot play a Military Card now"
		}
		k, why := s.namedCard(p, milDeck, a.Args[0], shown)
		if why != "" {
			return why
		}
		if k < 0 {
			// The defender's card under Ambush: never shown, no effect, and
			// back to the hand; a peer that does not hold it can check only
			// that it is a Military Card of the hand.
			return ""
		}
		key := c.decks[milDeck][k].Key
		attacker := s.ph == phAttCard
		if attacker && key == kBarricade {
			return "Barricade is a defender's card"
		}
		if !attacker && (key == kAmbush || key == kSmall) {
			return "that card is an attacker's card"
		}
		if s.cLoc == T && (key == kConvoy || key == kTunnels) {
			return "Convoy and Tunnels do not work in the Capital"
		}
	case opNoCard:
		if (s.ph != phAttCard && s.ph != phDefCard) || !nargs(a, 0) {
			return "there is no conflict now"
		}
	case opForced:
		if s.ph != phForced || !nargs(a, 1) || arg(0) < 0 || arg(0) >= s.n || arg(0) == p {
			return "you cannot choose that defender"
		}
		if s.pl[arg(0)].terr[s.cLoc] == 0 {
			return "that player has no pawn on the Territory"
		}
	case opOffer:
		if s.ph != phOffer || !nargs(a, 3) || arg(0) < 0 || arg(0) >= nRes || arg(2) < 0 || arg(2) >= nRes || arg(0) == arg(2) || arg(1) < 1 || arg(1) > 2 {
			return "offer one or two of one Resource for one of another"
		}
		if pl.res[arg(0)] < arg(1) {
			return "you do not have what you offer"
		}
		if s.pl[s.tPartner].res[arg(2)] < 1 {
			return "your partner does not have what you ask for"
		}
	case opCancel:
		if s.ph != phOffer || !nargs(a, 0) {
			return "there is no offer to withdraw"
		}
	case opAccept, opDecline:
		if s.ph != phAnswer || !nargs(a, 0) {
			return "there is no offer to answer"
		}
	default:
		return "unknown action"
	}
	return ""
}

// namedCard reads the card a move names by its handle: a card of p's hand
// of deck d, whose kind is shown[0] (shown not nil: -1 if the move shows
// none) or as p knows it; on an open table the copy must be the first of
// its kind (the one Legal lists: one move, one encoding). It returns the
// kind, or why the move is refused.
func (s *State) namedCard(p, d int, arg int32, shown []int) (int, string) {
	h, ok := engine.HandleArg(arg)
	if !ok || s.inHand(p, d, h) < 0 {
		return -1, "you do not hold that card"
	}
	k := -1
	switch {
	case shown == nil:
		if k = s.kind(h, p); k < 0 {
			return -1, "that card is not yours to show"
		}
	case len(shown) > 0:
		k = shown[0]
	}
	if k >= len(s.cfg.decks[d]) {
		return -1, "no such card"
	}
	if k >= 0 && s.cards.Mode() == engine.CardsOpen {
		if f, _ := s.firstCopy(p, d, k); f != h {
			return -1, "name the first card of that kind in the hand"
		}
	}
	if k >= 0 && !s.inRange(p, d, k) {
		return -1, "your Influence is outside that card's range"
	}
	return k, ""
}

func (s *State) checkEcon(p int, a engine.Action, shown []int) string {
	if s.ph != phMain || len(a.Args) < 1 {
		return "you cannot play that card now"
	}
	if s.econPlayed {
		return "you have already played an Economic Card this turn"
	}
	k, why := s.namedCard(p, econDeck, a.Args[0], shown)
	if why != "" {
		return why
	}
	if k < 0 {
		return "an Economic Card is played face up"
	}
	switch s.cfg.decks[econDeck][k].Key {
	case kEviction:
		if !nargs(a, 3) {
			return "Eviction names a Territory and a player"
		}
		t, q := int(a.Args[1]), int(a.Args[2])
		if t < 0 || t >= s.cfg.T || q < 0 || q >= s.n || q == p {
			return "Eviction needs another player's pawn on a Territory"
		}
		if s.pl[q].terr[t] == 0 {
			return "that player has no pawn there"
		}
	case kRecruits:
		if !nargs(a, 1) {
			return "that card takes no choice"
		}
		if s.active(p) >= pawnLimit(s.n) || s.pl[p].start >= s.cfg.r.StartSlots {
			return "you have no room for recruits"
		}
	default:
		if !nargs(a, 1) {
			return "that card takes no choice"
		}
	}
	return ""
}
