package p2p

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/boardmesh/boardmesh/crypto"
	"github.com/boardmesh/boardmesh/engine"
	"github.com/boardmesh/boardmesh/lockstep"
	"github.com/boardmesh/boardmesh/lockstep/cardsource"
	pubsub "github.com/libp2p/go-libp2p-pubsub"
	"github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/core/peer"
	ma "github.com/multiformats/go-multiaddr"
)

// NetConfig configures one networked peer: `host`, `join` and `resume`.
type NetConfig struct {
	Identity *crypto.Identity
	Name     string
	// Home is the boardmesh home; sessions live in Home/sessions/<lobby>.
	Home string
	// LAN listens on all interfaces; otherwise loopback only.
	LAN    bool
	Port   int
	NoQUIC bool
	// MDNS announces this peer on the LAN (host), so `join CODE` finds it.
	MDNS  bool
	Games func(string) (*engine.Game, error)
	// Bot plays this peer's seat; nil leaves it to Runner.Act.
	Bot     engine.Bot
	BotName string
	BotRand *engine.Rand
	// BotDelay paces the bot.
	BotDelay time.Duration
	// DropAfter makes this peer vote to drop a seat that has kept the
	// table waiting that long; the drop happens when every other seated
	// peer agrees (lockstep). 0 never votes.
	DropAfter time.Duration
	// ClaimAfter is how long this peer must have kept a table of two
	// waiting before it takes the other player's claim of the win
	// (lockstep.Config.ClaimAfter; 0: DropAfter, else the stall period).
	ClaimAfter time.Duration
	// AcceptTimeout, for a host, is how long the accept phase waits
	// before the roster is proposed again without the silent members;
	// for every member, how long the seat draw waits before it takes a
	// roster without the members whose reveal it lacks (0: lockstep's
	// default).
	AcceptTimeout time.Duration
	// StartWhen makes the host start the game once that many have joined.
	StartWhen int
	OnUpdate  func(Update)
	// Internet reaches friends beyond the LAN: relays, hole punching, the
	// DHT (relay.go, dht.go); nil on a LAN or loopback.
	Internet *InternetConfig
	// OpenHands, for a host, opens an open table even for a game with
	// hidden cards; without it such a game is a secret table. Every peer
	// has the hidden-card layer, so a joiner takes a seat at either: the
	// roster says which, and every member agrees to it.
	OpenHands bool
}

// SessionMeta is what a peer keeps beside its log so `resume` can rejoin:
// which lobby, which game, who else is there and where to reach them.
type SessionMeta struct {
	Lobby   string       `json:"lobby"`
	Game    string       `json:"game"`
	Version string       `json:"version"`
	Role    string       `json:"role"` // "host" or "join"
	Name    string       `json:"name"`
	Bot     string       `json:"bot,omitempty"`
	LAN     bool         `json:"lan"`
	Members []MemberAddr `json:"members"`
	Started time.Time    `json:"started"`
	// Host is the peer id of the lobby's host (for a joiner: whose
	// challenge it answers).
	Host string `json:"host,omitempty"`
	// Port is the TCP port this peer listened on; resume listens on it
	// again, so the others find it at the address they know.
	Port int `json:"port,omitempty"`
}

// NetPeer is one networked peer with its session.
type NetPeer struct {
	Host   host.Host
	PubSub *pubsub.PubSub
	Node   *lockstep.Node
	Runner *Runner
	Log    *Log
	Lobby  crypto.Hash
	Dir    string
	// Repair reports a torn log tail cut back on resume.
	Repair *Repair
	// PortNote, set by resume, says that the port of the session was
	// taken and which one this peer listens on instead.
	PortNote string
	Meta     SessionMeta

	// Net is the relays, hole punching and DHT of an internet peer, with
	// how each peer is connected (Net.Reach); nil on a LAN.
	Net *Internet

	cfg     NetConfig
	metaMu  sync.Mutex
	stopMD  func() error
	started bool
	// CardRecords, set by resume at a secret table, is how many of the
	// other seats' card envelopes the seat took up again from its log.
	CardRecords int
	// resumeCards is what a resumed secret table's seat deals on from.
	resumeCards resumeCards
}

// resumeCards is a secret table seat's card state on disk: its card-key
// file and the other seats' card envelopes it had taken.
type resumeCards struct {
	key []byte
	log []lockstep.CardRecord
}

// SessionDir is where a session's log and meta live.
func SessionDir(home string, lobby crypto.Hash) string {
	return filepath.Join(home, "sessions", lobby.String())
}

func newNetHost(cfg NetConfig) (host.Host, *pubsub.PubSub, *Internet, error) {
	h, in, err := NewInternetHost(context.Background(), cfg)
	if err != nil {
		return nil, nil, nil, err
	}
	ps, err := NewPubSub(context.Background(), h, nil)
	if err != nil {
		in.Close()
		h.Close()
		return nil, nil, nil, err
	}
	return h, ps, in, nil
}

// HostLobby opens a lobby for game g: it starts the host, the node, the
// lobby protocol and (with cfg.MDNS) the mDNS announcement.
func HostLobby(cfg NetConfig, g *engine.Game, opts engine.Options) (*NetPeer, error) {
	lobby, err := lockstep.NewLobbyID(rand.Reader)
	if err != nil {
		return nil, err
	}
	h, ps, in, err := newNetHost(cfg)
	if err != nil {
		return nil, err
	}
	p := &NetPeer{Host: h, PubSub: ps, Lobby: lobby, cfg: cfg, Net: in}
	p.Meta = SessionMeta{Lobby: lobby.String(), Game: g.Name, Version: g.Version, Role: "host", Name: cfg.Name, Bot: cfg.BotName, LAN: cfg.LAN, Started: time.Now().UTC(), Port: tcpPort(h)}
	if err := p.open(nil, nil); err != nil {
		in.Close()
		h.Close()
		return nil, err
	}
	if err := p.Node.Host(lobby, g, opts); err != nil {
		p.Close()
		return nil, err
	}
	ServeLobby(h, p.lobbyInfo)
	if cfg.MDNS {
		if p.stopMD, err = StartMDNS(h, func(peer.AddrInfo) {}); err != nil {
			p.Close()
			return nil, fmt.Errorf("announce on mDNS: %w", err)
		}
	}
	in.Advertise(JoinCode(h.ID()))
	return p, nil
}

// Errors of joining, each with a message a player can act on.
var (
	ErrLobbyFull    = errors.New("the lobby is full")
	ErrLobbyStarted = errors.New("the game in that lobby has already started")
	ErrNoSuchLobby  = errors.New("no lobby with that join code was found on this network")
	ErrRulesVersion = errors.New("rules version mismatch")
)

// FindLobby connects to the lobby at target (a multiaddr, or a join code
// resolved over mDNS within wait) and returns what its host says of it.
func FindLobby(ctx context.Context, h host.Host, target string, wait time.Duration) (LobbyInfo, error) {
	if LooksLikeMultiaddr(target) {
		info, err := Connect(ctx, h, target)
		if err != nil {
			return LobbyInfo{}, err
		}
		return AskLobby(ctx, h, info.ID)
	}
	code, err := ParseJoinCode(target)
	if err != nil {
		return LobbyInfo{}, err
	}
	info, ok, err := ResolveJoinCode(ctx, h, code, wait)
	if err != nil {
		return LobbyInfo{}, err
	}
	if !ok {
		return LobbyInfo{}, fmt.Errorf("%w: %s (searched mDNS for %s; check the code, or join by the multiaddr the host printed)", ErrNoSuchLobby, code, wait)
	}
	return info, nil
}

// CheckLobby says whether we can join the lobby described by info.
func CheckLobby(info LobbyInfo, games func(string) (*engine.Game, error)) error {
	g, err := games(info.Game)
	if err != nil {
		return fmt.Errorf("the host plays %q, which this boardmesh does not have: %w", info.Game, err)
	}
	if g.Version != info.Version {
		return fmt.Errorf("%w: the host plays %s rules %q, this boardmesh has %q; both must run the same version", ErrRulesVersion, g.Title, info.Version, g.Version)
	}
	if info.Started {
		return ErrLobbyStarted
	}
	if info.Players >= info.Max {
		return fmt.Errorf("%w: %d of %d seats taken", ErrLobbyFull, info.Players, info.Max)
	}
	return nil
}

// ErrModeMismatch: the host's table is of the other card mode than the
// joiner asked for.
var ErrModeMismatch = errors.New("the table's card mode is not the one asked for")

// checkLobbyMode refuses, before joining, a lobby whose card mode is not
// the one the joiner asked for (openHands: --open-hands), in the words the
// roster's refusal uses (lockstep), so the host is never left waiting for
// an accept that will not come.
func checkLobbyMode(info LobbyInfo, openHands bool) error {
	switch {
	case info.Mode == lockstep.ModeSecret && openHands:
		return fmt.Errorf("%w: %s's %s is a secret table, and you asked for open hands (join without --open-hands to sit at it)", ErrModeMismatch, info.Name, info.Title)
	case info.Mode == lockstep.ModeOpenHands && !openHands:
		return fmt.Errorf("%w: %s opened %s with open hands: every peer would see every card; join with --open-hands to sit at it", ErrModeMismatch, info.Name, info.Title)
	}
	return nil
}

// ErrNameTaken: a player in the lobby has the name the joiner would sit
// under.
var ErrNameTaken = errors.New("that name is taken at this table")

// checkLobbyName refuses, before joining, a name a player in the lobby
// has already (case aside): every line of the game names players, and two
// of one name could be told apart only by their seats.
func checkLobbyName(info LobbyInfo, name string) error {
	for _, taken := range info.Names {
		if strings.EqualFold(strings.TrimSpace(taken), strings.TrimSpace(name)) {
			return fmt.Errorf("%w: %s's lobby has a player named %q already; join again with another --name", ErrNameTaken, info.Name, taken)
		}
	}
	return nil
}

// JoinLobby joins the lobby at target (multiaddr or join code).
func JoinLobby(ctx context.Context, cfg NetConfig, target string, wait time.Duration) (*NetPeer, LobbyInfo, error) {
	h, ps, in, err := newNetHost(cfg)
	if err != nil {
		return nil, LobbyInfo{}, err
	}
	info, err := FindLobbyVia(ctx, h, in, target, wait, cfg.MDNS)
	if err == nil {
		err = CheckLobby(info, cfg.Games)
	}
	if err == nil {
		err = checkLobbyMode(info, cfg.OpenHands)
	}
	if err == nil {
		err = checkLobbyName(info, cfg.Name)
	}
	var lobby crypto.Hash
	if err == nil {
		err = parseHash(info.Lobby, &lobby)
	}
	if err != nil {
		in.Close()
		h.Close()
		return nil, info, err
	}
	ConnectMembers(ctx, h, info.Members)
	addDirect(ps, h, info.Members)
	p := &NetPeer{Host: h, PubSub: ps, Lobby: lobby, cfg: cfg, Net: in}
	p.Meta = SessionMeta{Lobby: info.Lobby, Game: info.Game, Version: info.Version, Role: "join", Name: cfg.Name, Bot: cfg.BotName, LAN: cfg.LAN, Members: info.Members, Started: time.Now().UTC(), Port: tcpPort(h), Host: info.Host}
	hostID, _ := peer.Decode(info.Host)
	if err := p.open(nil, nil, hostID); err != nil {
		in.Close()
		h.Close()
		return nil, info, err
	}
	if err := p.Node.Join(lobby); err != nil {
		p.Close()
		return nil, info, err
	}
	return p, info, nil
}

// FindSession resolves what the user typed for `resume` (a lobby id or a
// prefix of one; empty for the most recent) to a session directory.
func FindSession(home, prefix string) (string, SessionMeta, error) {
	dirs, _ := filepath.Glob(filepath.Join(home, "sessions", "*", "session.json"))
	type cand struct {
		dir  string
		meta SessionMeta
	}
	var found []cand
	for _, f := range dirs {
		m, err := readSessionMeta(f)
		if err != nil {
			continue
		}
		if strings.HasPrefix(m.Lobby, strings.ToLower(prefix)) {
			found = append(found, cand{filepath.Dir(f), m})
		}
	}
	sort.Slice(found, func(i, j int) bool { return found[i].meta.Started.After(found[j].meta.Started) })
	switch {
	case len(found) == 0 && prefix == "":
		return "", SessionMeta{}, fmt.Errorf("no sessions in %s to resume", filepath.Join(home, "sessions"))
	case len(found) == 0:
		return "", SessionMeta{}, fmt.Errorf("no session %q in %s", prefix, filepath.Join(home, "sessions"))
	case len(found) > 1 && prefix != "":
		return "", SessionMeta{}, fmt.Errorf("%q matches %d sessions; give more of the id", prefix, len(found))
	}
	return found[0].dir, found[0].meta, nil
}

// ErrNeverStarted is returned by ResumeSession for a session whose game
// never began: there is nothing to resume.
var ErrNeverStarted = errors.New("there is no game to resume")

// shortLobby is the first 12 characters of a lobby id, as commands print it.
func shortLobby(id string) string { return id[:min(12, len(id))] }

// ResumeSession rejoins a session from its on-disk log: it cuts a torn
// tail, replays and re-verifies every entry, reconnects to the members it
// knew, and catches up from them.
func ResumeSession(ctx context.Context, cfg NetConfig, dir string, meta SessionMeta) (*NetPeer, error) {
	var lobby crypto.Hash
	if err := parseHash(meta.Lobby, &lobby); err != nil {
		return nil, fmt.Errorf("session %s: %w", dir, err)
	}
	log, lf, rep, err := OpenLog(filepath.Join(dir, "log"))
	if err != nil {
		return nil, err
	}
	// Lobby envelopes reach the log only with the seat draw: a log with
	// no entry is a lobby that closed before its game began, and waiting
	// for it would wait forever.
	if len(lf.Entries) == 0 {
		log.Close()
		return nil, fmt.Errorf("%w: session %s closed in its lobby, before the seats were drawn; start a new table with 'boardmesh host GAME' (or join one)", ErrNeverStarted, shortLobby(meta.Lobby))
	}
	// Resume from the good prefix; every own envelope anywhere in the
	// file still binds, so the node never signs a second one for a slot.
	entries, sent := lf.Entries, lf.SentBy(cfg.Identity)
	// A secret table's seat: its hidden-card key, and the other seats'
	// card envelopes it had taken, to deal on from where it was.
	cardKey, err := ReadCardKey(CardKeyPath(log.Path()))
	if errors.Is(err, ErrDamagedCardKey) {
		err = fmt.Errorf("%w; this seat's hidden-card key is lost, so it cannot deal on (the table's other seats hold nothing of it)", err)
	}
	if err != nil {
		log.Close()
		return nil, err
	}
	// Listen where the others last knew us, unless told otherwise: when
	// the whole table restarts, that is where they look.
	portNote := ""
	if cfg.Port == 0 && meta.Port != 0 {
		cfg.Port = meta.Port
	}
	h, ps, in, err := newNetHost(cfg)
	if errors.Is(err, ErrPortInUse) && cfg.Port == meta.Port {
		cfg.Port = 0
		h, ps, in, err = newNetHost(cfg)
		if err == nil {
			portNote = fmt.Sprintf("Port %d of this session is taken; listening on port %d instead (the others learn the new address from whichever of them we reach).", meta.Port, tcpPort(h))
		}
	}
	if err != nil {
		log.Close()
		return nil, err
	}
	meta.Port = tcpPort(h)
	// Dialled on the side: a member that is down (a whole table
	// restarting) would hold the resume for the dial's timeout, and the
	// runner waits for the members on the topic anyway (WaitPeers), which
	// gossipsub's redial of direct peers and keepMeeting bring.
	go ConnectMembers(ctx, h, meta.Members)
	addDirect(ps, h, meta.Members)
	p := &NetPeer{Host: h, PubSub: ps, Lobby: lobby, cfg: cfg, Log: log, Repair: rep, Meta: meta, Dir: dir, PortNote: portNote, Net: in}
	if err := p.saveMeta(); err != nil {
		p.Host.Close()
		log.Close()
		return nil, err
	}
	var others []peer.ID
	for _, m := range meta.Members {
		if id, err := peer.Decode(m.ID); err == nil && id != h.ID() {
			others = append(others, id)
		}
	}
	p.resumeCards = resumeCards{key: cardKey, log: lf.Cards}
	p.CardRecords = len(lf.Cards)
	if err := p.openNode(entries, sent, others...); err != nil {
		p.Close()
		return nil, err
	}
	if meta.Role == "host" {
		ServeLobby(h, p.lobbyInfo)
	}
	return p, nil
}

// open creates the session directory, the log and the node for a new
// session; wait lists peers to see on the topic before the first send.
func (p *NetPeer) open(entries, sent []*crypto.Envelope, wait ...peer.ID) error {
	p.Dir = SessionDir(p.cfg.Home, p.Lobby)
	if err := os.MkdirAll(p.Dir, 0o700); err != nil {
		return err
	}
	if err := p.saveMeta(); err != nil {
		return err
	}
	log, _, _, err := OpenLog(filepath.Join(p.Dir, "log"))
	if err != nil {
		return err
	}
	p.Log = log
	return p.openNode(entries, sent, wait...)
}

// cardStore is the log file as the node's reader of its card envelopes
// (lockstep.Config.CardStore), nil without a log.
func (p *NetPeer) cardStore() lockstep.CardStore {
	if p.Log == nil {
		return nil
	}
	return p.Log
}

func (p *NetPeer) openNode(entries, sent []*crypto.Envelope, wait ...peer.ID) error {
	trusted := &Trusted{}
	node, err := lockstep.New(lockstep.Config{Identity: p.cfg.Identity, Name: p.cfg.Name, Games: p.cfg.Games, Log: entries, Sent: sent, Verifier: trusted.Verify,
		CardKey: p.resumeCards.key, CardLog: p.resumeCards.log,
		DropAfter: p.cfg.DropAfter.Milliseconds(), ClaimAfter: p.cfg.ClaimAfter.Milliseconds(), AcceptTimeout: p.cfg.AcceptTimeout.Milliseconds(),
		Cards: cardsource.Maker(rand.Reader), OpenHands: p.cfg.OpenHands, CardStore: p.cardStore()})
	if err != nil {
		return fmt.Errorf("replay the session log: %w", err)
	}
	p.Node = node
	ServeMembers(p.Host, p.membersFor)
	var admit func(context.Context, peer.ID) error
	if p.Meta.Role == "host" {
		admit = func(ctx context.Context, who peer.ID) error { return Challenge(ctx, p.Host, who, p.Lobby) }
	} else if hostID, err := peer.Decode(p.Meta.Host); err == nil {
		ServeAdmit(p.Host, hostID, p.Lobby, p.cfg.Identity)
	}
	p.Runner, err = NewRunner(RunnerConfig{
		Host: p.Host, PubSub: p.PubSub, Node: node, Lobby: p.Lobby, Log: p.Log,
		Bot: p.cfg.Bot, BotRand: p.cfg.BotRand, BotDelay: p.cfg.BotDelay, StartWhen: p.cfg.StartWhen, Peers: wait,
		OnUpdate: p.onUpdate, Trusted: trusted, WantState: true, Admit: admit,
	})
	return err
}

func (p *NetPeer) onUpdate(u Update) {
	for _, ev := range u.Events {
		if ev.Kind == lockstep.EventRoster || ev.Kind == lockstep.EventStarted {
			// Remember every member and where it is, for resume; and
			// connect to everyone, so the table does not hang on the host.
			ids := make([]peer.ID, 0, len(u.Status.Members))
			for _, m := range u.Status.Members {
				ids = append(ids, peer.ID(m.ID))
			}
			go p.learnMembers(ids)
		}
	}
	if p.cfg.OnUpdate != nil {
		p.cfg.OnUpdate(u)
	}
}

func (p *NetPeer) learnMembers(ids []peer.ID) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	// The host knows everyone's address; ask it, then dial whom we lack.
	for _, m := range p.members() {
		if id, err := peer.Decode(m.ID); err == nil && id != p.Host.ID() {
			if info, err := AskLobby(ctx, p.Host, id); err == nil {
				ConnectMembers(ctx, p.Host, info.Members)
				addDirect(p.PubSub, p.Host, info.Members)
				break
			}
		}
	}
	members := MemberAddrs(p.Host, ids)
	addDirect(p.PubSub, p.Host, members)
	p.metaMu.Lock()
	// Keep the addresses we had for a member the peerstore has none of
	// (not connected just now): they are its last known ones.
	for i := range members {
		if len(members[i].Addrs) > 0 {
			continue
		}
		for _, old := range p.Meta.Members {
			if old.ID == members[i].ID {
				members[i].Addrs = old.Addrs
			}
		}
	}
	p.Meta.Members = members
	p.metaMu.Unlock()
	p.saveMeta()
}

func (p *NetPeer) saveMeta() error {
	p.metaMu.Lock()
	b, err := json.MarshalIndent(p.Meta, "", "  ")
	p.metaMu.Unlock()
	if err != nil {
		return err
	}
	tmp := filepath.Join(p.Dir, "session.json.tmp")
	if err := os.WriteFile(tmp, b, 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(p.Dir, "session.json"))
}

// lobbyInfo answers the lobby protocol from the node's goroutine.
func (p *NetPeer) lobbyInfo() LobbyInfo {
	info := LobbyInfo{Lobby: p.Lobby.String(), Code: JoinCode(p.Host.ID()), Host: p.Host.ID().String(), Name: p.cfg.Name}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	p.Runner.Do(ctx, func(n *lockstep.Node) error {
		st := n.Status()
		if st.Game != nil {
			info.Game, info.Title, info.Version, info.Max = st.Game.Name, st.Game.Title, st.Game.Version, st.Game.MaxPlayers
		}
		info.Options = st.Options.String()
		info.Mode = st.Mode
		var ids []peer.ID
		if st.Phase <= lockstep.PhaseLobby {
			for _, m := range n.Joined() {
				ids = append(ids, peer.ID(m.ID))
				info.Names = append(info.Names, m.Name)
			}
		} else {
			info.Started = true
			for _, m := range st.Members {
				ids = append(ids, peer.ID(m.ID))
			}
		}
		info.Players = len(ids)
		info.Members = MemberAddrs(p.Host, ids)
		return nil
	})
	if info.Game == "" {
		info.Game, info.Version = p.Meta.Game, p.Meta.Version
		if g, err := p.cfg.Games(p.Meta.Game); err == nil {
			info.Title, info.Max = g.Title, g.MaxPlayers
		}
		info.Started = true
	}
	return info
}

// SetBot lets a bot play this peer's seat; call it before Run.
func (p *NetPeer) SetBot(b engine.Bot, name string, r *engine.Rand) {
	p.cfg.Bot, p.cfg.BotName, p.cfg.BotRand = b, name, r
	p.Runner.cfg.Bot, p.Runner.cfg.BotRand = b, r
	p.metaMu.Lock()
	p.Meta.Bot = name
	p.metaMu.Unlock()
	p.saveMeta()
}

// OnUpdate sets the function that receives the runner's updates; call it
// before Run.
func (p *NetPeer) OnUpdate(f func(Update)) { p.cfg.OnUpdate = f }

// Run plays the session to its end. Meanwhile it keeps dialling the
// members it is not connected to (keepMeeting).
func (p *NetPeer) Run(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		p.keepMeeting(ctx)
	}()
	defer func() { cancel(); <-done }()
	return p.Runner.Run(ctx)
}

// Close stops mDNS and closes the host and the log.
func (p *NetPeer) Close() {
	if p.stopMD != nil {
		p.stopMD()
	}
	if p.Log != nil {
		p.Log.Close()
	}
	p.Net.Close()
	p.Host.Close()
}

// addDirect makes the table's members gossipsub direct peers: they always
// exchange messages whatever the mesh does, and gossipsub redials them
// every second after a disconnect, which is what brings a table back
// together after a crash and `resume`.
func addDirect(ps *pubsub.PubSub, h host.Host, members []MemberAddr) {
	for _, m := range members {
		id, err := peer.Decode(m.ID)
		if err != nil || id == h.ID() {
			continue
		}
		var addrs []ma.Multiaddr
		for _, a := range m.Addrs {
			if x, err := ma.NewMultiaddr(a); err == nil {
				addrs = append(addrs, x)
			}
		}
		_ = addDirectPeer(ps, peer.AddrInfo{ID: id, Addrs: addrs})
	}
}

// tcpPort is the TCP port h listens on, 0 if none.
func tcpPort(h host.Host) int {
	for _, a := range h.Addrs() {
		if v, err := a.ValueForProtocol(ma.P_TCP); err == nil {
			var port int
			if _, err := fmt.Sscan(v, &port); err == nil {
				return port
			}
		}
	}
	return 0
}

func parseHash(s string, h *crypto.Hash) error {
	b, err := hex.DecodeString(s)
	if err != nil || len(b) != len(h) {
		return fmt.Errorf("bad lobby id %q", s)
	}
	copy(h[:], b)
	return nil
}
