package serpentcity

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/boardmesh/boardmesh/engine"
)

func TestViewShowsBoardAndOnlyOwnCards(t *testing.T) {
	s := newTest(t, 3, 7)
	place(s, 0, northMarket, 2)
	place(s, 1, southMine, 1)
	s.bld[northMarket] = []int{0}
	s.pl[1].capital = 1
	give(s, 0, milDeck, milKind(s, kAmbush))
	give(s, 1, econDeck, econKind(s, kArchitect))
	s.settle()
	out := s.View(0).Render(140, false)
	for _, want := range []string{"North Market", "South Diamond Mine", "North Market (Coin)          A2            A II     A      2", "Capital (1/6", "Ambush", "7 Movement Points", "Seat 1 moves and acts"} {
		if !strings.Contains(out, want) {
			t.Errorf("view lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "Architect (") {
		t.Errorf("player 1 sees player 2's Architect:\n%s", out)
	}
	if other := s.View(1).Render(140, false); !strings.Contains(other, "Architect") || strings.Contains(other, "Ambush") {
		t.Errorf("player 2's view:\n%s", other)
	}
	if _, err := json.Marshal(s.View(-1)); err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(s.View(0).Render(80, false), "\n") {
		if len([]rune(line)) > 80 {
			t.Errorf("line wider than 80: %q", line)
		}
	}
}

func TestEveryLegalActionHasADescription(t *testing.T) {
	s := playBotGame(t, 3, "random", 1)
	if s.ToAct().Kind != engine.ActorOver || !strings.Contains(s.View(0).Render(100, true), "GAME OVER") {
		t.Fatal("finished game not shown as over")
	}
	s = newTest(t, 3, 12)
	s.pl[0].res = [nRes]int{9, 9, 9, 9, 9}
	for _, a := range s.Legal(nil) {
		if d := s.Describe(a); d == "" || strings.HasPrefix(d, "Unknown") {
			t.Errorf("%v: %q", a, d)
		}
	}
}

func TestStrategyBotBeatsRandom(t *testing.T) {
	wins := 0
	const games = 40
	for i := 0; i < games; i++ {
		es, _ := Game.Setup(2, nil)
		bots := []engine.Bot{&StrategyBot{}, engine.RandomBot{}}
		if i%2 == 1 {
			bots[0], bots[1] = bots[1], bots[0]
		}
		seed := []byte(fmt.Sprint("duel", i))
		if _, err := engine.PlayOut(es, bots, engine.SeededChance{Seed: seed}, engine.NewRand(seed), 1000000, false, nil); err != nil {
			t.Fatal(err)
		}
		if w := es.Result().Winners[0]; w == i%2 {
			wins++
		}
	}
	if wins < games*9/10 {
		t.Fatalf("strategy bot won %d of %d games against random", wins, games)
	}
}

func TestCustomRulesTravelInTheEncoding(t *testing.T) {
	r := DefaultRules()
	r.RoadSpaces = 24
	r.CapitalSlots = 3
	r.Military[0].Count = 5
	es, err := Game.Setup(2, engine.Options{RulesOption(r)})
	if err != nil {
		t.Fatal(err)
	}
	dec, err := engine.DecodeState(Game, engine.Encode(es))
	if err != nil {
		t.Fatal(err)
	}
	s := dec.(*State)
	if s.cfg.R != 24 || s.cfg.r.CapitalSlots != 3 || len(s.pile[milDeck]) != len(s.cards.Decks()[milDeck]) || s.cards.Decks()[milDeck][4] != 0 {
		t.Fatalf("decoded rules: road %d capital %d", s.cfg.R, s.cfg.r.CapitalSlots)
	}
	// The default tables encode as one flag.
	def, _ := Game.Setup(2, nil)
	if len(engine.Encode(def)) >= len(engine.Encode(es)) {
		t.Fatal("default rules should not be spelled out in every state")
	}
}

func TestParseRulesKeepsDefaultsAndRejectsMistakes(t *testing.T) {
	r, err := ParseRules([]byte(`{"capital_slots": 4}`))
	if err != nil || r.CapitalSlots != 4 || r.RoadSpaces != 20 || len(r.Economic) != 8 {
		t.Fatalf("%v %+v", err, r.CapitalSlots)
	}
	if r, err := ParseRules([]byte(`{"ip_cost": {"coin": 2}}`)); err != nil || r.BuyIP != (Amount{Coin: 2}) {
		t.Fatalf("a given cost must replace the default whole: %+v %v", r.BuyIP, err)
	}
	for _, bad := range []string{
		`{"capital_slot": 4}`,
		`{"road_spaces": 0}`,
		`{"military_cards": [{"key": "nuke", "name": "Nuke", "count": 1, "min_ip": 0, "max_ip": 9}]}`,
		`{"territories": [{"name": "X", "type": "gold", "road": 1}, {"name": "Y", "type": "coin", "road": 2}]}`,
		`{"step_mp": 0}`,
		`not json`,
	} {
		if _, err := ParseRules([]byte(bad)); err == nil {
			t.Errorf("accepted %s", bad)
		}
	}
	if _, err := Game.Setup(2, engine.Options{{Name: "rules", Value: `{"bank_rate": 1}`}}); err == nil {
		t.Error("setup accepted bad rules")
	}
	again, err := ParseRules(DefaultRules().JSON())
	if err != nil || string(again.JSON()) != string(DefaultRules().JSON()) {
		t.Fatalf("defaults do not round-trip: %v", err)
	}
}

func TestDecodeRefusesGarbage(t *testing.T) {
	s := newTest(t, 3, 5)
	enc := engine.Encode(s)
	for i := 0; i < len(enc); i++ {
		for _, v := range []byte{0x7f, 0xff, 0x01} {
			b := append([]byte(nil), enc...)
			b[i] = v
			st, err := Decode(b)
			if err == nil {
				// A state that decodes must be usable without panicking.
				st.Legal(nil)
				st.View(0).Render(80, false)
			}
		}
	}
}

func TestViewShowsTheConflictAndTheDrawToItsOwner(t *testing.T) {
	s := newTest(t, 2, 0)
	place(s, 0, northMarket, 2)
	place(s, 1, northMarket, 1)
	give(s, 0, milDeck, milKind(s, kReinforce))
	s.pl[0].ipBought = 3
	s.settle()
	must(t, s, 0, act(opAttack, northMarket, 1))
	must(t, s, 0, milAct(s, 0, milKind(s, kReinforce)))
	out := s.View(1).Render(200, false)
	if !strings.Contains(out, "attacker played Reinforcements; Strength so far 4 : 1") {
		t.Fatalf("defender's view:\\n%s", out)
	}
	must(t, s, 1, act(opNoCard))
	chance(t, s, rewardBeacon(t, s, 6))
	must(t, s, 0, act(opPick, econDeck))
	chance(t, s, engine.Derive([]byte("d"), "", 0))
	mine, theirs := s.View(0).Render(200, false), s.View(1).Render(200, false)
	if !strings.Contains(mine, "you drew ") || !strings.Contains(theirs, "Seat 1 drew an Economic Card") {
		t.Fatalf("draw shown as:\\n%s\\n---\\n%s", mine, theirs)
	}
}
