package p2p

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"time"

	"github.com/boardmesh/boardmesh/crypto"
	"github.com/boardmesh/boardmesh/engine"
	"github.com/boardmesh/boardmesh/lockstep"
	"github.com/boardmesh/boardmesh/lockstep/deal"
)

// SecretBench is the result of `bench secret` for one game: the figures
// the hidden-cards issue asks for, from one run.
type SecretBench struct {
	Game string `json:"game"`
	// Setup is the hidden-card setup (keys, every shuffle chain of the
	// game's decks, and the escrows at 3+ seats) per table size.
	Setup []SetupBench `json:"setup"`
	// Peers is the table size of the two bot games below.
	Peers int `json:"peers"`
	// Broadcasts, GossipP50 and GossipP99: the raw gossipsub floor
	// measured on the secret game's table before its game (as bench net).
	Broadcasts int           `json:"broadcasts"`
	GossipP50  time.Duration `json:"gossip_p50_ns"`
	GossipP99  time.Duration `json:"gossip_p99_ns"`
	// DeliveryCPU: the process's CPU over the floor per copy delivered
	// (as NetBench's), charged in the models to each envelope received.
	DeliveryCPU time.Duration `json:"delivery_cpu_ns"`
	// Secret and Open are one full bot game each, bots moving at once, on
	// a secret table and on an open-hands one, with the same bot seed.
	Secret SecretGame `json:"secret"`
	Open   SecretGame `json:"open"`
	// WallRatio is Secret.Wall / Open.Wall (the aim: 2 or less).
	WallRatio float64 `json:"wall_ratio"`
	// DrawPerGossip is Secret.DrawP50 / GossipP50 (the aim: 2 or less).
	DrawPerGossip float64 `json:"draw_per_gossip_p50"`
	// ModelSecret and ModelOpen are bot games of the same seed, secret
	// and open, modelled as on separate machines (ModelGames), with a
	// broadcast taking GossipP50, each envelope received DeliveryCPU and
	// an fsync FsyncP50, all of this run; ModelRatio is ModelSecret.Wall /
	// ModelOpen.Wall.
	FsyncP50    time.Duration `json:"fsync_p50_ns"`
	ModelSecret ModelGame     `json:"model_secret"`
	ModelOpen   ModelGame     `json:"model_open"`
	ModelRatio  float64       `json:"model_wall_ratio"`
}

// SetupBench is one table size's hidden-card setup in the pure protocol
// (lockstep/deal), scheduled as on separate machines: every seat has a
// core of its own, each Step and Work is run for real and its CPU time
// measured, and a broadcast takes the gossip p50 of the same run.
type SetupBench struct {
	Peers int `json:"peers"`
	Decks int `json:"decks"` // shuffled decks (chains)
	Cards int `json:"cards"` // their cards
	// Critical is when the last seat has every deck ready (and, at 3+
	// seats, every escrow checked): the pipelined chains' critical path.
	Critical time.Duration `json:"critical_ns"`
	// SeatCPU is the most CPU one seat spent; TotalCPU every seat's.
	SeatCPU  time.Duration `json:"seat_cpu_ns"`
	TotalCPU time.Duration `json:"total_cpu_ns"`
	// Bytes and Envelopes: everything broadcast once.
	Bytes     int `json:"bytes"`
	Envelopes int `json:"envelopes"`
}

// SecretGame is one full bot game of a local table.
type SecretGame struct {
	Mode  string `json:"mode"`
	Steps uint64 `json:"steps"`
	// Wall is from the start of the runners until the last peer has seen
	// the game end; CPU is this process's (every peer) over it,
	// CPUPerStep CPU / Steps (two games of one seed still differ in
	// length: the seat draw differs).
	Wall        time.Duration `json:"wall_ns"`
	CPU         time.Duration `json:"cpu_ns"`
	CPUPerStep  time.Duration `json:"cpu_per_step_ns"`
	StartToMove time.Duration `json:"start_to_first_move_ns"`
	// Bytes and Envelopes: every envelope every peer published, once
	// (gossip fans each out to the others); CardBytes the card protocol's.
	Bytes     int `json:"bytes"`
	Envelopes int `json:"envelopes"`
	CardBytes int `json:"card_bytes"`
	// Draws counts the waits for cards whose openings are all private
	// (a draw, a peek); DrawP50 and DrawP99 time each from the moment the
	// first peer's state starts waiting until the table goes on: the
	// first envelope of a later step any peer publishes (an action or a
	// checkpoint of a later seq, or a beacon reveal). Reveals and
	// RevealP50 the same for waits with a public opening.
	Draws     int           `json:"draws"`
	DrawP50   time.Duration `json:"draw_p50_ns"`
	DrawP99   time.Duration `json:"draw_p99_ns"`
	Reveals   int           `json:"reveals"`
	RevealP50 time.Duration `json:"reveal_p50_ns"`
	// Batches counts the card protocol's opening batches that needed
	// envelopes, by broadcast rounds: shares only (one round), or a
	// re-masking first (two).
	Batches1 int `json:"batches_one_round"`
	Batches2 int `json:"batches_two_rounds"`
}

// BenchSecret measures game g's hidden cards: the setup at each of sizes
// (those g allows), then on a table of peers peers the gossip floor
// (broadcasts, paced by think) and one bot game secret and one open;
// then modelGames games of each modelled as on separate machines.
func BenchSecret(ctx context.Context, g *engine.Game, sizes []int, peers int, seed []byte, broadcasts int, think time.Duration, modelGames int) (SecretBench, error) {
	res := SecretBench{Game: g.Name, Peers: peers}
	var err error
	res.Secret, err = benchSecretGame(ctx, g, peers, seed, true, func(t *Table) error {
		floor, perDelivery, err := gossipFloor(ctx, t, broadcasts, think)
		if err != nil {
			return fmt.Errorf("gossip floor: %w", err)
		}
		res.DeliveryCPU = perDelivery
		res.Broadcasts = len(floor)
		res.GossipP50, res.GossipP99 = percentile(floor, 50), percentile(floor, 99)
		return nil
	})
	if err != nil {
		return res, fmt.Errorf("secret game: %w", err)
	}
	if res.Open, err = benchSecretGame(ctx, g, peers, seed, false, nil); err != nil {
		return res, fmt.Errorf("open game: %w", err)
	}
	res.WallRatio = float64(res.Secret.Wall) / float64(res.Open.Wall)
	if res.GossipP50 > 0 {
		res.DrawPerGossip = float64(res.Secret.DrawP50) / float64(res.GossipP50)
	}
	if res.FsyncP50, err = fsyncP50(500); err != nil {
		return res, err
	}
	if res.ModelSecret, err = ModelGames(g, peers, seed, true, res.GossipP50, res.FsyncP50, res.DeliveryCPU, modelGames); err != nil {
		return res, fmt.Errorf("secret game, modelled: %w", err)
	}
	if res.ModelOpen, err = ModelGames(g, peers, seed, false, res.GossipP50, res.FsyncP50, res.DeliveryCPU, modelGames); err != nil {
		return res, fmt.Errorf("open game, modelled: %w", err)
	}
	res.ModelRatio = float64(res.ModelSecret.Wall) / float64(res.ModelOpen.Wall)
	for _, n := range sizes {
		if n < g.MinPlayers || n > g.MaxPlayers {
			continue
		}
		if err := ctx.Err(); err != nil {
			return res, err
		}
		s, err := BenchSetup(g, n, res.GossipP50)
		if err != nil {
			return res, fmt.Errorf("setup at %d peers: %w", n, err)
		}
		res.Setup = append(res.Setup, s)
	}
	return res, nil
}

// waitTimes is one wait for cards (by the step seq at which the state
// waits): when the first peer's state started waiting, and whether an
// opening is public.
type waitTimes struct {
	enter  time.Time
	public bool
}

// published is a non-card envelope published during a game.
type published struct {
	at   time.Time
	kind crypto.Kind
	seq  uint64
}

// benchSecretGame plays one bot game of g on a fresh local table of n
// peers whose bots move at once; before, if set, runs on the table first.
func benchSecretGame(ctx context.Context, g *engine.Game, n int, seed []byte, secret bool, before func(*Table) error) (SecretGame, error) {
	var res SecretGame
	names := make([]string, n)
	bots := make([]engine.Bot, n)
	for i := range n {
		names[i] = fmt.Sprintf("bot%d", i+1)
		bots[i] = g.Bots[i%len(g.Bots)].New()
	}
	dir, err := tempDir()
	if err != nil {
		return res, err
	}
	defer removeAll(dir)
	var mu sync.Mutex
	var tbl *Table
	var firstMove, lastOver time.Time
	overs, over := 0, make([]bool, n)
	waits := map[uint64]*waitTimes{}
	var pubs []published
	batchRemask := map[uint64]bool{} // by batch seq: a re-masking travelled
	counted := map[[3]uint64]bool{}  // (kind, author index, seq) of card envelopes counted once
	authors := map[crypto.PeerID]uint64{}
	cfg := TableConfig{Game: g, Names: names, Bots: bots, Seed: seed, Dir: dir, Secret: secret,
		OnPublish: func(i int, e *crypto.Envelope) {
			mu.Lock()
			defer mu.Unlock()
			if _, ok := authors[e.Author]; !ok {
				authors[e.Author] = uint64(len(authors))
			}
			k := [3]uint64{uint64(e.Kind), authors[e.Author], e.Seq}
			if counted[k] {
				return // a re-send
			}
			counted[k] = true
			res.Bytes += e.Size()
			res.Envelopes++
			if e.Kind.Card() {
				res.CardBytes += e.Size()
			}
			if !e.Kind.Card() {
				pubs = append(pubs, published{time.Now(), e.Kind, e.Seq})
			}
			switch e.Kind {
			case crypto.KindAction:
				if firstMove.IsZero() {
					firstMove = time.Now()
				}
			case crypto.KindShare:
				if _, ok := batchRemask[e.Seq]; !ok {
					batchRemask[e.Seq] = false
				}
			case crypto.KindRemask:
				batchRemask[e.Seq] = true
			}
		},
		OnUpdate: func(i int, u Update) {
			now := time.Now()
			// On peer i's runner goroutine: its node may be read here.
			var public bool
			cardsWait := u.Status.Phase == lockstep.PhasePlaying && u.Status.Actor.Kind == engine.ActorCards
			if cardsWait {
				if cs, ok := tbl.Peers[i].Node.State().(engine.CardState); ok {
					for _, o := range cs.Openings(nil) {
						public = public || o.To == engine.Public
					}
				}
			}
			mu.Lock()
			defer mu.Unlock()
			if cardsWait && waits[u.Status.Seq] == nil {
				waits[u.Status.Seq] = &waitTimes{enter: now, public: public}
			}
			if u.Status.Phase == lockstep.PhaseOver && !over[i] {
				over[i] = true
				if overs++; overs == n {
					lastOver = now
				}
			}
		}}
	t, err := NewTable(ctx, cfg)
	if err != nil {
		return res, err
	}
	tbl = t
	defer t.Close()
	if before != nil {
		if err := before(t); err != nil {
			return res, err
		}
	}
	cpu0, cpuOK := processCPU()
	start := time.Now()
	if err := t.Run(ctx); err != nil {
		return res, err
	}
	cpu1, _ := processCPU()
	mu.Lock()
	defer mu.Unlock()
	if lastOver.IsZero() || firstMove.IsZero() {
		return res, errors.New("the game did not end at every peer")
	}
	res.Mode = t.Peers[0].Status().Mode
	res.Steps = t.Peers[0].Status().Seq
	res.Wall, res.StartToMove = lastOver.Sub(start), firstMove.Sub(start)
	if cpuOK {
		res.CPU = cpu1 - cpu0
		res.CPUPerStep = res.CPU / time.Duration(max(res.Steps, 1))
	}
	// Per wait: from its start until the first envelope of a later step.
	var draws, reveals []time.Duration
	for seq, w := range waits {
		var leave time.Time
		for _, p := range pubs {
			if p.at.Before(w.enter) || !(p.kind == crypto.KindReveal || (p.kind == crypto.KindAction || p.kind == crypto.KindCheckpoint) && p.seq > seq) {
				continue
			}
			if leave.IsZero() || p.at.Before(leave) {
				leave = p.at
			}
		}
		if leave.IsZero() {
			continue // the game's last step
		}
		if w.public {
			reveals = append(reveals, leave.Sub(w.enter))
		} else {
			draws = append(draws, leave.Sub(w.enter))
		}
	}
	res.Draws, res.Reveals = len(draws), len(reveals)
	if len(draws) > 0 {
		res.DrawP50, res.DrawP99 = percentile(draws, 50), percentile(draws, 99)
	}
	if len(reveals) > 0 {
		res.RevealP50 = percentile(reveals, 50)
	}
	for _, remask := range batchRemask {
		if remask {
			res.Batches2++
		} else {
			res.Batches1++
		}
	}
	return res, nil
}

// BenchSetup schedules the hidden-card setup of g at n seats (its decks
// as Setup declares them) in the pure protocol, every seat on a core of
// its own and each broadcast taking latency (SetupBench).
func BenchSetup(g *engine.Game, n int, latency time.Duration) (SetupBench, error) {
	res := SetupBench{Peers: n}
	st, err := g.Setup(n, nil)
	if err != nil {
		return res, err
	}
	cs, ok := st.(engine.CardState)
	if !ok {
		return res, fmt.Errorf("%s has no hidden cards", g.Title)
	}
	c := cs.Cards()
	var decks []deal.Deck
	for d, l := range c.Decks() {
		decks = append(decks, deal.Deck{ID: uint8(d), Cards: l, Open: c.OpenDeck(d)})
	}
	return BenchSetupDecks(decks, n, latency)
}

// BenchSetupCards is BenchSetup for one shuffled deck of cards cards (the
// issue's aim: 120 tiles at 8 peers).
func BenchSetupCards(cards, n int, latency time.Duration) (SetupBench, error) {
	d := deal.Deck{}
	for i := range cards {
		d.Cards = append(d.Cards, uint16(i))
	}
	return BenchSetupDecks([]deal.Deck{d}, n, latency)
}

// BenchSetupDecks schedules the hidden-card setup of decks at n seats.
func BenchSetupDecks(decks []deal.Deck, n int, latency time.Duration) (SetupBench, error) {
	res := SetupBench{Peers: n}
	for _, dk := range decks {
		if !dk.Open && len(dk.Cards) > 0 {
			res.Decks++
			res.Cards += len(dk.Cards)
		}
	}
	var err error
	var session crypto.Hash
	if _, err := rand.Read(session[:]); err != nil {
		return res, err
	}
	ids := make([]*crypto.Identity, n)
	var seats []crypto.PeerID
	for i := range ids {
		if ids[i], err = crypto.GenerateIdentity(rand.Reader); err != nil {
			return res, err
		}
		seats = append(seats, ids[i].ID())
	}
	s := &setupSchedule{latency: int64(latency), clock: make([]int64, n), inbox: make([][]setupArrival, n),
		ready: make([]int, n), escrow: make([]bool, n), done: make([]int64, n), cpu: make([]int64, n), want: res.Decks, res: &res}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	for i := range ids {
		t0 := cpuNow()
		m, err := deal.New(deal.Config{Identity: ids[i], Session: session, Seats: seats, Rand: rand.Reader, Decks: decks})
		if err != nil {
			return res, err
		}
		s.ms = append(s.ms, m)
		d := cpuNow() - t0
		s.cpu[i] += d
		s.clock[i] = d
		s.done[i] = -1
	}
	for i := range s.ms {
		if err := s.drain(i); err != nil {
			return res, err
		}
	}
	if err := s.run(); err != nil {
		return res, err
	}
	for i, d := range s.done {
		if d < 0 {
			return res, fmt.Errorf("seat %d never had every deck ready", i+1)
		}
		res.Critical = max(res.Critical, time.Duration(d))
		res.SeatCPU = max(res.SeatCPU, time.Duration(s.cpu[i]))
		res.TotalCPU += time.Duration(s.cpu[i])
	}
	return res, nil
}

// setupSchedule is BenchSetup's discrete-event schedule (the one of
// lockstep/deal's BenchmarkSetup): a seat steps every envelope that has
// arrived before it works (its own shuffle first, then the checks), and
// idles until the next arrival when it has nothing to do.
type setupSchedule struct {
	ms      []*deal.Machine
	latency int64
	clock   []int64
	inbox   [][]setupArrival
	ready   []int   // by seat: decks ready
	escrow  []bool  // by seat: escrows checked (or none at 2 seats)
	done    []int64 // by seat: when it had everything, -1 before
	cpu     []int64
	want    int
	res     *SetupBench
}

type setupArrival struct {
	at  int64
	env *crypto.Envelope
}

func (s *setupSchedule) drain(i int) error {
	m := s.ms[i]
	for m.HasReady() {
		rd := m.Ready()
		for _, env := range rd.Messages {
			s.res.Bytes += env.Size()
			s.res.Envelopes++
			for k := range s.ms {
				if k != i {
					s.inbox[k] = append(s.inbox[k], setupArrival{s.clock[i] + s.latency, env})
				}
			}
		}
		for _, e := range rd.Events {
			switch e.Kind {
			case deal.EventDeckReady:
				s.ready[i]++
			case deal.EventEscrows:
				s.escrow[i] = true
			case deal.EventCheat, deal.EventAheadFull:
				return fmt.Errorf("seat %d: %s", i+1, e.Text)
			}
		}
		m.Advance()
	}
	if s.done[i] < 0 && s.ready[i] >= s.want && (len(s.ms) < 3 || s.escrow[i]) {
		s.done[i] = s.clock[i]
	}
	return nil
}

func (s *setupSchedule) run() error {
	for guard := 0; guard < 1<<20; guard++ {
		who, start, idx, work := -1, int64(0), 0, false
		for i, m := range s.ms {
			best := -1
			for k, a := range s.inbox[i] {
				if best < 0 || a.at < s.inbox[i][best].at {
					best = k
				}
			}
			var st int64
			var w bool
			switch {
			case best >= 0 && s.inbox[i][best].at <= s.clock[i]:
				st = s.clock[i]
			case m.HasWork():
				st, w = s.clock[i], true
			case best >= 0:
				st = s.inbox[i][best].at
			default:
				continue
			}
			if who < 0 || st < start {
				who, start, idx, work = i, st, best, w
			}
		}
		if who < 0 {
			return nil
		}
		m := s.ms[who]
		t0 := cpuNow()
		if work {
			m.Work()
		} else {
			env := s.inbox[who][idx].env
			s.inbox[who] = append(s.inbox[who][:idx], s.inbox[who][idx+1:]...)
			if err := m.Step(env); err != nil && !errors.Is(err, deal.ErrDuplicate) {
				return fmt.Errorf("seat %d: %w", who+1, err)
			}
		}
		d := cpuNow() - t0
		s.cpu[who] += d
		s.clock[who] = start + d
		if err := s.drain(who); err != nil {
			return err
		}
	}
	return errors.New("the setup schedule does not settle")
}

// cpuNow is this thread's CPU time, or the wall clock where there is none.
func cpuNow() int64 {
	if c := threadCPU(); c >= 0 {
		return c
	}
	return time.Now().UnixNano()
}
