package p2p

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/boardmesh/boardmesh/crypto"
	"github.com/boardmesh/boardmesh/engine"
	"github.com/boardmesh/boardmesh/lockstep"
	pubsub "github.com/libp2p/go-libp2p-pubsub"
	"github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
)

// RunnerConfig wires a Runner.
type RunnerConfig struct {
	Host   host.Host
	PubSub *pubsub.PubSub
	Node   *lockstep.Node
	// Lobby is the lobby id; its hex form names the session topic.
	Lobby crypto.Hash
	// Log is the open on-disk log; the runner appends to it.
	Log *Log
	// Bot, if set, plays this peer's seat; BotRand feeds it.
	Bot     engine.Bot
	BotRand *engine.Rand
	// BotDelay paces a bot's moves so a person can follow them.
	BotDelay time.Duration
	// TickEvery is the node's clock resolution (default 50 ms).
	TickEvery time.Duration
	// Linger keeps serving catch-up after the game ends, for peers that
	// are still finishing (default 2 s). A spectator this runner served
	// that has not fetched the end yet keeps it longer (spectatorPatience).
	Linger time.Duration
	// OnUpdate is called on the runner's goroutine after each batch of
	// changes. It must not block (hand the Update to another goroutine).
	OnUpdate func(Update)
	// Trusted, if set, is the same value whose Verify the node was given
	// as lockstep.Config.Verifier.
	Trusted *Trusted
	// WantState clones the engine state into every Update (for a UI);
	// otherwise Update.State is set only when the game ends.
	WantState bool
	// OnPublish, if set, is called just before each envelope is published
	// (for latency measurements).
	OnPublish func(*crypto.Envelope)
	// OnStage, if set, is called as each envelope from another peer
	// passes a Stage of this peer (for latency breakdowns; it may be
	// called on gossipsub's validation goroutines, so it must be safe for
	// concurrent use and not block).
	OnStage func(Stage, *crypto.Envelope)
	// StartWhen, for the host, proposes the roster as soon as that many
	// peers (the host included) have joined; 0 leaves it to Do(Propose).
	StartWhen int
	// Peers lists the session's other peers as far as known in advance;
	// the runner waits until they are all on the topic before stepping.
	Peers []peer.ID
	// Admit, for a host, challenges a joiner (Challenge). A join counts
	// (reaches the node, so Joined, --start-when and the roster see it)
	// only once its author has answered; until then the latest join of
	// each author is held back. Nil admits every join.
	Admit func(ctx context.Context, p peer.ID) error
	// Guests, for a host whose players are known in advance (the peers
	// of one `play` table), are the only peers whose joins count; any
	// other join is ignored, so no stranger can take a seat.
	Guests []peer.ID
	// NoSpectators refuses the catch-up stream to every peer outside the
	// roster; by default such a peer may fetch the committed log (and
	// nothing else), which is what `boardmesh spectate` does.
	NoSpectators bool
}

// Update is what changed in one batch, for UIs and summaries.
type Update struct {
	Status lockstep.Status
	// State is a clone of the engine state, nil before the game starts.
	State   engine.State
	Events  []lockstep.Event
	Entries []*crypto.Envelope
	// Joined lists who has joined the lobby, while it is open.
	Joined []lockstep.Member
	// Notes are the runner's own news for the player (a joiner that
	// failed the host's challenge), in plain words.
	Notes []string
	// Drops counts what the topic validator has turned away so far (it
	// never reaches the node, so no event tells of it).
	Drops Drops
}

// Runner drives one lockstep node with real time and I/O. All node calls
// happen on the goroutine of Run; other goroutines reach the node through
// Do, which queues a function for that goroutine.
type Runner struct {
	cfg   RunnerConfig
	topic *Topic
	ops   chan func(*lockstep.Node)
	in    chan inbound
	// answers carries catch-up answers from the fetchers to Run.
	answers chan lockstep.GapAnswer
	// guard is the topic validator's policy; the runner tells it the
	// session id and the roster.
	guard  *guard
	roster string // the member ids the guard was last given
	// readers remembers who read bundles (othersReadBundles), on the
	// runner's goroutine only.
	readers  bundleReaders
	proposed bool
	// stopWhy is the text of the event that stopped the node.
	stopWhy string
	// told is the Drops of the last Update.
	told Drops
	// fetching counts catch-up fetches under way (at most maxFetching).
	fetching atomic.Int32
	// serveRefused counts catch-up streams refused over a limit.
	serveRefused func() int64
	// admits tracks the challenge of each joiner (Admit), admitted the
	// challenges' results; notes waits for the next Update.
	admits   map[crypto.PeerID]*admission
	admitted chan admitResult
	notes    []string
	ctx      context.Context
	// floods remembers, per member, how many of its envelopes had been
	// dropped over its rate when the node was last told (nameFlooders).
	floods map[peer.ID]*floodTold
	// behind remembers that the node had not caught up yet.
	behind bool
	// asks is whom gap requests go to: the turn of those that name no
	// peer, and the peers our fetches are under way with (fetch).
	asks fetchTurns
	// lobbyPeers are the authors of the joins the node holds while there
	// is no roster: the peers that may use the catch-up stream then.
	lobbyPeers atomic.Pointer[map[peer.ID]bool]
	// spectators are the peers outside the roster that fetched the
	// committed log, for the linger (runner's goroutine only).
	spectators map[peer.ID]*spectatorSeen
	done       chan struct{}
	wg         sync.WaitGroup
}

// NewRunner joins the session topic and registers the catch-up handler.
func NewRunner(cfg RunnerConfig) (*Runner, error) {
	if cfg.TickEvery == 0 {
		cfg.TickEvery = 50 * time.Millisecond
	}
	if cfg.Linger == 0 {
		cfg.Linger = 2 * time.Second
	}
	r := &Runner{
		cfg:      cfg,
		ops:      make(chan func(*lockstep.Node), 64),
		in:       make(chan inbound, 4096),
		answers:  make(chan lockstep.GapAnswer, 64),
		admits:   map[crypto.PeerID]*admission{},
		admitted: make(chan admitResult, 8),
		done:     make(chan struct{}),
	}
	r.guard = newGuard(cfg.Host.ID(), cfg.Lobby)
	t, err := JoinTopic(cfg.PubSub, cfg.Host.ID(), TopicName(cfg.Lobby.String()), stagedVerifier(r.guard.check, cfg.OnStage))
	if err != nil {
		return nil, err
	}
	r.topic = t
	r.serveRefused = ServeCatchup(cfg.Host, r.catchupAccess, r.serveCatchup)
	return r, nil
}

// Drops counts what the topic validator has turned away so far.
func (r *Runner) Drops() Drops {
	d := r.guard.drops()
	d.CatchupRefused = r.serveRefused()
	if g := gateOf(r.cfg.PubSub); g != nil {
		var last peer.ID
		d.OverPeerRate, last = g.flooded()
		if last != "" {
			d.OverPeerRateFrom = last.String()
		}
	}
	return d
}

// Trusted lets the node skip the signature check of the one envelope the
// runner is stepping right now, when the topic validator has verified it
// already. Pass its Verify as lockstep.Config.Verifier and the same value
// as RunnerConfig.Trusted. It is used on the runner's goroutine only.
type Trusted struct{ env *crypto.Envelope }

// Verify is a lockstep.Config.Verifier: nil for the envelope being stepped
// after validation, crypto.Verify for anything else.
func (t *Trusted) Verify(env *crypto.Envelope) error {
	if t != nil && env == t.env {
		return nil
	}
	return crypto.Verify(env)
}

// Do runs f on the runner's goroutine with the node, and waits for it.
func (r *Runner) Do(ctx context.Context, f func(*lockstep.Node) error) error {
	errc := make(chan error, 1)
	select {
	case r.ops <- func(n *lockstep.Node) { errc <- f(n) }:
	case <-r.done:
		return ErrRunnerDone
	case <-ctx.Done():
		return ctx.Err()
	}
	select {
	case err := <-errc:
		return err
	case <-r.done:
		return ErrRunnerDone
	case <-ctx.Done():
		return ctx.Err()
	}
}

// ErrRunnerDone is returned by Do after Run has returned.
var ErrRunnerDone = errors.New("the session has ended")

// Act plays a for this peer's seat.
func (r *Runner) Act(ctx context.Context, a engine.Action) error {
	return r.Do(ctx, func(n *lockstep.Node) error {
		if r.catchingUp() {
			return ErrCatchingUp
		}
		return n.Act(a)
	})
}

// ErrCatchingUp is Act's answer while a resumed peer is still fetching
// what the table did while it was away.
var ErrCatchingUp = errors.New("still catching up with the table; try again in a moment")

// catchingUp says whether this peer may not act yet: a node restarted
// from its log acts only once it has caught up (lockstep's CaughtUp; its
// Tick asks the peers until then). It also says so to the player once.
func (r *Runner) catchingUp() bool {
	up := r.cfg.Node.CaughtUp()
	switch {
	case !up:
		r.behind = true
	case r.behind:
		r.behind = false
		r.notes = append(r.notes, fmt.Sprintf("Caught up with the table (%d log entries); playing on.", len(r.cfg.Node.Log())))
	}
	return !up
}

// Host is the libp2p host of the runner.
func (r *Runner) Host() host.Host { return r.cfg.Host }

// Run drives the node until the game ends (or stops), ctx is cancelled, or
// an I/O error occurs. It returns nil after a finished game.
func (r *Runner) Run(ctx context.Context) error {
	defer close(r.done)
	defer r.topic.Close()
	// Deferred calls run last first: cancel, then wait for the reader and
	// the fetchers, then leave the topic.
	defer r.wg.Wait()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	r.ctx = ctx
	// A node resumed from its log knows the roster already: the guard
	// does from the first envelope read and the first gap request on,
	// not from the end of the first Ready.
	r.learnRoster(r.cfg.Node.Status().Members)
	r.wg.Add(1)
	go r.read(ctx)
	if ph := r.cfg.Node.Status().Phase; len(r.cfg.Peers) > 0 && ph != lockstep.PhaseOver && ph != lockstep.PhaseStopped {
		// Until every known peer is on the topic our first messages could
		// miss them. Past the wait, go on anyway: lockstep re-sends what is
		// not committed and asks for gaps, so a late peer still catches up.
		// A node resumed past its game's end sends nothing more: it only
		// lingers for peers that catch up from it, which ask it themselves.
		wctx, wcancel := context.WithTimeout(ctx, 15*time.Second)
		r.topic.WaitPeers(wctx, r.cfg.Peers)
		wcancel()
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
	tick := time.NewTicker(r.cfg.TickEvery)
	defer tick.Stop()
	// lockstep wants a monotonic clock; time.Since uses Go's monotonic
	// reading, so a wall-clock jump cannot fake or hide a stall.
	epoch := time.Now()
	n := r.cfg.Node
	var lingerUntil time.Time
	var botAt time.Time
	// botTimer wakes the loop when the bot's pause is over, so its move
	// does not wait for the next tick (nor land on one, when every runner
	// of a local table wakes at once).
	botTimer := time.NewTimer(time.Hour)
	botTimer.Stop()
	defer botTimer.Stop()
	for {
		if r.cfg.Bot != nil && r.cfg.BotDelay <= 0 && n.HasReady() && n.CanAct() && !r.catchingUp() {
			// A bot that moves at once moves before the batch is drained:
			// its action then shares the batch's write and fsync, and goes
			// out with what the batch sends (at a turn's start, its
			// checkpoint: lockstep's CanAct).
			if err := r.playBot(); err != nil {
				return err
			}
		}
		if err := r.drain(ctx); err != nil {
			return err
		}
		st := n.Status()
		if st.Phase == lockstep.PhaseOver || st.Phase == lockstep.PhaseStopped {
			if lingerUntil.IsZero() {
				lingerUntil = time.Now().Add(r.cfg.Linger)
				r.cfg.Log.Sync()
			}
			if now := time.Now(); now.After(lingerUntil) && !r.spectatorsWaiting(now, lingerUntil) {
				if st.Phase == lockstep.PhaseStopped {
					return r.stopError(st)
				}
				return nil
			}
		} else if r.cfg.StartWhen > 0 && !r.proposed && st.Phase <= lockstep.PhaseLobby && len(n.Joined()) >= r.cfg.StartWhen {
			r.proposed = true
			if err := n.Propose(); err != nil {
				return fmt.Errorf("start the game: %w", err)
			}
			continue
		} else if r.cfg.Bot != nil && n.CanAct() && !r.catchingUp() {
			if botAt.IsZero() {
				botAt = time.Now().Add(r.cfg.BotDelay)
				botTimer.Reset(r.cfg.BotDelay)
			}
			if !time.Now().Before(botAt) {
				botAt = time.Time{}
				if err := r.playBot(); err != nil {
					return err
				}
				continue
			}
		}
		if n.HasWork() {
			// A shuffle proof of a secret table's deal to make or check
			// (about 0.1 s): one at a time, taking what has arrived
			// between them.
			worked := true
			select {
			case in := <-r.in:
				r.step(in)
			case <-ctx.Done():
				r.cfg.Log.Sync()
				if !lingerUntil.IsZero() && st.Phase == lockstep.PhaseOver {
					// A proof still to check after the end (a deck
					// shuffled for a game that then ended): we were
					// only lingering.
					return nil
				}
				return ctx.Err()
			default:
				worked = n.Work()
			}
			if worked {
				continue
			}
			// Nothing could be done yet: wait below as usual.
		}
		select {
		case <-ctx.Done():
			r.cfg.Log.Sync()
			if !lingerUntil.IsZero() && st.Phase == lockstep.PhaseOver {
				return nil // the game had ended; we were only lingering
			}
			return ctx.Err()
		case in := <-r.in:
			r.step(in) // a rejection comes back as an event
			// Take whatever else has arrived before handling Ready, so a
			// burst costs one batch.
			for more := true; more; {
				select {
				case in := <-r.in:
					r.step(in)
				default:
					more = false
				}
			}
		case res := <-r.admitted:
			r.admittedResult(res)
			if len(r.notes) > 0 && !n.HasReady() && r.cfg.OnUpdate != nil {
				u := Update{Status: n.Status(), Drops: r.Drops(), Notes: r.notes}
				if u.Status.Phase <= lockstep.PhaseLobby {
					u.Joined = n.Joined()
				}
				r.notes = nil
				r.cfg.OnUpdate(u)
			}
		case a := <-r.answers:
			// The node verifies every envelope; an answer that contradicts
			// our log comes back as ErrFork (and, if it proves the others
			// dropped us, as an event).
			// Joins in an answer are held back like those from the topic
			// until their authors answer the host's challenge.
			a.Pending = r.admitPending(a.Pending)
			_ = n.StepAnswer(a)
		case op := <-r.ops:
			op(n)
		case <-botTimer.C:
		case <-tick.C:
			n.Tick(time.Since(epoch).Milliseconds() + 1)
			r.nameFlooders(n)
			r.catchingUp()
			if d := r.Drops(); (d != r.told || len(r.notes) > 0) && r.cfg.OnUpdate != nil && !n.HasReady() {
				// Junk the validator dropped changes nothing in the
				// node; say so anyway, at most once a tick.
				r.told = d
				u := Update{Status: n.Status(), Drops: d, Notes: r.notes}
				r.notes = nil
				if u.Status.Phase <= lockstep.PhaseLobby {
					u.Joined = n.Joined()
				}
				r.cfg.OnUpdate(u)
			}
		}
	}
}

// maxFetching bounds the catch-up fetches a runner has under way.
const maxFetching = 4

// inbound is an envelope for the node; verified says the topic validator
// checked its signature.
type inbound struct {
	env      *crypto.Envelope
	verified bool
}

// admission is where a joiner's challenge stands.
type admission struct {
	state int // admitPending, admitOK or admitFailed
	at    time.Time
	join  *inbound // the latest join held back meanwhile
}

const (
	admitPending = iota + 1
	admitOK
	admitFailed
	// maxAdmits bounds the joiners tracked; admitRetry is how soon a
	// joiner that failed is challenged again when it re-sends its join.
	maxAdmits  = 64
	admitRetry = 3 * time.Second
)

type admitResult struct {
	who crypto.PeerID
	err error
}

// held says whether in is a join to hold back until its author has
// answered the host's challenge, and starts the challenge if need be.
func (r *Runner) held(in inbound) bool {
	env := in.env
	if r.stranger(env) {
		return true
	}
	if r.cfg.Admit == nil || env.Kind != crypto.KindJoin || env.Session != r.cfg.Lobby || peer.ID(env.Author) == r.cfg.Host.ID() {
		return false
	}
	a := r.admits[env.Author]
	if a == nil {
		if len(r.admits) >= maxAdmits {
			// Forget those that failed: a flood of identities that never
			// answer must not lock a real joiner out.
			for k, x := range r.admits {
				if x.state == admitFailed {
					delete(r.admits, k)
				}
			}
		}
		if len(r.admits) >= maxAdmits {
			return true // too many strangers at once: ignored
		}
		a = &admission{}
		r.admits[env.Author] = a
	}
	switch a.state {
	case admitOK:
		return false
	case admitFailed:
		if time.Since(a.at) < admitRetry {
			return true
		}
	case admitPending:
		a.join = &in
		return true
	}
	a.state, a.at, a.join = admitPending, time.Now(), &in
	who := env.Author
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		err := r.cfg.Admit(r.ctx, peer.ID(who))
		select {
		case r.admitted <- admitResult{who, err}:
		case <-r.ctx.Done():
		}
	}()
	return true
}

// admittedResult records a challenge's outcome; an admitted joiner's held
// join reaches the node now.
func (r *Runner) admittedResult(res admitResult) {
	a := r.admits[res.who]
	if a == nil {
		return
	}
	a.at = time.Now()
	if res.err != nil {
		a.state, a.join = admitFailed, nil
		r.notes = append(r.notes, fmt.Sprintf("A peer (…%s) sent a join but %s in time; it does not count until it answers.", short(peer.ID(res.who)), ErrNotAdmitted))
		return
	}
	a.state = admitOK
	if a.join != nil {
		in := *a.join
		a.join = nil
		r.step(in)
	}
}

// stranger reports whether env is a join from a peer that is not on a
// host's guest list (RunnerConfig.Guests).
func (r *Runner) stranger(env *crypto.Envelope) bool {
	if len(r.cfg.Guests) == 0 || env.Kind != crypto.KindJoin {
		return false
	}
	for _, g := range r.cfg.Guests {
		if g == peer.ID(env.Author) {
			return false
		}
	}
	return true
}

// admitPending drops from envs the joins that held keeps back.
func (r *Runner) admitPending(envs []*crypto.Envelope) []*crypto.Envelope {
	if r.cfg.Admit == nil && len(r.cfg.Guests) == 0 {
		return envs
	}
	out := envs[:0:0]
	for _, e := range envs {
		if e.Kind == crypto.KindJoin && r.held(inbound{env: e}) {
			continue
		}
		out = append(out, e)
	}
	return out
}

func (r *Runner) step(in inbound) {
	if r.held(in) {
		return
	}
	if in.verified && r.cfg.Trusted != nil {
		r.cfg.Trusted.env = in.env
		defer func() { r.cfg.Trusted.env = nil }()
	}
	r.cfg.Node.Step(in.env)
	if r.cfg.OnStage != nil {
		r.cfg.OnStage(StageStepped, in.env)
	}
}

// ErrStopped is returned by Run when the session stopped on an
// equivocation or a desync; the events said why.
var ErrStopped = errors.New("the session stopped")

// ErrStoppedInLobby is returned by Run (wrapped with the reason, and
// matching ErrStopped too) when the node stopped before the game began.
var ErrStoppedInLobby = fmt.Errorf("%w before the game began", ErrStopped)

// stopError says why the node stopped, in the words of the event that
// stopped it.
func (r *Runner) stopError(st lockstep.Status) error {
	why := r.stopWhy
	if why == "" {
		why = "no reason was given"
	}
	if r.cfg.Node.State() == nil {
		return fmt.Errorf("%w: %s", ErrStoppedInLobby, why)
	}
	return fmt.Errorf("%w: %s", ErrStopped, why)
}

func (r *Runner) playBot() error {
	s := r.cfg.Node.State()
	legal := s.Legal(nil)
	if len(legal) == 0 {
		return fmt.Errorf("seat %d is to act but has no legal action", s.ToAct().Seat)
	}
	a := r.cfg.Bot.Choose(s, legal, r.cfg.BotRand)
	if err := r.cfg.Node.Act(a); err != nil {
		// A bot that picks from Legal cannot be refused unless the engine's
		// Legal and Apply disagree: a bug in the game, reported as such.
		return fmt.Errorf("bot chose %s, refused: %w", s.Describe(a), err)
	}
	return nil
}

// drain handles every pending Ready in the order lockstep's Ready asks:
// persist, then send, then fetch, then report, then Advance.
func (r *Runner) drain(ctx context.Context) error {
	n := r.cfg.Node
	for n.HasReady() {
		rd := n.Ready()
		if rd.CardSecret != nil {
			// A secret table's card key: privately on disk (its own file,
			// fsynced) before the card-key envelope that proves it, or
			// anything depending on it, is persisted or sent.
			if err := WriteCardKey(CardKeyPath(r.cfg.Log.Path()), n.Status().Session, rd.CardSecret); err != nil {
				return err
			}
		}
		// One write for the whole Ready, and at most one fsync: what this
		// peer signed (Persist) must be durable before Messages go out.
		// Other seats' card envelopes the card layer took (Cards) go
		// before the entries they let commit, so a log's every entry has
		// what its deal needed before it (a restarted seat replays them
		// in this order).
		recs := make([]lockstep.Record, 0, len(rd.Persist)+len(rd.Cards)+len(rd.Entries)+len(rd.Keep))
		for _, e := range rd.Persist {
			recs = append(recs, lockstep.Record{Type: lockstep.RecordSent, Env: e})
		}
		for _, e := range rd.Cards {
			recs = append(recs, lockstep.Record{Type: lockstep.RecordCard, Env: e})
		}
		for _, e := range rd.Entries {
			recs = append(recs, lockstep.Record{Type: lockstep.RecordEntry, Env: e})
		}
		// Other peers' state envelopes that explain a desync: with them
		// the log file is the desync bundle that `boardmesh replay` reads.
		for _, e := range rd.Keep {
			recs = append(recs, lockstep.Record{Type: lockstep.RecordState, Env: e})
		}
		if err := r.cfg.Log.Append(recs...); err != nil {
			return err
		}
		if r.cfg.OnStage != nil {
			for _, e := range rd.Entries {
				if e.Author != r.cfg.Node.ID() {
					r.cfg.OnStage(StageLogged, e)
				}
			}
		}
		// lockstep says when (Ready.MustSync: whenever it signed something).
		// A desync bundle (Keep), the game's end and a stop are synced too,
		// so what replay and the summary name is on disk when the process
		// exits.
		mustSync := rd.MustSync || len(rd.Keep) > 0
		for _, ev := range rd.Events {
			switch ev.Kind {
			case lockstep.EventGameOver:
				mustSync = true
			case lockstep.EventRejected:
				if ev.Cheat == lockstep.CheatWrongCheckpoint && r.stopWhy == "" {
					r.stopWhy = ev.Text // a checkpoint mismatch stops the game
				}
			case lockstep.EventRefused:
				if errors.Is(ev.Err, lockstep.ErrCannotStart) && r.stopWhy == "" {
					r.stopWhy = ev.Text // the lobby stopped: too few left to play
				}
			case lockstep.EventEquivocation, lockstep.EventDesync:
				if r.stopWhy == "" {
					r.stopWhy = ev.Text
					if ev.Desync != nil {
						r.stopWhy = ev.Desync.String()
					}
				}
				mustSync = true
			}
		}
		// Report before the fsync: what this Ready committed (other
		// peers' envelopes, written above) is shown at once, not one fsync
		// later. The fsync guards what we signed, which leaves only after
		// it; a view learns nothing that is not already in the log file
		// (a crash now loses at most the unsynced tail, which catch-up
		// brings back). docs/performance.md, "commit latency".
		st := n.Status()
		if r.cfg.OnUpdate != nil {
			var s engine.State
			// A node stopped in the lobby (an equivocating joiner) has no
			// state: Phase alone does not say there is one.
			if cur := n.State(); cur != nil && st.Phase >= lockstep.PhasePlaying && (r.cfg.WantState || st.Phase >= lockstep.PhaseOver) {
				s = cur.Clone()
			}
			r.told = r.Drops()
			u := Update{Status: st, State: s, Events: rd.Events, Entries: rd.Entries, Drops: r.told, Notes: r.notes}
			r.notes = nil
			if st.Phase <= lockstep.PhaseLobby {
				u.Joined = n.Joined()
			}
			r.cfg.OnUpdate(u)
		}
		// What we signed is on disk before it leaves (Ready.Persist): a
		// crash after the send must find it, or the restarted peer could
		// sign a different envelope for the slot and be convicted of an
		// equivocation it never meant.
		if mustSync {
			if err := r.cfg.Log.Sync(); err != nil {
				return err
			}
		}
		// The topic validator checks our own envelopes too: it learns the
		// session before they go out, or the first of a re-proposed
		// roster's (this peer's accept) would be refused as another
		// session's and wait for its re-send. (The roster it learns after
		// them, as it always has.)
		r.guard.setSession(st.Session, n.SessionMayChange())
		if r.cfg.OnPublish != nil {
			for _, m := range rd.Messages {
				r.cfg.OnPublish(m)
			}
		}
		// What leaves at once goes as few network messages as it can: an
		// action with the reveal and checkpoint that follow it, say, in
		// one bundle (crypto.Messages), each envelope still signed and
		// checked on its own. What the transports and gossipsub spend on
		// a message of a few hundred bytes is nearly all per message, not
		// per byte.
		// A bundle goes out only when every peer that must read it reads
		// bundles (WireProtocol): a Messages limit of 0 sends each
		// envelope alone, as every build reads.
		limit := MaxEnvelope
		if !r.othersReadBundles() {
			limit = 0
		}
		for _, b := range crypto.Messages(rd.Messages, limit) {
			if err := r.topic.Publish(ctx, b); err != nil && ctx.Err() == nil {
				// A local validation failure cannot happen for our own
				// well-formed envelopes; anything else is transient and
				// lockstep re-sends.
				continue
			}
		}
		// The roster this Ready holds is the guard's before any gap
		// request of the same Ready is sent: one that names no peer goes
		// to the members only once there is a roster (gapPeer), and an
		// outsider on the topic must not get even the first.
		r.learnRoster(st.Members)
		if !r.guard.hasRoster() {
			r.learnLobby(n.Joined())
		}
		for _, q := range rd.Requests {
			r.fetch(ctx, q)
		}
		n.Advance()
	}
	return nil
}

// othersReadBundles reports whether every peer that must read what this
// peer publishes advertises WireProtocol: the roster's members, or, before
// there is a roster, every peer on the topic (the joiners and whoever is
// about to be one). Spectators on the topic are outsiders: they do not
// choose how members send (a spectator reads the committed log by
// catch-up, which serves lone envelopes).
func (r *Runner) othersReadBundles() bool {
	h := r.cfg.Host
	if r.guard.hasRoster() {
		return r.guard.allMembers(func(p peer.ID) bool { return r.readers.reads(h, p, true) })
	}
	for _, p := range r.topic.Peers() {
		if !r.readers.reads(h, p, false) {
			return false
		}
	}
	return true
}

// learnRoster tells the guard who the members are, and stops treating
// anyone else as a gossipsub direct peer (a direct peer is never
// graylisted, whatever it sends).
func (r *Runner) learnRoster(members []lockstep.Member) {
	if len(members) == 0 {
		return
	}
	key := ""
	ids := make([]peer.ID, 0, len(members))
	for _, m := range members {
		ids = append(ids, peer.ID(m.ID))
		key += string(m.ID)
	}
	if key == r.roster {
		return
	}
	r.roster = key
	r.guard.setMembers(ids)
	for _, p := range r.topic.Peers() {
		if !r.guard.isMember(p) {
			_ = r.cfg.PubSub.RemoveDirectPeer(p)
		}
	}
}

// floodTold is what nameFlooders last told the node of one member.
type floodTold struct {
	envelopes, messages int64 // dropped by the guard, cut by the gossip gate
	at                  time.Time
}

// floodNameEvery is how often a member still flooding is named again.
const floodNameEvery = 5 * time.Second

// nameFlooders has the node name every member that floods, at most every
// floodNameEvery, for what was dropped since it was last named: its
// envelopes (signature checked) the topic validator dropped over the
// member's rate, and the messages its own host sent that the gossip gate
// cut over a peer's rate. Neither reaches the node, so it cannot see the
// flood itself. An honest member's host is not cut for relaying another
// member's flood: it relays only what its validator accepted, at most
// memberRate and memberBytesRate of that member, below peerRate and
// peerBytesRate. A non-member cut by the gate is named by its peer id in
// Drops (OverPeerRateFrom), not by the node.
func (r *Runner) nameFlooders(n *lockstep.Node) {
	counts := map[peer.ID]floodTold{}
	for _, f := range r.guard.memberFloods() {
		c := counts[f.id]
		c.envelopes = f.n
		counts[f.id] = c
	}
	if g := gateOf(r.cfg.PubSub); g != nil {
		if m := r.guard.members.Load(); m != nil {
			for id := range *m {
				if k := g.cutOf(id); k > 0 && id != r.cfg.Host.ID() {
					c := counts[id]
					c.messages = k
					counts[id] = c
				}
			}
		}
	}
	ids := make([]peer.ID, 0, len(counts))
	for id := range counts {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	now := time.Now()
	for _, id := range ids {
		c := counts[id]
		if r.floods == nil {
			r.floods = map[peer.ID]*floodTold{}
		}
		told := r.floods[id]
		if told == nil {
			told = &floodTold{}
			r.floods[id] = told
		}
		if c.envelopes <= told.envelopes && c.messages <= told.messages || now.Sub(told.at) < floodNameEvery {
			continue
		}
		var parts []string
		if d := c.envelopes - told.envelopes; d > 0 {
			parts = append(parts, fmt.Sprintf("over %d envelopes or %d KiB a second, %d dropped", memberRate, memberBytesRate>>10, d))
		}
		if d := c.messages - told.messages; d > 0 {
			parts = append(parts, fmt.Sprintf("its host over %d messages or %d MiB a second, %d cut", peerRate, peerBytesRate>>20, d))
		}
		n.NoteFlood(crypto.PeerID(id), strings.Join(parts, "; "))
		*told = floodTold{envelopes: c.envelopes, messages: c.messages, at: now}
	}
}

// fetch asks one peer for a gap on another goroutine and hands its answer
// to Run, which gives it to the node's StepAnswer; the node verifies every
// envelope. The answer's Peer is the stream's remote peer (libp2p
// authenticated it), never what the answer says of itself. A request
// whose peer is not connected, or is still busy with one of our fetches,
// goes to the next peer in turn instead (gapPeer).
func (r *Runner) fetch(ctx context.Context, q lockstep.GapRequest) {
	if r.fetching.Load() >= maxFetching {
		return // lockstep asks again after ResendAfter
	}
	to := peer.ID(q.To)
	h := r.cfg.Host
	if to == "" || h.Network().Connectedness(to) != network.Connected || !r.asks.take(to) {
		if to = r.gapPeer(); to == "" {
			return
		}
	}
	query := AnswerQuery(q.From)
	if q.NoCards {
		query = NoCardsQuery(q.From)
	}
	r.fetching.Add(1)
	r.wg.Add(1)
	go func() {
		defer r.wg.Done()
		defer r.fetching.Add(-1)
		defer r.asks.done(to)
		items, err := Fetch(ctx, h, to, query)
		if err != nil {
			return // lockstep asks again after ResendAfter
		}
		a, err := DecodeAnswer(to, items)
		if err != nil {
			return
		}
		// What we asked, not what the peer says: an answer to a query
		// for no card envelopes shows nothing of them (StepAnswer).
		a.NoCards = q.NoCards
		select {
		case r.answers <- a:
		case <-ctx.Done():
		}
	}()
}

// gapPeer picks, and takes (fetchTurns.take), the peer a gap request goes
// to when it names none: the topic's peers in turn, in peer-id order (an
// answer helps only from a peer that went on, StepAnswer, and which one
// did is not known here), but once there is a roster its members only.
// Anyone can subscribe to the topic, and a peer that takes the stream and
// never answers holds one of our maxFetching fetches for catchupTimeout:
// a few outsiders in the turn kept a member's answers from ever being
// fetched. A peer still holding one of our fetches is passed over, so
// one that does not answer (a hostile member) holds at most one of them
// and costs no turn meanwhile. "" if nobody may be asked now.
func (r *Runner) gapPeer() peer.ID {
	peers := r.topic.Peers()
	if r.guard.hasRoster() {
		members := peers[:0]
		for _, p := range peers {
			if r.guard.isMember(p) {
				members = append(members, p)
			}
		}
		peers = members
	}
	sort.Slice(peers, func(i, j int) bool { return peers[i] < peers[j] })
	for range peers {
		p := peers[r.asks.turn%len(peers)]
		r.asks.turn++
		if r.asks.take(p) {
			return p
		}
	}
	return ""
}

// fetchTurns is the state of gapPeer: turn counts the turns taken (Run's
// goroutine only); busy holds the peers a fetch of ours is under way
// with, at most maxFetching of them, shared with the fetchers.
type fetchTurns struct {
	turn int
	mu   sync.Mutex
	busy map[peer.ID]bool
}

// take marks p busy and says true, or says false if it is already.
func (t *fetchTurns) take(p peer.ID) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.busy[p] {
		return false
	}
	if t.busy == nil {
		t.busy = map[peer.ID]bool{}
	}
	t.busy[p] = true
	return true
}

// done ends p's fetch.
func (t *fetchTurns) done(p peer.ID) {
	t.mu.Lock()
	defer t.mu.Unlock()
	delete(t.busy, p)
}

// learnLobby records who has joined, for catchupAccess before a roster.
func (r *Runner) learnLobby(joined []lockstep.Member) {
	m := make(map[peer.ID]bool, len(joined))
	for _, j := range joined {
		m[peer.ID(j.ID)] = true
	}
	r.lobbyPeers.Store(&m)
}

// catchupAccess is the catch-up stream's policy (CatchupPolicy): the
// roster's members may ask anything; before there is a roster, so may
// the peers whose joins the node holds (a join held back for the host's
// challenge does not count); once there is one, any other peer is a
// spectator and may fetch committed entries only, unless NoSpectators.
// A peer that may ask nothing is reset before it is read, and costs no
// call on the node's goroutine.
func (r *Runner) catchupAccess(p peer.ID) CatchupAccess {
	switch {
	case r.guard.isMember(p):
		return CatchupFull
	case !r.guard.hasRoster():
		if m := r.lobbyPeers.Load(); m != nil && (*m)[p] {
			return CatchupFull
		}
		return CatchupNone
	case r.cfg.NoSpectators:
		return CatchupNone
	}
	return CatchupCommitted
}

// serveCatchup answers a catch-up stream on the node's goroutine.
func (r *Runner) serveCatchup(from peer.ID, query []byte) ([][]byte, error) {
	fromIdx, mode, err := ParseQuery(query)
	if err != nil {
		return nil, fmt.Errorf("catch-up query from %s: %w", short(from), err)
	}
	var out [][]byte
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err = r.Do(ctx, func(node *lockstep.Node) error {
		switch mode {
		case queryCommitted:
			log := node.Log()
			for i := fromIdx; i < uint64(len(log)) && len(out) < maxCommittedAnswer; i++ {
				out = append(out, log[i].Marshal())
			}
			if !r.guard.isMember(from) {
				ph := node.Status().Phase
				end := (ph == lockstep.PhaseOver || ph == lockstep.PhaseStopped) && fromIdx+uint64(len(out)) >= uint64(len(log))
				r.sawSpectator(from, end)
			}
		case queryAnswer, queryNoCards:
			out = EncodeAnswer(node.Answer(lockstep.GapRequest{To: crypto.PeerID(from), From: fromIdx, NoCards: mode == queryNoCards}))
		default:
			for _, e := range node.Serve(lockstep.GapRequest{To: crypto.PeerID(from), From: fromIdx}) {
				out = append(out, e.Marshal())
			}
		}
		return nil
	})
	return out, err
}

// A catch-up query is uvarint(From): committed entries from index From on,
// then every envelope the peer holds that is not committed yet (lockstep's
// Serve). Followed by the byte queryCommitted it asks for committed entries
// only, which is what a spectator verifies and shows. Followed by the byte
// queryAnswer it asks for lockstep's Answer, committed entries told apart
// from the rest: the first item is uvarint(From) uvarint(len(Entries)),
// then the entries, then the pending envelopes. That is what a runner
// asks, so that StepAnswer learns which way the answering peer went at a
// log position where we voted to drop. Followed by the byte queryNoCards
// it asks for the same answer without card envelopes (a stalled peer's
// ask from before its log's end: lockstep's GapRequest.NoCards).
const (
	queryCommitted     = 1
	queryAnswer        = 2
	queryNoCards       = 3
	maxCommittedAnswer = 4096
)

// AnswerQuery asks for lockstep's Answer to a gap request from index from.
func AnswerQuery(from uint64) []byte {
	return append(binary.AppendUvarint(nil, from), queryAnswer)
}

// NoCardsQuery asks for lockstep's Answer to a gap request from index
// from that wants no card envelopes (GapRequest.NoCards).
func NoCardsQuery(from uint64) []byte {
	return append(binary.AppendUvarint(nil, from), queryNoCards)
}

// EncodeAnswer is the reply to an AnswerQuery, cut to the catch-up
// stream's limits: the header counts the entries actually sent, and
// pending envelopes come only while there is room.
func EncodeAnswer(a lockstep.GapAnswer) [][]byte {
	items, budget := 1, maxCatchupAnswer
	var entries, pending [][]byte
	for _, e := range a.Entries {
		b := e.Marshal()
		if items >= maxCatchupItems || len(b) > budget {
			break
		}
		entries, items, budget = append(entries, b), items+1, budget-len(b)
	}
	if len(entries) == len(a.Entries) {
		for _, e := range a.Pending {
			b := e.Marshal()
			if items >= maxCatchupItems || len(b) > budget {
				break
			}
			pending, items, budget = append(pending, b), items+1, budget-len(b)
		}
	}
	hdr := binary.AppendUvarint(binary.AppendUvarint(nil, a.From), uint64(len(entries)))
	out := make([][]byte, 0, items)
	out = append(out, hdr)
	out = append(out, entries...)
	return append(out, pending...)
}

// DecodeAnswer reads the reply to an AnswerQuery that peer from sent. An
// envelope that does not parse is skipped (the node would refuse it
// anyway), unless it is a committed entry: then the positions after it
// are unknown and the answer keeps only the entries before it.
func DecodeAnswer(from peer.ID, items [][]byte) (lockstep.GapAnswer, error) {
	a := lockstep.GapAnswer{Peer: crypto.PeerID(from)}
	if len(items) == 0 {
		return a, fmt.Errorf("empty catch-up answer from %s", short(from))
	}
	hdr := items[0]
	idx, n := binary.Uvarint(hdr)
	if n <= 0 {
		return a, fmt.Errorf("bad catch-up answer header from %s", short(from))
	}
	count, m := binary.Uvarint(hdr[n:])
	if m <= 0 || n+m != len(hdr) || count > uint64(len(items)-1) {
		return a, fmt.Errorf("bad catch-up answer header from %s", short(from))
	}
	a.From = idx
	entriesOK := true
	for i, b := range items[1:] {
		env, err := crypto.Unmarshal(b)
		if uint64(i) < count {
			if err != nil {
				entriesOK = false
			}
			if entriesOK {
				a.Entries = append(a.Entries, env)
			}
			continue
		}
		if err == nil {
			a.Pending = append(a.Pending, env)
		}
	}
	return a, nil
}

// ErrBadQuery is a catch-up query that is not uvarint(from) with an
// optional mode byte.
var ErrBadQuery = errors.New("bad catch-up query")

// ParseQuery reads a catch-up query: uvarint(from) in its shortest form,
// then nothing (mode 0: committed entries from index from on and every
// pending envelope), queryCommitted, queryAnswer or queryNoCards.
func ParseQuery(q []byte) (from uint64, mode byte, err error) {
	var n int
	from, n = binary.Uvarint(q)
	switch {
	case n <= 0 || len(binary.AppendUvarint(nil, from)) != n:
		return 0, 0, ErrBadQuery
	case n == len(q):
		return from, 0, nil
	case n+1 == len(q) && (q[n] == queryCommitted || q[n] == queryAnswer || q[n] == queryNoCards):
		return from, q[n], nil
	}
	return 0, 0, ErrBadQuery
}

// CommittedQuery asks for committed entries from index from on.
func CommittedQuery(from uint64) []byte {
	return append(binary.AppendUvarint(nil, from), queryCommitted)
}

// read feeds envelopes from the topic to the node's goroutine.
func (r *Runner) read(ctx context.Context) {
	defer r.wg.Done()
	for {
		m, err := r.topic.Next(ctx)
		if err != nil {
			return
		}
		envs, verified := m.Checked.([]*crypto.Envelope)
		if !verified {
			if envs, err = crypto.UnmarshalMessage(m.Data); err != nil {
				continue
			}
		}
		for _, env := range envs {
			if r.cfg.OnStage != nil {
				r.cfg.OnStage(StageReceived, env)
			}
			select {
			case r.in <- inbound{env: env, verified: verified}:
			case <-ctx.Done():
				return
			}
		}
	}
}
