package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/boardmesh/boardmesh/engine/games"
	"github.com/boardmesh/boardmesh/p2p"
	ma "github.com/multiformats/go-multiaddr"
	"github.com/spf13/cobra"
)

// HostOptions are the inputs of `boardmesh host`.
type HostOptions struct {
	IO  *IOStreams
	Ctx context.Context

	Game      string
	Options   gameOptionFlags
	StartWhen int
	Net       NetFlags
}

func newCmdHost(f *Factory, runF func(*HostOptions) error) *cobra.Command {
	opts := &HostOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "host GAME",
		Short: "Open a lobby on the LAN for others to join",
		Long: `Open a lobby for GAME and wait for players. boardmesh prints a join code of
eight words and the multiaddrs to join by; it announces the lobby on the LAN
with mDNS (where the code's first three words are enough) and, when it can
reach a DHT (--bootstrap, the relays, or the public one), advertises the code
there, so 'boardmesh join CODE' finds it from anywhere. With --relay the
lobby is reachable through the relay from behind another NAT, and peers punch
direct connections where the NATs allow ('boardmesh relay' runs one).
Plain 'boardmesh join' lists the lobbies on the LAN.

You hold a seat like everyone else: once the game starts, the host has no
more say than any other player.

Start the game with s in the terminal UI (Enter without one), or let it start
by itself with --start-when N. The session log is kept under the boardmesh home,
so after a crash or Ctrl-C 'boardmesh resume' rejoins the game.`,
		Example: `  boardmesh host dragonslair --name Ada
  boardmesh host dragonslair --start-when 3 --bot cautious --auto
  # a table on this machine:
  boardmesh host dragonslair --loopback --no-mdns --port 4001
  # friends across the internet, through a relay ('boardmesh relay'):
  boardmesh host dragonslair --relay /ip4/203.0.113.7/tcp/4001/p2p/12D3KooW...`,
		Args: usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Game = args[0]
			opts.Ctx = cmd.Context()
			if runF != nil {
				return runF(opts)
			}
			return hostRun(opts)
		},
	}
	addNetFlags(cmd, &opts.Net, true)
	addModeFlag(cmd, &opts.Net)
	opts.Options.register(cmd.Flags())
	cmd.Flags().IntVar(&opts.StartWhen, "start-when", 0, "start the game by itself once N players (you included) have joined")
	return cmd
}

// LobbyAnnouncement is the first thing host prints (one JSON line with --json).
type LobbyAnnouncement struct {
	Event string `json:"event"`
	Lobby string `json:"lobby"`
	Code  string `json:"code"`
	// LANCode is the code's first three words, enough over mDNS.
	LANCode string   `json:"lan_code"`
	Game    string   `json:"game"`
	Addrs   []string `json:"addrs"`
}

func hostRun(opts *HostOptions) error {
	ctx := opts.Ctx
	if ctx == nil {
		ctx = context.Background()
	}
	g, err := games.Lookup(opts.Game)
	if err != nil {
		return &UsageError{Err: err}
	}
	if opts.StartWhen != 0 && (opts.StartWhen < g.MinPlayers || opts.StartWhen > g.MaxPlayers) {
		return usageErrorf("--start-when %d: %s is for %d to %d players", opts.StartWhen, g.Title, g.MinPlayers, g.MaxPlayers)
	}
	// The options are checked as sim checks them, for every table size the
	// lobby may start with, before the lobby opens: a bad one would
	// otherwise stall every peer at the seat draw.
	var sizes []int
	if opts.StartWhen > 0 {
		sizes = []int{opts.StartWhen}
	}
	gameOpts, err := opts.Options.setup(ctx, g, sizes...)
	if err != nil {
		return err
	}
	cfg, err := netSetup(opts.IO, &opts.Net)
	if err != nil {
		return err
	}
	if err := attachBot(&cfg, g, opts.Net.Bot); err != nil {
		return err
	}
	cfg.StartWhen = opts.StartWhen
	if opts.Net.InjectDesync >= 0 {
		g = p2p.InjectDesync(g, uint64(opts.Net.InjectDesync))
	}
	peer, err := p2p.HostLobby(cfg, g, gameOpts)
	if err != nil {
		return err
	}
	defer peer.Close()
	ann := LobbyAnnouncement{Event: "lobby", Lobby: peer.Meta.Lobby, Code: p2p.JoinCode(peer.Host.ID()), LANCode: p2p.LANCode(peer.Host.ID()), Game: g.Name}
	for _, a := range p2p.Addrs(peer.Host) {
		ann.Addrs = append(ann.Addrs, a.String())
	}
	ann.Addrs = preferLAN(ann.Addrs)
	if opts.Net.JSON {
		b, _ := json.Marshal(ann)
		fmt.Fprintln(opts.IO.Out, string(b))
	} else {
		fmt.Fprintf(opts.IO.Out, "Hosting %s as %s (lobby %s).\n", g.Title, cfg.Name, ann.Lobby[:12])
		printJoinCode(opts.IO, cfg, ann.Code, ann.LANCode)
		fmt.Fprintf(opts.IO.Out, "Address:   %s\n           boardmesh join %s\n", ann.Addrs[0], ann.Addrs[0])
		printRelayedAddr(opts.IO, ann.Addrs)
		switch {
		case opts.StartWhen > 0:
			fmt.Fprintf(opts.IO.Out, "The game starts when %d players have joined.\n", opts.StartWhen)
		case opts.Net.Auto || !opts.IO.InTTY || !opts.IO.OutTTY || opts.Net.Bot != "":
			fmt.Fprintf(opts.IO.Out, "Press Enter to start once everyone has joined.\n")
		}
	}
	return runNetPeer(ctx, opts.IO, &opts.Net, peer, opts.StartWhen == 0)
}

// preferLAN puts addresses other people can dial first: a LAN address
// before loopback, TCP before QUIC.
func preferLAN(addrs []string) []string {
	var lan, lo []string
	for _, a := range addrs {
		m, err := ma.NewMultiaddr(a)
		if err != nil {
			continue
		}
		ip, _ := m.ValueForProtocol(ma.P_IP4)
		if ip6, err := m.ValueForProtocol(ma.P_IP6); err == nil {
			ip = ip6
		}
		if strings.HasPrefix(ip, "127.") || ip == "::1" {
			lo = append(lo, a)
		} else {
			lan = append(lan, a)
		}
	}
	return append(lan, lo...)
}
