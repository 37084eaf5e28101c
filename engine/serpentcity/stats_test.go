package serpentcity

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/boardmesh/boardmesh/engine"
)

func TestStatsReportEndsAndSources(t *testing.T) {
	st := NewStats()
	for i := 0; i < 6; i++ {
		s := playBotGame(t, 3, "strategy", i)
		st.Finish(s)
	}
	byIP, sum := 0.0, 0.0
	for _, m := range st.Report() {
		if m.Name == "ended by IP" {
			byIP = m.Value
		}
		if strings.HasPrefix(m.Name, "IP share ") {
			sum += m.Value
		}
		if strings.HasPrefix(m.Name, "win rate") {
			t.Errorf("%q: boardmesh sim prints win rates itself", m.Name)
		}
	}
	if byIP <= 0 || math.Abs(sum-1) > 1e-9 {
		t.Fatalf("ended by IP %.2f, source shares add to %.3f", byIP, sum)
	}
}

// simReport plays games seeded 4-player strategy-bot games with the
// collector watching every step, as `boardmesh sim` does, and returns its
// figures by name.
func simReport(t *testing.T, players, games int, bots ...string) map[string]float64 {
	t.Helper()
	st := NewStats()
	for i := 0; i < games; i++ {
		es, err := Game.Setup(players, nil)
		if err != nil {
			t.Fatal(err)
		}
		bs := make([]engine.Bot, players)
		for j := range bs {
			spec, err := Game.Bot(bots[(i+j)%len(bots)])
			if err != nil {
				t.Fatal(err)
			}
			bs[j] = spec.New()
		}
		seed := []byte(fmt.Sprint("stats/", players, "/", i))
		_, err = engine.PlayOut(es, bs, engine.SeededChance{Seed: seed}, engine.NewRand(engine.Derive(seed, "bots", 0)), 1000000, true,
			func(prev, next engine.State, step engine.Step) { st.Observe(prev, next, step.Who, step.Action) })
		if err != nil {
			t.Fatal(err)
		}
		st.Finish(es)
	}
	out := map[string]float64{}
	for _, m := range st.Report() {
		out[m.Name] = m.Value
	}
	return out
}

// TestConflictsAndTradesHappenInBotGames: over 200 seeded 4-player games
// of strategy bots, players fight (voluntary and forced conflicts, won by
// both sides, with the conflict cards played) and trade with each other and
// the bank.
func TestConflictsAndTradesHappenInBotGames(t *testing.T) {
	games := 200
	if testing.Short() {
		games = 40
	}
	m := simReport(t, 4, games, "strategy")
	t.Logf("%v", m)
	checks := []struct {
		name string
		min  float64
	}{
		{"voluntary conflicts per game", 2},
		{"forced conflicts per game", 0.05},
		{"attacker win rate", 0.3},
		{"Ambush plays per game", 0.01},
		{"Tactical Retreat plays per game", 0.01},
		{"Sabotage plays per game", 0.01},
		{"trades per game", 1},
		{"bank trades per game", 0.5},
		{"ended by IP", 0.8},
	}
	for _, c := range checks {
		if m[c.name] < c.min {
			t.Errorf("%s = %.3f, want at least %.2f", c.name, m[c.name], c.min)
		}
	}
	if m["attacker win rate"] > 0.95 {
		t.Errorf("attackers win %.2f of conflicts: defenders never hold", m["attacker win rate"])
	}
	if got := m["conflicts per game"]; math.Abs(got-m["voluntary conflicts per game"]-m["forced conflicts per game"]) > 1e-9 {
		t.Errorf("conflicts per game %.3f is not voluntary plus forced", got)
	}
}
