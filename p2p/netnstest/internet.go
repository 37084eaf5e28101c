package netnstest

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// NAT is the kind of router in front of a home.
type NAT int

const (
	// NATDrop masquerades, keeps the source port when it can, and silently
	// drops what nobody inside asked for: a home router, behind which
	// hole punching works.
	NATDrop NAT = iota
	// NATSymmetric masquerades with a random port per connection
	// (MASQUERADE --random-fully): the port a relay sees is not the one a
	// hole punch would use, so punching fails and play falls back to the
	// relay.
	NATSymmetric
)

// Home is one home: its router's kind and, if not 0, a delay added to
// every packet between the home's host and its router, each way (a hop
// through a TUN device the test process holds; tc netem is not needed).
type Home struct {
	NAT   NAT
	Delay time.Duration
}

// Internet is a small internet for tests, all in namespaces the test makes
// and removes: a "public" segment 192.0.0.64/26 (go-libp2p counts it as
// public; no real network routes it), hosts on it (relays, DHT nodes), and
// homes, each one host on a LAN of its own behind its own NAT router.
// Nothing has a route anywhere else: a packet to any other address gets
// "network unreachable".
type Internet struct {
	t      testing.TB
	prefix string
	subnet int
	names  []string
	pubs   int
	homes  int
	tuns   []*os.File
}

// NewInternet builds public hosts on the public segment and one home per
// entry of homes; home i's LAN is 10.<subnet+i>.0.0/24. It needs root, the
// ip command and iptables; without them the test is skipped with the
// reason.
func NewInternet(t testing.TB, tag string, subnet, public int, homes ...Home) *Internet {
	t.Helper()
	for _, cmd := range []string{"ip", "iptables"} {
		if _, err := exec.LookPath(cmd); err != nil {
			t.Skipf("this test needs the %s command to build network namespaces (apt-get install iproute2 iptables)", cmd)
		}
	}
	if os.Geteuid() != 0 {
		t.Skip("this test needs root to build network namespaces")
	}
	n := &Internet{t: t, prefix: fmt.Sprintf("%s%d", tag, os.Getpid()%100000), subnet: subnet, pubs: public, homes: len(homes)}
	t.Cleanup(func() {
		for _, f := range n.tuns {
			f.Close()
		}
		for _, ns := range n.names {
			exec.Command("ip", "netns", "del", ns).Run()
		}
	})
	br := n.prefix + "x"
	n.add(br)
	n.ip("-n", br, "link", "add", "br0", "type", "bridge")
	n.ip("-n", br, "link", "set", "br0", "up")
	plug := func(ns, dev, peer, addr string) {
		n.ip("-n", ns, "link", "add", dev, "type", "veth", "peer", "name", peer, "netns", br)
		n.ip("-n", br, "link", "set", peer, "master", "br0")
		n.ip("-n", br, "link", "set", peer, "up")
		n.ip("-n", ns, "addr", "add", addr+"/26", "dev", dev)
		n.ip("-n", ns, "link", "set", dev, "up")
		n.ip("-n", ns, "link", "set", "lo", "up")
	}
	for i := range public {
		ns := n.Public(i)
		n.add(ns)
		plug(ns, "eth0", fmt.Sprintf("p%d", i), n.PublicIP(i))
	}
	for i, home := range homes {
		r, h := n.Router(i), n.Home(i)
		n.add(r)
		n.add(h)
		plug(r, "wan", fmt.Sprintf("r%d", i), n.RouterIP(i))
		if home.Delay > 0 {
			n.delayHop(i, home.Delay)
		} else {
			n.ip("-n", r, "link", "add", "lan", "type", "veth", "peer", "name", "eth0", "netns", h)
			n.ip("-n", r, "addr", "add", fmt.Sprintf("10.%d.0.1/24", subnet+i), "dev", "lan")
		}
		n.ip("-n", r, "link", "set", "lan", "up")
		n.ip("-n", h, "addr", "add", n.HomeIP(i)+"/24", "dev", "eth0")
		n.ip("-n", h, "link", "set", "eth0", "up")
		n.ip("-n", h, "link", "set", "lo", "up")
		n.ip("-n", h, "route", "add", "default", "via", fmt.Sprintf("10.%d.0.1", subnet+i))
		n.exec(r, "sysctl", "-q", "-w", "net.ipv4.ip_forward=1")
		masq := []string{"-t", "nat", "-A", "POSTROUTING", "-o", "wan", "-j", "MASQUERADE"}
		if home.NAT == NATSymmetric {
			masq = append(masq, "--random-fully")
		}
		n.iptables(r, masq...)
		n.iptables(r, "-P", "FORWARD", "DROP")
		n.iptables(r, "-A", "FORWARD", "-i", "lan", "-o", "wan", "-j", "ACCEPT")
		n.iptables(r, "-A", "FORWARD", "-i", "wan", "-o", "lan", "-m", "conntrack", "--ctstate", "ESTABLISHED,RELATED", "-j", "ACCEPT")
		n.iptables(r, "-P", "INPUT", "DROP")
		n.iptables(r, "-A", "INPUT", "-i", "lo", "-j", "ACCEPT")
		n.iptables(r, "-A", "INPUT", "-i", "lan", "-j", "ACCEPT")
		n.iptables(r, "-A", "INPUT", "-m", "conntrack", "--ctstate", "ESTABLISHED,RELATED", "-j", "ACCEPT")
	}
	return n
}

// Public is the namespace of public host i; PublicIP its address.
func (n *Internet) Public(i int) string   { return fmt.Sprintf("%sp%d", n.prefix, i) }
func (n *Internet) PublicIP(i int) string { return fmt.Sprintf("192.0.0.%d", 65+i) }

// Home is the namespace of the host in home i; HomeIP its LAN address.
func (n *Internet) Home(i int) string   { return fmt.Sprintf("%sh%d", n.prefix, i) }
func (n *Internet) HomeIP(i int) string { return fmt.Sprintf("10.%d.0.2", n.subnet+i) }

// Router is the namespace of home i's NAT router; RouterIP its public
// address.
func (n *Internet) Router(i int) string   { return fmt.Sprintf("%sg%d", n.prefix, i) }
func (n *Internet) RouterIP(i int) string { return fmt.Sprintf("192.0.0.%d", 100+i) }

// Loss makes home i's router drop pct percent of the packets it forwards,
// at random, both ways (iptables statistic).
func (n *Internet) Loss(i, pct int) {
	n.t.Helper()
	n.iptables(n.Router(i), "-I", "FORWARD", "1", "-m", "statistic", "--mode", "random", "--probability", fmt.Sprintf("%.2f", float64(pct)/100), "-m", "comment", "--comment", "bmloss", "-j", "DROP")
}

// Cut makes home i's router drop everything it forwards, both ways, until
// the returned function is called.
func (n *Internet) Cut(i int) (restore func()) {
	n.t.Helper()
	rule := []string{"FORWARD", "-m", "comment", "--comment", "bmcut", "-j", "DROP"}
	n.iptables(n.Router(i), append([]string{"-I"}, rule...)...)
	return func() { n.iptables(n.Router(i), append([]string{"-D"}, rule...)...) }
}

func (n *Internet) add(ns string) {
	n.t.Helper()
	n.ip("netns", "add", ns)
	n.names = append(n.names, ns)
}

func (n *Internet) ip(args ...string) {
	n.t.Helper()
	if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
		n.t.Fatalf("ip %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

func (n *Internet) exec(ns string, args ...string) {
	n.t.Helper()
	if out, err := exec.Command("ip", append([]string{"netns", "exec", ns}, args...)...).CombinedOutput(); err != nil {
		n.t.Fatalf("%s in %s: %v\n%s", strings.Join(args, " "), ns, err, out)
	}
}

func (n *Internet) iptables(ns string, args ...string) {
	n.t.Helper()
	n.exec(ns, append([]string{"iptables", "-w"}, args...)...)
}
