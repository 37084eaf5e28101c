package serpentcity

import (
	"strings"

	"github.com/boardmesh/boardmesh/engine"
)

func seatName(p int) string { return "Seat " + itoa(p+1) }

var deckNames = [2]string{"Economic", "Military"}

func amountText(a [nRes]int) string {
	var parts []string
	for r, n := range a {
		if n > 0 {
			parts = append(parts, itoa(n)+" "+resNames[r])
		}
	}
	if len(parts) == 0 {
		return "nothing"
	}
	return strings.Join(parts, ", ")
}

func (s *State) locName(loc int) string {
	if loc == s.cfg.T {
		return "the Capital"
	}
	if loc < 0 || loc >= s.cfg.T {
		return "nowhere"
	}
	return s.cfg.r.Territories[loc].Name
}

func (s *State) cardName(d, k int) string {
	if k < 0 || k >= len(s.cfg.decks[d]) {
		return "an unknown card"
	}
	return s.cfg.decks[d][k].Name
}

// namedCardName is the name of the card an action names by its handle, as
// seat may know it, or as after (the state after the move, nil if none)
// shows it to everyone: else "a card from the hand" (another seat's card
// on a secret table before the move shows it, a defender's card that
// Ambush keeps unseen).
func (s *State) namedCardName(d int, arg int32, seat int, after *State) string {
	k := s.argKind(arg, seat)
	if k < 0 && after != nil {
		k = after.argKind(arg, engine.Public)
	}
	if k >= 0 && k < len(s.cfg.decks[d]) {
		return s.cfg.decks[d][k].Name
	}
	return article(deckNames[d]) + " Card from the hand"
}

// Describe says in a player's words what a would do, as the seat to act
// knows it (its menu).
func (s *State) Describe(a engine.Action) string {
	seat := engine.Public
	if who := s.ToAct(); who.Kind == engine.ActorSeat {
		seat = who.Seat
	}
	return s.describe(a, seat, nil)
}

// describe is Describe as seat may know the cards a names (after: the
// state after the move, for the cards it showed everyone).
func (s *State) describe(a engine.Action, seat int, after *State) string {
	c := s.cfg
	r := &c.r
	arg := func(i int) int {
		if i < len(a.Args) {
			return int(a.Args[i])
		}
		return -99
	}
	res := func(i int) string {
		if i < 0 || i >= nRes {
			return "?"
		}
		return resNames[i]
	}
	switch a.Op {
	case opMove:
		if arg(0) == -1 {
			return "Move a pawn from START to Road space 1"
		}
		to := arg(0) + 1
		if to == c.R {
			return "Move a pawn from Road space " + itoa(arg(0)+1) + " across START to space 1"
		}
		return "Move a pawn from Road space " + itoa(arg(0)+1) + " to space " + itoa(to+1)
	case opEnter:
		return "Occupy " + s.locName(arg(0)) + " (" + itoa(r.EnterMP) + " MP, " + amountText(c.enter) + ")"
	case opLeave:
		return "Return a pawn from " + s.locName(arg(0)) + " to the Road (" + itoa(r.LeaveMP) + " MP, " + amountText(c.leave) + ")"
	case opPromote:
		return "Promote a pawn from " + s.locName(arg(0)) + " to the Capital (" + itoa(r.PromoteMP) + " MP, " + amountText(c.promote) + ")"
	case opBuyPawn:
		return "Buy a pawn onto START (" + amountText(c.pawn) + ")"
	case opBuild:
		return "Build on " + s.locName(arg(0)) + " (" + amountText(c.building) + ")"
	case opBuyCard:
		if arg(0) == 0 || arg(0) == 1 {
			return "Buy a random " + deckNames[arg(0)] + " Card (" + amountText(c.cards[arg(0)]) + ")"
		}
	case opBuyIP:
		return "Buy 1 Influence Point (" + amountText(c.buyIP) + ")"
	case opBank:
		return "Trade " + itoa(r.BankRate) + " " + res(arg(0)) + " to the bank for 1 " + res(arg(1))
	case opTrade:
		return "Offer a trade to " + seatName(arg(0))
	case opEcon:
		if len(a.Args) > 0 {
			name := "Play " + s.namedCardName(econDeck, a.Args[0], seat, after)
			if len(a.Args) == 3 {
				name += ": send " + seatName(arg(2)) + "'s pawn on " + s.locName(arg(1)) + " back to the Road"
			}
			return name
		}
	case opAttack:
		return "Attack " + seatName(arg(1)) + " in " + s.locName(arg(0))
	case opEnd:
		return "End the turn"
	case opPass:
		return "Pass: give up moving and acting this turn for a Reward Roll"
	case opPick:
		if arg(0) == 0 || arg(0) == 1 {
			return "Take a card from the " + deckNames[arg(0)] + " deck"
		}
	case opMil:
		if len(a.Args) > 0 {
			return "Play " + s.namedCardName(milDeck, a.Args[0], seat, after)
		}
	case opNoCard:
		return "Play no Military Card"
	case opForced:
		return "Attack " + seatName(arg(0)) + " in " + s.locName(s.cLoc) + " (forced conflict)"
	case opOffer:
		return "Offer " + itoa(arg(1)) + " " + res(arg(0)) + " for 1 " + res(arg(2))
	case opCancel:
		return "Withdraw the trade offer"
	case opAccept:
		return "Accept: give 1 " + res(s.tGet) + " for " + itoa(s.tGiveN) + " " + res(s.tGive)
	case opDecline:
		return "Decline the trade"
	}
	return "Unknown action " + a.String()
}
