package netnstest

import (
	"fmt"
	"os"
	"runtime"
	"time"

	"golang.org/x/sys/unix"
)

// delayHop puts a namespace between home i's host and its router that
// forwards every packet through a TUN device held by the test process,
// which writes each one back after d: d of delay each way, without tc
// netem. The home's LAN (10.s.0.0/24) is on the home side of the hop; the
// hop and the router share 10.s.1.0/24.
//
//	home eth0 10.s.0.2 ── tohome 10.s.0.1 [hop: tun0] torouter 10.s.1.2 ── lan 10.s.1.1 router
//
// Packets coming in on tohome or torouter are routed into tun0 (policy routing by
// input interface); written back, they come in on tun0 and take the main
// table onward. The hop does no NAT, so its conntrack needs no care.
func (n *Internet) delayHop(i int, d time.Duration) {
	n.t.Helper()
	r, h := n.Router(i), n.Home(i)
	hop := fmt.Sprintf("%sd%d", n.prefix, i)
	n.add(hop)
	s := n.subnet + i
	n.ip("-n", r, "link", "add", "lan", "type", "veth", "peer", "name", "torouter", "netns", hop)
	n.ip("-n", r, "addr", "add", fmt.Sprintf("10.%d.1.1/24", s), "dev", "lan")
	n.ip("-n", hop, "link", "add", "tohome", "type", "veth", "peer", "name", "eth0", "netns", h)
	n.ip("-n", hop, "addr", "add", fmt.Sprintf("10.%d.1.2/24", s), "dev", "torouter")
	n.ip("-n", hop, "addr", "add", fmt.Sprintf("10.%d.0.1/24", s), "dev", "tohome")
	for _, dev := range []string{"torouter", "tohome", "lo"} {
		n.ip("-n", hop, "link", "set", dev, "up")
	}
	n.ip("-n", hop, "route", "add", "default", "via", fmt.Sprintf("10.%d.1.1", s))
	n.ip("-n", r, "link", "set", "lan", "up")
	n.ip("-n", r, "route", "add", fmt.Sprintf("10.%d.0.0/24", s), "via", fmt.Sprintf("10.%d.1.2", s))
	tun, err := openTUN(hop, "tun0")
	if err != nil {
		n.t.Fatalf("open a TUN device in %s: %v", hop, err)
	}
	n.tuns = append(n.tuns, tun)
	n.ip("-n", hop, "link", "set", "tun0", "up")
	for _, k := range []string{"net.ipv4.ip_forward=1", "net.ipv4.conf.all.rp_filter=0", "net.ipv4.conf.default.rp_filter=0", "net.ipv4.conf.tun0.rp_filter=0"} {
		n.exec(hop, "sysctl", "-q", "-w", k)
	}
	n.ip("-n", hop, "route", "add", "default", "dev", "tun0", "table", "100")
	n.ip("-n", hop, "rule", "add", "iif", "tohome", "lookup", "100", "pref", "100")
	n.ip("-n", hop, "rule", "add", "iif", "torouter", "lookup", "100", "pref", "101")
	go delayLoop(tun, d)
}

// openTUN creates a TUN device (no packet information header) in
// namespace ns and returns it; it lives while the file is open.
func openTUN(ns, name string) (*os.File, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	orig, err := os.Open("/proc/thread-self/ns/net")
	if err != nil {
		return nil, err
	}
	defer orig.Close()
	target, err := os.Open("/var/run/netns/" + ns)
	if err != nil {
		return nil, err
	}
	defer target.Close()
	if err := unix.Setns(int(target.Fd()), unix.CLONE_NEWNET); err != nil {
		return nil, fmt.Errorf("setns: %w", err)
	}
	// Back to our own namespace before this thread serves anyone else.
	defer func() {
		if err := unix.Setns(int(orig.Fd()), unix.CLONE_NEWNET); err != nil {
			panic("netnstest: cannot return to the test's network namespace: " + err.Error())
		}
	}()
	fd, err := unix.Open("/dev/net/tun", unix.O_RDWR|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	ifr, err := unix.NewIfreq(name)
	if err != nil {
		unix.Close(fd)
		return nil, err
	}
	ifr.SetUint16(unix.IFF_TUN | unix.IFF_NO_PI)
	if err := unix.IoctlIfreq(fd, unix.TUNSETIFF, ifr); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("TUNSETIFF: %w", err)
	}
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		return nil, err
	}
	return os.NewFile(uintptr(fd), "/dev/net/tun"), nil
}

// delayLoop writes every packet read from tun back to it d later, in
// order; a queue of more than 4096 packets drops the newest, as a router
// would. It ends when tun is closed.
func delayLoop(tun *os.File, d time.Duration) {
	type pkt struct {
		b   []byte
		due time.Time
	}
	q := make(chan pkt, 4096)
	go func() {
		for p := range q {
			time.Sleep(time.Until(p.due))
			if _, err := tun.Write(p.b); err != nil && isClosed(err) {
				return
			}
		}
	}()
	defer close(q)
	buf := make([]byte, 65536)
	for {
		k, err := tun.Read(buf)
		if err != nil {
			return
		}
		select {
		case q <- pkt{b: append([]byte(nil), buf[:k]...), due: time.Now().Add(d)}:
		default:
		}
	}
}

func isClosed(err error) bool {
	return err == os.ErrClosed || (err != nil && err.Error() == "file already closed")
}
