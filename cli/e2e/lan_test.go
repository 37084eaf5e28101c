package e2e

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// lan builds network namespaces joined by a bridge in a namespace of its
// own, all created and removed by the test, so that mDNS multicast never
// reaches the machine's real network.
type lan struct {
	t     *testing.T
	names []string
}

func (l *lan) ip(args ...string) {
	l.t.Helper()
	if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
		l.t.Fatalf("ip %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

func newLAN(t *testing.T, peers int) *lan {
	if _, err := exec.LookPath("ip"); err != nil {
		t.Skip("this test needs the ip command (iproute2) to build network namespaces")
	}
	if os.Geteuid() != 0 {
		t.Skip("this test needs root to build network namespaces")
	}
	p := fmt.Sprintf("bme%d", os.Getpid()%100000)
	l := &lan{t: t}
	t.Cleanup(func() {
		for _, n := range l.names {
			exec.Command("ip", "netns", "del", n).Run()
		}
	})
	br := p + "br"
	l.ip("netns", "add", br)
	l.names = append(l.names, br)
	l.ip("-n", br, "link", "add", "br0", "type", "bridge")
	l.ip("-n", br, "link", "set", "br0", "up")
	for i := range peers {
		ns := fmt.Sprintf("%s%d", p, i)
		l.ip("netns", "add", ns)
		l.names = append(l.names, ns)
		l.ip("-n", ns, "link", "add", "eth0", "type", "veth", "peer", "name", fmt.Sprintf("v%d", i), "netns", br)
		l.ip("-n", br, "link", "set", fmt.Sprintf("v%d", i), "master", "br0")
		l.ip("-n", br, "link", "set", fmt.Sprintf("v%d", i), "up")
		l.ip("-n", ns, "addr", "add", fmt.Sprintf("10.214.0.%d/24", i+1), "dev", "eth0")
		l.ip("-n", ns, "link", "set", "eth0", "up")
		l.ip("-n", ns, "link", "set", "lo", "up")
		l.ip("-n", ns, "route", "add", "224.0.0.0/4", "dev", "eth0")
	}
	return l
}

// TestLANWalkthrough follows the README: a host on one machine of a LAN,
// `join` with no argument lists its lobby from another, and `join CODE`
// joins by the three-word code found over mDNS; the game is played to the
// end and both logs agree.
func TestLANWalkthrough(t *testing.T) {
	l := newLAN(t, 2)
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	tmp := t.TempDir()
	host := startProg(t, ctx, "host", "ip", "netns", "exec", l.names[1], binary, "host", "dragonslair", "--home", filepath.Join(tmp, "a"),
		"--name", "ada", "--bot", "cautious", "--start-when", "2", "--json")
	lobby := host.waitEvent(t, "lobby", 20*time.Second)
	code, _ := lobby["code"].(string)
	if len(strings.Split(code, "-")) != 3 {
		t.Fatalf("host printed no join code: %v", lobby)
	}
	list := exec.CommandContext(ctx, "ip", "netns", "exec", l.names[2], binary, "join", "--home", filepath.Join(tmp, "b"), "--wait", "3s")
	out, err := list.CombinedOutput()
	if err != nil || !strings.Contains(string(out), code) || !strings.Contains(string(out), "ada") {
		t.Fatalf("join with no argument did not list the lobby %s: %v\n%s", code, err, out)
	}
	bob := startProg(t, ctx, "bob", "ip", "netns", "exec", l.names[2], binary, "join", code, "--home", filepath.Join(tmp, "b"),
		"--name", "bob", "--bot", "random", "--json")
	a := host.waitEvent(t, "summary", 60*time.Second)
	b := bob.waitEvent(t, "summary", 60*time.Second)
	if a["log_hash"] != b["log_hash"] || a["reason"] == "" {
		t.Fatalf("host and joiner ended with different logs: %v vs %v", a, b)
	}
}
