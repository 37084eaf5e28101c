package p2p_test

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/boardmesh/boardmesh/crypto"
	"github.com/boardmesh/boardmesh/engine"
	"github.com/boardmesh/boardmesh/engine/games"
	"github.com/boardmesh/boardmesh/engine/infinitecity"
	"github.com/boardmesh/boardmesh/lockstep"
	"github.com/boardmesh/boardmesh/p2p"
	"github.com/boardmesh/boardmesh/p2p/hostile"
)

// The hidden-card protocol's attacks over real libp2p on a secret table
// of Infinite City (three peers, so key escrow is on too). lockstep/deal's
// and lockstep/cardsource's unit tests try each against the pure machines;
// these try them against the production runner, gossip and all: the
// cheater is bob, whose modified client runs the real card layer and
// changes what leaves it (re-signed with his own key: he lies, he does not
// forge), and the honest peers (ada, cy) are untouched code. Each test
// checks that both honest peers name bob in plain words, seat counted from
// 1, blame nobody else, and commit nothing of the cheat.

// cheatLayer is bob's modified card layer: msg may replace an envelope the
// real layer signed (nil keeps it), reveal may change the cards a move
// shows. What bob's own disk and resends hold is the replacement too, so
// his client never contradicts its own lie by accident.
type cheatLayer struct {
	lockstep.CardLayer
	msg    func(env *crypto.Envelope) *crypto.Envelope
	reveal func(seq uint64, rs []lockstep.Revealed) bool
	// also, if set, may return a second envelope to send after a message
	// (a second, different claim for its slot).
	also func(env *crypto.Envelope) *crypto.Envelope
}

func (c *cheatLayer) TakeReady() lockstep.CardReady {
	rd := c.CardLayer.TakeReady()
	if c.also != nil {
		var out []*crypto.Envelope
		for _, e := range rd.Messages {
			out = append(out, e)
			if x := c.also(e); x != nil {
				out = append(out, x)
			}
		}
		rd.Messages = out
	}
	if c.msg == nil {
		return rd
	}
	swap := map[*crypto.Envelope]*crypto.Envelope{}
	for _, list := range [][]*crypto.Envelope{rd.Persist, rd.Messages} {
		for i, e := range list {
			if x, ok := swap[e]; ok {
				list[i] = x
				continue
			}
			if x := c.msg(e); x != nil {
				swap[e] = x
				list[i] = x
			}
		}
	}
	return rd
}

func (c *cheatLayer) Reveal(a engine.Action, seq uint64) ([]byte, error) {
	b, err := c.CardLayer.Reveal(a, seq)
	if err != nil || c.reveal == nil || len(b) == 0 {
		return b, err
	}
	rs, err := lockstep.DecodeReveals(b)
	if err != nil || len(rs) == 0 {
		return b, err
	}
	if !c.reveal(seq, rs) {
		return b, nil
	}
	return lockstep.EncodeReveals(rs), nil
}

// secretArena is a secret Infinite City table of ada, bob and cy where bob
// runs cheat's card layer, made from the real one and the state it
// serves.
func secretArena(t *testing.T, ctx context.Context, cheat func(st engine.CardState, l *cheatLayer)) *arena {
	return secretArenaOf(t, ctx, nil, cheat)
}

// secretArenaOf is secretArena with the players names (bob second).
func secretArenaOf(t *testing.T, ctx context.Context, names []string, cheat func(st engine.CardState, l *cheatLayer)) *arena {
	return newArena(t, ctx, arenaConfig{names: names, game: infinitecity.Game, secret: true, tune: cheatTune(cheat)})
}

// cheatTune is the arena's tune that gives bob cheat's card layer.
func cheatTune(cheat func(st engine.CardState, l *cheatLayer)) func(i int, lc *lockstep.Config) {
	return func(i int, lc *lockstep.Config) {
		if i != bob {
			return
		}
		inner := lc.Cards
		lc.Cards = func(st engine.CardState, cfg lockstep.CardConfig) (lockstep.CardLayer, error) {
			l, err := inner(st, cfg)
			if err != nil {
				return nil, err
			}
			c := &cheatLayer{CardLayer: l}
			cheat(st, c)
			return c, nil
		}
	}
}

// waitNamed waits until each of peers has shown an event that matches
// what and names the cheater, then checks it as arena.named does.
func (a *arena) waitNamed(ctx context.Context, peers []int, cheater int, what *regexp.Regexp, d time.Duration) {
	a.t.Helper()
	name := a.name(cheater)
	deadline := time.Now().Add(d)
	for _, i := range peers {
		for {
			found := false
			for _, e := range a.eventsOf(i) {
				if what.MatchString(e.Text) && bytes.Contains([]byte(e.Text), []byte(name)) {
					found = true
				}
			}
			if found || time.Now().After(deadline) || ctx.Err() != nil {
				break
			}
			a.noPanic(a.all())
			time.Sleep(20 * time.Millisecond)
		}
	}
	a.noPanic(a.all())
	a.named(peers, cheater, what)
	a.framesNobody(peers, a.but(cheater))
}

// bobsFirst returns a msg hook that hands bob's first envelope of kind
// that edit accepts (edit returns the new body, or nil to let it pass) to
// edit, re-signs it with bob's key, and keeps the original.
func bobsFirst(a **arena, kind crypto.Kind, edit func(body []byte) []byte) (func(*crypto.Envelope) *crypto.Envelope, func() *crypto.Envelope) {
	var mu sync.Mutex
	var orig *crypto.Envelope
	return func(env *crypto.Envelope) *crypto.Envelope {
			mu.Lock()
			defer mu.Unlock()
			if orig != nil || env.Kind != kind {
				return nil
			}
			body := edit(append([]byte(nil), env.Body...))
			if body == nil {
				return nil
			}
			orig = env
			x := *env
			x.Body = body
			return hostile.Signed((*a).keys[bob], &x)
		}, func() *crypto.Envelope {
			mu.Lock()
			defer mu.Unlock()
			return orig
		}
}

// TestAttackSecretForgedShuffle: at a secret table of four, bob's link
// of the shuffle chain swaps two cards of his output under his honest
// proof (a stacked deck), and cy and dee, after him, may have shuffled his
// output already. The honest three name bob, vote him out, redo the chain
// from ada's shuffle without him, and play to the end (cheatGoesOn).
func TestAttackSecretForgedShuffle(t *testing.T) {
	t.Parallel()
	cheatGoesOn(t, crypto.KindShuffle, regexp.MustCompile(`(?i)shuffle.*does not prove`), func(body []byte) []byte {
		b, err := hostile.ParseShuffle(body)
		if err != nil || len(b.Output) < 128 {
			t.Errorf("bob's shuffle body does not parse: %v", err)
			return nil
		}
		first := append([]byte(nil), b.Output[:64]...)
		copy(b.Output[:64], b.Output[64:128])
		copy(b.Output[64:128], first)
		return b.Encode()
	})
}

// shareCheatGoesOn: at a secret table of four (ada, bob, cy, dee), bob's
// first share envelope of two shares or more is changed by edit, signed
// by bob. What the players see: each honest peer names bob in plain words
// (his seat counted from 1) and blames nobody else; then, with no drop
// time set (only the proof can drop anyone), every honest peer votes bob
// out at once, his card key is rebuilt from the others' escrow pieces,
// and the three play the game to its end with identical logs and results;
// bob is dropped, and the log, with the drop votes in it, verifies on its
// own.
func shareCheatGoesOn(t *testing.T, what *regexp.Regexp, edit func(es []hostile.ShareEntry) []hostile.ShareEntry) {
	cheatGoesOn(t, crypto.KindShare, what, func(body []byte) []byte {
		es, err := hostile.ParseShares(body)
		if err != nil {
			t.Errorf("bob's share body does not parse: %v", err)
			return nil
		}
		if len(es) < 2 {
			return nil // wait for a batch of two cards or more
		}
		return hostile.SharesBody(edit(es))
	})
}

// cheatGoesOn is shareCheatGoesOn for bob's first envelope of kind that
// edit changes (nil: let it pass).
func cheatGoesOn(t *testing.T, kind crypto.Kind, what *regexp.Regexp, edit func(body []byte) []byte) {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	var a *arena
	msg, orig := bobsFirst(&a, kind, edit)
	a = secretArenaOf(t, ctx, []string{"ada", "bob", "cy", "dee"}, func(_ engine.CardState, l *cheatLayer) { l.msg = msg })
	honest := a.but(bob)
	a.start(ctx)
	a.waitNamed(ctx, honest, bob, what, 90*time.Second)
	if orig() == nil {
		t.Fatalf("bob never sent a %s envelope", kind)
	}
	a.cheaterOut(honest)
}

// cheaterOut checks, after bob's cheat was named, that the honest peers
// vote him out for it, finish the game with identical logs and results,
// blaming nobody else, and that the log verifies on its own.
func (a *arena) cheaterOut(honest []int) {
	t := a.t
	t.Helper()
	a.wait(honest, 3*time.Minute)
	a.finishedIdentical(honest)
	a.framesNobody(honest, honest)
	r0 := a.tbl.Peers[honest[0]].Result()
	for _, i := range honest {
		if r := a.tbl.Peers[i].Result(); fmt.Sprint(*r) != fmt.Sprint(*r0) {
			t.Fatalf("%s's result %v, %s's %v", a.name(i), *r, a.name(honest[0]), *r0)
		}
		voted := false
		for _, e := range a.eventsOf(i) {
			voted = voted || e.Kind == lockstep.EventDropVote && strings.Contains(e.Text, "bob") && strings.Contains(e.Text, "proved it a cheat")
		}
		if !voted {
			t.Errorf("%s did not say it voted bob out for his cheat; its events: %s", a.name(i), a.eventText(i))
		}
	}
	st := a.tbl.Peers[ada].Status()
	if s := a.seatWord(bob); s == "" || !st.Dropped[seatIndex(st, a.keys[bob].ID())] {
		t.Fatalf("bob (%s) is not dropped at the end: %v", s, st.Dropped)
	}
	var log []*crypto.Envelope
	drops := 0
	for _, b := range a.tbl.Peers[ada].Entries() {
		env, err := crypto.Unmarshal(b)
		if err != nil {
			t.Fatal(err)
		}
		if env.Kind == crypto.KindDrop {
			drops++
		}
		log = append(log, env)
	}
	if drops != len(honest) {
		t.Errorf("%d drop votes in the log, want one of each honest peer", drops)
	}
	if rep, err := lockstep.Verify(log, games.Lookup); err != nil || rep.Result == nil {
		t.Fatalf("the log does not verify on its own: %v", err)
	}
}

// seatIndex is the 0-based seat of id in st, or -1.
func seatIndex(st lockstep.Status, id crypto.PeerID) int {
	for s, mi := range st.Seats {
		if mi < len(st.Members) && st.Members[mi].ID == id {
			return s
		}
	}
	return -1
}

// TestAttackSecretWrongShare: bob's decryption shares for a deal are
// swapped between two cards: each is a well-formed point with a valid
// proof, for another card's ciphertext. The honest three go on without
// him (shareCheatGoesOn).
func TestAttackSecretWrongShare(t *testing.T) {
	t.Parallel()
	shareCheatGoesOn(t, regexp.MustCompile(`(?i)decryption share.*wrong`), func(es []hostile.ShareEntry) []hostile.ShareEntry {
		es[0].Share, es[1].Share = es[1].Share, es[0].Share
		return es
	})
}

// TestAttackSecretMissingShare: bob's share envelope for a deal leaves
// out the share of one card he owes. The honest three go on without him.
func TestAttackSecretMissingShare(t *testing.T) {
	t.Parallel()
	shareCheatGoesOn(t, regexp.MustCompile(`(?i)shares.*leave out`), func(es []hostile.ShareEntry) []hostile.ShareEntry {
		return es[:len(es)-1]
	})
}

// swapTwoShares swaps the first two shares of a share body (nil: fewer
// than two, let it pass).
func swapTwoShares(body []byte) []byte {
	es, err := hostile.ParseShares(body)
	if err != nil || len(es) < 2 {
		return nil
	}
	es[0].Share, es[1].Share = es[1].Share, es[0].Share
	return hostile.SharesBody(es)
}

// swapTwoCards swaps the first two ciphertexts of a shuffle's output
// under its honest proof (nil: the body does not parse).
func swapTwoCards(body []byte) []byte {
	b, err := hostile.ParseShuffle(body)
	if err != nil || len(b.Output) < 128 {
		return nil
	}
	first := append([]byte(nil), b.Output[:64]...)
	copy(b.Output[:64], b.Output[64:128])
	copy(b.Output[64:128], first)
	return b.Encode()
}

// TestAttackSecretCheatAtTwo: at a secret table of two, bob signs a wrong
// decryption share, or a forged shuffle. Ada names him; she cannot vote
// him out (a drop needs a majority), so her screen says the game is
// paused because bob is proven to cheat, and offers the claim of the win
// at once (no drop time to wait for a proven cheat). Her claim ends the
// game with her the winner, and her log verifies on its own with that
// result.
func TestAttackSecretCheatAtTwo(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		kind crypto.Kind
		edit func([]byte) []byte
		what *regexp.Regexp
		// result: what ada's result says (and the replay of her log).
		result string
	}{
		{crypto.KindShare, swapTwoShares, regexp.MustCompile(`(?i)decryption share.*wrong`), "bob was convicted of a cheat (a wrong decryption share: the share envelope bob signed is in the claim); ada claimed the win"},
		{crypto.KindShuffle, swapTwoCards, regexp.MustCompile(`(?i)shuffle.*does not prove`), "bob was convicted of a cheat (a forged shuffle: the shuffle envelope bob signed is in the claim); ada claimed the win"},
	} {
		t.Run(c.kind.String(), func(t *testing.T) { claimAfterCheat(t, c.kind, c.edit, c.what, c.result) })
	}
}

func claimAfterCheat(t *testing.T, kind crypto.Kind, edit func([]byte) []byte, what *regexp.Regexp, result string) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var a *arena
	msg, orig := bobsFirst(&a, kind, edit)
	a = secretArenaOf(t, ctx, []string{"ada", "bob"}, func(_ engine.CardState, l *cheatLayer) { l.msg = msg })
	a.start(ctx)
	a.waitNamed(ctx, []int{ada}, bob, what, 90*time.Second)
	if orig() == nil {
		t.Fatalf("bob never sent a %s envelope", kind)
	}
	p := a.tbl.Peers[ada]
	for !p.Status().CanClaim {
		select {
		case <-ctx.Done():
			t.Fatalf("ada was never offered the claim; status %q, waiting %v", p.Status().Pause, p.Status().Waiting)
		case <-time.After(50 * time.Millisecond):
		}
	}
	if pause := p.Status().Pause; !strings.Contains(pause, "paused: bob is proven to cheat") || !strings.Contains(pause, "claim the win") {
		t.Fatalf("ada's status says %q", pause)
	}
	if err := p.Runner.Do(ctx, func(n *lockstep.Node) error { return n.Claim() }); err != nil {
		t.Fatal(err)
	}
	a.wait([]int{ada}, 60*time.Second)
	r := p.Result()
	if r == nil || len(r.Winners) != 1 || r.Winners[0] != p.Status().MySeat || r.Reason != result {
		t.Fatalf("the result is %+v", r)
	}
	log := p2p.EnvelopesOf(t, p.Entries())
	if log[len(log)-1].Kind != crypto.KindClaim {
		t.Fatalf("ada's log ends with a %s", log[len(log)-1].Kind)
	}
	rep, err := lockstep.Verify(log, games.Lookup)
	if err != nil || rep.Result == nil || fmt.Sprint(*rep.Result) != fmt.Sprint(*r) {
		t.Fatalf("the log verifies to %v (%v), ada's result is %v", rep, err, *r)
	}
}

// TestAttackSecretEquivocation: bob signs two different share envelopes
// for one batch (the honest one, then another). Each honest peer holds
// both signed claims and names the equivocation. The second is sent a
// moment after bob's card layer sent the first (so the first is seen
// first), by a peer that relays it under bob's key. The bots take a
// moment over each move, as players do: without it a whole game of
// Infinite City takes about 150 ms here, and under load it ended once
// before the second envelope arrived (an equivocation after the end is
// named but cannot stop a game that is over). Under load bob's own copy
// (fsynced before it leaves) can still come second: the honest peers
// then rightly name the second as a wrong share, which is no equivocation
// to see, so the table is played again (at most three tables, the last
// with a longer moment).
func TestAttackSecretEquivocation(t *testing.T) {
	t.Parallel()
	for _, gap := range []time.Duration{100 * time.Millisecond, 100 * time.Millisecond, 300 * time.Millisecond} {
		if equivocationAfter(t, gap) {
			return
		}
		t.Logf("the second share envelope, %v after the first, reached an honest peer first: again", gap)
	}
	t.Fatal("in three tables the second share envelope always came first")
}

// equivocationBotDelay is each bot's pause before a move in
// TestAttackSecretEquivocation: a game of some 40 turns then lasts
// seconds, not the tenth of a second the second envelope may take.
const equivocationBotDelay = 60 * time.Millisecond

// equivocationAfter plays one table of TestAttackSecretEquivocation, the
// second envelope sent gap after the first; it reports false if an honest
// peer saw the second first (and named it as a wrong share).
func equivocationAfter(t *testing.T, gap time.Duration) bool {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var mu sync.Mutex
	var first *crypto.Envelope
	sent := make(chan struct{})
	a := newArena(t, ctx, arenaConfig{game: infinitecity.Game, secret: true, botDelay: equivocationBotDelay,
		tune: cheatTune(func(_ engine.CardState, l *cheatLayer) {
			l.also = func(e *crypto.Envelope) *crypto.Envelope {
				mu.Lock()
				defer mu.Unlock()
				if first == nil && e.Kind == crypto.KindShare {
					first = e
					close(sent)
				}
				return nil
			}
		})})
	a.start(ctx)
	select {
	case <-sent:
	case <-ctx.Done():
		t.Fatal("bob never sent a share envelope")
	}
	time.Sleep(gap)
	mu.Lock()
	x := *first
	mu.Unlock()
	x.Body = append([]byte(nil), x.Body...)
	x.Body[len(x.Body)-1] ^= 1
	second := hostile.Signed(a.keys[bob], &x)
	if crypto.Equal(first, second) {
		t.Fatal("the second claim is the first")
	}
	if err := a.bad.Publish(ctx, second); err != nil {
		t.Fatal(err)
	}
	equivocation, wrong := regexp.MustCompile(`(?i)two different share`), regexp.MustCompile(`decryption share .* is wrong`)
	for deadline := time.Now().Add(60 * time.Second); time.Now().Before(deadline) && ctx.Err() == nil; time.Sleep(20 * time.Millisecond) {
		named := 0
		for _, i := range []int{ada, cy} {
			for _, e := range a.eventsOf(i) {
				if wrong.MatchString(e.Text) && strings.Contains(e.Text, a.name(bob)) {
					return false
				}
				if equivocation.MatchString(e.Text) {
					named++
					break
				}
			}
		}
		if named == 2 {
			break
		}
	}
	a.waitNamed(ctx, []int{ada, cy}, bob, equivocation, time.Second)
	// The pair is proof anyone can check: each honest peer commits it as
	// evidence, broadcasts it and stops, as for any other slot; the log
	// verifies on its own and names bob.
	a.wait([]int{ada, cy}, 60*time.Second)
	a.stopped([]int{ada, cy})
	a.sameLogsUpToEvidence([]int{ada, cy}, bob)
	for _, i := range []int{ada, cy} {
		log := p2p.EnvelopesOf(t, a.tbl.Peers[i].Entries())
		rep, err := lockstep.Verify(log, games.Lookup)
		if err != nil || rep == nil || rep.Cheater != a.keys[bob].ID() {
			t.Fatalf("%s's log does not verify as proof against bob: %v", a.name(i), err)
		}
	}
	return true
}

// revealAttack runs a game where bob's first move that shows a tile from
// his hand is changed by edit before it leaves him. Both honest peers must
// refuse that move, name bob, and never commit it.
func revealAttack(t *testing.T, what *regexp.Regexp, edit func(st engine.CardState, earlier [][]lockstep.Revealed, rs []lockstep.Revealed) bool) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var mu sync.Mutex
	var cheatSeq uint64
	cheated := false
	a := secretArena(t, ctx, func(st engine.CardState, l *cheatLayer) {
		var earlier [][]lockstep.Revealed
		l.reveal = func(seq uint64, rs []lockstep.Revealed) bool {
			mu.Lock()
			defer mu.Unlock()
			if cheated {
				return false
			}
			if !edit(st, earlier, rs) {
				earlier = append(earlier, append([]lockstep.Revealed(nil), rs...))
				return false
			}
			cheated, cheatSeq = true, seq
			return true
		}
	})
	a.start(ctx)
	a.waitNamed(ctx, []int{ada, cy}, bob, what, 90*time.Second)
	mu.Lock()
	defer mu.Unlock()
	if !cheated {
		t.Fatal("bob never showed a tile")
	}
	for _, i := range []int{ada, cy} {
		for _, b := range a.tbl.Peers[i].Entries() {
			env, err := crypto.Unmarshal(b)
			if err == nil && env.Kind == crypto.KindAction && env.Author == a.keys[bob].ID() && env.Seq == cheatSeq {
				t.Errorf("%s committed bob's move with a false tile (seq %d)", a.name(i), cheatSeq)
			}
		}
	}
}

// TestAttackSecretSubstitutedReveal: bob lays a tile from his hand but
// says it is another tile of the game, with his honest share of the real
// one.
func TestAttackSecretSubstitutedReveal(t *testing.T) {
	t.Parallel()
	revealAttack(t, regexp.MustCompile(`(?i)tile|card|reveal|show`), func(st engine.CardState, _ [][]lockstep.Revealed, rs []lockstep.Revealed) bool {
		for _, list := range st.Cards().Decks() {
			for _, v := range list {
				if v != rs[0].Card {
					rs[0].Card = v
					return true
				}
			}
		}
		return false
	})
}

// TestAttackSecretRevealNotItsCiphertext: bob lays a tile and names it
// truly, but the share he attaches is his valid share of another tile he
// showed earlier: it does not open this tile's ciphertext.
func TestAttackSecretRevealNotItsCiphertext(t *testing.T) {
	t.Parallel()
	revealAttack(t, regexp.MustCompile(`(?i)tile|card|reveal|show|share`), func(_ engine.CardState, earlier [][]lockstep.Revealed, rs []lockstep.Revealed) bool {
		for _, prev := range earlier {
			for _, p := range prev {
				if p.Handle != rs[0].Handle && len(p.Share) > 0 && len(rs[0].Share) > 0 {
					rs[0].Share = append([]byte(nil), p.Share...)
					return true
				}
			}
		}
		return false
	})
}
