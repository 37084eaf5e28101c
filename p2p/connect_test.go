package p2p

import (
	"testing"
	"time"

	ma "github.com/multiformats/go-multiaddr"
)

// TestConnectWaitsLongerThroughARelay: a relayed address (two links, each
// with its own handshakes) gets 30 s to connect, a direct one 10 s.
func TestConnectWaitsLongerThroughARelay(t *testing.T) {
	for addr, want := range map[string]time.Duration{
		"/ip4/192.0.2.1/tcp/4001/p2p/12D3KooWE8nbFSvBV4Lb22BsTFCChXZeomJXLLR7sNJwB5CwbAdo":                                                                      10 * time.Second,
		"/ip4/192.0.2.1/tcp/4001/p2p/12D3KooW9sQJLUEa48WPeSXe2rD2oGzE7cF23H8yLUoW4YyR2wLj/p2p-circuit/p2p/12D3KooWE8nbFSvBV4Lb22BsTFCChXZeomJXLLR7sNJwB5CwbAdo": 30 * time.Second,
	} {
		if got := connectTimeout(ma.StringCast(addr)); got != want {
			t.Errorf("connectTimeout(%s) = %v, want %v", addr, got, want)
		}
	}
}
