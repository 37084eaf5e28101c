package deal

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/boardmesh/boardmesh/crypto"
)

// seeded is a reproducible random stream for one seat of a test.
type seeded struct{ r *rand.ChaCha8 }

func (s seeded) Read(b []byte) (int, error) { return s.r.Read(b) }

func newSeeded(seed byte) seeded {
	var k [32]byte
	for i := range k {
		k[i] = seed
	}
	return seeded{rand.NewChaCha8(k)}
}

func testIdentity(t testing.TB, first byte) *crypto.Identity {
	seed := make([]byte, 32)
	for i := range seed {
		seed[i] = first + byte(i)
	}
	id, err := crypto.GenerateIdentity(bytes.NewReader(seed))
	if err != nil {
		t.Fatal(err)
	}
	return id
}

// table is an in-memory network of machines, one per seat: every
// envelope a machine sends is delivered to every other (through hook, if
// set), and Work is called round-robin until nothing is left to do.
type table struct {
	t      testing.TB
	ids    []*crypto.Identity
	ms     []*Machine
	events [][]Event
	queue  []*crypto.Envelope // broadcast, not yet delivered
	// hook may change or drop (return nil) an envelope before delivery,
	// per receiving seat.
	hook  func(to int, env *crypto.Envelope) *crypto.Envelope
	bytes int
	sent  int
	errs  [][]error
	// What a runner would keep on disk, by seat: every envelope stepped
	// into it, everything it persisted, its secret key.
	recv    [][]*crypto.Envelope
	persist [][]*crypto.Envelope
	secret  [][]byte
	seats   []crypto.PeerID
	decks   []Deck
}

func session() crypto.Hash {
	var h crypto.Hash
	for i := range h {
		h[i] = 0x5e
	}
	return h
}

func newTable(t testing.TB, n int, decks []Deck) *table {
	tb := &table{t: t, events: make([][]Event, n), errs: make([][]error, n), recv: make([][]*crypto.Envelope, n),
		persist: make([][]*crypto.Envelope, n), secret: make([][]byte, n), decks: decks}
	seats := make([]crypto.PeerID, n)
	for i := 0; i < n; i++ {
		tb.ids = append(tb.ids, testIdentity(t, byte(i*32)))
		seats[i] = tb.ids[i].ID()
	}
	for i := 0; i < n; i++ {
		m, err := New(Config{Identity: tb.ids[i], Session: session(), Seats: seats, Rand: newSeeded(byte(i + 1)), Decks: decks})
		if err != nil {
			t.Fatal(err)
		}
		tb.ms = append(tb.ms, m)
	}
	tb.seats = seats
	tb.collect()
	return tb
}

// restart replaces seat i's machine by a new one from what its disk held,
// and steps into it every envelope it had received; the caller repeats
// its Open, Reshuffle and Drop calls.
func (tb *table) restart(i int, rnd byte) {
	tb.t.Helper()
	m, err := New(Config{Identity: tb.ids[i], Session: session(), Seats: tb.seats, Rand: newSeeded(rnd), Decks: tb.decks,
		Secret: tb.secret[i], Sent: tb.persist[i]})
	if err != nil {
		tb.t.Fatal(err)
	}
	tb.ms[i] = m
	old := tb.recv[i]
	tb.recv[i] = nil
	for _, env := range old {
		tb.recv[i] = append(tb.recv[i], env)
		m.Step(env)
	}
}

func (tb *table) collect() {
	for i, m := range tb.ms {
		for m.HasReady() {
			rd := m.Ready()
			if rd.Secret != nil {
				tb.secret[i] = rd.Secret
			}
			tb.persist[i] = append(tb.persist[i], rd.Persist...)
			for _, e := range rd.Messages {
				tb.bytes += e.Size()
				tb.sent++
			}
			tb.queue = append(tb.queue, rd.Messages...)
			tb.events[i] = append(tb.events[i], rd.Events...)
			m.Advance()
		}
	}
}

// deliver sends one envelope to every seat but its author.
func (tb *table) deliver(env *crypto.Envelope) {
	for j, m := range tb.ms {
		if tb.ids[j].ID() == env.Author {
			continue
		}
		e := env
		if tb.hook != nil {
			if e = tb.hook(j, env); e == nil {
				continue
			}
		}
		tb.recv[j] = append(tb.recv[j], e)
		if err := m.Step(e); err != nil {
			tb.errs[j] = append(tb.errs[j], err)
		}
	}
}

// run delivers and works until quiet.
func (tb *table) run() {
	for round := 0; round < 100000; round++ {
		tb.collect()
		if len(tb.queue) > 0 {
			env := tb.queue[0]
			tb.queue = tb.queue[1:]
			tb.deliver(env)
			continue
		}
		worked := false
		for _, m := range tb.ms {
			if m.HasWork() {
				m.Work()
				worked = true
			}
		}
		tb.collect()
		if !worked && len(tb.queue) == 0 {
			return
		}
	}
	tb.t.Fatal("the table did not settle")
}

func (tb *table) open(ops ...Opening) uint64 {
	tb.t.Helper()
	var b uint64
	for i, m := range tb.ms {
		x, err := m.Open(ops)
		if err != nil {
			tb.t.Fatalf("seat %d: Open: %v", i+1, err)
		}
		b = x
	}
	tb.collect()
	return b
}

// cheats returns seat i's cheat events.
func (tb *table) cheats(i int) []Event {
	var out []Event
	for _, e := range tb.events[i] {
		if e.Kind == EventCheat {
			out = append(out, e)
		}
	}
	return out
}

func (tb *table) noCheats() {
	tb.t.Helper()
	for i := range tb.ms {
		for _, e := range tb.cheats(i) {
			tb.t.Errorf("seat %d saw a cheat: %s", i+1, e.Text)
		}
	}
}

// opened returns seat i's EventOpened of batch b, by slot.
func (tb *table) opened(i int, b uint64) []Event {
	var out []Event
	for _, e := range tb.events[i] {
		if e.Kind == EventOpened && e.Batch == b {
			out = append(out, e)
		}
	}
	return out
}

func seqDeck(id uint8, n int, first uint16) Deck {
	d := Deck{ID: id}
	for i := 0; i < n; i++ {
		d.Cards = append(d.Cards, first+uint16(i))
	}
	return d
}
