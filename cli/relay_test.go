package cli

import (
	"os"
	"strings"
	"testing"
)

// TestInternetFlagsRefused: a bad --relay, --bootstrap or relay flag is a
// usage error (exit 2) that says what is wrong, before anything starts or
// is created.
func TestInternetFlagsRefused(t *testing.T) {
	t.Setenv(HomeEnv, t.TempDir())
	const id = "12D3KooWGRUVh8G9Cb3k5fMLtSDbd5Vrp8qMxTjYbBNp8Wt2PJNc"
	const code = "amber-falcon-river-otter-cedar-mint-opal-wren"
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"host", "dragonslair", "--relay", "relay.example.com"}, "is not a multiaddr"},
		{[]string{"host", "dragonslair", "--relay", "/ip4/192.0.0.65/tcp/4001"}, "no /p2p/<peer id>"},
		{[]string{"join", "--relay", "/ip4/192.0.0.65/tcp/4001/p2p/" + id + "/p2p-circuit/p2p/" + id, code}, "relayed address"},
		{[]string{"host", "dragonslair", "--loopback", "--relay", "/ip4/192.0.0.65/tcp/4001/p2p/" + id}, "drop --loopback"},
		{[]string{"spectate", "--bootstrap", "/dns4/x", code}, "no /p2p/<peer id>"},
		{[]string{"join", "--no-dht", "--bootstrap", "/ip4/192.0.0.65/tcp/4001/p2p/" + id, code}, "drop --no-dht"},
		{[]string{"relay", "--max-slots", "0"}, "--max-slots 0"},
		{[]string{"relay", "--port", "70000"}, "--port 70000"},
		{[]string{"relay", "--bootstrap", "/ip4/1.2.3.4/tcp/1"}, "no /p2p/<peer id>"},
		{[]string{"relay", "extra"}, "unknown command"},
		{[]string{"relay", "--allow", "bob"}, "--allow \"bob\" is not a peer ID"},
	}
	for _, c := range cases {
		out, errOut, code := run(t, c.args...)
		if code != ExitUsage || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 saying %q", c.args, code, errOut, c.want)
		}
		if out != "" {
			t.Errorf("%v: printed %q", c.args, out)
		}
	}
	if n, _ := os.ReadDir(os.Getenv(HomeEnv)); len(n) != 0 {
		t.Errorf("a refused command left %d files in the home", len(n))
	}
}

// TestInternetFlagsConfig: what the flags turn on. --loopback is never on
// the internet; --bootstrap replaces every default (so a test gives it and
// the public DHT is never dialled); without it the relays are bootstrap
// peers; --no-dht keeps the relays only.
func TestInternetFlagsConfig(t *testing.T) {
	const relay = "/ip4/192.0.0.65/tcp/4001/p2p/12D3KooWGRUVh8G9Cb3k5fMLtSDbd5Vrp8qMxTjYbBNp8Wt2PJNc"
	const boot = "/ip4/192.0.0.66/tcp/4001/p2p/12D3KooWA4Xop1JaT3MHxwYMkCepYsv4iPVopMXwCz5iHYdBfeSB"
	io := &IOStreams{Out: new(strings.Builder), ErrOut: new(strings.Builder)}
	if c, err := (&InternetFlags{}).config(io, &NetFlags{Loopback: true}); err != nil || c != nil {
		t.Fatalf("--loopback: %v, %v; want no internet", c, err)
	}
	c, err := (&InternetFlags{Relays: []string{relay}, Bootstrap: []string{boot}}).config(io, &NetFlags{})
	if err != nil || len(c.Relays) != 1 || !c.DHT || len(c.Bootstrap) != 1 || c.Bootstrap[0].ID.String() != boot[len(boot)-52:] {
		t.Fatalf("--relay --bootstrap: %+v, %v; want that relay and only that bootstrap peer", c, err)
	}
	c, err = (&InternetFlags{Relays: []string{relay}}).config(io, &NetFlags{})
	if err != nil || !c.DHT || len(c.Bootstrap) == 0 || c.Bootstrap[0].ID != c.Relays[0].ID {
		t.Fatalf("--relay: %+v, %v; want the relay as the first bootstrap peer", c, err)
	}
	c, err = (&InternetFlags{Relays: []string{relay}, NoDHT: true}).config(io, &NetFlags{})
	if err != nil || c.DHT || len(c.Bootstrap) != 0 || len(c.Relays) != 1 {
		t.Fatalf("--relay --no-dht: %+v, %v; want the relay and no DHT", c, err)
	}
	if c, err := (&InternetFlags{NoDHT: true}).config(io, &NetFlags{}); err != nil || c != nil {
		t.Fatalf("--no-dht alone: %+v, %v; want a LAN peer", c, err)
	}
	f := &InternetFlags{}
	f.impliedRelay(relay + "/p2p-circuit/p2p/12D3KooWA4Xop1JaT3MHxwYMkCepYsv4iPVopMXwCz5iHYdBfeSB")
	if len(f.Relays) != 1 || f.Relays[0] != relay {
		t.Fatalf("a relayed target implies %v, want %s", f.Relays, relay)
	}
}
