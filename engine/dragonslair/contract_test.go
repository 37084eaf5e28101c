package dragonslair

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/boardmesh/boardmesh/engine"
)

func TestApplyRefusesBadActionsAndChangesNothing(t *testing.T) {
	s := table(t, 3)
	refused(t, s, 1, engine.Action{Op: opDraw}, engine.ErrNotYourTurn)
	refused(t, s, 0, engine.Action{Op: opEscape}, engine.ErrIllegal)
	refused(t, s, 0, engine.Action{Op: 99}, engine.ErrIllegal)
	refused(t, s, 0, engine.Action{Op: opDraw, Args: []int32{1}}, engine.ErrIllegal)
	refused(t, s, 0, engine.Action{Op: opThief, Args: []int32{1}}, engine.ErrIllegal)
	if err := s.ApplyChance(beacon(1)); !errors.Is(err, engine.ErrNotChance) {
		t.Fatalf("chance bytes while seat 0 is to act: %v", err)
	}
	do(t, s, opDraw)
	refused(t, s, 0, engine.Action{Op: opDraw}, engine.ErrNotYourTurn)
	if err := s.ApplyChance(make([]byte, 31)); !errors.Is(err, engine.ErrShortBeacon) {
		t.Fatalf("a 31-byte beacon: %v", err)
	}
	err := refused(t, table(t, 3), 0, engine.Action{Op: opEscape}, engine.ErrIllegal)
	if !strings.Contains(err.Error(), "escape") || !strings.Contains(err.Error(), "Turn over the next card") {
		t.Fatalf("the error should say what was refused and what is allowed: %v", err)
	}
	over := table(t, 2, optRedField, "1")
	over.seats[1].score = 9
	bustTurn(t, over)
	passTurn(t, over)
	if over.phase != phaseOver {
		t.Fatal("the game did not end")
	}
	refused(t, over, 0, engine.Action{Op: opDraw}, engine.ErrGameOver)
}

func TestEveryLegalActionHasAPlainDescription(t *testing.T) {
	s := table(t, 3)
	s.seats[0].hero = heroBard
	s.seats[1].score = 6
	s.round = 3
	s.seats[0].hero = heroThief
	draws(t, s, cardCrown)
	for _, a := range s.Legal(nil) {
		d := s.Describe(a)
		if d == "" || strings.Contains(d, "unknown") || strings.Contains(d, "op") && !strings.Contains(d, "Thief") {
			t.Errorf("%v: %q", a, d)
		}
	}
	if d := s.Describe(engine.Action{Op: opEscape}); !strings.Contains(d, "Escape with 5 gold") {
		t.Errorf("escape description %q", d)
	}
	if d := s.Describe(engine.Action{Op: opThief, Args: []int32{1}}); !strings.Contains(d, "take 4 gold from seat 2") {
		t.Errorf("thief description %q", d)
	}
	if d := s.Describe(engine.Action{Op: 77}); !strings.Contains(d, "unknown") {
		t.Errorf("an unknown op is described as %q", d)
	}
}

func TestRenderShowsTheWholeTable(t *testing.T) {
	s := table(t, 4)
	s.seats[2].hero = heroKnight
	s.seats[1].score = 17
	draws(t, s, cardCrown, cardClink, cardCap, cardEgg)
	out := s.View(0).Render(80, false)
	for _, want := range []string{"Dragon", "/18", "Nest", "+8", "Crown", "Dragon Egg", "7 gold", "Clinking Coins",
		"Invisibility Cap", "Deck:", "seat 2", "17 gold", "Fearless Knight", "(you)", "turned over Dragon Egg", "Waiting for seat 1"} {
		if !strings.Contains(out, want) {
			t.Errorf("the board lacks %q:\n%s", want, out)
		}
	}
	for _, line := range strings.Split(out, "\n") {
		if len(line) > 80 {
			t.Errorf("line wider than 80: %q", line)
		}
	}
	if col := s.View(0).Render(80, true); !strings.Contains(col, "\x1b[") {
		t.Error("no colour with color=true")
	}
	b, err := json.Marshal(s.View(1))
	if err != nil || !strings.Contains(string(b), `"bag_value":7`) {
		t.Fatalf("view JSON: %s %v", b, err)
	}
}

func TestDropSkipsTheSeatAndItCannotWin(t *testing.T) {
	s := table(t, 3, optRedField, "3")
	s.seats[1].score = 50
	draws(t, s, cardCrown)
	if err := s.Drop(1); err != nil {
		t.Fatal(err)
	}
	if s.cur != 0 || s.phase != phaseCard {
		t.Fatal("dropping another seat should not disturb the turn")
	}
	do(t, s, opEscape)
	if s.cur != 2 {
		t.Fatalf("seat %d to act: the dropped seat 1 should be skipped", s.cur)
	}
	draws(t, s, cardCoin)
	if err := s.Drop(2); err != nil {
		t.Fatal(err)
	}
	if s.phase != phaseStart || s.cur != 0 || s.discard[cardCoin] != 1 {
		t.Fatalf("dropping the turn player should discard their cards and pass the turn: phase %d, seat %d", s.phase, s.cur)
	}
	if s.dragon != 1 {
		t.Fatalf("dragon %d: the round ended with the dropped seat's turn", s.dragon)
	}
	checkInvariant(t, s)
	if err := s.Drop(2); !errors.Is(err, engine.ErrIllegal) {
		t.Fatalf("dropping a seat twice: %v", err)
	}
	bustTurn(t, s)
	r := s.Result()
	if s.phase != phaseOver || len(r.Winners) != 1 || r.Winners[0] != 0 {
		t.Fatalf("result %+v: seat 1 has the most gold but left; seat 0 should win", r)
	}
	if err := s.Drop(0); !errors.Is(err, engine.ErrGameOver) {
		t.Fatalf("drop after the end: %v", err)
	}
}

func TestDropOfEveryoneEndsTheGame(t *testing.T) {
	s := table(t, 2)
	s.seats[1].score = 3
	if err := s.Drop(0); err != nil {
		t.Fatal(err)
	}
	if s.cur != 1 {
		t.Fatal("seat 1 should play on")
	}
	if err := s.Drop(1); err != nil {
		t.Fatal(err)
	}
	if s.phase != phaseOver || len(s.Result().Winners) == 0 {
		t.Fatal("the game should end with a result when everyone left")
	}
	checkInvariant(t, s)
}

func TestDropOfTheWizardAtTheRoundEnd(t *testing.T) {
	s := table(t, 2)
	s.seats[1].hero = heroWizard
	passTurn(t, s)
	passTurn(t, s)
	if err := s.Drop(1); err != nil {
		t.Fatal(err)
	}
	if s.dragon != 1 || s.phase != phaseStart || s.cur != 0 {
		t.Fatal("a dropped Wizard should let the dragon move and play go on")
	}
}

func TestDropOfEveryTiedPlayerLeavesTheRichestRemainingToWin(t *testing.T) {
	s := table(t, 3, optRedField, "1")
	bustTurn(t, s)
	passTurn(t, s)
	passTurn(t, s)
	if !s.tiebreak || s.cur != 2 {
		t.Fatal("seats 2 and 3 should be in a tie-break")
	}
	if err := s.Drop(1); err != nil {
		t.Fatal(err)
	}
	if err := s.Drop(2); err != nil {
		t.Fatal(err)
	}
	r := s.Result()
	if s.phase != phaseOver || len(r.Winners) != 1 || r.Winners[0] != 0 {
		t.Fatalf("result %+v, want the one who stayed to win", r)
	}
}
