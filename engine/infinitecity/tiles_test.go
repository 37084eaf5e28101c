package infinitecity

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/boardmesh/boardmesh/engine"
)

func TestStandardSetHas120TilesAndUsesEveryInstruction(t *testing.T) {
	ts := Standard()
	if ts.Total != 120 || ts.Power != 5 {
		t.Fatalf("standard set: %d tiles, %d Power Stations; want 120 and 5", ts.Total, ts.Power)
	}
	used := make([]int, numInstr)
	for _, k := range ts.Kinds {
		used[k.Instr] += k.Count
	}
	for in := Instr(0); in < numInstr; in++ {
		if used[in] == 0 {
			t.Errorf("no tile has the instruction %s", in.Key())
		}
	}
	// The names the issue lists are all in the set.
	for _, name := range []string{"Power Station", "Construction Site", "Library", "Plaza", "Security Guardpost",
		"Arboretum", "Bank", "Disaster Site", "Embassy", "Factory", "Guild Hall", "Hotel", "Housing", "Mausoleum",
		"Police HQ", "Port", "Post Office", "Salvage Yard", "Shopping Complex", "Stadium", "Temple", "Transit Station"} {
		kind(t, name)
	}
	// The seed's example needs these prints.
	for name, want := range map[string][2]int{"Power Station": {1, 1}, "Police HQ": {1, 0}, "Construction Site": {0, 1}} {
		k := ts.Kinds[kind(t, name)]
		if k.Bonus != want[0] || k.Rings != (want[1] == 1) {
			t.Errorf("%s: bonus %d rings %v; the rules' example needs bonus %d rings %v", name, k.Bonus, k.Rings, want[0], want[1] == 1)
		}
	}
}

// TestRulesDocumentListsTheStandardSet keeps the table in
// docs/rules/infinitecity.md equal to the set the engine plays.
func TestRulesDocumentListsTheStandardSet(t *testing.T) {
	b, err := os.ReadFile("../../docs/rules/infinitecity.md")
	if err != nil {
		t.Fatal(err)
	}
	var rows [][]string
	for _, l := range strings.Split(string(b), "\n") {
		cols := strings.Split(strings.Trim(l, "| "), "|")
		if len(cols) != 6 || strings.HasPrefix(l, "|---") || strings.Contains(l, "| Tile |") {
			continue
		}
		for i := range cols {
			cols[i] = strings.Trim(strings.TrimSpace(cols[i]), "`")
		}
		rows = append(rows, cols)
	}
	ts := Standard()
	if len(rows) != len(ts.Kinds) {
		t.Fatalf("the document lists %d tiles, the set has %d kinds", len(rows), len(ts.Kinds))
	}
	for i, k := range ts.Kinds {
		rings := "no"
		if k.Rings {
			rings = "yes"
		}
		want := []string{k.Name, k.Abbr, strconv.Itoa(k.Count), k.Instr.Key(), strconv.Itoa(k.Bonus), rings}
		if strings.Join(rows[i], "|") != strings.Join(want, "|") {
			t.Errorf("document row %d: %v; the set has %v", i+1, rows[i], want)
		}
	}
	for in := Instr(0); in < numInstr; in++ {
		if !bytes.Contains(b, []byte("| `"+in.Key()+"` | "+in.Text())) {
			t.Errorf("the document does not explain %s as %q", in.Key(), in.Text())
		}
	}
}

func TestParseTilesRejectsBadSets(t *testing.T) {
	for _, text := range []string{
		"",
		"Housing: none",
		"0 Housing: none",
		"5 Housing",
		"5 Housing: fly",
		"5 Housing: none +12",
		"5 Housing: none shiny",
		"5 Housing: none; 5 housing: none",
		"5 Housing: none; 5 House: none", // the same short name
		"5 Housing [HOUSE]: none",
		"5 Hou:sing: none",
		"500 Housing: none",
	} {
		if _, err := ParseTiles(text); err == nil {
			t.Errorf("tile set %q was accepted", text)
		}
	}
}

func TestCustomTileSetOption(t *testing.T) {
	text := "60 Housing [HSG]: mark-adjacent; 55 Factory: none +1; 5 Power Station: protect rings"
	ts, err := ParseTiles(text)
	if err != nil {
		t.Fatal(err)
	}
	if ts.Total != 120 || ts.Kinds[2].Abbr != "POW" || ts.Kinds[1].Bonus != 1 || !ts.Kinds[2].Rings {
		t.Fatalf("parsed %+v", ts.Kinds)
	}
	opts, err := engine.ParseOptions([]string{"tiles=" + text})
	if err != nil {
		t.Fatal(err)
	}
	es, err := Game.Setup(3, opts)
	if err != nil {
		t.Fatal(err)
	}
	anyChance(t, es.(*State))
	for p, h := range es.(*State).hands {
		for _, k := range kindsOf(es.(*State), h, p) {
			if k < 0 || k > 2 {
				t.Fatalf("a custom set dealt kind %d", k)
			}
		}
	}
	// The set travels in the state, so a decoded copy plays the same tiles.
	dec, err := engine.DecodeState(Game, engine.Encode(es))
	if err != nil {
		t.Fatal(err)
	}
	if dec.(*State).set.String() != ts.String() {
		t.Fatalf("decoded set %q, want %q", dec.(*State).set.String(), ts.String())
	}
	// Too few tiles for the hands.
	if _, err := Game.Setup(6, engine.Options{{Name: "tiles", Value: "20 Factory: none"}}); err == nil {
		t.Fatalf("20 tiles for 6 hands of 5 were accepted")
	}
	if _, err := Game.Setup(2, engine.Options{{Name: "tiles", Value: "20 Factory: fly"}}); err == nil {
		t.Fatalf("a bad tile set was accepted")
	}
}

func TestDecodeRejectsBrokenStates(t *testing.T) {
	// States from one game, from the deal to the end.
	es, _ := Game.Setup(3, nil)
	var states []*State
	bots := []engine.Bot{&GreedyBot{}, engine.RandomBot{}, &GreedyBot{}}
	_, err := engine.PlayOut(es, bots, engine.SeededChance{Seed: []byte("decode")}, engine.NewRand([]byte("decode")), 100000, false,
		func(_, next engine.State, st engine.Step) {
			if len(states) < 40 && (st.Who.Kind == engine.ActorSeat || len(states)%3 == 0) {
				states = append(states, next.(*State).clone())
			}
		})
	if err != nil {
		t.Fatal(err)
	}
	states = append(states, es.(*State))
	for n, s := range states {
		good := engine.Encode(s)
		if _, err := engine.DecodeState(Game, good); err != nil {
			t.Fatalf("state %d: %v", n, err)
		}
		// Truncations and single-byte changes are refused, or decode to a
		// valid state that can still be played; none may panic.
		for i := 0; i < len(good); i++ {
			if _, err := engine.DecodeState(Game, good[:i]); err == nil {
				t.Fatalf("state %d cut to %d bytes decoded", n, i)
			}
			for _, delta := range []byte{1, 2, 0x7f, 0x80} {
				b := append([]byte(nil), good...)
				b[i] += delta
				d, err := engine.DecodeState(Game, b)
				if err != nil {
					continue
				}
				if err := invariant(d); err != nil {
					t.Fatalf("state %d, byte %d changed: decoded a broken state: %v", n, i, err)
				}
				if legal := d.Legal(nil); len(legal) > 0 {
					_ = d.Apply(d.ToAct().Seat, legal[0])
				} else {
					_ = d.ApplyChance(make([]byte, 32))
				}
				_ = d.View(0).Render(80, true)
			}
		}
	}
	s := states[len(states)/2]
	bad := s.clone()
	bad.pile = append(bad.pile, bad.pile[0])
	if _, err := engine.DecodeState(Game, engine.Encode(bad)); err == nil {
		t.Fatalf("a state with a tile in the pile twice decoded")
	}
	bad = s.clone()
	bad.pile = bad.pile[1:]
	if _, err := engine.DecodeState(Game, engine.Encode(bad)); err == nil {
		t.Fatalf("a state with a tile missing decoded")
	}
	bad = s.clone()
	bad.supply[1]--
	if _, err := engine.DecodeState(Game, engine.Encode(bad)); err == nil {
		t.Fatalf("a state with a lost marker decoded")
	}
}

func TestSameSeedSameGame(t *testing.T) {
	a, err := enginetestHashes("same")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := enginetestHashes("same")
	c, _ := enginetestHashes("other")
	if len(a) != len(b) {
		t.Fatalf("the same seed gave games of %d and %d steps", len(a), len(b))
	}
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("the same seed diverged at step %d", i)
		}
	}
	if len(a) == len(c) && a[len(a)-1] == c[len(c)-1] {
		t.Fatalf("different seeds gave the same game")
	}
}
