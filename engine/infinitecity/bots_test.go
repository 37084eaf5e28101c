package infinitecity

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/boardmesh/boardmesh/engine"
)

func TestGreedyJoinsItsGroups(t *testing.T) {
	s := table(t, 2)
	// Two pairs of seat 0 with a gap between them: (2,0) makes one group of
	// 5 (5 points), anywhere else at best a group of 3.
	s.put(t, 0, 0, "Factory", 1, 0)
	s.put(t, 1, 0, "Factory", 1, 0)
	s.put(t, 3, 0, "Factory", 1, 0)
	s.put(t, 4, 0, "Factory", 1, 0)
	for x := 0; x < 5; x++ {
		s.put(t, x, 1, "Factory")
	}
	s.give(t, 0, "Factory")
	valid(t, s)
	a := (&GreedyBot{}).Choose(s, s.Legal(nil), engine.NewRand([]byte("g")))
	if a.Op != OpPlay || a.Args[1] != 2 || a.Args[2] != 0 {
		t.Fatalf("greedy chose %s; (2,0) joins two pairs into a group of 5", s.Describe(a))
	}
}

func TestGreedyRemovesTheLeadersMarkers(t *testing.T) {
	s := table(t, 2)
	for x := 0; x < 3; x++ {
		s.put(t, x, 0, "Factory", 0, 1) // seat 1's group of 3
	}
	s.put(t, 0, 1, "Factory", 1, 0)
	s.give(t, 0, "Disaster Site")
	play(t, s, "Disaster Site", 1, 1)
	a := (&GreedyBot{}).Choose(s, s.Legal(nil), engine.NewRand([]byte("g")))
	if a.Op != OpTile || a.Args[1] != 0 || s.board[s.find(int(a.Args[0]), 0)].marks[1] == 0 {
		t.Fatalf("greedy chose %s; it should break seat 1's group", s.Describe(a))
	}
}

func TestGreedyBeatsRandom(t *testing.T) {
	wins, games := 0, 60
	for g := 0; g < games; g++ {
		s, _ := Game.Setup(2, nil)
		bots := []engine.Bot{&GreedyBot{}, engine.RandomBot{}}
		greedy := g % 2
		if greedy == 1 {
			bots[0], bots[1] = bots[1], bots[0]
		}
		seed := []byte(fmt.Sprint("greedy", g))
		if _, err := engine.PlayOut(s, bots, engine.SeededChance{Seed: seed}, engine.NewRand(seed), 100000, false, nil); err != nil {
			t.Fatal(err)
		}
		for _, w := range s.Result().Winners {
			if w == greedy {
				wins++
			}
		}
	}
	if wins < games*3/4 {
		t.Fatalf("greedy won %d of %d games against random", wins, games)
	}
}

func TestStatsReportEndsInstructionsAndScores(t *testing.T) {
	st := Game.NewStats()
	games := 30
	var scores float64
	for g := 0; g < games; g++ {
		s, _ := Game.Setup(4, nil)
		bots := []engine.Bot{&GreedyBot{}, engine.RandomBot{}, &GreedyBot{}, engine.RandomBot{}}
		seed := []byte(fmt.Sprint("stats", g))
		if _, err := engine.PlayOut(s, bots, engine.SeededChance{Seed: seed}, engine.NewRand(seed), 100000, true,
			func(prev, next engine.State, step engine.Step) { st.Observe(prev, next, step.Who, step.Action) }); err != nil {
			t.Fatal(err)
		}
		st.Finish(s)
		for _, x := range s.Result().Scores {
			scores += float64(x)
		}
	}
	ends, ran := 0.0, 0.0
	found := map[string]float64{}
	for _, m := range st.Report() {
		found[m.Name] = m.Value
		if strings.HasPrefix(m.Name, "end: ") {
			ends += m.Value
		}
		if strings.HasPrefix(m.Name, "instruction ran: ") {
			ran += m.Value
		}
	}
	if math.Abs(ends-1) > 1e-9 {
		t.Fatalf("end shares add up to %v, want 1", ends)
	}
	if got, want := found["mean score"], scores/float64(4*games); math.Abs(got-want) > 1e-9 {
		t.Fatalf("mean score %v, want %v", got, want)
	}
	for _, name := range []string{"Housing", "Construction Site", "Library"} {
		if found["instruction ran: "+name] <= 0 {
			t.Fatalf("%s's instruction never ran in %d games: %v", name, games, found)
		}
	}
	// Every face-up tile's instruction ran at most once; laid tiles bound it.
	if ran > found["mean face-up tiles"]+1e-9 {
		t.Fatalf("%v instructions per game from %v face-up tiles", ran, found["mean face-up tiles"])
	}
}
