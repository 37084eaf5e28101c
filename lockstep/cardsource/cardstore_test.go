package cardsource_test

import (
	"errors"
	"testing"

	"github.com/boardmesh/boardmesh/crypto"
	"github.com/boardmesh/boardmesh/engine/infinitecity"
	"github.com/boardmesh/boardmesh/lockstep"
)

// logStore is a peer's log file (nodeTable.disk) as its
// lockstep.CardStore: each read parses the file's bytes anew, so what
// comes back is what the disk holds. lose and edit damage it.
type logStore struct {
	disk  func() []byte
	reads int
	lose  bool
	edit  bool
}

func (s *logStore) find(kind crypto.Kind, author crypto.PeerID, seq uint64) *crypto.Envelope {
	lf, _ := lockstep.ParseLog(s.disk())
	if lf == nil {
		return nil
	}
	for _, r := range lf.Records {
		if (r.Type == lockstep.RecordCard || r.Type == lockstep.RecordSent) && r.Env != nil &&
			r.Env.Kind == kind && r.Env.Author == author && r.Env.Seq == seq {
			return r.Env
		}
	}
	return nil
}

func (s *logStore) Holds(kind crypto.Kind, author crypto.PeerID, seq uint64) bool {
	return s.find(kind, author, seq) != nil
}

func (s *logStore) Card(kind crypto.Kind, author crypto.PeerID, seq uint64) (*crypto.Envelope, error) {
	s.reads++
	env := s.find(kind, author, seq)
	if env == nil || s.lose {
		return nil, errors.New("no such card record")
	}
	if s.edit {
		env.Body = append([]byte(nil), env.Body...)
		env.Body[len(env.Body)-1] ^= 1
	}
	return env, nil
}

// storeTable is a 3-seat secret Infinite City table whose peers read their
// old card envelopes back from their log files, after the setup's deal.
func storeTable(t *testing.T) (*nodeTable, []*logStore) {
	var nt *nodeTable
	stores := make([]*logStore, 3)
	for i := range stores {
		i := i
		stores[i] = &logStore{disk: func() []byte { return nt.disk[i] }}
	}
	nt = newNodeGameTable(t, infinitecity.Game, 3, "cardstore", false, func(i int, c *lockstep.Config) { c.CardStore = stores[i] })
	nt.run()
	return nt, stores
}

// A catch-up answer of a peer whose card envelopes are on disk carries
// the same card envelopes, in the same order, as the same peer's answer
// at the same table with every envelope in memory.
func TestCardCatchupReadBackFromStore(t *testing.T) {
	mem := newNodeGameTable(t, infinitecity.Game, 3, "cardstore", false, nil)
	mem.run()
	disk, stores := storeTable(t)
	for i := range disk.nodes {
		q := lockstep.GapRequest{To: disk.ids[(i+1)%3].ID(), From: 0}
		want := mem.nodes[i].Answer(q).Pending
		got := disk.nodes[i].Answer(q).Pending
		if stores[i].reads == 0 {
			t.Fatalf("peer %d read nothing back from its log file: its card envelopes are all in memory", i+1)
		}
		var cards int
		for _, e := range want {
			if e.Kind.Card() {
				cards++
			}
		}
		if cards == 0 || len(got) != len(want) {
			t.Fatalf("peer %d served %d envelopes from disk, %d from memory (%d card envelopes)", i+1, len(got), len(want), cards)
		}
		for k := range want {
			if !crypto.Equal(got[k], want[k]) {
				t.Fatalf("peer %d's answer from disk differs at envelope %d (%s of seq %d)", i+1, k, want[k].Kind, want[k].Seq)
			}
		}
	}
}

// A log file that lost a card envelope, or holds other bytes for it,
// makes the answer leave it out and say why (ErrCardStore), never panic
// and never serve the wrong bytes.
func TestCardCatchupWithDamagedStore(t *testing.T) {
	for _, damage := range []string{"lost", "edited"} {
		t.Run(damage, func(t *testing.T) {
			nt, stores := storeTable(t)
			if damage == "lost" {
				stores[0].lose = true
			} else {
				stores[0].edit = true
			}
			node := nt.nodes[0]
			a := node.Answer(lockstep.GapRequest{To: nt.ids[1].ID(), From: 0})
			if stores[0].reads == 0 {
				t.Fatal("nothing was read back")
			}
			for _, e := range a.Pending {
				if e.Kind.Card() {
					if err := crypto.Verify(e); err != nil {
						t.Fatalf("served a card envelope with other bytes: %v", err)
					}
				}
			}
			var named bool
			for node.HasReady() {
				rd := node.Ready()
				for _, ev := range rd.Events {
					named = named || ev.Kind == lockstep.EventRejected && errors.Is(ev.Err, lockstep.ErrCardStore)
				}
				node.Advance()
			}
			if !named {
				t.Fatal("the answer left card envelopes out without saying why")
			}
		})
	}
}
