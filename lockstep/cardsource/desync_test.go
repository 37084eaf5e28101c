package cardsource_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/boardmesh/boardmesh/crypto"
	"github.com/boardmesh/boardmesh/engine"
	"github.com/boardmesh/boardmesh/engine/games"
	"github.com/boardmesh/boardmesh/lockstep"
)

// stateEnv is a state envelope of id at step seq: the hashes from step
// from to seq and the state st (what Node sends on a desync).
func stateEnv(id *crypto.Identity, session crypto.Hash, from uint64, hashes []crypto.Hash, st engine.State) *crypto.Envelope {
	e := engine.NewEncoder(nil)
	e.Uint("from", from)
	e.Len("hashes", len(hashes))
	for _, h := range hashes {
		e.Blob("hash", h[:])
	}
	e.Blob("state", engine.Encode(st))
	env := &crypto.Envelope{Session: session, Seq: from + uint64(len(hashes)) - 1, Kind: crypto.KindState,
		StateHash: hashes[len(hashes)-1], Body: append([]byte(nil), e.Bytes()...)}
	crypto.Sign(id, env)
	return env
}

// TestDesyncAtAWaitForCards is the bundle of a desync at a secret table,
// for every game with hidden cards: a wait for cards is a step with no
// entry of its own, and the cards it opened to everyone are named only by
// the action after it. The state after exactly that step must still be
// rebuilt from the log, both when the next entry is in it (the replay
// used to run past the step, and the report diffed a state of another
// step, or replay said "the log does not reach step N") and when the log
// ends at the wait (a desync stops the game before the next action): then
// the peer's own state envelope kept with the log says which state came
// after the wait, and replay names the first divergent entry and the
// differing fields.
func TestDesyncAtAWaitForCards(t *testing.T) {
	t.Parallel() // its own simulated clock and disks: it runs beside the others
	for _, g := range hiddenCardGames(t, 0) {
		t.Run(g.Name, func(t *testing.T) {
			nt := newNodeTableOf(t, g, 3, "dc "+g.Name, false)
			nt.play()
			log := nt.entries[0]
			all, err := lockstep.Verify(log, games.Lookup)
			if err != nil {
				t.Fatalf("the log does not verify: %v", err)
			}
			hashes := nt.nodes[0].Hashes()
			// Every wait replays the log from its start: the first
			// maxWaits of them show it.
			const maxWaits = 12
			waits := 0
			for k := 1; k < len(all.Steps) && waits < maxWaits; k++ {
				if all.Steps[k-1].Kind != "cards" {
					continue
				}
				waits++
				r, took, err := lockstep.ReplayAt(log, games.Lookup, uint64(k))
				if err != nil || len(r.Steps) != k || r.Hashes[k] != hashes[k] {
					t.Fatalf("ReplayAt step %d (a wait for cards): %d steps, %v", k, len(r.Steps), err)
				}
				// The log as a desync after the wait leaves it: the entries
				// before it. Peer 2 says its state at step k is the one of
				// a later step; peer 1's own state envelope is kept.
				cut := log[:took]
				if took < len(log) && log[took].Seq == uint64(k) && log[took].Kind != crypto.KindAction {
					// A checkpoint round at k signs the state after the
					// wait itself: the log would not end here.
					continue
				}
				later, _, err := lockstep.ReplayAt(log, games.Lookup, uint64(k+1))
				if err != nil || len(later.Steps) != k+1 || bytes.Equal(engine.Encode(later.Final), engine.Encode(r.Final)) {
					continue
				}
				theirs := stateEnv(nt.ids[1], r.Session, uint64(k-1),
					[]crypto.Hash{hashes[k-1], crypto.Hash(engine.Hash(later.Final))}, later.Final)
				own := stateEnv(nt.ids[0], r.Session, uint64(k-1), []crypto.Hash{hashes[k-1], hashes[k]}, r.Final)
				rep, err := lockstep.ExplainDesync(cut, games.Lookup, theirs, own)
				if err != nil || rep == nil {
					t.Fatalf("step %d: the bundle explains %v: %v", k, rep, err)
				}
				want := engine.Diff(r.Final, later.Final)
				if rep.Entry != uint64(k-1) || rep.Mine != hashes[k] || fmt.Sprint(rep.Diff) != fmt.Sprint(want) || len(want) == 0 {
					t.Fatalf("step %d: the bundle's report names entry %d, mine %s, fields %v; want entry %d, mine %s, fields %v",
						k, rep.Entry, rep.Mine.Short(), rep.Diff, k-1, hashes[k].Short(), want)
				}
				// The peer's own envelope agrees with its log: it explains
				// nothing (and is no error).
				if again, err := lockstep.ExplainDesync(cut, games.Lookup, own, own); err != nil || again != nil {
					t.Fatalf("step %d: our own state explains %v, %v", k, again, err)
				}
			}
			if waits == 0 {
				t.Fatal("the game had no wait for cards: the test shows nothing")
			}
		})
	}
}
