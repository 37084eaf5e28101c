package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/boardmesh/boardmesh/engine/games"
	"github.com/boardmesh/boardmesh/p2p"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/spf13/cobra"
)

// JoinOptions are the inputs of `boardmesh join`.
type JoinOptions struct {
	IO  *IOStreams
	Ctx context.Context

	Target string
	Wait   time.Duration
	Net    NetFlags
}

func newCmdJoin(f *Factory, runF func(*JoinOptions) error) *cobra.Command {
	opts := &JoinOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "join [CODE|MULTIADDR]",
		Short: "Join a lobby by join code or multiaddr; with no argument, list lobbies on the LAN",
		Long: `Join the lobby a host opened. Give the join code the host shows (eight words,
found on the LAN with mDNS and beyond it on the DHT; on a LAN its first three
words do) or the multiaddr it printed (works anywhere the address is
reachable). With --relay, a host behind another NAT is reached through the
relay and then, when the NATs allow, by a hole-punched direct connection. With
no argument, join lists the lobbies it finds on the LAN for a few seconds and
exits.

boardmesh refuses, with a message saying why, a lobby that is full, one whose
game has started, and one whose rules version differs from yours.`,
		Example: `  boardmesh join                       # list lobbies on this LAN
  boardmesh join amber-falcon-river --name Bob              # on the LAN
  # the whole code finds the lobby anywhere; a relay reaches a host behind NAT:
  boardmesh join amber-falcon-river-otter-cedar-mint-opal-wren \
    --relay /ip4/203.0.113.7/tcp/4001/p2p/12D3KooW...
  boardmesh join /ip4/192.168.1.5/tcp/4001/p2p/12D3KooW...
  boardmesh join /ip4/127.0.0.1/tcp/4001/p2p/12D3KooW... --loopback \
    --bot random --auto`,
		Args: usageArgs(cobra.MaximumNArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.Target = args[0]
			}
			opts.Ctx = cmd.Context()
			if runF != nil {
				return runF(opts)
			}
			return joinRun(opts)
		},
	}
	addNetFlags(cmd, &opts.Net, true)
	addModeFlag(cmd, &opts.Net)
	cmd.Flags().DurationVar(&opts.Wait, "wait", 4*time.Second, "how long to search the LAN for lobbies or a join code")
	return cmd
}

func joinRun(opts *JoinOptions) error {
	ctx := opts.Ctx
	if ctx == nil {
		ctx = context.Background()
	}
	if opts.Target != "" && !p2p.LooksLikeMultiaddr(opts.Target) {
		if _, err := p2p.ParseJoinCode(opts.Target); err != nil {
			return &UsageError{Err: fmt.Errorf("%w; or give the multiaddr the host printed (it starts with /ip4/ or /ip6/)", err)}
		}
		if opts.Net.Loopback || (opts.Net.NoMDNS && opts.Net.Internet.NoDHT) {
			return usageErrorf("a join code is found with mDNS on the LAN or on the DHT; without both give the host's multiaddr")
		}
	}
	opts.Net.Internet.impliedRelay(opts.Target)
	cfg, err := netSetup(opts.IO, &opts.Net)
	if err != nil {
		return err
	}
	if opts.Target == "" {
		return listLobbies(ctx, opts, cfg)
	}
	if err := notOwnLobby(opts.Target, cfg); err != nil {
		return err
	}
	if opts.Net.Bot != "" {
		// The game is not known before the lobby answers; check the bot
		// name against it once it does.
		cfg.BotName = opts.Net.Bot
	}
	peer, info, err := p2p.JoinLobby(ctx, cfg, opts.Target, opts.Wait)
	if err != nil {
		return err
	}
	defer peer.Close()
	if opts.Net.Bot != "" {
		g, _ := games.Lookup(info.Game)
		if err := attachBot(&cfg, g, opts.Net.Bot); err != nil {
			return err
		}
		peer.SetBot(cfg.Bot, cfg.BotName, cfg.BotRand)
	}
	if opts.Net.JSON {
		b, _ := json.Marshal(map[string]any{"event": "joined", "lobby": info.Lobby, "game": info.Game, "host": info.Name, "code": info.Code})
		fmt.Fprintln(opts.IO.Out, string(b))
	} else {
		fmt.Fprintf(opts.IO.Out, "Joined %s's lobby for %s (%d of %d seats taken). Waiting for the host to start.\n", info.Name, info.Title, info.Players+1, info.Max)
	}
	return runNetPeer(ctx, opts.IO, &opts.Net, peer, false)
}

func listLobbies(ctx context.Context, opts *JoinOptions, cfg p2p.NetConfig) error {
	if opts.Net.Loopback || opts.Net.NoMDNS {
		return usageErrorf("listing lobbies needs mDNS on the LAN; drop --loopback/--no-mdns, or give a multiaddr")
	}
	cfg.Port = 0
	key, err := p2p.HostKey(cfg.Identity)
	if err != nil {
		return err
	}
	h, err := p2p.NewHost(p2p.HostConfig{Key: key, LAN: true, NoQUIC: cfg.NoQUIC})
	if err != nil {
		return err
	}
	defer h.Close()
	if !opts.Net.JSON {
		fmt.Fprintf(opts.IO.ErrOut, "Looking for lobbies on the LAN for %s…\n", opts.Wait)
	}
	lobbies, err := p2p.FindLobbies(ctx, h, opts.Wait)
	if err != nil {
		return err
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if opts.Net.JSON {
		if lobbies == nil {
			lobbies = []p2p.LobbyInfo{}
		}
		enc := json.NewEncoder(opts.IO.Out)
		return enc.Encode(lobbies)
	}
	if len(lobbies) == 0 {
		return errors.New("no lobbies found on this LAN; ask the host for the multiaddr, or try again with a longer --wait")
	}
	for _, l := range lobbies {
		state := fmt.Sprintf("%d/%d players", l.Players, l.Max)
		if l.Started {
			state = "started"
		}
		fmt.Fprintf(opts.IO.Out, "%-52s %-28s host %-12s %s\n", l.Code, l.Title, l.Name, state)
	}
	fmt.Fprintf(opts.IO.Out, "Join with: boardmesh join CODE\n")
	return nil
}

// notOwnLobby refuses a target that is this very peer: a host and a
// joiner started with the same home share one identity, which libp2p
// reports only as "dial to self attempted".
func notOwnLobby(target string, cfg p2p.NetConfig) error {
	key, err := p2p.HostKey(cfg.Identity)
	if err != nil {
		return nil
	}
	id, err := peer.IDFromPrivateKey(key)
	if err != nil {
		return nil
	}
	if target == p2p.JoinCode(id) || strings.Contains(target, "/p2p/"+id.String()) {
		return usageErrorf("that lobby is your own peer: the host uses the same boardmesh home (%s). "+
			"Each player on one machine needs a home of their own, e.g. boardmesh join --home /tmp/boardmesh-2 %s", cfg.Home, target)
	}
	return nil
}
