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

	"github.com/boardmesh/boardmesh/p2p/netnstest"
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

// TestMDNSFindsLobbyByCode hosts a lobby in one namespace and, from the
// other, lists lobbies and resolves the host's join code.
func TestMDNSFindsLobbyByCode(t *testing.T) {
	t.Parallel()
	lan := netnstest.New(t, "bm", 213, 2)
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 45*time.Second)
	defer cancel()
	hostCmd := exec.CommandContext(ctx, "ip", "netns", "exec", lan.NS(0), self, "-test.run=^$")
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

	joinCmd := exec.CommandContext(ctx, "ip", "netns", "exec", lan.NS(1), self, "-test.run=^$")
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
