package deal

import (
	"testing"

	"github.com/boardmesh/boardmesh/crypto"
)

// lose drops seat s's envelopes of kind on their way to seat lost: the
// seat crashed after persisting them, while sending; seat 3 got them,
// so a different envelope signed after the restart would be an
// equivocation there.
func (tb *table) lose(s int, kind crypto.Kind) {
	const lost = 0
	tb.hook = func(to int, env *crypto.Envelope) *crypto.Envelope {
		if env.Author == tb.ids[s].ID() && env.Kind == kind && to == lost {
			return nil
		}
		return env
	}
}

// TestRestart: a seat crashes right after persisting its shuffle, and
// later right after persisting its decryption shares; each time it comes
// back from its disk (secret key, own envelopes, received envelopes),
// sends what it had signed again instead of signing anew, and the table
// goes on with no cheat named and the same cards as before.
func TestRestart(t *testing.T) {
	tb := newTable(t, 3, []Deck{seqDeck(0, 10, 0)})
	tb.lose(1, crypto.KindShuffle)
	tb.run()
	if tb.ms[0].DeckReady(0) {
		t.Fatal("the deck is ready without seat 2's shuffle")
	}
	tb.hook = nil
	tb.restart(1, 77) // other randomness: a new shuffle would differ
	tb.run()
	tb.noCheats()
	for i, m := range tb.ms {
		if !m.DeckReady(0) {
			t.Fatalf("seat %d: no deck after seat 2's restart", i+1)
		}
	}
	tb.open(Opening{Deck: 0, Pos: 0, To: 1}, Opening{Deck: 0, Pos: 1, To: 2})
	tb.run()
	before, ok := tb.ms[1].Card(Handle{Deck: 0, Pos: 0})
	if !ok {
		t.Fatal("seat 2 did not draw")
	}
	// Seat 2 crashes after persisting its shares of the next batch.
	tb.lose(1, crypto.KindShare)
	tb.open(Opening{Deck: 0, Pos: 2, To: 0})
	tb.run()
	if _, ok := tb.ms[0].Card(Handle{Deck: 0, Pos: 2}); ok {
		t.Fatal("seat 1 drew without seat 2's share")
	}
	tb.hook = nil
	tb.restart(1, 78)
	for _, ops := range [][]Opening{{{Deck: 0, Pos: 0, To: 1}, {Deck: 0, Pos: 1, To: 2}}, {{Deck: 0, Pos: 2, To: 0}}} {
		if _, err := tb.ms[1].Open(ops); err != nil {
			t.Fatal(err)
		}
	}
	tb.collect()
	tb.run()
	tb.noCheats()
	if after, ok := tb.ms[1].Card(Handle{Deck: 0, Pos: 0}); !ok || after != before {
		t.Errorf("seat 2's card after the restart is %d (%v), before %d", after, ok, before)
	}
	if _, ok := tb.ms[0].Card(Handle{Deck: 0, Pos: 2}); !ok {
		t.Error("seat 1's draw did not finish after seat 2's restart")
	}
	for i := range tb.ms {
		for _, e := range tb.errs[i] {
			if e != nil && !isBenign(e) {
				t.Errorf("seat %d: %v", i+1, e)
			}
		}
	}
}

func isBenign(err error) bool { return err == ErrDuplicate }

// restartLost restarts seat i as restart does, but from a disk that lost
// its own envelopes (a log cut short): only its secret key survives.
// The new machine is held (Config.Hold) when hold is set.
func (tb *table) restartLost(i int, rnd byte, hold bool) {
	tb.t.Helper()
	m, err := New(Config{Identity: tb.ids[i], Session: session(), Seats: tb.seats, Rand: newSeeded(rnd), Decks: tb.decks,
		Secret: tb.secret[i], Hold: hold})
	if err != nil {
		tb.t.Fatal(err)
	}
	tb.ms[i] = m
	for _, env := range tb.recv[i] {
		m.Step(env)
	}
}

// TestRestartLostDiskAdoptsOwn: seat 2 has shuffled and sent its shares
// of a draw when it crashes, and its disk loses every card envelope it
// signed (only the card key survives). Restarted held, it gets its own
// envelopes back from a peer (as catch-up serves them), signs nothing new
// before Release, and the table goes on with no cheat named and seat 2
// holding the same card. Without the hold (released at once, signing
// anew) the others name seat 2 an equivocator: the case the hold is for.
func TestRestartLostDiskAdoptsOwn(t *testing.T) {
	for _, hold := range []bool{true, false} {
		tb := newTable(t, 3, []Deck{seqDeck(0, 10, 0)})
		tb.run()
		tb.open(Opening{Deck: 0, Pos: 0, To: 1}, Opening{Deck: 0, Pos: 1, To: 2})
		tb.run()
		before, ok := tb.ms[1].Card(Handle{Deck: 0, Pos: 0})
		if !ok {
			t.Fatal("seat 2 did not draw")
		}
		signed := tb.persist[1]
		if len(signed) < 3 {
			t.Fatalf("seat 2 signed %d envelopes before the crash", len(signed))
		}
		tb.restartLost(1, 99, hold) // other randomness: anything signed anew differs
		if _, err := tb.ms[1].Open([]Opening{{Deck: 0, Pos: 0, To: 1}, {Deck: 0, Pos: 1, To: 2}}); err != nil {
			t.Fatal(err)
		}
		m := tb.ms[1]
		if hold {
			for m.HasWork() {
				m.Work()
			}
			// Catch-up: seat 1 holds seat 2's envelopes; one far ahead
			// under seat 2's name binds nothing.
			far := &crypto.Envelope{Seq: 1 << 20, Kind: crypto.KindShare, Session: session(), Body: signed[len(signed)-1].Body}
			crypto.Sign(tb.ids[1], far)
			if err := m.Step(far); err == nil {
				t.Error("an own envelope far ahead was adopted")
			}
			for _, env := range signed {
				if err := m.Step(env); err != nil {
					t.Fatalf("seat 2 does not adopt its own %s: %v", env.Kind, err)
				}
			}
			for m.HasWork() {
				m.Work()
			}
			for m.HasReady() {
				rd := m.Ready()
				for _, e := range append(rd.Messages, rd.Persist...) {
					if !containsEnv(signed, e) {
						t.Fatalf("held, seat 2 signed a new %s (seq %d)", e.Kind, e.Seq)
					}
				}
				tb.queue = append(tb.queue, rd.Messages...)
				m.Advance()
			}
		}
		m.Release()
		tb.collect()
		tb.run()
		if !hold {
			found := false
			for _, ev := range tb.cheats(0) {
				found = found || ev.Cheat == CheatEquivocation && ev.Seat == 2
			}
			if !found {
				t.Fatal("seat 2 signed anew after losing its disk, and seat 1 named no equivocation")
			}
			continue
		}
		tb.noCheats()
		if after, ok := m.Card(Handle{Deck: 0, Pos: 0}); !ok || after != before {
			t.Errorf("seat 2's card after the restart is %d (%v), before %d", after, ok, before)
		}
		tb.open(Opening{Deck: 0, Pos: 2, To: 0})
		tb.run()
		tb.noCheats()
		if _, ok := tb.ms[0].Card(Handle{Deck: 0, Pos: 2}); !ok {
			t.Error("the next draw did not finish after seat 2's restart")
		}
	}
}

func containsEnv(list []*crypto.Envelope, e *crypto.Envelope) bool {
	for _, x := range list {
		if crypto.Equal(x, e) {
			return true
		}
	}
	return false
}
