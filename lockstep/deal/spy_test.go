package deal

import (
	"fmt"
	"testing"

	"github.com/boardmesh/boardmesh/crypto"
)

// TestSpyLearnsNothing is the spy test at the protocol level: seat
// 3 keeps every byte it receives and every event it gets. Two games whose
// public history is the same (the same seats, the same randomness, the
// same openings) but whose deck lists the same cards in another order deal
// seat 1 and seat 2 different cards; the spy's complete view is the same
// in both, byte for byte, so it cannot tell which cards they hold.
func TestSpyLearnsNothing(t *testing.T) {
	const spy = 2
	run := func(cards []uint16) (view []byte, drawn []uint16, spyCard uint16) {
		tb := newTable(t, 4, []Deck{{ID: 0, Cards: cards}})
		tb.hook = func(to int, env *crypto.Envelope) *crypto.Envelope {
			if to == spy {
				view = append(view, env.Marshal()...)
			}
			return env
		}
		tb.run()
		tb.open(Opening{Deck: 0, Pos: 0, To: 0}, Opening{Deck: 0, Pos: 1, To: 1}, Opening{Deck: 0, Pos: 2, To: spy})
		tb.run()
		tb.open(Opening{Deck: 0, Pos: 0, To: 1}) // seat 2 looks at seat 1's card too
		tb.run()
		tb.noCheats()
		for _, e := range tb.events[spy] {
			view = append(view, fmt.Sprintf("%d %q %d %d %v %v|", e.Kind, e.Text, e.Batch, e.Slot, e.Known, e.Card)...)
		}
		for s := 0; s < 2; s++ {
			c, _ := tb.ms[s].Card(Handle{Deck: 0, Pos: uint16(s)})
			drawn = append(drawn, c)
		}
		spyCard, _ = tb.ms[spy].Card(Handle{Deck: 0, Pos: 2})
		return view, drawn, spyCard
	}
	a := make([]uint16, 12)
	for i := range a {
		a[i] = uint16(200 + i)
	}
	va, da, sa := run(a)
	// The second game lists the cards rotated, except the spy's own card,
	// which stays where it was (the spy sees its own card, so the two
	// games must agree on it; the cryptography depends on positions in the
	// list, not on the ids, so the same randomness deals the same
	// positions).
	b := make([]uint16, 12)
	for i := range b {
		b[i] = uint16(200 + (i+5)%12)
	}
	k := int(sa - 200)
	for i := range b {
		if b[i] == sa {
			b[i], b[k] = b[k], b[i]
		}
	}
	vb, db, sb := run(b)
	if sa != sb {
		t.Fatalf("the spy drew %d and %d: the games are not comparable", sa, sb)
	}
	if da[0] == db[0] && da[1] == db[1] {
		t.Fatalf("the two games deal seats 1 and 2 the same cards (%v, %v): the test shows nothing", da, db)
	}
	if string(va) != string(vb) {
		t.Errorf("the spy's view differs between two games that differ only in hidden cards (%v vs %v)", da, db)
	}
}
