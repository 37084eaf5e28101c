package cli

import (
	"fmt"
	"strings"

	"github.com/boardmesh/boardmesh/p2p"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/spf13/cobra"
)

// InternetFlags are the flags of playing beyond the LAN, shared by host,
// join, spectate and resume.
type InternetFlags struct {
	Relays    []string
	Bootstrap []string
	NoDHT     bool
}

func addInternetFlags(cmd *cobra.Command, f *InternetFlags) {
	cmd.Flags().StringArrayVar(&f.Relays, "relay", nil, "reserve a slot on this circuit relay (a multiaddr with /p2p/ID that 'boardmesh relay' printed), so friends behind other NATs reach you; repeatable. Turns on hole punching and AutoNAT")
	cmd.Flags().StringArrayVar(&f.Bootstrap, "bootstrap", nil, "DHT bootstrap peer for join codes beyond the LAN (repeatable; default: the relays, plus the public libp2p ones when the internet is reachable)")
	cmd.Flags().BoolVar(&f.NoDHT, "no-dht", false, "do not advertise or look up join codes on a DHT")
}

// config turns the flags into the peer's internet configuration; nil is a
// LAN (or loopback) peer. The DHT is used, in client mode, unless
// --loopback or --no-dht, from --bootstrap if given, else from the relays
// and, when this machine has a route to the internet, the public libp2p
// bootstrap peers.
func (f *InternetFlags) config(io *IOStreams, nf *NetFlags) (*p2p.InternetConfig, error) {
	if nf.Loopback {
		if len(f.Relays) > 0 || len(f.Bootstrap) > 0 {
			return nil, usageErrorf("--relay and --bootstrap reach beyond this machine; drop --loopback")
		}
		return nil, nil
	}
	relays, err := p2p.ParseRelayAddrs("relay", f.Relays)
	if err != nil {
		return nil, &UsageError{Err: err}
	}
	boot, err := p2p.ParseRelayAddrs("bootstrap", f.Bootstrap)
	if err != nil {
		return nil, &UsageError{Err: err}
	}
	if f.NoDHT && len(boot) > 0 {
		return nil, usageErrorf("--bootstrap is for the DHT; drop --no-dht or --bootstrap")
	}
	cfg := &p2p.InternetConfig{Relays: relays}
	if !f.NoDHT {
		if len(boot) == 0 {
			boot = append(boot, relays...)
			if p2p.InternetReachable() {
				boot = append(boot, p2p.PublicBootstrap()...)
			}
		}
		cfg.Bootstrap, cfg.DHT = boot, len(boot) > 0
	}
	if !cfg.On() {
		return nil, nil
	}
	if !nf.JSON {
		var what []string
		if len(relays) > 0 {
			what = append(what, fmt.Sprintf("%d relay(s)", len(relays)))
		}
		if cfg.DHT {
			what = append(what, fmt.Sprintf("the DHT (%d bootstrap peers)", len(boot)))
		}
		fmt.Fprintf(io.ErrOut, "Reaching %s…\n", strings.Join(what, " and "))
	}
	return cfg, nil
}

// watchReach prints every change of how a peer is connected (and of the
// relays and the DHT) as a "connection" line; the terminal UI shows them in
// its log.
func watchReach(rep *netReporter, peer *p2p.NetPeer) {
	if peer.Net == nil {
		return
	}
	peer.Net.Reach.OnChange(func(l p2p.Link) {
		if rep.prog != nil {
			if rep.view != nil {
				rep.view.queueReach(l.Text)
			}
			return
		}
		rep.line("connection", l.Text, map[string]any{"peer": l.Peer, "how": l.How, "relay": l.Relay, "addr": l.Addr, "failed": l.Failed})
	})
	if rep.prog != nil {
		return
	}
	for _, l := range peer.Links() {
		rep.line("connection", l.Text, map[string]any{"peer": l.Peer, "how": l.How, "relay": l.Relay, "addr": l.Addr, "failed": l.Failed})
	}
}

// printJoinCode tells the host's players how to find the lobby: the
// eight-word code (over mDNS and the DHT), and on a LAN its three-word
// short form.
func printJoinCode(io *IOStreams, cfg p2p.NetConfig, code, lan string) {
	dht := cfg.Internet != nil && cfg.Internet.DHT
	switch {
	case cfg.MDNS:
		fmt.Fprintf(io.Out, "Join code: %s\n           boardmesh join %s    (on this LAN its first three words do: %s)\n", code, code, lan)
	case dht:
		fmt.Fprintf(io.Out, "Join code: %s\n           boardmesh join %s\n", code, code)
	}
}

// connText is the connection state of peer p on the terminal UI's peers
// line: "connected" on a LAN; beyond it how (direct, punched, relayed) and
// that a punch failed.
func (v *tableView) connText(p peer.ID) string {
	if v.reach == nil {
		return "connected"
	}
	l := v.reach.LinkOf(p)
	switch {
	case l.How == p2p.LinkLimited:
		return "limited relay, waiting for a hole punch"
	case l.How == p2p.LinkRelayed && l.Failed != "":
		return "relayed, hole punch failed"
	}
	return l.How
}

// printRelayedAddr shows the host's address through its first relay, the
// one friends behind other NATs can dial.
func printRelayedAddr(io *IOStreams, addrs []string) {
	for _, a := range addrs {
		if strings.Contains(a, "/p2p-circuit/") && strings.Contains(a, "/tcp/") {
			fmt.Fprintf(io.Out, "Relayed:   %s\n           boardmesh join %s\n", a, a)
			return
		}
	}
}

// impliedRelay makes the relay of a relayed target address (one with
// /p2p-circuit) a --relay of this peer when none is given: dialling a
// circuit needs the relay transport, and the relay is where a hole punch
// starts from.
func (f *InternetFlags) impliedRelay(target string) {
	i := strings.Index(target, "/p2p-circuit")
	if len(f.Relays) > 0 || i <= 0 {
		return
	}
	f.Relays = []string{strings.TrimSpace(target[:i])}
}

// queueReach keeps a connection line for the terminal UI's log; the
// runner's goroutine adds it with its next update (drainReach).
func (v *tableView) queueReach(line string) {
	v.reachMu.Lock()
	defer v.reachMu.Unlock()
	if len(v.reachLines) < 64 {
		v.reachLines = append(v.reachLines, line)
	}
}

func (v *tableView) drainReach() {
	v.reachMu.Lock()
	lines := v.reachLines
	v.reachLines = nil
	v.reachMu.Unlock()
	for _, l := range lines {
		v.rec.Note(l)
	}
}
