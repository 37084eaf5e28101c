package cardsource_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/boardmesh/boardmesh/crypto"
	"github.com/boardmesh/boardmesh/engine"
	"github.com/boardmesh/boardmesh/engine/games"
	"github.com/boardmesh/boardmesh/lockstep"
	"github.com/boardmesh/boardmesh/lockstep/cardsource"
)

// persist keeps peer i's Ready on its disk as the p2p runner does: its own
// signed envelopes, the card envelopes its layer took, the entries, in
// that order; an fsync when the Ready asks for one.
func (nt *nodeTable) persist(i int, rd lockstep.Ready) {
	for _, e := range rd.Persist {
		nt.disk[i] = lockstep.AppendRecord(nt.disk[i], lockstep.RecordSent, e)
	}
	for _, e := range rd.Cards {
		nt.disk[i] = lockstep.AppendRecord(nt.disk[i], lockstep.RecordCard, e)
	}
	for _, e := range rd.Entries {
		nt.disk[i] = lockstep.AppendRecord(nt.disk[i], lockstep.RecordEntry, e)
	}
	if rd.MustSync {
		nt.synced[i] = len(nt.disk[i])
	}
}

// answer serves peer i's gap request from the other peers, as the p2p
// catch-up stream does for a member.
func (nt *nodeTable) answer(i int, q lockstep.GapRequest) {
	for j, other := range nt.nodes {
		if j == i || !nt.live(j) || j == nt.mute && nt.muted >= nt.muteAfter {
			continue // a peer that is gone answers nothing
		}
		if nt.lost != nil && nt.lost(j, i, q) {
			continue
		}
		a := other.Answer(lockstep.GapRequest{To: nt.ids[i].ID(), From: q.From, NoCards: q.NoCards})
		var b [][]byte
		if nt.withhold != nil {
			var kept []*crypto.Envelope
			for _, e := range a.Pending {
				if !nt.withhold(j, e) {
					kept = append(kept, e)
				}
			}
			a.Pending = kept
		}
		for _, e := range append(append([]*crypto.Envelope(nil), a.Entries...), a.Pending...) {
			b = append(b, e.Marshal()) // as they travel: bytes
		}
		a.Entries, a.Pending = unmarshalAll(nt.t, b[:len(a.Entries)]), unmarshalAll(nt.t, b[len(a.Entries):])
		_ = nt.nodes[i].StepAnswer(a)
	}
}

func unmarshalAll(t *testing.T, bs [][]byte) []*crypto.Envelope {
	var out []*crypto.Envelope
	for _, b := range bs {
		env, err := crypto.Unmarshal(b)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, env)
	}
	return out
}

// unsyncedCards reports whether peer i's disk holds a card record after
// its last fsync.
func (nt *nodeTable) unsyncedCards(i int) bool {
	for b := nt.disk[i][nt.synced[i]:]; len(b) > 0; {
		r, n, err := lockstep.DecodeRecord(b)
		if err != nil {
			nt.t.Fatal(err)
		}
		if r.Type == lockstep.RecordCard {
			return true
		}
		b = b[n:]
	}
	return false
}

// crashNow restarts every peer marked in crashTorn at once, torn.
func (nt *nodeTable) crashNow() {
	for i, c := range nt.crashTorn {
		if c {
			nt.restart(i, true, fmt.Sprintf("%s %d", nt.crashSeed, i))
			nt.crashTorn[i] = false
		}
	}
	nt.crashes++
}

// restart crashes peer i and makes it again from its disk: what was not
// fsynced is lost when torn (a power cut), its messages in flight are
// lost both ways, and its card layer gets other randomness (a layer that
// signed anew for a slot it had signed would be named an equivocator).
func (nt *nodeTable) restart(i int, torn bool, seed string) {
	nt.t.Helper()
	if torn {
		for b := nt.disk[i][nt.synced[i]:]; len(b) > 0; {
			r, n, err := lockstep.DecodeRecord(b)
			if err != nil {
				nt.t.Fatal(err)
			}
			if r.Type == lockstep.RecordCard {
				nt.lostCards++
			}
			b = b[n:]
		}
		nt.disk[i] = nt.disk[i][:nt.synced[i]]
	}
	nt.inbox[i] = nil
	lf, err := lockstep.ParseLog(nt.disk[i])
	if err != nil {
		nt.t.Fatalf("peer %d's log: %v", i+1, err)
	}
	var k [32]byte
	copy(k[:], seed)
	cfg := lockstep.Config{Identity: nt.ids[i], Name: fmt.Sprintf("P%d", i+1), Games: games.Lookup,
		Cards: cardsource.Maker(rand.NewChaCha8(k)), Log: lf.Entries, Sent: lf.SentBy(nt.ids[i]), CardKey: nt.keys[i], CardLog: lf.Cards}
	if nt.tune != nil {
		nt.tune(i, &cfg)
	}
	node, err := lockstep.New(cfg)
	if err != nil {
		for _, r := range lf.Records {
			nt.t.Logf("rec %d %s seq %d by %s", r.Type, r.Env.Kind, r.Env.Seq, r.Env.Author.String()[:8])
		}
		nt.t.Fatalf("peer %d does not restart from its disk: %v", i+1, err)
	}
	nt.nodes[i] = node
	nt.entries[i] = append([]*crypto.Envelope(nil), lf.Entries...)
	node.Tick(nt.now)
}

// cut keeps the first num/den of peer i's disk records (a disk that
// lost data it had synced).
func (nt *nodeTable) cut(i, num, den int) {
	nt.t.Helper()
	ends := []int{}
	for off := len(lockstep.LogMagic); off < len(nt.disk[i]); {
		_, n, err := lockstep.DecodeRecord(nt.disk[i][off:])
		if err != nil {
			nt.t.Fatal(err)
		}
		off += n
		ends = append(ends, off)
	}
	keep := len(ends) * num / den
	end := len(lockstep.LogMagic)
	if keep > 0 {
		end = ends[keep-1]
	}
	nt.disk[i] = nt.disk[i][:end]
	nt.synced[i] = min(nt.synced[i], end)
}

// sameEntries asserts that peer i committed peer 1's entries, byte for
// byte.
func (nt *nodeTable) sameEntries(i int) {
	nt.t.Helper()
	nt.sameEntriesAs(i, 0)
}

// sameEntriesAs asserts that peer i committed peer j's entries, byte for
// byte (sameEntries: peer 1's).
func (nt *nodeTable) sameEntriesAs(i, j int) {
	nt.t.Helper()
	want, got := nt.entries[j], nt.entries[i]
	if len(got) != len(want) {
		nt.t.Fatalf("peer %d committed %d entries, peer %d %d", i+1, len(got), j+1, len(want))
	}
	for k := range want {
		if !bytes.Equal(want[k].Marshal(), got[k].Marshal()) {
			nt.t.Fatalf("peer %d's entry %d differs from peer %d's", i+1, k, j+1)
		}
	}
}

// checkSame asserts every peer ended the game with peer 1's log and
// state, and that the log verifies.
func (nt *nodeTable) checkSame() {
	nt.t.Helper()
	want := nt.nodes[0].Log()
	for i, node := range nt.nodes {
		if node.Status().Phase != lockstep.PhaseOver {
			nt.t.Fatalf("peer %d: phase %v", i+1, node.Status().Phase)
		}
		got := node.Log()
		if len(got) != len(want) {
			nt.t.Fatalf("peer %d has %d entries, peer 1 %d", i+1, len(got), len(want))
		}
		for k := range got {
			if !crypto.Equal(got[k], want[k]) {
				nt.t.Fatalf("peer %d's entry %d differs from peer 1's", i+1, k)
			}
		}
		if len(nt.entries[i]) != len(want) {
			nt.t.Fatalf("peer %d's disk holds %d entries, its log %d", i+1, len(nt.entries[i]), len(want))
		}
		if !bytes.Equal(engine.Encode(node.State()), engine.Encode(nt.nodes[0].State())) {
			nt.t.Fatalf("peer %d's shared state differs from peer 1's", i+1)
		}
	}
	rep, err := lockstep.Verify(want, games.Lookup)
	if err != nil || rep.Result == nil {
		nt.t.Fatalf("the log does not verify: %v", err)
	}
	// A spectator verifies it as it grows, an entry at a time: the same.
	v := lockstep.NewVerifier(games.Lookup)
	for i, env := range want {
		if err := v.Feed(env); err != nil {
			nt.t.Fatalf("the growing log does not verify at entry %d: %v", i, err)
		}
	}
	if got := v.Replay(); got.Result == nil || !bytes.Equal(engine.Encode(got.Final), engine.Encode(rep.Final)) || v.Len() != len(want) {
		nt.t.Fatal("the log verified entry by entry does not end as the whole log")
	}
}

// TestSecretTableRestart: secret Infinite City tables of lockstep nodes
// whose peers crash and restart from what they had on disk (the log file
// with its card records, the card-key file): one peer with its disk
// intact, one that lost its unsynced tail (so it fetches the card
// envelopes it had taken again from the others), and the whole table at
// once. Each time the game goes on to its end, every peer holds the same
// log and state, the log verifies, no cheat is named (a restarted seat
// signing anew for a slot would be an equivocation), and a restarted
// seat's engine knows its own tiles again.
func TestSecretTableRestart(t *testing.T) {
	t.Parallel() // its own simulated clock and disks: it runs beside the others
	for _, tc := range []struct {
		name  string
		seats int
		at    []int // steps of play at which to restart
		who   []int // peers restarted (all at once)
		torn  bool
		cut   bool // the disk loses the last 2/5 of its records (synced or not)
	}{
		{"one peer", 3, []int{6, 30}, []int{1}, false, false},
		{"one peer, torn tail", 3, []int{8}, []int{2}, true, false},
		{"another peer, torn tail", 4, []int{20}, []int{1}, true, false},
		{"whole table", 2, []int{10}, []int{0, 1}, false, false},
		{"all torn", 3, []int{12}, []int{0, 1, 2}, true, false},
		{"one peer, log cut", 3, []int{30}, []int{1}, false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			nt := newNodeTable(t, tc.seats, tc.name[:min(len(tc.name), 12)], false) // the seed: identities from its first 26 bytes
			restarts := 0
			nt.playWith(func(step int) {
				for _, at := range tc.at {
					if step != at {
						continue
					}
					if tc.torn {
						// Crash when a card envelope is taken and not
						// yet on disk for good (crashNow).
						nt.crashTorn, nt.crashSeed = make([]bool, tc.seats), fmt.Sprintf("%s %d", tc.name, step)
						for _, i := range tc.who {
							nt.crashTorn[i] = true
						}
						continue
					}
					var known []int
					for _, i := range tc.who {
						known = append(known, nt.nodes[i].State().(engine.CardState).Cards().Knowledge().Len())
					}
					for _, i := range tc.who {
						if tc.cut {
							nt.cut(i, 3, 5)
						}
						nt.restart(i, tc.torn, fmt.Sprintf("%s %d %d", tc.name, step, i))
					}
					restarts++
					for k, i := range tc.who {
						if tc.cut {
							continue // what it knew is back once it catches up
						}
						st := nt.nodes[i].State()
						if st == nil {
							t.Fatalf("peer %d restarted with no game", i+1)
						}
						if got := st.(engine.CardState).Cards().Knowledge().Len(); got != known[k] {
							t.Fatalf("peer %d knew %d cards before its restart, %d after", i+1, known[k], got)
						}
					}
				}
			})
			restarts += nt.crashes
			if restarts != len(tc.at) {
				t.Fatalf("the game ended after %d of %d restarts", restarts, len(tc.at))
			}
			if tc.torn && nt.lostCards == 0 {
				t.Fatal("no torn tail held a card envelope: the catch-up of card envelopes was not tried")
			}
			t.Logf("card envelopes lost in torn tails and served again: %d", nt.lostCards)
			nt.checkSame()
		})
	}
}

// TestCardCatchupPolicy: a gap answer carries the card envelopes near the
// asker's position to a seated member (every seat's key and shuffles at
// the start of the game), and none to a peer without a seat (a spectator
// or an outsider, whose catch-up is the committed log at most).
func TestCardCatchupPolicy(t *testing.T) {
	nt := newNodeTable(t, 3, "policy", false)
	nt.run()
	stranger, err := crypto.GenerateIdentity(rand.NewChaCha8([32]byte{9}))
	if err != nil {
		t.Fatal(err)
	}
	cards := func(a lockstep.GapAnswer) (n int, kinds map[crypto.Kind]bool) {
		kinds = map[crypto.Kind]bool{}
		for _, e := range a.Pending {
			if e.Kind.Card() {
				n++
				kinds[e.Kind] = true
			}
		}
		return n, kinds
	}
	for i, node := range nt.nodes {
		asker := nt.ids[(i+1)%len(nt.ids)].ID()
		n, kinds := cards(node.Answer(lockstep.GapRequest{To: asker, From: 0}))
		if n == 0 || !kinds[crypto.KindCardKey] || !kinds[crypto.KindShuffle] {
			t.Fatalf("peer %d served a seated member %d card envelopes (%v)", i+1, n, kinds)
		}
		if n, _ := cards(node.Answer(lockstep.GapRequest{To: stranger.ID(), From: 0})); n != 0 {
			t.Fatalf("peer %d served %d card envelopes to a peer without a seat", i+1, n)
		}
		far := uint64(len(node.Log())) + 1000
		if n, _ := cards(node.Answer(lockstep.GapRequest{To: asker, From: far})); n != 0 {
			t.Fatalf("peer %d served %d card envelopes far from the asker's position", i+1, n)
		}
		// A stalled peer's ask from before its log's end wants entries,
		// not the old card envelopes near them (lockstep/asks.go).
		a := node.Answer(lockstep.GapRequest{To: asker, From: 0, NoCards: true})
		if n, _ := cards(a); n != 0 || len(a.Entries) != len(node.Log()) || !a.NoCards {
			t.Fatalf("peer %d answered a request for no cards with %d card envelopes and %d of its %d entries (NoCards %v)", i+1, n, len(a.Entries), len(node.Log()), a.NoCards)
		}
	}
}
