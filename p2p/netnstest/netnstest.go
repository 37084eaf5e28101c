// Package netnstest builds a throwaway LAN for tests: network namespaces,
// each with one veth into a bridge that lives in a namespace of its own,
// all created by the test and removed when it ends. mDNS multicast and LAN
// traffic of the tests stay inside them and never reach the machine's real
// network. It needs root and the ip command (iproute2); without them the
// test is skipped with the reason.
package netnstest

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// LAN is a set of namespaces on one bridge.
type LAN struct {
	t     testing.TB
	names []string // the bridge's namespace first, then one per host
}

// New makes a LAN of hosts namespaces named "<tag><pid><i>", host i with
// the address 10.<subnet>.0.(i+1)/24 and a multicast route. Test packages
// that may run at the same time use different tags and subnets.
func New(t testing.TB, tag string, subnet, hosts int) *LAN {
	t.Helper()
	if _, err := exec.LookPath("ip"); err != nil {
		t.Skip("this test needs the ip command (iproute2) to build network namespaces")
	}
	if os.Geteuid() != 0 {
		t.Skip("this test needs root to build network namespaces")
	}
	p := fmt.Sprintf("%s%d", tag, os.Getpid()%100000)
	l := &LAN{t: t}
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
	for i := range hosts {
		ns := fmt.Sprintf("%s%d", p, i)
		veth := fmt.Sprintf("v%d", i)
		l.ip("netns", "add", ns)
		l.names = append(l.names, ns)
		l.ip("-n", ns, "link", "add", "eth0", "type", "veth", "peer", "name", veth, "netns", br)
		l.ip("-n", br, "link", "set", veth, "master", "br0")
		l.ip("-n", br, "link", "set", veth, "up")
		l.ip("-n", ns, "addr", "add", fmt.Sprintf("10.%d.0.%d/24", subnet, i+1), "dev", "eth0")
		l.ip("-n", ns, "link", "set", "eth0", "up")
		l.ip("-n", ns, "link", "set", "lo", "up")
		l.ip("-n", ns, "route", "add", "224.0.0.0/4", "dev", "eth0")
	}
	return l
}

// NS returns the namespace of host i, for `ip netns exec`.
func (l *LAN) NS(i int) string { return l.names[i+1] }

func (l *LAN) ip(args ...string) {
	l.t.Helper()
	if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
		l.t.Fatalf("ip %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}
