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
	"github.com/boardmesh/boardmesh/engine/infinitecity"
	"github.com/boardmesh/boardmesh/lockstep"
)

// TestSecretTableSpy plays Infinite City on a secret table of four real
// libp2p peers on loopback. Peer 1 is the spy: it keeps its engine state
// (with its own knowledge) and every envelope the other peers published,
// which is everything it could receive. At the end: every peer committed
// the same log, and the log verifies on its own; the table really was
// secret (card envelopes travelled, every seat's engine holds only the
// public part); and for every tile in another seat's hand, the spy's
// engine does not know it though the holder's does (its knowledge may hold
// it only if the tile was shown to the spy before and passed on by a swap). What this does not
// show: that the envelopes do not determine the tile — that rests on
// mental poker (crypto/mentalpoker's tests and the DDH assumption); the
// lockstep/cardsource tests check that no seat's key is ever sent.
func TestSecretTableSpy(t *testing.T) {
	g := infinitecity.Game
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	names := []string{"spy", "bob", "cy", "dee"}
	var bots []engine.Bot
	for range names {
		bots = append(bots, engine.RandomBot{})
	}
	var mu sync.Mutex
	var heard [][]byte // what the other peers published
	cardEnvs := 0
	// shown: every tile the spy's engine counted as opened to the spy at
	// some update. On a secret table Seen is the tile's holder now, so a
	// tile the spy held and passed on (an Embassy swap) is no longer Seen,
	// though the spy legitimately knows it.
	shown := map[engine.Handle]bool{}
	tbl, err := NewTable(ctx, TableConfig{Game: g, Names: names, Bots: bots, Seed: []byte("spy"), Dir: t.TempDir(), Secret: true,
		OnUpdate: func(i int, u Update) {
			st, ok := u.State.(engine.CardState)
			if i != 0 || !ok {
				return
			}
			c := st.Cards()
			mu.Lock()
			defer mu.Unlock()
			for pos := 0; c.Valid(engine.Handle{Pos: uint16(pos)}); pos++ {
				if h := (engine.Handle{Pos: uint16(pos)}); c.Seen(h, u.Status.MySeat) {
					shown[h] = true
				}
			}
		},
		OnPublish: func(i int, e *crypto.Envelope) {
			mu.Lock()
			defer mu.Unlock()
			if i != 0 {
				heard = append(heard, e.Marshal())
				if e.Kind.Card() {
					cardEnvs++
				}
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
	var log []*crypto.Envelope
	for _, b := range want {
		env, err := crypto.Unmarshal(b)
		if err != nil {
			t.Fatal(err)
		}
		log = append(log, env)
	}
	rep, err := lockstep.Verify(log, games.Lookup)
	if err != nil || rep.Result == nil {
		t.Fatalf("the secret log does not verify: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if cardEnvs == 0 {
		t.Fatal("no card envelope travelled: the table was not secret")
	}
	seat := func(p *TablePeer) int { return p.Status().MySeat }
	spy := first.Final().(engine.CardState)
	sc := spy.Cards()
	if sc.Mode() != engine.CardsSecret {
		t.Fatal("the spy's engine is not on secret cards")
	}
	if k := sc.Knowledge(); k == nil || k.Len() == 0 {
		t.Fatal("the spy's engine holds no knowledge of its own tiles")
	}
	hidden := 0
	for _, p := range tbl.Peers[1:] {
		hc := p.Final().(engine.CardState).Cards()
		s := seat(p)
		for pos := 0; sc.Valid(engine.Handle{Pos: uint16(pos)}); pos++ {
			h := engine.Handle{Pos: uint16(pos)}
			if _, pub := sc.Public(h); pub || sc.Seen(h, seat(first)) || !sc.Seen(h, s) {
				continue
			}
			if _, ok := hc.Value(h, s); !ok {
				t.Fatalf("%s (seat %d) does not know %s, opened to it", p.Name, s+1, h)
			}
			hidden++
			if _, ok := sc.Value(h, seat(first)); ok {
				t.Fatalf("the spy's engine knows %s, in seat %d's hand", h, s+1)
			}
			if _, ok := sc.Knowledge().Card(h); ok && !shown[h] {
				t.Fatalf("the spy's knowledge holds %s, in seat %d's hand", h, s+1)
			}
		}
	}
	if hidden == 0 {
		t.Fatal("no tile of another seat was hidden from the spy at the end")
	}
	t.Logf("%d tiles hidden from the spy; it could receive %d envelopes (%d of the card protocol), %d bytes", hidden, len(heard), cardEnvs, len(bytes.Join(heard, nil)))
}
