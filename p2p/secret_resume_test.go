package p2p

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/boardmesh/boardmesh/crypto"
	"github.com/boardmesh/boardmesh/engine"
	"github.com/boardmesh/boardmesh/engine/games"
	"github.com/boardmesh/boardmesh/engine/infinitecity"
	"github.com/boardmesh/boardmesh/lockstep"
)

// secretPeer is one peer of a secret Infinite City table in these tests,
// with what it was told of cheats and the end.
type secretPeer struct {
	name string
	cfg  NetConfig
	p    *NetPeer
	errc chan error
	stop context.CancelFunc

	mu      sync.Mutex
	accused []string
	over    bool
}

func secretConfig(t *testing.T, name string, seed byte) NetConfig {
	t.Helper()
	id, err := crypto.GenerateIdentity(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	g := infinitecity.Game
	return NetConfig{Identity: id, Name: name, Home: t.TempDir(), NoQUIC: true, Games: games.Lookup,
		Bot: g.Bots[int(seed)%len(g.Bots)].New(), BotRand: engine.NewRand([]byte{seed}), BotDelay: 5 * time.Millisecond}
}

// watch records sp's accusations and its game's end.
func (sp *secretPeer) watch() {
	sp.p.OnUpdate(func(u Update) {
		sp.mu.Lock()
		defer sp.mu.Unlock()
		for _, ev := range u.Events {
			switch ev.Kind {
			case lockstep.EventCheat, lockstep.EventEquivocation, lockstep.EventDesync:
				sp.accused = append(sp.accused, ev.Text)
			case lockstep.EventGameOver:
				sp.over = true
			}
		}
	})
}

func (sp *secretPeer) run(ctx context.Context) {
	rctx, cancel := context.WithCancel(ctx)
	sp.stop, sp.errc = cancel, make(chan error, 1)
	go func() { sp.errc <- sp.p.Run(rctx) }()
}

// kill stops sp as a crash would: at once, mid-game, and the next
// write of a torn record left half-written at the end of its log.
func (sp *secretPeer) kill(t *testing.T) {
	t.Helper()
	sp.stop()
	<-sp.errc
	path := sp.p.Log.Path()
	sp.p.Close()
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte{0, 0, 2, 0, 5, 1, 2})
	f.Close()
}

// resume brings sp back from its session directory.
func (sp *secretPeer) resume(ctx context.Context, t *testing.T) {
	t.Helper()
	dir, meta, err := FindSession(sp.cfg.Home, "")
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	p, err := ResumeSession(ctx, sp.cfg, dir, meta)
	if err != nil {
		t.Fatalf("%s does not resume: %v", sp.name, err)
	}
	t.Logf("%s resumed from %d entries and %d card envelopes of the others in %v", sp.name, len(p.Node.Log()), p.CardRecords, time.Since(start).Round(time.Millisecond))
	if p.Repair == nil || p.Repair.Torn == nil {
		t.Fatalf("%s's resume did not find the torn tail: %v", sp.name, p.Repair)
	}
	sp.p = p
	sp.watch()
	sp.run(ctx)
}

// openSecretTable hosts a secret Infinite City table of len(names) bot
// peers on loopback and starts them.
func openSecretTable(ctx context.Context, t *testing.T, names ...string) []*secretPeer {
	t.Helper()
	var sps []*secretPeer
	for i, name := range names {
		sps = append(sps, &secretPeer{name: name, cfg: secretConfig(t, name, byte(i+1))})
	}
	sps[0].cfg.StartWhen = len(names)
	host, err := HostLobby(sps[0].cfg, infinitecity.Game, nil)
	if err != nil {
		t.Fatal(err)
	}
	sps[0].p = host
	sps[0].watch()
	sps[0].run(ctx)
	for _, sp := range sps[1:] {
		p, _, err := JoinLobby(ctx, sp.cfg, Addrs(host.Host)[0].String(), time.Second)
		if err != nil {
			t.Fatal(err)
		}
		sp.p = p
		sp.watch()
		sp.run(ctx)
	}
	t.Cleanup(func() {
		for _, sp := range sps {
			sp.p.Close()
		}
	})
	return sps
}

// cardRecords counts the other seats' card envelopes in a log file.
func cardRecords(t *testing.T, path string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lf, _ := lockstep.ParseLog(b)
	return len(lf.Cards)
}

// waitDealt waits until every peer's log holds at least entries entries
// and card envelopes of the other seats: the game is well under way.
func waitDealt(t *testing.T, sps []*secretPeer, entries int) {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for _, sp := range sps {
		for len(logRecords(t, sp.p.Log.Path())) < entries || cardRecords(t, sp.p.Log.Path()) == 0 {
			if time.Now().After(deadline) {
				t.Fatalf("%s's log did not reach %d records with card envelopes", sp.name, entries)
			}
			select {
			case err := <-sp.errc:
				t.Fatalf("%s ended before the crash: %v", sp.name, err)
			case <-time.After(10 * time.Millisecond):
			}
		}
	}
}

// finish waits for every peer's game to end and checks what a user would:
// the same log everywhere, a log that verifies, nobody accused, and on
// each seat's disk a private card-key file.
func finish(t *testing.T, sps []*secretPeer) {
	t.Helper()
	var errs []error
	for _, sp := range sps {
		errs = append(errs, <-sp.errc)
	}
	for i, err := range errs {
		if err != nil && !errors.Is(err, context.Canceled) {
			for k, sp := range sps {
				sp.mu.Lock()
				st := sp.p.Node.Status()
				t.Logf("%s: run %v; phase %v, step %d, %d entries, waiting %v, caught up %v; accused %q", sp.name, errs[k], st.Phase, st.Seq, st.Entries, st.Waiting, sp.p.Node.CaughtUp(), sp.accused)
				sp.mu.Unlock()
			}
			t.Fatalf("%s: %v", sps[i].name, err)
		}
	}
	want := sps[0].p.Node.Log()
	for _, sp := range sps {
		sp.mu.Lock()
		accused, over := sp.accused, sp.over
		sp.mu.Unlock()
		if len(accused) > 0 {
			t.Fatalf("%s accused someone at an honest table: %q", sp.name, accused)
		}
		if !over {
			t.Fatalf("%s's game did not end", sp.name)
		}
		if !sp.p.Node.Secret() {
			t.Fatalf("%s's table is not secret", sp.name)
		}
		got := sp.p.Node.Log()
		if len(got) != len(want) {
			t.Fatalf("%s has %d entries, %s %d", sp.name, len(got), sps[0].name, len(want))
		}
		for i := range got {
			if !crypto.Equal(got[i], want[i]) {
				t.Fatalf("%s's entry %d differs", sp.name, i)
			}
		}
		b, err := os.ReadFile(sp.p.Log.Path())
		if err != nil {
			t.Fatal(err)
		}
		lf, err := lockstep.ParseLog(b)
		if err != nil || len(lf.Entries) != len(want) {
			t.Fatalf("%s's log file: %d entries, %v", sp.name, len(lf.Entries), err)
		}
		st, err := os.Stat(CardKeyPath(sp.p.Log.Path()))
		if err != nil || st.Mode().Perm() != 0o600 {
			t.Fatalf("%s's card-key file: %v, %v", sp.name, st, err)
		}
	}
	if rep, err := lockstep.Verify(want, games.Lookup); err != nil || rep.Result == nil {
		t.Fatalf("the log does not verify: %v", err)
	}
}

// TestSecretPeerKilledAndResumed: a secret Infinite City table of three
// real libp2p peers on loopback; in the middle of the game one joiner is
// killed (its last write torn) and resumed from its session directory: it
// takes up its hidden-card key and the card envelopes it had taken, deals
// on, and the game ends with identical logs everywhere, a log that
// verifies, and nobody accused.
func TestSecretPeerKilledAndResumed(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	sps := openSecretTable(ctx, t, "Ada", "Bob", "Cy")
	waitDealt(t, sps, 80)
	sps[2].kill(t)
	sps[2].resume(ctx, t)
	finish(t, sps)
}

// TestSecretTableStoppedAndRestarted: every peer of a secret table is
// killed mid-game (each with a torn last write) and resumed, the last
// host first: they meet again, each deals on from its own disk, and the
// game ends with identical logs, a log that verifies, nobody accused.
func TestSecretTableStoppedAndRestarted(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	sps := openSecretTable(ctx, t, "Ada", "Bob", "Cy")
	waitDealt(t, sps, 80)
	for _, sp := range sps {
		sp.kill(t)
	}
	for i := len(sps) - 1; i >= 0; i-- {
		sps[i].resume(ctx, t)
	}
	finish(t, sps)
}

// TestSecretResumeHostileCardKey: a seat of a secret table is killed, and
// its card-key file is found damaged (a flipped bit), cut short, replaced
// by a directory, or gone. Each time resume refuses at once with an error
// in plain words that names the file and says the key is lost, and
// changes nothing: with the good file back, the seat resumes and the game
// ends with identical logs and nobody accused.
func TestSecretResumeHostileCardKey(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	sps := openSecretTable(ctx, t, "Ada", "Bob")
	waitDealt(t, sps, 60)
	bob := sps[1]
	bob.kill(t)
	path := CardKeyPath(bob.p.Log.Path())
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	logBefore, err := os.ReadFile(bob.p.Log.Path())
	if err != nil {
		t.Fatal(err)
	}
	dir, meta, err := FindSession(bob.cfg.Home, "")
	if err != nil {
		t.Fatal(err)
	}
	flipped := append([]byte(nil), good...)
	flipped[len(flipped)/2] ^= 0x10
	for _, tc := range []struct {
		name string
		set  func() error
		want string
	}{
		{"flipped bit", func() error { return os.WriteFile(path, flipped, 0o600) }, "checksum does not match"},
		{"cut short", func() error { return os.WriteFile(path, good[:len(good)-7], 0o600) }, "card-key file is damaged"},
		{"a directory", func() error { os.Remove(path); return os.Mkdir(path, 0o700) }, "not a regular file"},
		{"gone", func() error { return os.RemoveAll(path) }, "card-key file is missing"},
	} {
		if err := tc.set(); err != nil {
			t.Fatal(err)
		}
		p, err := ResumeSession(ctx, bob.cfg, dir, meta)
		if err == nil {
			p.Close()
			t.Fatalf("%s: resume went on without bob's card key", tc.name)
		}
		if msg := err.Error(); !strings.Contains(msg, tc.want) || !strings.Contains(msg, "key") {
			t.Fatalf("%s: resume says %q", tc.name, msg)
		}
		if msg := err.Error(); tc.name != "a directory" && !strings.Contains(msg, "cannot deal on") {
			t.Fatalf("%s: resume does not say what the damaged key costs: %q", tc.name, msg)
		}
		after, _ := os.ReadFile(bob.p.Log.Path())
		// The torn tail is cut by the first attempt; nothing else changes.
		if len(after) > len(logBefore) || !bytes.Equal(after, logBefore[:len(after)]) {
			t.Fatalf("%s: the refused resume changed the log", tc.name)
		}
	}
	os.RemoveAll(path)
	if err := os.WriteFile(path, good, 0o600); err != nil {
		t.Fatal(err)
	}
	p, err := ResumeSession(ctx, bob.cfg, dir, meta)
	if err != nil {
		t.Fatalf("bob does not resume with his card key back: %v", err)
	}
	bob.p = p
	bob.watch()
	bob.run(ctx)
	finish(t, sps)
}

// TestSecretResumeCorruptCardRecord: a seat of a secret table is killed and
// a bit flips inside one of the other seats' card envelopes in the middle
// of its log (a bad disk, not a crash). Resume says so in words, keeps the
// damaged file aside, deals on from the good records before the damage and
// fetches the rest (entries and card envelopes) from the others; the game
// ends with identical logs and nobody accused.
func TestSecretResumeCorruptCardRecord(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	sps := openSecretTable(ctx, t, "Ada", "Bob", "Cy")
	waitDealt(t, sps, 120)
	cy := sps[2]
	cy.kill(t)
	path := cy.p.Log.Path()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	lf, _ := lockstep.ParseLog(b)
	var cardAt []int
	for i, r := range lf.Records {
		if r.Type == lockstep.RecordCard {
			cardAt = append(cardAt, lf.Offsets[i])
		}
	}
	if len(cardAt) < 3 {
		t.Fatalf("cy's log holds %d card envelopes of the others", len(cardAt))
	}
	off := cardAt[len(cardAt)/2]
	b[off+4+1+40] ^= 0x04 // inside the envelope, past the length and type
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	dir, meta, err := FindSession(cy.cfg.Home, "")
	if err != nil {
		t.Fatal(err)
	}
	p, err := ResumeSession(ctx, cy.cfg, dir, meta)
	if err != nil {
		t.Fatalf("cy does not resume after a flipped bit in a card envelope: %v", err)
	}
	if p.Repair == nil || len(p.Repair.Damaged) == 0 || !strings.Contains(p.Repair.String(), "corrupted") {
		t.Fatalf("resume did not say the log is damaged: %v", p.Repair)
	}
	if _, err := os.Stat(p.Repair.SetAside); err != nil {
		t.Fatalf("the damaged log was not kept aside: %v", err)
	}
	cy.p = p
	cy.watch()
	cy.run(ctx)
	finish(t, sps)
}
