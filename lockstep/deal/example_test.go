package deal_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"

	"github.com/boardmesh/boardmesh/crypto"
	"github.com/boardmesh/boardmesh/lockstep/deal"
)

// Two seats deal a deck of five cards: setup, then seat 1 draws the top
// card privately and plays it face up. The "network" is a slice.
func Example() {
	var ids []*crypto.Identity
	var seats []crypto.PeerID
	for i := 0; i < 2; i++ {
		seed := bytes.Repeat([]byte{byte(i + 1)}, 32)
		id, _ := crypto.GenerateIdentity(bytes.NewReader(seed))
		ids, seats = append(ids, id), append(seats, id.ID())
	}
	decks := []deal.Deck{{ID: 0, Cards: []uint16{10, 11, 12, 13, 14}}}
	var ms []*deal.Machine
	for i, id := range ids {
		var key [32]byte
		key[0] = byte(i + 1)
		m, err := deal.New(deal.Config{Identity: id, Seats: seats, Rand: rand.NewChaCha8(key), Decks: decks})
		if err != nil {
			fmt.Println(err)
			return
		}
		ms = append(ms, m)
	}
	var wire []*crypto.Envelope
	settle := func() {
		for {
			for i, m := range ms {
				for m.HasReady() {
					rd := m.Ready() // a runner stores rd.Secret and rd.Persist, fsyncs, then sends
					wire = append(wire, rd.Messages...)
					for _, e := range rd.Events {
						if e.Kind == deal.EventDeckReady || e.Kind == deal.EventOpened {
							fmt.Printf("seat %d: %s\n", i+1, e.Text)
						}
					}
					m.Advance()
				}
			}
			if len(wire) > 0 {
				env := wire[0]
				wire = wire[1:]
				for _, m := range ms {
					m.Step(env) // to its author, a duplicate: ignored
				}
				continue
			}
			worked := false
			for _, m := range ms {
				if m.HasWork() {
					worked = m.Work() || worked
				}
			}
			if !worked {
				return
			}
		}
	}
	settle()
	for _, m := range ms {
		m.Open([]deal.Opening{{Deck: 0, Pos: 0, To: 0}})
	}
	settle()
	for _, m := range ms {
		m.Open([]deal.Opening{{Deck: 0, Pos: 0, To: deal.Public}})
	}
	settle()
	// Output:
	// seat 1: deck 0 is shuffled by every seat (5 cards)
	// seat 2: deck 0 is shuffled by every seat (5 cards)
	// seat 2: card 1 of deck 0 is opened to seat 1
	// seat 1: card 1 of deck 0 is card 12
	// seat 1: card 1 of deck 0 is card 12
	// seat 2: card 1 of deck 0 is card 12
}
