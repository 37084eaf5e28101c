package games

import (
	"testing"

	"github.com/boardmesh/boardmesh/engine"
	"github.com/boardmesh/boardmesh/engine/enginetest"
)

// FuzzDecodeState feeds arbitrary bytes to every game's state decoder
// (the first byte picks the game): a peer's state envelope and a desync
// bundle reach it. Nothing may panic; what decodes canonically must
// re-encode to the same bytes, hash, and survive View, Legal, every legal
// action and a chance step.
func FuzzDecodeState(f *testing.F) {
	for gi, g := range All() {
		for _, steps := range []int{0, 5, 60} {
			s, err := g.Setup(g.DefaultPlayers, nil)
			if err != nil {
				f.Fatal(err)
			}
			bots := make([]engine.Bot, s.Players())
			for i := range bots {
				bots[i] = g.Bots[i%len(g.Bots)].New()
			}
			engine.PlayOut(s, bots, engine.SeededChance{Seed: []byte("fuzz")}, engine.NewRand([]byte("fuzz")), steps, false, nil)
			f.Add(append([]byte{byte(gi)}, engine.Encode(s)...))
		}
		// A secret table's state (hidden cards): the deal, and some steps.
		if _, ok := mustSetup(f, g).(engine.CardState); ok {
			tab, err := enginetest.NewSecretTable(g, g.DefaultPlayers, nil, nil, []byte("fuzz"))
			if err != nil {
				f.Fatal(err)
			}
			for step := 0; step < 40; step++ {
				if step%20 == 0 {
					f.Add(append([]byte{byte(gi)}, engine.Encode(tab.Peers[0])...))
				}
				bot := g.Bots[0].New()
				if _, over, err := tab.Step(bot, engine.NewRand([]byte{byte(step)})); err != nil || over {
					break
				}
			}
		}
	}
	games := All()
	f.Fuzz(func(t *testing.T, b []byte) {
		if len(b) == 0 {
			return
		}
		g := games[int(b[0])%len(games)]
		st, err := engine.DecodeState(g, b[1:])
		if err != nil {
			return
		}
		if string(engine.Encode(st)) != string(b[1:]) {
			t.Fatalf("%s: DecodeState accepted non-canonical bytes", g.Name)
		}
		_ = engine.Hash(st)
		for seat := 0; seat < st.Players(); seat++ {
			st.View(seat)
		}
		actor := st.ToAct()
		legal := st.Legal(nil)
		for i, a := range legal {
			if i >= 64 {
				break
			}
			c := st.Clone()
			_ = c.Apply(actor.Seat, a)
		}
		if actor.Kind == engine.ActorChance {
			_ = st.Clone().ApplyChance(make([]byte, 32))
		}
		if cs, ok := st.(engine.CardState); ok {
			for i, o := range cs.Openings(nil) {
				if i >= 16 {
					break
				}
				for _, v := range []int{engine.NoCard, 0, 1} {
					c := cs.Clone().(engine.CardState)
					_ = c.Open(o, v)
					_ = engine.Encode(c)
				}
			}
			for i, a := range legal {
				if i >= 16 {
					break
				}
				_ = cs.Clone().(engine.CardState).ApplyRevealed(actor.Seat, a, []int{0})
			}
		}
	})
}

func mustSetup(f *testing.F, g *engine.Game) engine.State {
	s, err := g.Setup(g.DefaultPlayers, nil)
	if err != nil {
		f.Fatal(err)
	}
	return s
}

// FuzzGameOptions feeds arbitrary text to the option parsers: the
// --options syntax (engine.ParseOptions) and, as the value of every text
// option of every game (a Serpent City rules table, an Infinite City tile
// set, a Dominion kingdom: the contents of an option file), the game's
// own check through Setup. Nothing may panic, and what Setup accepts
// resolves to options within the wire limits.
func FuzzGameOptions(f *testing.F) {
	f.Add("kingdom=Cellar+Market", `{"capital_ip": 4}`)
	f.Add("a=1,b=2,,c", "standard")
	f.Add("=x", "")
	f.Add("rounds=5, win_ip = 9", `{"capital_ip": `)
	f.Fuzz(func(t *testing.T, items, value string) {
		parsed, err := engine.ParseOptions([]string{items})
		for _, g := range All() {
			if err == nil {
				if opts, rerr := engine.ResolveOptions(g.Options, parsed); rerr == nil {
					checkLimits(t, opts)
					_, _ = g.Setup(g.MinPlayers, opts)
				}
			}
			for _, spec := range g.Options {
				if spec.Kind != engine.OptionText {
					continue
				}
				opts := engine.Options{{Name: spec.Name, Value: value}}
				if _, err := g.Setup(g.MinPlayers, opts); err == nil {
					resolved, err := engine.ResolveOptions(g.Options, opts)
					if err != nil {
						t.Fatalf("%s: Setup accepted %s=%q that ResolveOptions refuses: %v", g.Name, spec.Name, value, err)
					}
					checkLimits(t, resolved)
				}
			}
		}
	})
}

func checkLimits(t *testing.T, opts engine.Options) {
	t.Helper()
	total := 0
	for _, o := range opts {
		if len(o.Value) > engine.MaxOptionValue {
			t.Fatalf("option %s of %d bytes accepted", o.Name, len(o.Value))
		}
		total += len(o.Name) + len(o.Value)
	}
	if total > engine.MaxOptionsSize {
		t.Fatalf("options of %d bytes accepted", total)
	}
}
