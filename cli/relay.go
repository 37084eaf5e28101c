package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/boardmesh/boardmesh/p2p"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/spf13/cobra"
)

// RelayOptions are the inputs of `boardmesh relay`.
type RelayOptions struct {
	IO  *IOStreams
	Ctx context.Context

	Home      string
	Port      int
	Announce  []string
	Bootstrap []string
	Limited   bool
	NoDHT     bool
	MaxSlots  int
	Allow     []string
	JSON      bool
}

func newCmdRelay(f *Factory, runF func(*RelayOptions) error) *cobra.Command {
	opts := &RelayOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "relay",
		Short: "Run a relay for friends behind NAT (needs a public address or a forwarded port)",
		Long: `Run a circuit relay (libp2p circuit relay v2) so that friends behind NAT can
reach each other: each gives its address to host, join, spectate or resume
with --relay. Circuits through it have no time or byte limit (a public relay
cuts them after 2 minutes and 128 KiB, so a game through one runs only once a
hole punch has made a direct connection); what it holds is still bounded:
128 slots by default, 16 circuits per peer, 8 slots per IP address, and
with --allow only your friends' peer IDs may hold one (anyone may still
reach a peer that holds one, so a joiner reaches the host's lobby).

The relay is also a DHT node (server mode), so the friends' join codes resolve
through it even with no other DHT peer; --no-dht turns that off.

It runs until Ctrl-C. Give it a fixed --port and forward that port (TCP and
UDP) on your router, and say with --announce the address your friends dial
when it is not on this machine's interfaces. The relay's identity is kept in
the boardmesh home, so its address stays the same across restarts.`,
		Example: `  boardmesh relay --port 4001
  boardmesh relay --port 4001 --allow 12D3KooWAda... --allow 12D3KooWBob...
  boardmesh relay --port 4001 --announce /ip4/203.0.113.7/tcp/4001 \
    --announce /ip4/203.0.113.7/udp/4001/quic-v1
  # then, on each friend's machine:
  boardmesh host dragonslair --relay /ip4/203.0.113.7/tcp/4001/p2p/12D3KooW...`,
		Args: usageArgs(cobra.NoArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Ctx = cmd.Context()
			if runF != nil {
				return runF(opts)
			}
			return relayRun(opts)
		},
	}
	cmd.Flags().StringVar(&opts.Home, "home", "", "boardmesh home: the relay's identity (default $"+HomeEnv+" or the user config dir)")
	cmd.Flags().IntVar(&opts.Port, "port", 0, "TCP and UDP port to listen on (default: any free port; give a fixed one to forward)")
	cmd.Flags().StringArrayVar(&opts.Announce, "announce", nil, "an address friends dial to reach this relay (a multiaddr without /p2p; repeatable), for a forwarded port")
	cmd.Flags().StringArrayVar(&opts.Bootstrap, "bootstrap", nil, "another DHT node to join (repeatable)")
	cmd.Flags().BoolVar(&opts.Limited, "limited", false, "cut circuits after 2 minutes and 128 KiB, as public relays do (games then need a hole punch)")
	cmd.Flags().BoolVar(&opts.NoDHT, "no-dht", false, "do not run a DHT node")
	cmd.Flags().IntVar(&opts.MaxSlots, "max-slots", 128, "most peers holding a slot at once")
	cmd.Flags().StringArrayVar(&opts.Allow, "allow", nil, "only this peer ID may hold a slot (repeatable; each friend's 'boardmesh keys' shows it); default: anyone")
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print the relay's addresses as one JSON line")
	return cmd
}

// RelayAnnouncement is what relay prints once it runs (one JSON line with --json).
type RelayAnnouncement struct {
	Event   string   `json:"event"`
	Peer    string   `json:"peer"`
	Addrs   []string `json:"addrs"`
	Limited bool     `json:"limited"`
	DHT     bool     `json:"dht"`
}

func relayRun(opts *RelayOptions) error {
	ctx := opts.Ctx
	if ctx == nil {
		ctx = context.Background()
	}
	if opts.Port < 0 || opts.Port > 65535 {
		return usageErrorf("--port %d: want 0 to 65535", opts.Port)
	}
	if opts.MaxSlots < 1 || opts.MaxSlots > 100000 {
		return usageErrorf("--max-slots %d: want 1 to 100000", opts.MaxSlots)
	}
	if opts.NoDHT && len(opts.Bootstrap) > 0 {
		return usageErrorf("--bootstrap is for the DHT; drop --no-dht or --bootstrap")
	}
	boot, err := p2p.ParseRelayAddrs("bootstrap", opts.Bootstrap)
	if err != nil {
		return &UsageError{Err: err}
	}
	var allow []peer.ID
	for _, a := range opts.Allow {
		id, err := peer.Decode(strings.TrimSpace(a))
		if err != nil {
			return usageErrorf("--allow %q is not a peer ID (it looks like 12D3KooW…; 'boardmesh keys' shows it): %v", a, err)
		}
		allow = append(allow, id)
	}
	home, err := resolveHome(opts.Home)
	if err != nil {
		return err
	}
	ident, err := loadIdentity(home, true, opts.IO.ErrOut)
	if err != nil {
		return err
	}
	id, err := p2p.SigningIdentity(ident.Key)
	if err != nil {
		return err
	}
	key, err := p2p.HostKey(id)
	if err != nil {
		return err
	}
	r, err := p2p.StartRelay(ctx, p2p.RelayNodeConfig{Key: key, Port: opts.Port, Announce: opts.Announce, Bootstrap: boot,
		DHT: !opts.NoDHT, Relay: p2p.RelayConfig{Limited: opts.Limited, MaxReservations: opts.MaxSlots, Allow: allow}})
	if err != nil {
		return err
	}
	defer r.Close()
	ann := RelayAnnouncement{Event: "relay", Peer: r.Host.ID().String(), Limited: opts.Limited, DHT: !opts.NoDHT}
	for _, a := range p2p.Addrs(r.Host) {
		ann.Addrs = append(ann.Addrs, a.String())
	}
	ann.Addrs = preferLAN(ann.Addrs)
	if opts.JSON {
		b, _ := json.Marshal(ann)
		fmt.Fprintln(opts.IO.Out, string(b))
	} else {
		kind := "without limits"
		if opts.Limited {
			kind = "limited to 2 minutes and 128 KiB per circuit"
		}
		fmt.Fprintf(opts.IO.Out, "Relay %s running, circuits %s.\nFriends give one of these to host, join, spectate or resume with --relay:\n", shortPeer(ann.Peer), kind)
		for _, a := range ann.Addrs {
			fmt.Fprintf(opts.IO.Out, "  --relay %s\n", a)
		}
		fmt.Fprintf(opts.IO.Out, "Ctrl-C stops it.\n")
	}
	tick := time.NewTicker(time.Minute)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			if !opts.JSON {
				fmt.Fprintln(opts.IO.ErrOut, "Relay stopped.")
			}
			return nil
		case <-tick.C:
			if !opts.JSON {
				fmt.Fprintf(opts.IO.ErrOut, "%s  %d peers connected\n", time.Now().Format("15:04:05"), len(r.Host.Network().Peers()))
			}
		}
	}
}

func shortPeer(id string) string {
	if len(id) > 8 {
		return "…" + id[len(id)-8:]
	}
	return id
}
