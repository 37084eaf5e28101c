package dominion

import (
	"strings"
	"testing"

	"github.com/boardmesh/boardmesh/engine"
)

// One test per Kingdom card, each from a position with known cards.

func TestCellar(t *testing.T) {
	s := table(t, 2, Cellar)
	give(s, 0, &s.p[0].hand, Cellar, Estate, Estate, Copper)
	deck(s, 0, Silver, Gold, Duchy)
	do(t, s, 0, play(Cellar), pick(Estate), pick(Estate), done)
	wantZone(t, "hand", s.zc(0, s.p[0].hand), Copper, Silver, Gold)
	wantZone(t, "discard", s.zc(0, s.p[0].disc), Estate, Estate)
	wantTop(t, s, 0, Duchy)
	if s.actions != 1 {
		t.Errorf("actions %d, want 1 (Cellar gives +1 Action)", s.actions)
	}
}

func TestChapel(t *testing.T) {
	s := table(t, 2, Chapel)
	give(s, 0, &s.p[0].hand, Chapel, Copper, Copper, Copper, Estate, Estate)
	do(t, s, 0, play(Chapel), pick(Estate), pick(Estate), pick(Copper), pick(Copper))
	// Four cards trashed: the choice ends by itself.
	if s.ask != askMain {
		t.Fatalf("still asked %q after trashing 4", s.prompt())
	}
	wantZone(t, "trash", s.trash, Estate, Estate, Copper, Copper)
	wantZone(t, "hand", s.zc(0, s.p[0].hand), Copper)

	s = table(t, 2, Chapel)
	give(s, 0, &s.p[0].hand, Chapel, Copper, Estate)
	do(t, s, 0, play(Chapel), pick(Estate), done)
	wantZone(t, "trash", s.trash, Estate)
	wantZone(t, "hand", s.zc(0, s.p[0].hand), Copper)
}

func TestMoatDraws(t *testing.T) {
	s := table(t, 2, Moat)
	give(s, 0, &s.p[0].hand, Moat)
	deck(s, 0, Copper, Silver, Gold)
	do(t, s, 0, play(Moat))
	wantZone(t, "hand", s.zc(0, s.p[0].hand), Copper, Silver)
	if s.actions != 0 {
		t.Errorf("actions %d, want 0", s.actions)
	}
}

func TestHarbinger(t *testing.T) {
	s := table(t, 2, Harbinger)
	give(s, 0, &s.p[0].hand, Harbinger)
	give(s, 0, &s.p[0].disc, Gold, Copper)
	deck(s, 0, Estate)
	do(t, s, 0, play(Harbinger))
	if got := pickable(s); len(got) != 2 {
		t.Fatalf("Harbinger offers %v, want the 2 cards of the discard pile", names(got))
	}
	do(t, s, 0, pick(Gold))
	wantTop(t, s, 0, Gold)
	wantZone(t, "discard", s.zc(0, s.p[0].disc), Copper)
	wantZone(t, "hand", s.zc(0, s.p[0].hand), Estate)
	if s.actions != 1 {
		t.Errorf("actions %d, want 1", s.actions)
	}
	// An empty discard pile asks nothing.
	s = table(t, 2, Harbinger)
	give(s, 0, &s.p[0].hand, Harbinger)
	deck(s, 0, Estate)
	do(t, s, 0, play(Harbinger))
	if s.ask != askMain {
		t.Fatalf("asked %q with an empty discard pile", s.prompt())
	}
}

func TestMerchantWithoutSilver(t *testing.T) {
	s := table(t, 2, Merchant)
	give(s, 0, &s.p[0].hand, Merchant, Copper, Copper, Copper)
	deck(s, 0, Copper)
	do(t, s, 0, play(Merchant), act(opAllTreasures))
	if s.coins != 4 {
		t.Errorf("coins %d, want 4 (no Silver, no bonus)", s.coins)
	}
}

func TestMerchantWithTwoSilvers(t *testing.T) {
	s := table(t, 2, Merchant)
	give(s, 0, &s.p[0].hand, Merchant, Silver, Silver, Copper)
	deck(s, 0, Estate)
	do(t, s, 0, play(Merchant), act(opTreasure, Silver))
	if s.coins != 3 {
		t.Fatalf("coins %d after the first Silver, want 3", s.coins)
	}
	do(t, s, 0, act(opTreasure, Silver), act(opTreasure, Copper))
	if s.coins != 6 {
		t.Errorf("coins %d, want 6: only the first Silver gets +$1", s.coins)
	}
}

func TestMerchantThroneRoomed(t *testing.T) {
	s := table(t, 2, Merchant, ThroneRoom)
	give(s, 0, &s.p[0].hand, ThroneRoom, Merchant, Silver)
	deck(s, 0, Estate, Estate)
	do(t, s, 0, play(ThroneRoom), pick(Merchant), act(opTreasure, Silver))
	if s.coins != 4 {
		t.Errorf("coins %d, want 4: two Merchant plays each give +$1 on the first Silver", s.coins)
	}
}

func TestVassalPlaysAnAction(t *testing.T) {
	s := table(t, 2, Vassal, Village)
	give(s, 0, &s.p[0].hand, Vassal)
	deck(s, 0, Village, Copper, Estate)
	do(t, s, 0, play(Vassal))
	if s.ask != askVassal || !legalHas(s, yes) {
		t.Fatalf("Vassal discarding a Village asks %q", s.prompt())
	}
	wantZone(t, "discard", s.zc(0, s.p[0].disc), Village)
	do(t, s, 0, yes)
	wantZone(t, "play", s.zc(0, s.p[0].play), Vassal, Village)
	wantZone(t, "hand", s.zc(0, s.p[0].hand), Copper)
	wantZone(t, "discard", s.zc(0, s.p[0].disc))
	if s.actions != 2 || s.coins != 2 {
		t.Errorf("actions %d coins %d, want 2 and 2 (Village played without using an Action)", s.actions, s.coins)
	}
}

func TestVassalNonAction(t *testing.T) {
	s := table(t, 2, Vassal)
	give(s, 0, &s.p[0].hand, Vassal)
	deck(s, 0, Estate)
	do(t, s, 0, play(Vassal))
	if s.ask != askMain {
		t.Fatalf("Vassal discarding an Estate asks %q", s.prompt())
	}
	wantZone(t, "discard", s.zc(0, s.p[0].disc), Estate)
	// Declining leaves the Action card in the discard pile.
	s = table(t, 2, Vassal, Smithy)
	give(s, 0, &s.p[0].hand, Vassal)
	deck(s, 0, Smithy)
	do(t, s, 0, play(Vassal), done)
	wantZone(t, "discard", s.zc(0, s.p[0].disc), Smithy)
	wantZone(t, "play", s.zc(0, s.p[0].play), Vassal)
}

func TestVillage(t *testing.T) {
	s := table(t, 2, Village)
	give(s, 0, &s.p[0].hand, Village)
	deck(s, 0, Copper)
	do(t, s, 0, play(Village))
	wantZone(t, "hand", s.zc(0, s.p[0].hand), Copper)
	if s.actions != 2 {
		t.Errorf("actions %d, want 2", s.actions)
	}
}

func TestWorkshop(t *testing.T) {
	s := table(t, 2, Workshop)
	give(s, 0, &s.p[0].hand, Workshop)
	do(t, s, 0, play(Workshop))
	for _, c := range pickable(s) {
		if cards[c].cost > 4 {
			t.Errorf("Workshop offers %s costing %d", cards[c].name, cards[c].cost)
		}
	}
	refused(t, s, 0, pick(Duchy))
	before := s.supply[Silver]
	do(t, s, 0, pick(Silver))
	wantZone(t, "discard", s.zc(0, s.p[0].disc), Silver)
	if s.supply[Silver] != before-1 {
		t.Errorf("Silver pile %d, want %d", s.supply[Silver], before-1)
	}
}

func TestBureaucrat(t *testing.T) {
	s := table(t, 3, Bureaucrat)
	give(s, 0, &s.p[0].hand, Bureaucrat)
	give(s, 1, &s.p[1].hand, Estate, Duchy, Copper)
	give(s, 2, &s.p[2].hand, Copper, Copper, Copper, Copper, Copper) // no Victory card
	do(t, s, 0, play(Bureaucrat))
	wantTop(t, s, 0, Silver)
	wantActor(t, s, engine.SeatActor(1))
	refused(t, s, 1, pick(Copper))
	do(t, s, 1, pick(Duchy))
	wantTop(t, s, 1, Duchy)
	wantZone(t, "seat 2 hand", s.zc(1, s.p[1].hand), Estate, Copper)
	// Seat 3 reveals a hand with no Victory card: it is asked (no other
	// peer of a secret table knows the hand) and may only reveal it.
	wantActor(t, s, engine.SeatActor(2))
	if len(pickable(s)) != 0 {
		t.Fatalf("seat 3 may put %v onto its deck", names(pickable(s)))
	}
	refused(t, s, 2, pick(Copper))
	if nar := s.Narrate(s.applied(t, 2, done), engine.SeatActor(2), done, 0); !strings.Contains(nar.What, "5×Copper") {
		t.Errorf("seat 1 is told %q: the revealed hand is not named", nar.What)
	}
	do(t, s, 2, done)
	wantActor(t, s, engine.SeatActor(0))
	wantZone(t, "seat 3 hand", s.zc(2, s.p[2].hand), Copper, Copper, Copper, Copper, Copper)
	wantTop(t, s, 2)
}

func TestBureaucratOneKindOfVictory(t *testing.T) {
	s := table(t, 2, Bureaucrat)
	give(s, 0, &s.p[0].hand, Bureaucrat)
	give(s, 1, &s.p[1].hand, Estate, Estate, Copper)
	do(t, s, 0, play(Bureaucrat))
	// One kind of Victory card: asked all the same, with one answer.
	wantActor(t, s, engine.SeatActor(1))
	if got := pickable(s); len(got) != 1 || got[0] != Estate {
		t.Fatalf("seat 2 may pick %v, want the Estate alone", names(got))
	}
	do(t, s, 1, pick(Estate))
	wantActor(t, s, engine.SeatActor(0))
	wantTop(t, s, 1, Estate)
	wantZone(t, "seat 2 hand", s.zc(1, s.p[1].hand), Estate, Copper)
}

func TestGardensCounting(t *testing.T) {
	s := table(t, 2, Gardens)
	p := &s.p[0]
	give(s, 0, &p.hand, Gardens, Copper, Copper)
	give(s, 0, &p.disc, Gardens)
	deck(s, 0, Copper, Copper, Copper)
	p.own[Copper] += 32 // owned, wherever they are
	// 2 Gardens + 37 Coppers = 39 cards: 3 VP each.
	if got := s.score(0); got != 6 {
		t.Fatalf("39 cards with 2 Gardens score %d, want 6", got)
	}
	give(s, 0, &p.play, Copper)
	if got := s.score(0); got != 8 {
		t.Fatalf("40 cards with 2 Gardens score %d, want 8", got)
	}
	if s.supply[Gardens] != 8 {
		t.Errorf("Gardens pile %d in a 2-player game, want 8 like the other Victory piles", s.supply[Gardens])
	}
}

func TestMilitia(t *testing.T) {
	s := table(t, 3, Militia)
	give(s, 0, &s.p[0].hand, Militia)
	give(s, 1, &s.p[1].hand, Copper, Copper, Copper, Estate, Estate)
	give(s, 2, &s.p[2].hand, Copper, Silver, Gold)
	do(t, s, 0, play(Militia))
	if s.coins != 2 {
		t.Errorf("coins %d, want 2", s.coins)
	}
	wantActor(t, s, engine.SeatActor(1))
	refused(t, s, 0, pick(Copper))
	do(t, s, 1, pick(Estate), pick(Estate))
	wantZone(t, "seat 2 hand", s.zc(1, s.p[1].hand), Copper, Copper, Copper)
	wantZone(t, "seat 2 discard", s.zc(1, s.p[1].disc), Estate, Estate)
	// Seat 3 already has 3 cards.
	wantActor(t, s, engine.SeatActor(0))
	wantZone(t, "seat 3 hand", s.zc(2, s.p[2].hand), Copper, Silver, Gold)
}

func TestMoneylender(t *testing.T) {
	s := table(t, 2, Moneylender)
	give(s, 0, &s.p[0].hand, Moneylender, Copper, Copper)
	do(t, s, 0, play(Moneylender), yes)
	wantZone(t, "trash", s.trash, Copper)
	wantZone(t, "hand", s.zc(0, s.p[0].hand), Copper)
	if s.coins != 3 {
		t.Errorf("coins %d, want 3", s.coins)
	}
}

func TestMoneylenderWithoutCopper(t *testing.T) {
	s := table(t, 2, Moneylender)
	give(s, 0, &s.p[0].hand, Moneylender, Silver)
	do(t, s, 0, play(Moneylender))
	// Asked all the same (no other peer of a secret table knows the hand),
	// with "no" the only answer.
	if s.ask != askMoneylender || legalHas(s, yes) {
		t.Fatalf("Moneylender with no Copper: asked %q, may trash %v", s.prompt(), legalHas(s, yes))
	}
	refused(t, s, 0, yes)
	do(t, s, 0, done)
	if s.ask != askMain || s.coins != 0 {
		t.Fatalf("Moneylender with no Copper: asked %q, coins %d", s.prompt(), s.coins)
	}
	wantZone(t, "trash", s.trash)
}

func TestPoacherNoEmptyPile(t *testing.T) {
	s := table(t, 2, Poacher)
	give(s, 0, &s.p[0].hand, Poacher, Copper)
	deck(s, 0, Silver)
	do(t, s, 0, play(Poacher))
	if s.ask != askMain {
		t.Fatalf("Poacher with no empty pile asks %q", s.prompt())
	}
	wantZone(t, "hand", s.zc(0, s.p[0].hand), Copper, Silver)
	if s.actions != 1 || s.coins != 1 {
		t.Errorf("actions %d coins %d, want 1 and 1", s.actions, s.coins)
	}
}

func TestPoacherWithEmptyPiles(t *testing.T) {
	s := table(t, 2, Poacher)
	s.supply[Curse], s.supply[Estate] = 0, 0
	give(s, 0, &s.p[0].hand, Poacher, Copper, Estate, Gold)
	deck(s, 0, Silver)
	do(t, s, 0, play(Poacher), pick(Estate), pick(Copper))
	wantZone(t, "hand", s.zc(0, s.p[0].hand), Gold, Silver)
	wantZone(t, "discard", s.zc(0, s.p[0].disc), Estate, Copper)
	// More empty piles than cards in hand: discard what there is.
	s = table(t, 2, Poacher)
	s.supply[Curse], s.supply[Estate], s.supply[Duchy] = 0, 0, 0
	give(s, 0, &s.p[0].hand, Poacher)
	deck(s, 0, Silver)
	do(t, s, 0, play(Poacher), pick(Silver)) // asked though forced: the hand is secret
	wantZone(t, "hand", s.zc(0, s.p[0].hand))
	wantZone(t, "discard", s.zc(0, s.p[0].disc), Silver)
	if s.ask != askMain {
		t.Fatalf("asked %q with an empty hand", s.prompt())
	}
}

func TestRemodel(t *testing.T) {
	s := table(t, 2, Remodel)
	give(s, 0, &s.p[0].hand, Remodel, Estate, Gold)
	do(t, s, 0, play(Remodel), pick(Estate))
	for _, c := range pickable(s) {
		if cards[c].cost > 4 {
			t.Errorf("Remodel of an Estate offers %s", cards[c].name)
		}
	}
	do(t, s, 0, pick(Silver))
	wantZone(t, "trash", s.trash, Estate)
	wantZone(t, "discard", s.zc(0, s.p[0].disc), Silver)
	wantZone(t, "hand", s.zc(0, s.p[0].hand), Gold)

	s = table(t, 2, Remodel)
	give(s, 0, &s.p[0].hand, Remodel, Gold)
	do(t, s, 0, play(Remodel), pick(Gold), pick(Province))
	wantZone(t, "trash", s.trash, Gold)
	wantZone(t, "discard", s.zc(0, s.p[0].disc), Province)
}

func TestSmithy(t *testing.T) {
	s := table(t, 2, Smithy)
	give(s, 0, &s.p[0].hand, Smithy)
	deck(s, 0, Copper, Silver, Gold, Estate)
	do(t, s, 0, play(Smithy))
	wantZone(t, "hand", s.zc(0, s.p[0].hand), Copper, Silver, Gold)
	wantTop(t, s, 0, Estate)
}

func TestThroneRoomSmithy(t *testing.T) {
	s := table(t, 2, ThroneRoom, Smithy)
	give(s, 0, &s.p[0].hand, ThroneRoom, Smithy)
	deck(s, 0, Copper, Copper, Copper, Copper, Copper, Copper, Estate)
	do(t, s, 0, play(ThroneRoom), pick(Smithy))
	wantZone(t, "hand", s.zc(0, s.p[0].hand), Copper, Copper, Copper, Copper, Copper, Copper)
	wantZone(t, "play", s.zc(0, s.p[0].play), ThroneRoom, Smithy)
	// With no Action in hand, Throne Room does nothing: it asks (no other
	// peer of a secret table knows the hand) with "none" the only answer.
	s = table(t, 2, ThroneRoom)
	give(s, 0, &s.p[0].hand, ThroneRoom, Copper)
	do(t, s, 0, play(ThroneRoom))
	if s.ask != askThrone || len(pickable(s)) != 0 {
		t.Fatalf("Throne Room with no Action asks %q, offers %v", s.prompt(), pickable(s))
	}
	do(t, s, 0, done)
	if s.ask != askMain {
		t.Fatalf("Throne Room with no Action asks %q", s.prompt())
	}
}

func TestThroneRoomThroneRoom(t *testing.T) {
	s := table(t, 2, ThroneRoom, Village, Smithy)
	give(s, 0, &s.p[0].hand, ThroneRoom, ThroneRoom, Village, Smithy)
	deck(s, 0, Copper, Copper, Copper, Copper, Copper, Copper, Copper, Copper, Estate)
	// The first Throne Room plays the second twice; each of those plays
	// another card twice.
	do(t, s, 0, play(ThroneRoom), pick(ThroneRoom), pick(Village), pick(Smithy))
	wantZone(t, "play", s.zc(0, s.p[0].play), ThroneRoom, ThroneRoom, Village, Smithy)
	wantZone(t, "hand", s.zc(0, s.p[0].hand), Copper, Copper, Copper, Copper, Copper, Copper, Copper, Copper)
	if s.actions != 4 {
		t.Errorf("actions %d, want 4 (Village played twice)", s.actions)
	}
}

func TestBanditGoldAndSilver(t *testing.T) {
	s := table(t, 2, Bandit)
	give(s, 0, &s.p[0].hand, Bandit)
	deck(s, 1, Gold, Silver, Estate)
	do(t, s, 0, play(Bandit))
	wantZone(t, "discard", s.zc(0, s.p[0].disc), Gold)
	wantActor(t, s, engine.SeatActor(1))
	if got := pickable(s); len(got) != 2 {
		t.Fatalf("Bandit offers %v, want Silver and Gold", names(got))
	}
	do(t, s, 1, pick(Silver))
	wantZone(t, "trash", s.trash, Silver)
	wantZone(t, "seat 2 discard", s.zc(1, s.p[1].disc), Gold)
	wantTop(t, s, 1, Estate)
	wantActor(t, s, engine.SeatActor(0))
}

func TestBanditOthers(t *testing.T) {
	s := table(t, 3, Bandit)
	give(s, 0, &s.p[0].hand, Bandit)
	deck(s, 1, Copper, Estate)
	deck(s, 2, Gold, Copper)
	do(t, s, 0, play(Bandit))
	// Copper is not trashed; a lone Gold is trashed without a question.
	wantZone(t, "seat 2 discard", s.zc(1, s.p[1].disc), Copper, Estate)
	wantZone(t, "seat 3 discard", s.zc(2, s.p[2].disc), Copper)
	wantZone(t, "trash", s.trash, Gold)
	wantActor(t, s, engine.SeatActor(0))
}

func TestCouncilRoom(t *testing.T) {
	s := table(t, 3, CouncilRoom)
	give(s, 0, &s.p[0].hand, CouncilRoom)
	deck(s, 0, Copper, Copper, Copper, Copper, Gold)
	deck(s, 1, Silver)
	deck(s, 2, Estate)
	do(t, s, 0, play(CouncilRoom))
	wantZone(t, "hand", s.zc(0, s.p[0].hand), Copper, Copper, Copper, Copper)
	wantZone(t, "seat 2 hand", s.zc(1, s.p[1].hand), Silver)
	wantZone(t, "seat 3 hand", s.zc(2, s.p[2].hand), Estate)
	if s.buys != 2 {
		t.Errorf("buys %d, want 2", s.buys)
	}
}

func TestFestival(t *testing.T) {
	s := table(t, 2, Festival)
	give(s, 0, &s.p[0].hand, Festival)
	do(t, s, 0, play(Festival))
	if s.actions != 2 || s.buys != 2 || s.coins != 2 {
		t.Errorf("actions/buys/coins %d/%d/%d, want 2/2/2", s.actions, s.buys, s.coins)
	}
}

func TestLaboratory(t *testing.T) {
	s := table(t, 2, Laboratory)
	give(s, 0, &s.p[0].hand, Laboratory)
	deck(s, 0, Gold, Silver, Copper)
	do(t, s, 0, play(Laboratory))
	wantZone(t, "hand", s.zc(0, s.p[0].hand), Gold, Silver)
	if s.actions != 1 {
		t.Errorf("actions %d, want 1", s.actions)
	}
}

func TestLibrarySetsAsideActions(t *testing.T) {
	s := table(t, 2, Library, Village, Smithy)
	give(s, 0, &s.p[0].hand, Library, Copper, Copper, Copper)
	deck(s, 0, Village, Copper, Smithy, Silver, Gold, Estate)
	do(t, s, 0, play(Library))
	if s.ask != askLibrary {
		t.Fatalf("Library drawing a Village asks %q", s.prompt())
	}
	// Until it is set aside, the drawn card is the drawer's secret.
	if v := s.View(1).(*View); len(v.Aside) != 0 {
		t.Errorf("another seat sees the card Library drew: %v", v.Aside)
	}
	do(t, s, 0, yes)
	// Every card drawn is asked about: a Copper may only be kept.
	if s.ask != askLibrary || legalHas(s, yes) {
		t.Fatalf("Library drawing a Copper: asked %q, may set aside %v", s.prompt(), legalHas(s, yes))
	}
	if v := s.View(1).(*View); len(v.Aside) != 1 || v.Aside[0] != "Village" {
		t.Errorf("another seat sees aside %v, want the set-aside Village", v.Aside)
	}
	refused(t, s, 0, yes)
	do(t, s, 0, done, done) // keep the Copper, keep the Smithy
	do(t, s, 0, done)       // keep the Silver
	do(t, s, 0, done)       // keep the Gold
	wantZone(t, "hand", s.zc(0, s.p[0].hand), Copper, Copper, Copper, Copper, Smithy, Silver, Gold)
	wantZone(t, "discard", s.zc(0, s.p[0].disc), Village)
	wantTop(t, s, 0, Estate)
	if len(s.aside) != 0 {
		t.Errorf("cards left aside: %v", s.aside)
	}
}

func TestLibraryRunsOutOfCards(t *testing.T) {
	s := table(t, 2, Library)
	give(s, 0, &s.p[0].hand, Library)
	deck(s, 0, Copper)
	do(t, s, 0, play(Library), done)
	wantZone(t, "hand", s.zc(0, s.p[0].hand), Copper)
	if s.ask != askMain {
		t.Fatalf("asked %q", s.prompt())
	}
}

func TestMarket(t *testing.T) {
	s := table(t, 2, Market)
	give(s, 0, &s.p[0].hand, Market)
	deck(s, 0, Estate)
	do(t, s, 0, play(Market))
	wantZone(t, "hand", s.zc(0, s.p[0].hand), Estate)
	if s.actions != 1 || s.buys != 2 || s.coins != 1 {
		t.Errorf("actions/buys/coins %d/%d/%d, want 1/2/1", s.actions, s.buys, s.coins)
	}
}

func TestMineToHand(t *testing.T) {
	s := table(t, 2, Mine)
	give(s, 0, &s.p[0].hand, Mine, Copper, Estate)
	do(t, s, 0, play(Mine), pick(Copper))
	got := pickable(s)
	if len(got) != 2 || got[0] != Copper || got[1] != Silver {
		t.Fatalf("Mine of a Copper offers %v, want Copper and Silver", names(got))
	}
	do(t, s, 0, pick(Silver))
	wantZone(t, "hand", s.zc(0, s.p[0].hand), Silver, Estate)
	wantZone(t, "trash", s.trash, Copper)
	// Mine may trash nothing.
	s = table(t, 2, Mine)
	give(s, 0, &s.p[0].hand, Mine, Silver)
	do(t, s, 0, play(Mine), done)
	wantZone(t, "hand", s.zc(0, s.p[0].hand), Silver)
}

func TestSentryTrashDiscard(t *testing.T) {
	s := table(t, 2, Sentry)
	give(s, 0, &s.p[0].hand, Sentry)
	deck(s, 0, Copper, Curse, Estate, Gold)
	do(t, s, 0, play(Sentry))
	wantZone(t, "hand", s.zc(0, s.p[0].hand), Copper)
	if len(pickableSentry(s)) != 6 {
		t.Fatalf("Sentry offers %d choices, want 3 for each of 2 cards", len(pickableSentry(s)))
	}
	// The look is private.
	if v := s.View(1).(*View); len(v.Aside) != 0 {
		t.Errorf("another seat sees the Sentry look: %v", v.Aside)
	}
	do(t, s, 0, act(opSentry, Curse, sentryTrash), act(opSentry, Estate, sentryDiscard))
	wantZone(t, "trash", s.trash, Curse)
	wantZone(t, "discard", s.zc(0, s.p[0].disc), Estate)
	wantTop(t, s, 0, Gold)
}

func TestSentryReorders(t *testing.T) {
	s := table(t, 2, Sentry)
	give(s, 0, &s.p[0].hand, Sentry)
	deck(s, 0, Copper, Silver, Gold, Estate)
	// Put back the Silver, then the Gold: the Gold ends on top.
	do(t, s, 0, play(Sentry), act(opSentry, Silver, sentryBack), act(opSentry, Gold, sentryBack))
	wantTop(t, s, 0, Gold, Silver, Estate)
	if s.actions != 1 {
		t.Errorf("actions %d, want 1", s.actions)
	}
}

func pickableSentry(s *State) []engine.Action {
	var out []engine.Action
	for _, l := range s.Legal(nil) {
		if l.Op == opSentry {
			out = append(out, l)
		}
	}
	return out
}

func TestWitch(t *testing.T) {
	s := table(t, 3, Witch)
	give(s, 0, &s.p[0].hand, Witch)
	deck(s, 0, Copper, Copper, Copper)
	do(t, s, 0, play(Witch))
	wantZone(t, "hand", s.zc(0, s.p[0].hand), Copper, Copper)
	wantZone(t, "seat 2 discard", s.zc(1, s.p[1].disc), Curse)
	wantZone(t, "seat 3 discard", s.zc(2, s.p[2].disc), Curse)
	if s.supply[Curse] != 18 {
		t.Errorf("Curses left %d, want 18", s.supply[Curse])
	}
}

func TestWitchCursesRunOut(t *testing.T) {
	s := table(t, 4, Witch)
	s.supply[Curse] = 1
	s.cur = 2 // the player after seat 3 is seat 4, then seats 1 and 2
	s.askSeat = 2
	give(s, 2, &s.p[2].hand, Witch)
	do(t, s, 2, play(Witch))
	wantZone(t, "seat 4 discard", s.zc(3, s.p[3].disc), Curse)
	wantZone(t, "seat 1 discard", s.zc(0, s.p[0].disc))
	wantZone(t, "seat 2 discard", s.zc(1, s.p[1].disc))
	if s.supply[Curse] != 0 {
		t.Errorf("Curses left %d", s.supply[Curse])
	}
}

func TestArtisan(t *testing.T) {
	s := table(t, 2, Artisan)
	give(s, 0, &s.p[0].hand, Artisan, Estate)
	do(t, s, 0, play(Artisan))
	for _, c := range pickable(s) {
		if cards[c].cost > 5 {
			t.Errorf("Artisan offers %s", cards[c].name)
		}
	}
	do(t, s, 0, pick(Duchy))
	wantZone(t, "hand", s.zc(0, s.p[0].hand), Estate, Duchy)
	do(t, s, 0, pick(Duchy))
	wantTop(t, s, 0, Duchy)
	wantZone(t, "hand", s.zc(0, s.p[0].hand), Estate)
	// With the gained card the only card in hand, it still is asked (the
	// engine answers no choice about a hand by itself).
	s = table(t, 2, Artisan)
	give(s, 0, &s.p[0].hand, Artisan)
	do(t, s, 0, play(Artisan), pick(Silver), pick(Silver))
	wantTop(t, s, 0, Silver)
	wantZone(t, "hand", s.zc(0, s.p[0].hand))
}
