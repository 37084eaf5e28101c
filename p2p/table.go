package p2p

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"errors"
	"fmt"
	"path/filepath"
	"sync"
	"time"

	"github.com/boardmesh/boardmesh/crypto"
	"github.com/boardmesh/boardmesh/engine"
	"github.com/boardmesh/boardmesh/lockstep"
	"github.com/boardmesh/boardmesh/lockstep/cardsource"
	pubsub "github.com/libp2p/go-libp2p-pubsub"
	"github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/core/peer"
)

// TableConfig describes a table of peers that all live in this process,
// each a real libp2p host on loopback: `boardmesh play`, `bench net` and
// the end-to-end tests.
type TableConfig struct {
	Game    *engine.Game
	Options engine.Options
	// Names of the peers; its length is the number of players. Peer 0
	// hosts the lobby.
	Names []string
	// Bots[i] plays peer i; nil leaves the seat to Runner.Act (a person).
	Bots []engine.Bot
	// Seed feeds the bots' choices (each peer gets its own stream).
	Seed []byte
	// Dir holds one log per peer; empty means a temporary directory the
	// caller removes.
	Dir string
	// BotDelay paces bots so a person can follow.
	BotDelay time.Duration
	// OnUpdate, if set, receives every peer's updates (peer index first).
	OnUpdate func(peer int, u Update)
	// WantState gives peer 0's updates a clone of the state (for a UI).
	WantState bool
	// OnPublish, if set, sees every envelope a peer publishes.
	OnPublish func(peer int, env *crypto.Envelope)
	// OnStage, if set, sees every other peer's envelope pass each Stage
	// of each peer (RunnerConfig.OnStage: safe for concurrent use).
	OnStage func(peer int, s Stage, env *crypto.Envelope)
	// Keys, if set, are the peers' identities (else fresh ones).
	Keys []*crypto.Identity
	// Tune, if set, adjusts each peer's node configuration before the
	// node is made (tests: a peer that votes to drop the slow).
	Tune func(peer int, lc *lockstep.Config)
	// Inject, if set, gives one peer a buggy copy of the game whose state
	// goes wrong at a step (InjectDesync), to see desync detection work.
	Inject *Injection
	// NoSpectators closes every peer's catch-up stream to non-members
	// (RunnerConfig.NoSpectators).
	NoSpectators bool
	// Secret makes the table a secret one for a game with hidden cards
	// (every peer gets the hidden-card layer, lockstep/cardsource); a
	// game without them plays as before.
	Secret bool
}

// Injection names the peer whose engine goes wrong and the step at which.
type Injection struct {
	Peer int
	Seq  uint64
}

// TablePeer is one peer of a local table.
type TablePeer struct {
	Name     string
	Identity *crypto.Identity
	Host     host.Host
	PubSub   *pubsub.PubSub
	Node     *lockstep.Node
	Runner   *Runner
	Log      *Log

	mu      sync.Mutex
	entries [][]byte
	result  *engine.Result
	final   engine.State
	status  lockstep.Status
}

// Table is a running local table.
type Table struct {
	Lobby  crypto.Hash
	Peers  []*TablePeer
	cfg    TableConfig
	cancel context.CancelFunc

	// over[i] says peer i's game is over; allOver is closed when every
	// peer's is, which ends the runners' linger (see Run).
	overMu  sync.Mutex
	over    []bool
	nOver   int
	allOver chan struct{}
}

// NewTable builds the hosts, connects them all to each other, starts
// gossipsub with the others as direct peers, and makes one lockstep node
// per peer: peer 0 hosts the lobby, the others join it. Run plays it.
func NewTable(ctx context.Context, cfg TableConfig) (t *Table, err error) {
	n := len(cfg.Names)
	if n == 0 {
		return nil, errors.New("a table needs at least one peer")
	}
	var lobby crypto.Hash
	if _, err := rand.Read(lobby[:]); err != nil {
		return nil, err
	}
	t = &Table{Lobby: lobby, cfg: cfg, over: make([]bool, n), allOver: make(chan struct{})}
	// "return nil, err" sets t to nil before this runs: close what was
	// built through a copy.
	built := t
	defer func() {
		if err != nil {
			built.Close()
		}
	}()
	for i := range n {
		var id *crypto.Identity
		if i < len(cfg.Keys) && cfg.Keys[i] != nil {
			id = cfg.Keys[i]
		} else if id, err = crypto.GenerateIdentity(rand.Reader); err != nil {
			return nil, err
		}
		key, err := HostKey(id)
		if err != nil {
			return nil, err
		}
		h, err := NewHost(HostConfig{Key: key})
		if err != nil {
			return nil, err
		}
		t.Peers = append(t.Peers, &TablePeer{Name: cfg.Names[i], Identity: id, Host: h})
	}
	for i, a := range t.Peers {
		for _, b := range t.Peers[i+1:] {
			cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			err := a.Host.Connect(cctx, peer.AddrInfo{ID: b.Host.ID(), Addrs: b.Host.Addrs()})
			cancel()
			if err != nil {
				return nil, fmt.Errorf("connect %s to %s: %w", a.Name, b.Name, err)
			}
		}
	}
	for i, p := range t.Peers {
		var direct, others []peer.ID
		var infos []peer.AddrInfo
		for j, q := range t.Peers {
			if j != i {
				direct = append(direct, q.Host.ID())
				infos = append(infos, peer.AddrInfo{ID: q.Host.ID(), Addrs: q.Host.Addrs()})
			}
		}
		others = direct
		if p.PubSub, err = NewPubSub(ctx, p.Host, infos); err != nil {
			return nil, err
		}
		dir := cfg.Dir
		if p.Log, _, _, err = OpenLog(PeerLogPath(dir, i)); err != nil {
			return nil, err
		}
		if cfg.Secret {
			// So that replay --seat can tell the seat's own cards later.
			if err := WriteLogIdentity(LogIdentityPath(p.Log.Path()), p.Identity); err != nil {
				return nil, err
			}
		}
		trusted := &Trusted{}
		game := cfg.Game
		if cfg.Inject != nil && cfg.Inject.Peer == i {
			game = InjectDesync(cfg.Game, cfg.Inject.Seq)
		}
		lc := lockstep.Config{Identity: p.Identity, Name: p.Name, Games: singleGame(game), Verifier: trusted.Verify}
		if cfg.Secret {
			lc.Cards = cardsource.Maker(rand.Reader)
		}
		if cfg.Tune != nil {
			cfg.Tune(i, &lc)
		}
		if p.Node, err = lockstep.New(lc); err != nil {
			return nil, err
		}
		var bot engine.Bot
		if i < len(cfg.Bots) {
			bot = cfg.Bots[i]
		}
		pi := i
		pp := p
		rc := RunnerConfig{
			Host: p.Host, PubSub: p.PubSub, Node: p.Node, Lobby: lobby, Log: p.Log,
			Bot: bot, BotRand: botRand(cfg.Seed, i), BotDelay: cfg.BotDelay, Peers: others,
			Trusted: trusted, WantState: i == 0 && cfg.WantState, NoSpectators: cfg.NoSpectators,
			OnUpdate: func(u Update) {
				pp.record(u)
				if u.Status.Phase == lockstep.PhaseOver {
					t.peerOver(pi)
				}
				if cfg.OnUpdate != nil {
					cfg.OnUpdate(pi, u)
				}
			},
		}
		if i == 0 {
			rc.StartWhen = n
			// The table's players are known: only their joins count.
			for _, q := range t.Peers {
				rc.Guests = append(rc.Guests, q.Host.ID())
			}
		}
		if cfg.OnPublish != nil {
			rc.OnPublish = func(e *crypto.Envelope) { cfg.OnPublish(pi, e) }
		}
		if cfg.OnStage != nil {
			rc.OnStage = func(s Stage, e *crypto.Envelope) { cfg.OnStage(pi, s, e) }
		}
		if p.Runner, err = NewRunner(rc); err != nil {
			return nil, err
		}
	}
	host := cfg.Game
	if cfg.Inject != nil && cfg.Inject.Peer == 0 {
		host = InjectDesync(cfg.Game, cfg.Inject.Seq)
	}
	if err := t.Peers[0].Node.Host(lobby, host, cfg.Options); err != nil {
		return nil, err
	}
	for _, p := range t.Peers[1:] {
		if err := p.Node.Join(lobby); err != nil {
			return nil, err
		}
	}
	return t, nil
}

// botRand is the bot choices' randomness of seat i at a table seeded by
// seed (TableConfig.Seed; the modelled games use it too).
func botRand(seed []byte, i int) *engine.Rand {
	s := sha256.Sum256(append(append([]byte{}, seed...), byte(i)))
	return engine.NewRand(s[:])
}

func singleGame(g *engine.Game) func(string) (*engine.Game, error) {
	return func(name string) (*engine.Game, error) {
		if name != g.Name {
			return nil, fmt.Errorf("unknown game %q", name)
		}
		return g, nil
	}
}

func (p *TablePeer) record(u Update) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, e := range u.Entries {
		p.entries = append(p.entries, e.Marshal())
	}
	p.status = u.Status
	if u.State != nil {
		p.final = u.State
	}
	for _, ev := range u.Events {
		if ev.Kind == lockstep.EventGameOver && ev.Result != nil {
			r := *ev.Result
			p.result = &r
		}
	}
}

// Entries returns the committed log entries of the peer so far.
func (p *TablePeer) Entries() [][]byte {
	p.mu.Lock()
	defer p.mu.Unlock()
	return append([][]byte(nil), p.entries...)
}

// LogHash is the SHA-256 over the committed entries, to compare logs.
func (p *TablePeer) LogHash() crypto.Hash { return LogHash(p.Entries()) }

// LogHash is the figure players compare at the end of a game: the SHA-256
// of a session log's entries, each after its length (4 bytes, big-endian).
func LogHash(entries [][]byte) crypto.Hash {
	h := sha256.New()
	for _, e := range entries {
		var l [4]byte
		l[0], l[1], l[2], l[3] = byte(len(e)>>24), byte(len(e)>>16), byte(len(e)>>8), byte(len(e))
		h.Write(l[:])
		h.Write(e)
	}
	var out crypto.Hash
	h.Sum(out[:0])
	return out
}

// Result is the game's result as this peer saw it, nil before the end.
func (p *TablePeer) Result() *engine.Result {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.result
}

// Final is the last engine state this peer reported.
func (p *TablePeer) Final() engine.State {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.final
}

// Status is the last status this peer reported.
func (p *TablePeer) Status() lockstep.Status {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.status
}

// peerOver records that peer i has seen the game end.
func (t *Table) peerOver(i int) {
	t.overMu.Lock()
	defer t.overMu.Unlock()
	if t.over[i] {
		return
	}
	t.over[i] = true
	if t.nOver++; t.nOver == len(t.over) {
		close(t.allOver)
	}
}

// Run plays the table to the end: every runner until it returns. The
// first error (other than cancellation after another's error) is returned.
//
// A runner lingers after its game ends (RunnerConfig.Linger) to serve
// catch-up to peers still finishing. Every peer of a local table is here,
// so once all of them have seen the game end nobody can still need that,
// and Run ends the linger then instead of waiting it out: each runner has
// synced its log at the game's end and returns nil when cancelled while
// lingering.
func (t *Table) Run(ctx context.Context) error {
	ctx, cancel := context.WithCancel(ctx)
	t.cancel = cancel
	defer cancel()
	go func() {
		select {
		case <-t.allOver:
			cancel()
		case <-ctx.Done():
		}
	}()
	errs := make([]error, len(t.Peers))
	var wg sync.WaitGroup
	for i, p := range t.Peers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = p.Runner.Run(ctx)
			if errs[i] == nil {
				return
			}
			if t.cfg.Inject != nil && t.cfg.Inject.Peer == i && errors.Is(errs[i], ErrStopped) {
				// The peer whose engine we broke may report first (it
				// holds the honest states before they hold its own), and
				// its report names the honest peers. The honest peers'
				// reports are the ones to show (Desync), so they get a
				// while to make theirs before the table stops.
				go func() {
					select {
					case <-time.After(injectGrace):
						cancel()
					case <-ctx.Done():
					}
				}()
				return
			}
			cancel()
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil && !errors.Is(err, context.Canceled) {
			return fmt.Errorf("%s: %w", t.Peers[i].Name, err)
		}
	}
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// injectGrace is how long the honest peers of a table with Inject may go
// on after the buggy peer stopped, to make their own desync reports: they
// need only its state envelope, sent before it stopped.
const injectGrace = 10 * time.Second

// Desync returns the first desync report of the table, looking at peer 0
// first, and the peer that made it; nil if no peer reported one. Call it
// only after Run has returned. The report's state envelope is in that peer's log file, which
// is the desync bundle.
//
// An honest peer's report comes first: with Inject, the buggy peer reports
// the honest ones as diverged, and its log holds its own wrong moves.
func (t *Table) Desync() (*lockstep.DesyncReport, *TablePeer) {
	var buggy *lockstep.DesyncReport
	var buggyPeer *TablePeer
	for i, p := range t.Peers {
		// Run has returned, so nothing else touches the node.
		reps := p.Node.Reports()
		if len(reps) == 0 {
			continue
		}
		if t.cfg.Inject != nil && t.cfg.Inject.Peer == i {
			buggy, buggyPeer = reps[0], p
			continue
		}
		return reps[0], p
	}
	return buggy, buggyPeer
}

// Close shuts every host and log.
func (t *Table) Close() {
	for _, p := range t.Peers {
		if p.Log != nil {
			p.Log.Close()
		}
		if p.Host != nil {
			p.Host.Close()
		}
	}
}

// PeerLogPath is the log of peer i of a local table whose logs are kept in
// dir (peer 0 is the player's seat): one name for the table that writes
// it and for whatever looks for it later.
func PeerLogPath(dir string, i int) string {
	return filepath.Join(dir, fmt.Sprintf("peer%d.log", i))
}
