package deal

import (
	"errors"
	"testing"

	"github.com/boardmesh/boardmesh/crypto"
)

// diskStore is what a runner's log file is to seat i of a table: every
// envelope the seat persisted or was delivered, kept as bytes (what comes
// back is decoded anew, never the machine's own copy). lose and edit make
// it the file of a damaged disk: a slot it no longer has, or other bytes
// for it.
type diskStore struct {
	tb   *table
	seat int
	lose bool
	edit func(env *crypto.Envelope) *crypto.Envelope
}

func (s *diskStore) find(kind crypto.Kind, author crypto.PeerID, seq uint64) []byte {
	for _, l := range [][]*crypto.Envelope{s.tb.persist[s.seat], s.tb.recv[s.seat]} {
		for _, e := range l {
			if e.Kind == kind && e.Author == author && e.Seq == seq {
				return e.Marshal()
			}
		}
	}
	return nil
}

func (s *diskStore) Holds(kind crypto.Kind, author crypto.PeerID, seq uint64) bool {
	return s.find(kind, author, seq) != nil
}

func (s *diskStore) Card(kind crypto.Kind, author crypto.PeerID, seq uint64) (*crypto.Envelope, error) {
	b := s.find(kind, author, seq)
	if b == nil || s.lose {
		return nil, errors.New("no such record")
	}
	env, err := crypto.Unmarshal(b)
	if err != nil {
		return nil, err
	}
	if s.edit != nil {
		env = s.edit(env)
	}
	return env, nil
}

// storedTable is newTable with every seat's machine given its diskStore.
func storedTable(t *testing.T, n int, decks []Deck) (*table, []*diskStore) {
	tb := newTable(t, n, decks)
	stores := make([]*diskStore, n)
	for i := range tb.ms {
		stores[i] = &diskStore{tb: tb, seat: i}
		m, err := New(Config{Identity: tb.ids[i], Session: session(), Seats: tb.seats, Rand: newSeeded(byte(i + 1)), Decks: decks, Store: stores[i]})
		if err != nil {
			t.Fatal(err)
		}
		tb.ms[i] = m
	}
	tb.queue, tb.persist, tb.events = nil, make([][]*crypto.Envelope, n), make([][]Event, n)
	tb.collect()
	return tb, stores
}

// equivocate runs a 3-seat table whose seat 3 later signs a second
// envelope of kind for a slot of a done chain or batch: it returns the
// table, its stores, seat 3's first envelope and its second.
func equivocate(t *testing.T, kind crypto.Kind) (*table, []*diskStore, *crypto.Envelope, *crypto.Envelope) {
	tb, stores := storedTable(t, 3, []Deck{seqDeck(0, 12, 0)})
	var first, second *crypto.Envelope
	tb.hook = func(to int, env *crypto.Envelope) *crypto.Envelope {
		if env.Author == tb.ids[2].ID() && env.Kind == kind && second == nil {
			body := append([]byte(nil), env.Body...)
			body[len(body)-1] ^= 1
			first, second = env, tb.resign(2, env, body)
		}
		return env
	}
	tb.run()
	if kind == crypto.KindShare {
		tb.open(Opening{Deck: 0, Pos: 0, To: 0})
		tb.run()
	}
	tb.hook = nil
	if second == nil {
		t.Fatal("no envelope to equivocate on")
	}
	tb.noCheats()
	// The first is on disk only: seat 1 kept its slot and hash.
	k := slotKey{kind, 2, first.Seq}
	if m := tb.ms[0]; m.seen[k] != nil || m.stored[k] != EnvelopeHash(first) {
		t.Fatalf("seat 1 still holds seat 3's done %s envelope in memory (stored: %v)", kind, m.stored[k] == EnvelopeHash(first))
	}
	return tb, stores, first, second
}

// An equivocation on a slot whose envelope went to disk is proven with the
// envelope read back from the store: the very one seat 3 signed first.
func TestEquivocationProofReadBackFromStore(t *testing.T) {
	for _, kind := range []crypto.Kind{crypto.KindShare, crypto.KindShuffle} {
		t.Run(kind.String(), func(t *testing.T) {
			tb, _, first, second := equivocate(t, kind)
			tb.deliver(second)
			tb.collect()
			for i := 0; i < 2; i++ {
				var ev *Event
				for _, e := range tb.cheats(i) {
					if e.Cheat == CheatEquivocation && e.Seat == 3 {
						ev = &e
					}
				}
				if ev == nil {
					t.Fatalf("seat %d did not name seat 3's equivocation", i+1)
				}
				if len(ev.Evidence) != 2 || !crypto.Equal(ev.Evidence[0], first) || !crypto.Equal(ev.Evidence[1], second) {
					t.Fatalf("seat %d's proof is not seat 3's two envelopes: %v", i+1, ev.Evidence)
				}
			}
			// And the same envelope again, as gossip repeats it, is a
			// duplicate, known by its hash.
			if err := tb.ms[0].Step(first); !errors.Is(err, ErrDuplicate) {
				t.Fatalf("the stored envelope again: %v, want ErrDuplicate", err)
			}
		})
	}
}

// A store that lost the envelope, or holds other bytes for it, proves
// nothing: the second envelope is refused with an error naming the
// store, no one is called a cheat, nothing panics.
func TestEquivocationWithDamagedStoreIsAnError(t *testing.T) {
	for _, damage := range []string{"lost", "edited"} {
		t.Run(damage, func(t *testing.T) {
			tb, stores, _, second := equivocate(t, crypto.KindShuffle)
			if damage == "lost" {
				stores[0].lose = true
			} else {
				stores[0].edit = func(env *crypto.Envelope) *crypto.Envelope {
					e := *env
					e.Body = append([]byte(nil), env.Body...)
					e.Body[0] ^= 1
					return &e
				}
			}
			err := tb.ms[0].Step(second)
			if !errors.Is(err, ErrStore) {
				t.Fatalf("Step with a %s store: %v, want ErrStore", damage, err)
			}
			tb.collect()
			if c := tb.cheats(0); len(c) != 0 {
				t.Fatalf("seat 1 named a cheat it cannot prove: %s", c[0].Text)
			}
			if tb.ms[0].Stopped() {
				t.Fatal("seat 1 stopped")
			}
		})
	}
}
