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
