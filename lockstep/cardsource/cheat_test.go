package cardsource_test

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/boardmesh/boardmesh/crypto"
	mp "github.com/boardmesh/boardmesh/crypto/mentalpoker"
	"github.com/boardmesh/boardmesh/engine"
	"github.com/boardmesh/boardmesh/engine/dominion"
	"github.com/boardmesh/boardmesh/engine/games"
	"github.com/boardmesh/boardmesh/engine/infinitecity"
	"github.com/boardmesh/boardmesh/lockstep"
	"github.com/boardmesh/boardmesh/lockstep/deal"
)

// swapShares returns a share envelope's body with its first two shares
// swapped (each a valid point with a valid proof, for the other card's
// ciphertext), or nil if it holds fewer than two.
func swapShares(t *testing.T, body []byte) []byte { return editShares(t, body, nil) }

// wrongShares returns an edit that lies in P2's first share envelope of
// two shares or more by swapping them, or, in a game whose batches open
// one card each, in its second envelope by putting its first envelope's
// share (valid, for another card and batch) in place of its own.
func wrongShares() func(*testing.T, []byte) []byte {
	var first []byte
	return func(t *testing.T, body []byte) []byte {
		if b := editShares(t, body, first); b != nil {
			return b
		}
		if first == nil {
			first = append([]byte(nil), firstShare(t, body)...)
		}
		return nil
	}
}

func firstShare(t *testing.T, body []byte) []byte {
	d := engine.NewDecoder(body)
	d.Len(deal.MaxBatch)
	d.Len(deal.MaxBatch)
	return d.Blob(mp.ShareLen)
}

// editShares swaps body's first two shares; with one, it puts other (if
// set) in its place.
func editShares(t *testing.T, body, other []byte) []byte {
	t.Helper()
	d := engine.NewDecoder(body)
	n := d.Len(deal.MaxBatch)
	slots := make([]int, n)
	shares := make([][]byte, n)
	for i := 0; i < n; i++ {
		slots[i], shares[i] = d.Len(deal.MaxBatch), d.Blob(mp.ShareLen)
	}
	if err := d.Finish(); err != nil {
		t.Fatalf("a share body does not decode: %v", err)
	}
	switch {
	case n >= 2:
		shares[0], shares[1] = shares[1], shares[0]
	case n == 1 && other != nil:
		shares[0] = other
	default:
		return nil
	}
	e := engine.NewEncoder(nil)
	e.Len("count", n)
	for i := range slots {
		e.Uint("slot", uint64(slots[i]))
		e.Blob("share", shares[i])
	}
	return append([]byte(nil), e.Bytes()...)
}

// swapShuffle returns a shuffle envelope's body with the first two
// ciphertexts of its output swapped under its honest proof (a stacked
// deck).
func swapShuffle(t *testing.T, body []byte) []byte {
	t.Helper()
	d := engine.NewDecoder(body)
	deck, out, prf := d.Uint(), d.Blob(1<<20), d.Blob(1<<20)
	if err := d.Finish(); err != nil || len(out) < 2*mp.CiphertextLen {
		t.Fatalf("a shuffle body does not decode: %v", err)
	}
	out = append([]byte(nil), out...)
	first := append([]byte(nil), out[:mp.CiphertextLen]...)
	copy(out, out[mp.CiphertextLen:2*mp.CiphertextLen])
	copy(out[mp.CiphertextLen:], first)
	e := engine.NewEncoder(nil)
	e.Uint("deck", deck)
	e.Blob("output", out)
	e.Blob("proof", prf)
	return append([]byte(nil), e.Bytes()...)
}

// shareCheatTable is cheatTable for P2's share envelopes (wrongShares).
func shareCheatTable(t *testing.T, g *engine.Game, n int, seed string) (*nodeTable, *bool) {
	return cheatTable(t, g, n, seed, crypto.KindShare, wrongShares())
}

// cheatTable is a secret table of g with n nodes with drops by
// time off (DropAfter 0: only the cheat can drop anyone) where P2 runs a
// modified client: its first envelope of kind that edit changes (edit
// returns nil to let one pass) goes out changed, signed by P2 itself.
// Once it has sent it, P2's node is no longer run (what a dropped cheater
// does next is its own business).
func cheatTable(t *testing.T, g *engine.Game, n int, seed string, kind crypto.Kind, edit func(*testing.T, []byte) []byte) (*nodeTable, *bool) {
	nt := newNodeGameTable(t, g, n, seed, false, func(i int, c *lockstep.Config) { c.DropAfter, c.StallAfter = 0, 500 })
	nt.left, nt.cheatsOK = make([]bool, n), true
	cheated := new(bool)
	nt.tamper = func(from int, env *crypto.Envelope) *crypto.Envelope {
		if from != 1 || env.Kind != kind || *cheated {
			return env
		}
		body := edit(t, env.Body)
		if body == nil {
			return env
		}
		*cheated = true
		nt.left[1] = true
		bad := *env
		bad.Body = body
		crypto.Sign(nt.ids[1], &bad)
		return &bad
	}
	return nt, cheated
}

// update rewrites claimLogFile (go test -run CheatAtTwo -update).
var update = flag.Bool("update", false, "rewrite testdata/claim-after-cheat.log")

// claimLogFile is P1's log of TestNodeCheatAtTwoPausesAndClaims/share: a
// secret Infinite City table of two where P2 signs a wrong decryption
// share and P1 claims the win. The replay command's test reads it
// (cli/replay_test.go).
const claimLogFile = "testdata/claim-after-cheat.log"

// shareLie is what a peer's event says of P2's swapped shares.
var shareLie = regexp.MustCompile(`decryption share.*wrong`)

// namedP2 checks that peer i named P2, by name and seat from 1, in a
// cheat event matching what, and no other peer in any cheat.
func namedP2(t *testing.T, nt *nodeTable, i int, what *regexp.Regexp) {
	t.Helper()
	st := nt.nodes[i].Status()
	seat := -1
	for s, mi := range st.Seats {
		if st.Members[mi].Name == "P2" {
			seat = s
		}
	}
	found := false
	for _, ev := range nt.events[i] {
		if ev.Kind != lockstep.EventCheat && ev.Kind != lockstep.EventEquivocation && ev.Kind != lockstep.EventDesync {
			continue
		}
		// (Seat 0: the card layer's stop, which names no seat itself.)
		if ev.Seat != 0 && ev.Seat != seat+1 || !strings.Contains(ev.Text, "P2") {
			t.Errorf("peer %d blamed someone other than P2 (seat %d): %s", i+1, seat+1, ev.Text)
			continue
		}
		found = found || ev.Seat == seat+1 && what.MatchString(ev.Text) && strings.Contains(ev.Text, fmt.Sprintf("seat %d (P2)", seat+1))
	}
	if !found {
		t.Errorf("peer %d was not told in plain words that P2 (seat %d) did %q", i+1, seat+1, what)
	}
}

// TestNodeShareCheatDropsTheCheater: at a secret table of four nodes, in
// every game with hidden cards, P2 signs a wrong decryption share. Every honest node names P2 and votes at
// once to drop it (drops by time are off); P2's card key is rebuilt from
// the escrow, the cards it held are shown, and the three honest nodes play
// to the end with identical logs and states, naming nobody else; the log
// verifies on its own. Without the rule the table stands still after the
// cheat.
func TestNodeShareCheatDropsTheCheater(t *testing.T) {
	t.Parallel() // its own simulated clock and disks: it runs beside the others
	for _, g := range hiddenCardGames(t, 4) {
		t.Run(g.Name, func(t *testing.T) {
			nt, cheated := shareCheatTable(t, g, 4, "share cheat "+g.Name)
			cheaterDropped(t, nt, cheated, shareLie)
		})
	}
	// The fourth peer loses P2's lie on the way, and P2 sends it no more:
	// the honest peers keep it as any card envelope they took, and serve
	// it in their catch-up answers, so the fourth checks the proof itself
	// and votes too (the drop needs its vote).
	t.Run("one missed it", func(t *testing.T) {
		nt, cheated := shareCheatTable(t, infinitecity.Game, 4, "share cheat")
		nt.miss = func(to int, env *crypto.Envelope) bool {
			return to == 3 && env.Kind == crypto.KindShare && env.Author == nt.ids[1].ID() && *cheated
		}
		cheaterDropped(t, nt, cheated, shareLie)
	})
	// Just before its lie P2 signs a vote to drop P3, and every peer gets
	// it first: one vote of a drop that needs three. P3 is not voted out
	// by it (a voted-out peer names nobody for card envelopes that fail
	// against its cards), so it still names P2's lie and votes with the
	// others.
	t.Run("its vote against P3 first", func(t *testing.T) {
		nt, cheated := shareCheatTable(t, infinitecity.Game, 4, "share cheat")
		lie := nt.tamper
		nt.tamper = func(from int, env *crypto.Envelope) *crypto.Envelope {
			was := *cheated
			out := lie(from, env)
			if !was && *cheated {
				e := engine.NewEncoder(nil)
				e.Len("seats", 1)
				e.Uint("seat", uint64(nt.seatOf(1, "P3")))
				vote := &crypto.Envelope{Session: env.Session, Seq: uint64(len(nt.nodes[1].Log())), Kind: crypto.KindDrop, StateHash: env.StateHash, Body: e.Bytes()}
				crypto.Sign(nt.ids[1], vote)
				for j := range nt.nodes {
					if j != 1 {
						nt.inbox[j] = append(nt.inbox[j], vote.Marshal())
					}
				}
			}
			return out
		}
		cheaterDropped(t, nt, cheated, shareLie)
	})
}

// cheaterDropped plays nt to its end and checks that every honest peer
// named P2 in words matching what, voted it out, rebuilt its key and
// finished with the others: the same log and state, P2 alone dropped.
func cheaterDropped(t *testing.T, nt *nodeTable, cheated *bool, what *regexp.Regexp) {
	nt.playTicking()
	if !*cheated {
		t.Fatal("P2 never lied")
	}
	honest := []int{0, 2, 3}
	for _, i := range honest {
		namedP2(t, nt, i, what)
		voted, rebuilt := false, false
		for _, ev := range nt.events[i] {
			voted = voted || ev.Kind == lockstep.EventDropVote && strings.Contains(ev.Text, "P2") && strings.Contains(ev.Text, "proved it a cheat")
			rebuilt = rebuilt || ev.Kind == lockstep.EventDropped && strings.Contains(ev.Text, "escrow pieces")
		}
		if !voted || !rebuilt {
			t.Errorf("peer %d: voted to drop P2 for its cheat: %v; rebuilt its key: %v", i+1, voted, rebuilt)
		}
		if st := nt.nodes[i].Status(); st.Phase != lockstep.PhaseOver {
			t.Errorf("peer %d is in phase %v", i+1, st.Phase)
		}
	}
	a := nt.nodes[0]
	for _, i := range honest[1:] {
		if !bytes.Equal(engine.Encode(a.State()), engine.Encode(nt.nodes[i].State())) {
			t.Fatalf("peers 1 and %d end with different states", i+1)
		}
		nt.sameEntries(i)
	}
	st := a.Status()
	for s, mi := range st.Seats {
		if want := st.Members[mi].Name == "P2"; st.Dropped[s] != want {
			t.Errorf("seat %d (%s): dropped %v", s+1, st.Members[mi].Name, st.Dropped[s])
		}
	}
	rep, err := lockstep.Verify(nt.entries[0], games.Lookup)
	if err != nil || rep.Result == nil {
		t.Fatalf("the log does not verify on its own: %v", err)
	}
}

// shuffleLie is what a peer's event says of P2's forged shuffle.
var shuffleLie = regexp.MustCompile(`shuffle.*does not prove`)

// forgeReshuffle is swapShuffle for P2's first shuffle of a deck that is
// not one of the setup's first decks (a reshuffle's), nil for the others.
func forgeReshuffle(setup int) func(*testing.T, []byte) []byte {
	return func(t *testing.T, body []byte) []byte {
		if d := engine.NewDecoder(body).Uint(); d < uint64(setup) {
			return nil
		}
		return swapShuffle(t, body)
	}
}

// TestNodeForgedShuffleDropsTheForger: at a secret table of four nodes,
// in every game with hidden cards, P2 signs a forged shuffle of the setup
// (two ciphertexts of its output swapped under its honest proof), and in
// Dominion of a reshuffle too, after the seats after it may have shuffled
// its output. Every honest node names P2 and votes at once to drop it; its
// key is rebuilt from the escrow, the chain is redone from the last valid
// shuffle without it, and the three honest nodes play to the end with
// identical logs and states, naming nobody else; the log verifies on its
// own. Without the rule the table stands still after the forgery.
func TestNodeForgedShuffleDropsTheForger(t *testing.T) {
	t.Parallel() // its own simulated clock and disks: it runs beside the others
	for _, g := range games.All() {
		st, err := g.Setup(4, nil)
		if err != nil {
			t.Fatal(err)
		}
		cs, ok := st.(engine.CardState)
		if !ok {
			continue
		}
		t.Run(g.Name, func(t *testing.T) {
			nt, cheated := cheatTable(t, g, 4, "forged shuffle "+g.Name, crypto.KindShuffle, swapShuffle)
			cheaterDropped(t, nt, cheated, shuffleLie)
		})
		if g == infinitecity.Game {
			// The fourth peer loses P2's forged shuffle on the way: the
			// honest peers serve it in their catch-up answers, so the
			// fourth checks it itself, votes, and comes to the same redo.
			t.Run(g.Name+" one missed it", func(t *testing.T) {
				nt, cheated := cheatTable(t, g, 4, "forged shuffle missed", crypto.KindShuffle, swapShuffle)
				nt.miss = func(to int, env *crypto.Envelope) bool {
					return to == 3 && env.Kind == crypto.KindShuffle && env.Author == nt.ids[1].ID() && *cheated
				}
				cheaterDropped(t, nt, cheated, shuffleLie)
			})
		}
		if g == dominion.Game {
			t.Run(g.Name+" reshuffle", func(t *testing.T) {
				nt, cheated := cheatTable(t, g, 4, "forged reshuffle", crypto.KindShuffle, forgeReshuffle(len(cs.Cards().Decks())))
				cheaterDropped(t, nt, cheated, shuffleLie)
			})
		}
	}
}

// TestNodeCheatAtTwoPausesAndClaims: at a secret table of two, P2 signs
// a wrong decryption share, or a forged shuffle. P1 names it; it cannot
// drop P2 (a drop needs a majority), so its status says the game is
// paused because P2 is proven to cheat, and it may claim the win at once
// (no drop time to wait for a proven cheat); the claim is the log's last
// entry and the log verifies with P1 the winner.
func TestNodeCheatAtTwoPausesAndClaims(t *testing.T) {
	for _, c := range []struct {
		kind crypto.Kind
		edit func(*testing.T, []byte) []byte
		what *regexp.Regexp
		// result is what the result must say of the cheat, on P1's node
		// and in the replay of its log alone.
		result string
	}{
		{crypto.KindShare, swapShares, shareLie, "P2 was convicted of a cheat (a wrong decryption share: the share envelope P2 signed is in the claim); P1 claimed the win"},
		{crypto.KindShuffle, swapShuffle, regexp.MustCompile(`shuffle.*does not prove`), "P2 was convicted of a cheat (a forged shuffle: the shuffle envelope P2 signed is in the claim); P1 claimed the win"},
	} {
		t.Run(c.kind.String(), func(t *testing.T) { cheatAtTwo(t, c.kind, c.edit, c.what, c.result) })
	}
}

func cheatAtTwo(t *testing.T, kind crypto.Kind, edit func(*testing.T, []byte) []byte, what *regexp.Regexp, result string) {
	nt, cheated := cheatTable(t, infinitecity.Game, 2, "cheat at two "+kind.String(), kind, edit)
	a := nt.nodes[0]
	r := engine.NewRand([]byte("bots"))
	for steps := 0; steps < 5000 && !a.Status().CanClaim; steps++ {
		busy := nt.run()
		if nt.live(0) && a.CanAct() {
			st := a.State()
			if err := a.Act(engine.RandomBot{}.Choose(st, st.Legal(nil), r)); err != nil {
				t.Fatal(err)
			}
			busy = true
		}
		if nt.live(1) && nt.nodes[1].CanAct() {
			st := nt.nodes[1].State()
			if err := nt.nodes[1].Act(engine.RandomBot{}.Choose(st, st.Legal(nil), r)); err != nil {
				t.Fatal(err)
			}
			busy = true
		}
		if !busy {
			nt.now += 100
			a.Tick(nt.now)
		}
	}
	if !*cheated || !a.Status().CanClaim {
		t.Fatalf("P2 cheated: %v; P1 may claim: %v (status %+v)", *cheated, a.Status().CanClaim, a.Status().Waiting)
	}
	namedP2(t, nt, 0, what)
	if p := a.Status().Pause; !strings.Contains(p, "paused: P2 is proven to cheat") || !strings.Contains(p, "claim the win") {
		t.Fatalf("the status says %q", p)
	}
	counterClaim(t, nt)
	if err := a.Claim(); err != nil {
		t.Fatal(err)
	}
	nt.run()
	log := nt.entries[0]
	if last := log[len(log)-1]; last.Kind != crypto.KindClaim {
		t.Fatalf("the log ends with a %s entry", last.Kind)
	}
	rep, err := lockstep.Verify(log, games.Lookup)
	if err != nil || rep.Result == nil || len(rep.Result.Winners) != 1 || rep.Result.Winners[0] != a.Status().MySeat {
		t.Fatalf("the log verifies to %+v (%v)", rep, err)
	}
	// P1's screen and the replay of its log say the same: who cheated,
	// how, and who claimed.
	var live *engine.Result
	for _, ev := range nt.events[0] {
		if ev.Kind == lockstep.EventGameOver {
			live = ev.Result
		}
	}
	if live == nil || live.Reason != result {
		t.Fatalf("P1's game over reads %+v, want %q", live, result)
	}
	if rep.Result.Reason != result || rep.Steps[len(rep.Steps)-1].What != result {
		t.Fatalf("the replay's result reads %q, its last step %q; want %q", rep.Result.Reason, rep.Steps[len(rep.Steps)-1].What, result)
	}
	if kind == crypto.KindShare {
		// The log is a golden vector of a claim after a cheat (every
		// key and every bot's move come from the test's seeds).
		if *update {
			if err := os.WriteFile(claimLogFile, lockstep.EncodeLog(log), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if b, err := os.ReadFile(claimLogFile); err != nil || !bytes.Equal(b, lockstep.EncodeLog(log)) {
			t.Errorf("P1's log differs from %s (%v); if the change is meant, rewrite it with go test -run CheatAtTwo -update", claimLogFile, err)
		}
	}
	claimForged(t, nt, log)
}

// counterClaim: the cheater P2 claims the win itself, pinning a wrong
// share on P1 with a card envelope of its own as the "proof". P1 names
// P2's claim as refused, and its game is not over.
func counterClaim(t *testing.T, nt *nodeTable) {
	t.Helper()
	a := nt.nodes[0]
	st := a.Status()
	var own *crypto.Envelope
	for _, b := range nt.got[0] {
		if env, err := crypto.Unmarshal(b); err == nil && env.Kind.Card() && env.Author == nt.ids[1].ID() {
			own = env
			break
		}
	}
	if own == nil {
		t.Fatal("P1 holds no card envelope of P2's")
	}
	e := engine.NewEncoder(nil)
	e.Uint("seat", uint64(1-st.MySeat))
	e.Text("cheat", "wrong share")
	e.Blob("proof", own.Marshal())
	claim := &crypto.Envelope{Session: st.Session, Seq: uint64(st.Entries), Kind: crypto.KindClaim, StateHash: own.StateHash, Body: e.Bytes()}
	crypto.Sign(nt.ids[1], claim)
	before := len(nt.events[0])
	_ = a.Step(claim)
	nt.run()
	named := false
	for _, ev := range nt.events[0][before:] {
		named = named || (ev.Kind == lockstep.EventCheat || ev.Kind == lockstep.EventRejected) && strings.Contains(ev.Text, "P2 (seat") &&
			strings.Contains(ev.Text, "claim") && strings.Contains(ev.Text, "is not an envelope of P1")
	}
	if !named || a.Status().Phase != lockstep.PhasePlaying {
		t.Fatalf("P2's claim with its own envelope as proof: named %v, P1's phase %v; events %v", named, a.Status().Phase, nt.events[0][before:])
	}
}

// claimForged: a claim entry that names a cheat with a proof that is not
// the other seat's signed envelope of this session, or a cheat of the
// wrong kind, does not verify (no one is framed by the claimant's word).
func claimForged(t *testing.T, nt *nodeTable, log []*crypto.Envelope) {
	t.Helper()
	claim := log[len(log)-1]
	d := engine.NewDecoder(claim.Body)
	seat, name, proof := d.Uint(), d.Text(64), d.Blob(1<<20)
	if err := d.Finish(); err != nil {
		t.Fatalf("the claim names no cheat: %v", err)
	}
	p, err := crypto.Unmarshal(proof)
	if err != nil {
		t.Fatal(err)
	}
	own := *p
	own.Author = claim.Author // the claimant's own envelope
	claimant := nt.ids[0]
	crypto.Sign(claimant, &own)
	unsigned := *p
	unsigned.Sig = append([]byte(nil), p.Sig...)
	unsigned.Sig[0] ^= 1
	// A move of the other seat's for another step than the claim's,
	// signed by it (one the table took, or never asked for): any signed
	// move fits "bad reveal" by its kind, but only one refused at the
	// claim's step proves it.
	var taken []byte
	for _, id := range nt.ids {
		if id.ID() == p.Author {
			mv := crypto.Envelope{Session: claim.Session, Seq: 1 << 20, Kind: crypto.KindAction, Body: []byte{0}}
			crypto.Sign(id, &mv)
			taken = mv.Marshal()
		}
	}
	if taken == nil {
		t.Fatal("no identity of the other seat")
	}
	for what, c := range map[string]struct {
		name  string
		proof []byte
	}{
		"the claimant's own envelope": {name, own.Marshal()},
		"a bad signature":             {name, unsigned.Marshal()},
		"a cheat of another kind":     {"bad escrow", proof},
		"an unknown cheat":            {"rude", proof},
		"a move of another step":      {"bad reveal", taken},
	} {
		e := engine.NewEncoder(nil)
		e.Uint("seat", seat)
		e.Text("cheat", c.name)
		e.Blob("proof", c.proof)
		bad := *claim
		bad.Body = e.Bytes()
		crypto.Sign(claimant, &bad)
		forged := append(append([]*crypto.Envelope(nil), log[:len(log)-1]...), &bad)
		if _, err := lockstep.Verify(forged, games.Lookup); err == nil {
			t.Errorf("a claim whose proof is %s verifies", what)
		}
	}
}
