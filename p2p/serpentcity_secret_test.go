package p2p

import (
	"bytes"
	"context"
	"sync"
	"testing"
	"time"

	"github.com/boardmesh/boardmesh/crypto"
	"github.com/boardmesh/boardmesh/engine"
	"github.com/boardmesh/boardmesh/engine/games"
	"github.com/boardmesh/boardmesh/engine/serpentcity"
	"github.com/boardmesh/boardmesh/lockstep"
)

// TestSerpentCitySecretTable plays a whole Serpent City game on a secret
// table of three real libp2p peers on loopback with the strategy bots:
// the game ends, every peer committed the same log, which verifies on
// its own, card envelopes
// travelled, the peers' engines learnt the cards they drew, and at the end
// no peer's engine knows a card in another seat's hand while its holder's
// does (a game may end with every drawn card played: then there is none).
func TestSerpentCitySecretTable(t *testing.T) {
	t.Parallel()
	g := serpentcity.Game
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	names := []string{"ann", "bob", "cy"}
	var bots []engine.Bot
	for range names {
		bots = append(bots, g.Bots[0].New())
	}
	var mu sync.Mutex
	cardEnvs := 0
	tbl, err := NewTable(ctx, TableConfig{Game: g, Names: names, Bots: bots, Seed: []byte("serpent secret"), Dir: t.TempDir(), Secret: true,
		OnPublish: func(_ int, e *crypto.Envelope) {
			mu.Lock()
			defer mu.Unlock()
			if e.Kind.Card() {
				cardEnvs++
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	defer tbl.Close()
	if err := tbl.Run(ctx); err != nil {
		t.Fatal(err)
	}
	first := tbl.Peers[0]
	if first.Status().Mode != "secret table" {
		t.Fatalf("the table's mode is %q", first.Status().Mode)
	}
	if first.Final().ToAct().Kind != engine.ActorOver {
		t.Fatal("the game did not end")
	}
	want := first.Entries()
	for _, p := range tbl.Peers[1:] {
		got := p.Entries()
		if len(got) != len(want) {
			t.Fatalf("%s has %d entries, %s %d", p.Name, len(got), first.Name, len(want))
		}
		for k := range got {
			if !bytes.Equal(got[k], want[k]) {
				t.Fatalf("%s's entry %d differs", p.Name, k)
			}
		}
	}
	log := EnvelopesOf(t, want)
	if rep, err := lockstep.Verify(log, games.Lookup); err != nil || rep.Result == nil {
		t.Fatalf("the secret log does not verify: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if cardEnvs == 0 {
		t.Fatal("no card envelope travelled: the table was not secret")
	}
	held, hidden := 0, 0
	for _, holder := range tbl.Peers {
		hs := holder.Status().MySeat
		hc := holder.Final().(engine.CardState).Cards()
		for d := 0; d < hc.NumDecks(); d++ {
			for pos := 0; hc.Valid(engine.Handle{Deck: uint8(d), Pos: uint16(pos)}); pos++ {
				h := engine.Handle{Deck: uint8(d), Pos: uint16(pos)}
				if _, pub := hc.Public(h); pub || !hc.Seen(h, hs) {
					continue
				}
				if _, ok := hc.Value(h, hs); !ok {
					t.Fatalf("%s (seat %d) does not know %s, opened to it", holder.Name, hs+1, h)
				}
				held++
				for _, other := range tbl.Peers {
					os := other.Status().MySeat
					if os == hs {
						continue
					}
					if _, ok := other.Final().(engine.CardState).Cards().Value(h, os); ok {
						t.Fatalf("%s's engine knows %s, drawn by seat %d", other.Name, h, hs+1)
					}
					if _, ok := other.Final().(engine.CardState).Cards().Knowledge().Card(h); ok {
						t.Fatalf("%s's knowledge holds %s, drawn by seat %d", other.Name, h, hs+1)
					}
					hidden++
				}
			}
		}
	}
	knew := 0
	for _, p := range tbl.Peers {
		knew += p.Final().(engine.CardState).Cards().Knowledge().Len()
	}
	if knew == 0 {
		t.Fatal("no peer's engine knows a card: nobody drew one in a whole game")
	}
	t.Logf("%d entries, %d card envelopes, %d cards drawn and never shown, %d checks of another peer", len(want), cardEnvs, held, hidden)
}
