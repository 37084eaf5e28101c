package e2e

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestBadInput: each mistake a user can make gets one clear message and a
// non-zero exit, quickly, with no panic.
func TestBadInput(t *testing.T) {
	t.Parallel()
	home := filepath.Join(t.TempDir(), "home")
	held, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	busy := strconv.Itoa(held.Addr().(*net.TCPAddr).Port)
	// A port nobody listens on: take one and free it.
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	free := strconv.Itoa(l.Addr().(*net.TCPAddr).Port)
	l.Close()
	const someID = "12D3KooWCgcjKy8pijgGhMa75gJa64U2RMRGArxXUqxM7N87kfh1"
	// The home's own peer id, as 'keys' shows it (the first run makes it).
	keys, _, _ := run(t, 20*time.Second, "keys", "--home", home, "--json")
	ownID := regexp.MustCompile(`12D3KooW[1-9A-HJ-NP-Za-km-z]+`).FindString(keys)
	if ownID == "" {
		t.Fatalf("keys printed no peer id: %q", keys)
	}

	cases := []struct {
		name string
		args []string
		code int
		says string
	}{
		{"misspelt join code", []string{"join", "amber-falcon-xylophone"}, 2, "not one of the code words"},
		{"not a code at all", []string{"join", "hello"}, 2, "three words"},
		{"code without mDNS", []string{"join", "amber-falcon-river", "--loopback"}, 2, "mDNS"},
		{"malformed multiaddr", []string{"join", "/ip4/999.0.0.1/tcp/1/p2p/" + someID, "--loopback"}, 1, "not a multiaddr"},
		{"multiaddr without peer id", []string{"join", "/ip4/127.0.0.1/tcp/" + free, "--loopback"}, 1, "/p2p/"},
		{"unreachable address", []string{"join", "/ip4/127.0.0.1/tcp/" + free + "/p2p/" + someID, "--loopback"}, 1, "cannot reach"},
		{"port in use", []string{"host", "dragonslair", "--loopback", "--port", busy, "--start-when", "2"}, 1, "port already in use"},
		{"unknown game", []string{"host", "chess", "--loopback"}, 2, "unknown game"},
		{"too many bots", []string{"play", "--bots", "40", "--auto"}, 2, "players"},
		{"unknown session", []string{"resume", "feedbeef"}, 1, "no session"},
		{"own address", []string{"spectate", "/ip4/127.0.0.1/tcp/" + free + "/p2p/" + ownID, "--loopback"}, 1, "this boardmesh home's own peer"},
		// A wrong flag stops before anything is made or reached: the home
		// of these two does not exist, and must not after.
		{"port out of range", []string{"host", "dominion", "--port", "99999"}, 2, "want 0 to 65535"},
		{"step before the first", []string{"join", "/ip4/127.0.0.1/tcp/" + free + "/p2p/" + someID, "--inject-desync", "-5"}, 2, "--inject-desync -5: must be 0 or more"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			args := c.args
			fresh := strings.HasPrefix(c.name, "port out") || strings.HasPrefix(c.name, "step before")
			h := home
			if fresh {
				h = filepath.Join(t.TempDir(), "never")
			}
			if args[0] != "play" {
				args = append(args, "--home", h)
			}
			_, errOut, code := run(t, 30*time.Second, args...)
			if _, err := os.Stat(h); fresh && err == nil {
				t.Fatalf("a wrong flag made the home %s; stderr %q", h, errOut)
			}
			if fresh && strings.Contains(errOut, "Reaching") {
				t.Fatalf("a wrong flag reached out first: %q", errOut)
			}
			if code != c.code {
				t.Fatalf("exit %d, want %d; stderr %q", code, c.code, errOut)
			}
			if !strings.Contains(errOut, c.says) {
				t.Fatalf("stderr %q does not say %q", errOut, c.says)
			}
			if strings.Contains(errOut, "panic") || strings.Contains(errOut, "goroutine ") {
				t.Fatalf("a panic: %s", errOut)
			}
			if lines := strings.Count(strings.TrimSpace(errOut), "\n"); lines > 2 {
				t.Fatalf("%d lines of errors for one mistake:\n%s", lines+1, errOut)
			}
		})
	}
}

// TestJoinStartedGame: a lobby whose game has begun turns a joiner away
// with a message that says so.
func TestJoinStartedGame(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	tmp := t.TempDir()
	common := []string{"--loopback", "--json", "--bot-delay", "30ms"}
	host := start(t, ctx, "host", append([]string{"host", "dragonslair", "--home", filepath.Join(tmp, "a"), "--bot", "cautious", "--start-when", "2"}, common...)...)
	addr := host.waitEvent(t, "lobby", 20*time.Second)["addrs"].([]any)[0].(string)
	bob := start(t, ctx, "bob", append([]string{"join", addr, "--home", filepath.Join(tmp, "b"), "--bot", "random"}, common...)...)
	bob.waitEvent(t, "started", 30*time.Second)
	_, errOut, code := run(t, 30*time.Second, "join", addr, "--home", filepath.Join(tmp, "c"), "--loopback", "--bot", "random")
	if code != 1 || !strings.Contains(errOut, "already started") {
		t.Fatalf("joining a started game: exit %d, stderr %q", code, errOut)
	}
	host.waitEvent(t, "summary", 40*time.Second)
	bob.waitEvent(t, "summary", 40*time.Second)
}

// TestJoinNameTaken: a joiner whose name a player in the lobby has
// already (case aside) is told so before it joins, and nothing changes at
// the table: the next joiner, with a name of its own, starts the game.
func TestJoinNameTaken(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	tmp := t.TempDir()
	common := []string{"--loopback", "--json", "--bot-delay", "30ms"}
	host := start(t, ctx, "host", append([]string{"host", "dragonslair", "--home", filepath.Join(tmp, "a"), "--name", "Ada", "--bot", "cautious", "--start-when", "2"}, common...)...)
	addr := host.waitEvent(t, "lobby", 20*time.Second)["addrs"].([]any)[0].(string)
	_, errOut, code := run(t, 30*time.Second, "join", addr, "--home", filepath.Join(tmp, "b"), "--name", "ADA", "--loopback", "--bot", "random")
	if code != 1 || !strings.Contains(errOut, `a player named "Ada" already`) || !strings.Contains(errOut, "another --name") {
		t.Fatalf("joining as a name taken: exit %d, stderr %q", code, errOut)
	}
	bea := start(t, ctx, "bea", append([]string{"join", addr, "--home", filepath.Join(tmp, "c"), "--name", "Bea", "--bot", "random"}, common...)...)
	for _, p := range []*proc{host, bea} {
		roster := p.waitEvent(t, "roster", 30*time.Second)
		if s := fmt.Sprint(roster); !strings.Contains(s, "Ada") || !strings.Contains(s, "Bea") || strings.Contains(s, "ADA") {
			t.Fatalf("%s's roster: %s", p.name, s)
		}
	}
	host.waitEvent(t, "summary", 40*time.Second)
	bea.waitEvent(t, "summary", 40*time.Second)
}
