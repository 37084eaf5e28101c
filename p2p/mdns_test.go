package p2p

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/libp2p/go-libp2p/core/peer"
)

// The mDNS test runs two copies of this test binary in two network
// namespaces joined by a bridge (all created and removed by the test), so
// multicast never touches the machine's real network. TestMain turns the
// binary into a helper when BOARDMESH_MDNS_ROLE is set.
func TestMain(m *testing.M) {
	switch os.Getenv("BOARDMESH_MDNS_ROLE") {
	case "host":
		os.Exit(mdnsHostHelper())
	case "join":
		os.Exit(mdnsJoinHelper(os.Getenv("BOARDMESH_MDNS_CODE")))
	}
	os.Exit(m.Run())
}

// mdnsHostHelper hosts a lobby, prints its join code, and stays up until
// its stdin closes (the test holds it open) or 60 s pass.
func mdnsHostHelper() int {
	h, err := NewHost(HostConfig{LAN: true, NoQUIC: true})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer h.Close()
	code := JoinCode(h.ID())
	ServeLobby(h, func() LobbyInfo {
		return LobbyInfo{Lobby: "feed", Code: code, Host: h.ID().String(), Name: "netns host", Game: "testgame", Players: 1, Max: 4}
	})
	stop, err := StartMDNS(h, func(peer.AddrInfo) {})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer stop()
	fmt.Println(code)
	done := make(chan struct{})
	go func() { b := make([]byte, 1); os.Stdin.Read(b); close(done) }()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
	}
	return 0
}

func mdnsJoinHelper(code string) int {
	h, err := NewHost(HostConfig{LAN: true, NoQUIC: true})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer h.Close()
	ctx := context.Background()
	lobbies, err := FindLobbies(ctx, h, 4*time.Second)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	info, ok, err := ResolveJoinCode(ctx, h, code, 8*time.Second)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	json.NewEncoder(os.Stdout).Encode(struct {
		Lobbies  []LobbyInfo
		Resolved bool
		Info     LobbyInfo
	}{lobbies, ok, info})
	return 0
}

type netns struct {
	t     *testing.T
	names []string
}

func (n *netns) run(args ...string) {
	n.t.Helper()
	if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
		n.t.Fatalf("ip %s: %v\n%s", strings.Join(args, " "), err, out)
	}
}

// newLAN makes namespaces "<p>br" (holding a bridge) and "<p>0", "<p>1",
// each with a veth into the bridge and the address 10.213.0.(i+1)/24.
func newLAN(t *testing.T, peers int) *netns {
	if _, err := exec.LookPath("ip"); err != nil {
		t.Skip("this test needs the ip command (iproute2) to build network namespaces")
	}
	if os.Geteuid() != 0 {
		t.Skip("this test needs root to build network namespaces")
	}
	p := fmt.Sprintf("bm%d", os.Getpid()%100000)
	n := &netns{t: t}
	t.Cleanup(func() {
		for _, name := range n.names {
			exec.Command("ip", "netns", "del", name).Run()
		}
	})
	br := p + "br"
	n.run("netns", "add", br)
	n.names = append(n.names, br)
	n.run("-n", br, "link", "add", "br0", "type", "bridge")
	n.run("-n", br, "link", "set", "br0", "up")
	for i := range peers {
		ns := fmt.Sprintf("%s%d", p, i)
		n.run("netns", "add", ns)
		n.names = append(n.names, ns)
		n.run("-n", ns, "link", "add", "eth0", "type", "veth", "peer", "name", fmt.Sprintf("v%d", i), "netns", br)
		n.run("-n", br, "link", "set", fmt.Sprintf("v%d", i), "master", "br0")
		n.run("-n", br, "link", "set", fmt.Sprintf("v%d", i), "up")
		n.run("-n", ns, "addr", "add", fmt.Sprintf("10.213.0.%d/24", i+1), "dev", "eth0")
		n.run("-n", ns, "link", "set", "eth0", "up")
		n.run("-n", ns, "link", "set", "lo", "up")
		n.run("-n", ns, "route", "add", "224.0.0.0/4", "dev", "eth0")
	}
	return n
}

func (n *netns) ns(i int) string { return n.names[i+1] }

// TestMDNSFindsLobbyByCode hosts a lobby in one namespace and, from the
// other, lists lobbies and resolves the host's join code.
func TestMDNSFindsLobbyByCode(t *testing.T) {
	lan := newLAN(t, 2)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 45*time.Second)
	defer cancel()
	hostCmd := exec.CommandContext(ctx, "ip", "netns", "exec", lan.ns(0), self, "-test.run=^$")
	hostCmd.Env = append(os.Environ(), "BOARDMESH_MDNS_ROLE=host")
	stdin, _ := hostCmd.StdinPipe()
	stdout, _ := hostCmd.StdoutPipe()
	hostCmd.Stderr = os.Stderr
	if err := hostCmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { stdin.Close(); hostCmd.Wait() }()
	buf := make([]byte, 128)
	nr, err := stdout.Read(buf)
	if err != nil {
		t.Fatalf("host helper printed nothing: %v", err)
	}
	code := strings.TrimSpace(string(buf[:nr]))
	if _, err := ParseJoinCode(code); err != nil {
		t.Fatalf("host helper printed %q: %v", code, err)
	}

	joinCmd := exec.CommandContext(ctx, "ip", "netns", "exec", lan.ns(1), self, "-test.run=^$")
	joinCmd.Env = append(os.Environ(), "BOARDMESH_MDNS_ROLE=join", "BOARDMESH_MDNS_CODE="+code)
	joinCmd.Stderr = os.Stderr
	out, err := joinCmd.Output()
	if err != nil {
		t.Fatalf("join helper: %v", err)
	}
	var res struct {
		Lobbies  []LobbyInfo
		Resolved bool
		Info     LobbyInfo
	}
	if err := json.Unmarshal(out, &res); err != nil {
		t.Fatalf("join helper output %q: %v", out, err)
	}
	if len(res.Lobbies) != 1 || res.Lobbies[0].Code != code || res.Lobbies[0].Name != "netns host" {
		t.Fatalf("lobbies found: %+v, want the one with code %s", res.Lobbies, code)
	}
	if !res.Resolved || res.Info.Code != code {
		t.Fatalf("code %s resolved=%v to %+v", code, res.Resolved, res.Info)
	}
}
