package p2p

import (
	"context"
	"crypto/rand"
	"fmt"
	"net"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/boardmesh/boardmesh/crypto"
	"github.com/boardmesh/boardmesh/engine"
	"github.com/boardmesh/boardmesh/engine/dragonslair"
	"github.com/boardmesh/boardmesh/engine/games"
	"github.com/boardmesh/boardmesh/lockstep"
)

// logRecords counts the whole records of a log file and returns the byte
// offset after each.
func logRecords(t *testing.T, path string) []int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil || len(b) < len(lockstep.LogMagic) {
		return nil
	}
	var ends []int
	off := len(lockstep.LogMagic)
	for off < len(b) {
		_, n, err := lockstep.DecodeRecord(b[off:])
		if err != nil {
			break
		}
		off += n
		ends = append(ends, off)
	}
	return ends
}

func botConfig(t *testing.T, name string, seed byte) NetConfig {
	t.Helper()
	id, err := crypto.GenerateIdentity(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	g := dragonslair.Game
	return NetConfig{Identity: id, Name: name, Home: t.TempDir(), NoQUIC: true, Games: games.Lookup,
		Bot: g.Bots[len(g.Bots)-1].New(), BotRand: engine.NewRand([]byte{seed}), BotDelay: 5 * time.Millisecond}
}

// TestResumedPeerCatchesUpBeforeItsBotActs: a joiner stops, loses the
// last part of its log (its own signed actions among it, as a power cut
// can), and resumes with a bot that would choose differently. Its bot
// used to act at once on its old position, signing a second action for
// a step it had taken, and the host held proof of "equivocation" against
// an honest player. Now the resumed peer fetches what the table did
// first; the game ends normally with identical logs and nobody accused.
// Its old port is taken meanwhile, so it also shows that resume falls back
// to another port, says so, and the table still meets.
func TestResumedPeerCatchesUpBeforeItsBotActs(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	hc := botConfig(t, "Ada", 1)
	hc.StartWhen = 2
	host, err := HostLobby(hc, dragonslair.Game, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer host.Close()
	var mu sync.Mutex
	var accused []string
	var hostOver bool
	host.OnUpdate(func(u Update) {
		mu.Lock()
		defer mu.Unlock()
		for _, ev := range u.Events {
			if ev.Kind == lockstep.EventEquivocation || ev.Kind == lockstep.EventCheat {
				accused = append(accused, ev.Text)
			}
			if ev.Kind == lockstep.EventGameOver {
				hostOver = true
			}
		}
	})
	hostErr := make(chan error, 1)
	go func() { hostErr <- host.Run(ctx) }()
	bc := botConfig(t, "Bob", 2)
	bob, _, err := JoinLobby(ctx, bc, Addrs(host.Host)[0].String(), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	bctx, bcancel := context.WithCancel(ctx)
	bobErr := make(chan error, 1)
	go func() { bobErr <- bob.Run(bctx) }()
	logPath := bob.Log.Path()
	for len(logRecords(t, logPath)) < 120 {
		select {
		case err := <-bobErr:
			t.Fatalf("bob ended before the cut: %v", err)
		case <-time.After(10 * time.Millisecond):
		}
	}
	bcancel()
	<-bobErr
	bob.Close()
	ends := logRecords(t, logPath)
	keep := ends[len(ends)*3/5-1]
	if err := os.Truncate(logPath, int64(keep)); err != nil {
		t.Fatal(err)
	}
	dir, meta, err := FindSession(bc.Home, "")
	if err != nil {
		t.Fatal(err)
	}
	// Someone else has taken Bob's port meanwhile: resume listens on
	// another and says so, and the table still meets (Bob dials the host).
	busy, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", meta.Port))
	if err != nil {
		t.Fatalf("take bob's port %d: %v", meta.Port, err)
	}
	defer busy.Close()
	rc := bc
	rc.Bot, rc.BotRand = dragonslair.Game.Bots[len(dragonslair.Game.Bots)-1].New(), engine.NewRand([]byte("another mind"))
	bob2, err := ResumeSession(ctx, rc, dir, meta)
	if err != nil {
		t.Fatal(err)
	}
	defer bob2.Close()
	if !strings.Contains(bob2.PortNote, fmt.Sprintf("Port %d of this session is taken", meta.Port)) || bob2.Meta.Port == meta.Port {
		t.Fatalf("port note %q, now on port %d", bob2.PortNote, bob2.Meta.Port)
	}
	go func() { bobErr <- bob2.Run(ctx) }()
	if err := <-hostErr; err != nil {
		t.Fatalf("host: %v (accused: %q)", err, accused)
	}
	if err := <-bobErr; err != nil {
		t.Fatalf("resumed bob: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(accused) > 0 || !hostOver {
		t.Fatalf("game over %v; the host accused the resumed honest peer: %q", hostOver, accused)
	}
	a, b := host.Node.Log(), bob2.Node.Log()
	if len(a) != len(b) {
		t.Fatalf("logs of %d and %d entries", len(a), len(b))
	}
	for i := range a {
		if !crypto.Equal(a[i], b[i]) {
			t.Fatalf("entry %d differs", i)
		}
	}
}
