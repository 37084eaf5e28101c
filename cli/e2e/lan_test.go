package e2e

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/boardmesh/boardmesh/p2p/netnstest"
)

// TestLANWalkthrough follows the README: a host on one machine of a LAN,
// `join` with no argument lists its lobby from another, and `join CODE`
// joins by the three-word LAN code (the first words of the eight-word join
// code) found over mDNS; the game is played to the
// end and both logs agree.
func TestLANWalkthrough(t *testing.T) {
	t.Parallel()
	l := netnstest.New(t, "bme", 214, 2)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	tmp := t.TempDir()
	host := startProg(t, ctx, "host", "ip", "netns", "exec", l.NS(0), binary, "host", "dragonslair", "--home", filepath.Join(tmp, "a"),
		"--name", "ada", "--bot", "cautious", "--start-when", "2", "--json")
	lobby := host.waitEvent(t, "lobby", 20*time.Second)
	long, _ := lobby["code"].(string)
	code, _ := lobby["lan_code"].(string)
	if len(strings.Split(code, "-")) != 3 || len(strings.Split(long, "-")) != 8 || !strings.HasPrefix(long, code+"-") {
		t.Fatalf("host printed no eight-word join code with its three-word LAN form: %v", lobby)
	}
	list := exec.CommandContext(ctx, "ip", "netns", "exec", l.NS(1), binary, "join", "--home", filepath.Join(tmp, "b"), "--wait", "3s")
	out, err := list.CombinedOutput()
	if err != nil || !strings.Contains(string(out), long) || !strings.Contains(string(out), "ada") {
		t.Fatalf("join with no argument did not list the lobby %s: %v\n%s", code, err, out)
	}
	bob := startProg(t, ctx, "bob", "ip", "netns", "exec", l.NS(1), binary, "join", code, "--home", filepath.Join(tmp, "b"),
		"--name", "bob", "--bot", "random", "--json")
	a := host.waitEvent(t, "summary", 60*time.Second)
	b := bob.waitEvent(t, "summary", 60*time.Second)
	if a["log_hash"] != b["log_hash"] || a["reason"] == "" {
		t.Fatalf("host and joiner ended with different logs: %v vs %v", a, b)
	}
}
