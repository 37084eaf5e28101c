package dragonslair

import (
	"fmt"
	"testing"

	"github.com/boardmesh/boardmesh/engine"
)

// simulate plays games with the named bots (rotated over the seats each
// game) and returns the statistics and each bot's total score and wins.
func simulate(t *testing.T, games int, names []string, opts engine.Options) (*stats, map[string]int, map[string]int) {
	t.Helper()
	st := newStats()
	score, wins := map[string]int{}, map[string]int{}
	n := len(names)
	for g := 0; g < games; g++ {
		s, err := Game.Setup(n, opts)
		if err != nil {
			t.Fatal(err)
		}
		bs := make([]engine.Bot, n)
		seatName := make([]string, n)
		for i := range bs {
			seatName[i] = names[(i+g)%n]
			spec, err := Game.Bot(seatName[i])
			if err != nil {
				t.Fatal(err)
			}
			bs[i] = spec.New()
		}
		seed := []byte(fmt.Sprintf("sim/%d", g))
		_, err = engine.PlayOut(s, bs, engine.SeededChance{Seed: seed}, engine.NewRand(seed), 100000, true,
			func(prev, next engine.State, step engine.Step) { st.Observe(prev, next, step.Who, step.Action) })
		if err != nil {
			t.Fatal(err)
		}
		st.Finish(s)
		r := s.Result()
		for i, x := range r.Scores {
			score[seatName[i]] += x
		}
		for _, w := range r.Winners {
			wins[seatName[w]]++
		}
	}
	return st, score, wins
}

func metric(t *testing.T, st *stats, name string) engine.Metric {
	t.Helper()
	for _, m := range st.Report() {
		if m.Name == name {
			return m
		}
	}
	t.Fatalf("no metric %q", name)
	return engine.Metric{}
}

// The rules say that after the first noise each further card has about a
// 1 in 4 chance of losing everything; 18 noises in 72 cards is 1 in 4.
func TestStatsBustChanceAfterOneNoiseIsAboutOneInFour(t *testing.T) {
	games := 300
	if testing.Short() {
		games = 60
	}
	st, _, _ := simulate(t, games, []string{"cautious", "bold", "cautious", "bold"}, nil)
	m := metric(t, st, "bust chance after one noise")
	if m.Count < 500 || m.Value < 0.18 || m.Value > 0.32 {
		t.Fatalf("bust chance after one noise: %.3f over %d cards, want about 0.25", m.Value, m.Count)
	}
	if b := metric(t, st, "bust rate"); b.Value <= 0 || b.Value >= 1 {
		t.Fatalf("bust rate %.3f", b.Value)
	}
	if e := metric(t, st, "mean escape gold"); e.Value < 3 || e.Value > 30 {
		t.Fatalf("mean escape gold %.1f", e.Value)
	}
	if h := metric(t, st, "win rate with the Trophy Hunter"); h.Count == 0 {
		t.Fatal("no games with the Trophy Hunter counted")
	}
}

func TestStrategyBotsBeatTheRandomBot(t *testing.T) {
	games := 200
	if testing.Short() {
		games = 40
	}
	for _, name := range []string{"cautious", "bold", "careful"} {
		_, score, wins := simulate(t, games, []string{name, "random", name, "random"}, nil)
		if score[name] <= 2*score["random"] || wins[name] <= 3*wins["random"] {
			t.Errorf("%s against random: score %d vs %d, wins %d vs %d", name, score[name], score["random"], wins[name], wins["random"])
		}
	}
}

// The cautious bot must decide on what its seat can see: a card on top
// that only another seat has seen must not change its choice.
func TestCautiousBotIgnoresCardsOnlyOthersHaveSeen(t *testing.T) {
	choose := func(hidden card) engine.Action {
		s := table(t, 3)
		draws(t, s, cardCrown, cardCup, cardClink)
		stack(t, s, hidden)
		show(t, s, s.top[0].h, 1) // seen by seat 1 only
		legal := s.Legal(nil)
		return bots[0].New().Choose(s, legal, engine.NewRand([]byte("x")))
	}
	a, b := choose(cardCrunch), choose(cardScepter)
	if !a.Equal(b) {
		t.Fatalf("the bot chose %v over a hidden noise and %v over a hidden Scepter", a, b)
	}
	s := table(t, 3)
	draws(t, s, cardCrown, cardCup, cardClink)
	stack(t, s, cardScepter)
	show(t, s, s.top[0].h, 0)
	if got := bots[0].New().Choose(s, s.Legal(nil), nil); got.Op != opDraw {
		t.Fatalf("with a Scepter seen on top the bot chose %s", s.Describe(got))
	}
}
