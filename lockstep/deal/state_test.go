package deal

import (
	"errors"
	"testing"

	"github.com/boardmesh/boardmesh/crypto"
)

// TestOtherStateIsNoCheat: one seat's state differs (its engine went
// wrong) when a reshuffle, or a draw, is declared. Its envelopes carry its
// state hash, the others theirs: every machine sets aside, unchecked, what
// answers another state (an EventOtherState naming its author), names no
// cheat, and the chain or batch waits. The buggy seat is the first to
// shuffle (the honest seats set its shuffle aside) or the last (it sets
// the honest shuffles aside, and the honest seats see nothing wrong: the
// session's state envelopes then decide, lockstep's desynccards.go).
func TestOtherStateIsNoCheat(t *testing.T) {
	honest, buggy := crypto.Hash{1}, crypto.Hash{2}
	for _, bad := range []int{0, 2} {
		for _, what := range []string{"reshuffle", "draw"} {
			tb := newTable(t, 3, []Deck{seqDeck(0, 6, 10)})
			tb.run()
			tb.noCheats()
			for i, m := range tb.ms {
				if i == bad {
					m.At(buggy)
				} else {
					m.At(honest)
				}
			}
			for i, m := range tb.ms {
				var err error
				if what == "reshuffle" {
					// The buggy peer reshuffles another pile.
					from := []Handle{{Deck: 0, Pos: 0}, {Deck: 0, Pos: 1}, {Deck: 0, Pos: 2}}
					if i == bad {
						from[2] = Handle{Deck: 0, Pos: 3}
					}
					err = m.Reshuffle(1, from)
				} else {
					// The buggy peer draws another card for seat 2.
					pos := uint16(0)
					if i == bad {
						pos = 4
					}
					_, err = m.Open([]Opening{{Deck: 0, Pos: pos, To: 1}})
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			tb.collect()
			tb.run()
			tb.noCheats()
			others := 0
			for i := range tb.ms {
				for _, ev := range tb.events[i] {
					if ev.Kind != EventOtherState {
						continue
					}
					others++
					if (i == bad) == (ev.Seat-1 == bad) || len(ev.Evidence) != 1 {
						t.Errorf("buggy seat %d, %s: seat %d sets aside an envelope of seat %d (%d envelopes): %s", bad+1, what, i+1, ev.Seat, len(ev.Evidence), ev.Text)
					}
				}
				if what == "reshuffle" && tb.ms[i].DeckReady(1) {
					t.Errorf("buggy seat %d: seat %d's reshuffled deck is ready, though the seats' states differ", bad+1, i+1)
				}
				if what == "draw" && len(tb.opened(i, 0)) > 0 {
					t.Errorf("buggy seat %d: seat %d opened a card, though the seats' states differ", bad+1, i+1)
				}
			}
			if others == 0 {
				t.Errorf("buggy seat %d, %s: nothing set aside", bad+1, what)
			}
			for _, errs := range tb.errs {
				for _, err := range errs {
					if !errors.Is(err, ErrOtherState) && !errors.Is(err, ErrDuplicate) {
						t.Errorf("buggy seat %d, %s: a step failed otherwise: %v", bad+1, what, err)
					}
				}
			}
		}
	}
}

// TestStateHashOnlyWhereAnswered: a card-key, escrow, accuse or piece
// envelope with a state hash is malformed; a shuffle, remask or share may
// carry one.
func TestStateHashOnlyWhereAnswered(t *testing.T) {
	id := testIdentity(t, 0)
	key := &crypto.Envelope{Session: session(), Kind: crypto.KindCardKey, StateHash: crypto.Hash{9},
		Body: (&keyBody{Key: make([]byte, 32), Proof: make([]byte, 64)}).encode()}
	crypto.Sign(id, key)
	if err := wellFormed(key); !errors.Is(err, ErrBadBody) {
		t.Fatalf("a card-key with a state hash: %v", err)
	}
	share := &crypto.Envelope{Session: session(), Seq: 3, Kind: crypto.KindShare, StateHash: crypto.Hash{9},
		Body: encodeShares([]shareEntry{{Slot: 0, Share: make([]byte, 128)}})}
	if err := wellFormed(share); err != nil {
		t.Fatalf("a share with a state hash: %v", err)
	}
}
