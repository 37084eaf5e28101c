package serpentcity

import (
	"github.com/boardmesh/boardmesh/engine"
)

// do performs an action that check has accepted.
func (s *State) do(p int, a engine.Action) {
	c := s.cfg
	r := &c.r
	pl := &s.pl[p]
	arg := func(i int) int { return int(a.Args[i]) }
	if s.ph == phMain && a.Op != opEnd && a.Op != opPass {
		s.acted = true
	}
	switch a.Op {
	case opMove:
		s.mp -= r.StepMP
		from := arg(0)
		if from == -1 {
			pl.start--
			pl.road[0]++
		} else {
			pl.road[from]--
			to := from + 1
			if to == c.R {
				to = 0
			}
			pl.road[to]++
			if to == 0 {
				s.crossStart()
			}
		}
	case opEnter:
		t := arg(0)
		s.mp -= r.EnterMP
		s.pay(p, c.enter)
		pl.road[c.troad[t]]--
		pl.terr[t]++
		pl.fresh[t]++
		s.entered[t] = true
	case opLeave:
		t := arg(0)
		s.mp -= r.LeaveMP
		s.pay(p, c.leave)
		pl.terr[t]--
		pl.frozen[c.troad[t]]++
	case opPromote:
		t := arg(0)
		s.mp -= r.PromoteMP
		s.pay(p, c.promote)
		pl.terr[t]--
		pl.capital++
		s.capitalEntered = true
	case opBuyPawn:
		s.pay(p, c.pawn)
		pl.start++
	case opBuild:
		s.pay(p, c.building)
		s.bld[arg(0)] = append(s.bld[arg(0)], p)
	case opBuyCard:
		s.pay(p, c.cards[arg(0)])
		s.startDraw(p, arg(0))
	case opBuyIP:
		s.pay(p, c.buyIP)
		s.ipBuys++
		pl.ipBought++
	case opBank:
		pl.res[arg(0)] -= r.BankRate
		s.gain(p, arg(1), 1)
	case opTrade:
		s.offers++
		s.tPartner = arg(0)
		s.ph = phOffer
	case opOffer:
		s.tGive, s.tGiveN, s.tGet = arg(0), arg(1), arg(2)
		s.ph = phAnswer
	case opCancel:
		s.ph = phMain
	case opAccept:
		q := s.cur
		s.pl[q].res[s.tGive] -= s.tGiveN
		s.pl[s.tPartner].res[s.tGet]--
		s.gain(s.tPartner, s.tGive, s.tGiveN)
		s.gain(q, s.tGet, 1)
		s.ph = phMain
	case opDecline:
		s.ph = phMain
	case opEcon:
		s.playEcon(p, a)
	case opAttack:
		s.conflictUsed = true
		s.startConflict(arg(0), p, arg(1), false)
	case opForced:
		s.startConflict(s.cLoc, p, arg(0), true)
	case opEnd:
		s.ending = true
		s.continueEnd()
	case opPass:
		s.passed, s.ending = true, true
		s.ph, s.who = phReward, p
	case opPick:
		s.startDraw(s.who, arg(0))
	case opMil:
		// The card is public now (ApplyRevealed opened it), except the
		// defender's under Ambush: it has no effect and stays unknown.
		h, _ := engine.HandleArg(a.Args[0])
		k := -1
		if v, ok := s.cards.Public(h); ok {
			k = int(v)
		}
		if s.ph == phAttCard {
			s.cAttCard, s.cAttH = k, a.Args[0]
			s.ph = phDefCard
		} else {
			s.cDefCard, s.cDefH = k, a.Args[0]
			s.resolveConflict()
		}
	case opNoCard:
		if s.ph == phAttCard {
			s.cAttCard, s.cAttH = -1, -1
			s.ph = phDefCard
		} else {
			s.cDefCard, s.cDefH = -1, -1
			s.resolveConflict()
		}
	}
	s.settle()
}

func (s *State) playEcon(p int, a engine.Action) {
	h, _ := engine.HandleArg(a.Args[0])
	v, _ := s.cards.Public(h) // opened by ApplyRevealed
	spec := s.cfg.decks[econDeck][v]
	pl := &s.pl[p]
	s.removeFromHand(p, econDeck, h) // check found it there
	s.econPlayed = true
	permanent := false
	switch spec.Key {
	case kInvestor:
		pl.investor += spec.Value
		permanent = true
	case kArchitect:
		pl.architect = true
		permanent = true
	case kPatronage:
		pl.ipCard += spec.Value
	case kWindfall:
		for r := 0; r < Diamond; r++ {
			s.gain(p, r, spec.Value)
		}
	case kLevy:
		for q := range s.pl {
			if q == p {
				continue
			}
			best := -1
			for r := 0; r < Diamond; r++ {
				if s.pl[q].res[r] > 0 && (best < 0 || s.pl[q].res[r] > s.pl[q].res[best]) {
					best = r
				}
			}
			if best >= 0 {
				n := spec.Value
				if n > s.pl[q].res[best] {
					n = s.pl[q].res[best]
				}
				s.pl[q].res[best] -= n
				s.gain(p, best, n)
			}
		}
	case kEviction:
		t, q := int(a.Args[1]), int(a.Args[2])
		s.pl[q].terr[t]--
		if s.pl[q].fresh[t] > s.pl[q].terr[t] {
			s.pl[q].fresh[t] = s.pl[q].terr[t]
		}
		s.pl[q].road[s.cfg.troad[t]]++
	case kExpress:
		s.mp += spec.Value
	case kRecruits:
		for i := 0; i < spec.Value && s.active(p) < pawnLimit(s.n) && pl.start < s.cfg.r.StartSlots; i++ {
			pl.start++
		}
	}
	if !permanent {
		s.disc[econDeck] = append(s.disc[econDeck], h)
	}
}
