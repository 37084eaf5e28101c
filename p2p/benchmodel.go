package p2p

import (
	"crypto/rand"
	"errors"
	"fmt"
	"runtime"
	"time"

	"github.com/boardmesh/boardmesh/crypto"
	"github.com/boardmesh/boardmesh/engine"
	"github.com/boardmesh/boardmesh/lockstep"
	"github.com/boardmesh/boardmesh/lockstep/cardsource"
	"github.com/libp2p/go-libp2p/core/peer"
)

// ModelGame is one full bot game of lockstep nodes (the pure protocol, no
// libp2p) scheduled as on separate machines, as SetupBench schedules the
// setup: every seat has a core of its own, every Step, Act and Work (each
// signature checked, each proof made and checked) runs for real and its
// thread CPU is that seat's time, a seat's envelopes leave an fsync after
// it signed them, in network messages as the runner sends them (what
// leaves at once in one bundle, crypto.Messages), and a message reaches
// the others the gossip p50 of the same run later: its wire time (the p50
// less perDelivery) and then, on the receiver's core behind whatever else
// it is doing, the CPU the same hosts spent per copy delivered in the
// gossip floor (sending, transports, gossipsub's forwarding and
// duplicates: perDelivery; the same for a 46 KB shuffle proof or a bundle
// as for a 260-byte action, which undercounts the proofs' hashing and
// decryption). It leaves out the
// log's writes but the fsync, and the Go scheduler's queues. So it says
// what a table with a core per seat would take, which this two-core
// machine cannot show with four peers in one process.
//
// Over several games (ModelGames), the figures are the games' sums (a
// seat's CPU: the sum of each game's greatest), StartToMove the mean and
// CommitP50 over every action of them all: bot games differ in length
// far more than a protocol change moves one, so one game is a noisy
// ratio.
type ModelGame struct {
	Mode  string `json:"mode"`
	Games int    `json:"games"`
	Steps uint64 `json:"steps"`
	// Wall is when the last seat saw the game end, counted from the start
	// of the lobby (every seat's join sent at 0); StartToMove until the
	// first action was signed.
	Wall        time.Duration `json:"wall_ns"`
	StartToMove time.Duration `json:"start_to_first_move_ns"`
	// SeatCPU is the most CPU one seat spent; TotalCPU every seat's.
	SeatCPU  time.Duration `json:"seat_cpu_ns"`
	TotalCPU time.Duration `json:"total_cpu_ns"`
	// Envelopes is what the seats broadcast, in Messages network messages
	// (bundles, as the runner sends them); Asks the gap requests they
	// made (none is needed where nothing is lost: a check on the model).
	Envelopes int `json:"envelopes"`
	Messages  int `json:"messages"`
	Asks      int `json:"asks"`
	// Rounds is the game's critical path in broadcast rounds
	// (CriticalRounds of its log), Floor Rounds × the broadcast time and
	// WallPerFloor Wall / Floor.
	Rounds       int           `json:"rounds"`
	Floor        time.Duration `json:"floor_ns"`
	WallPerFloor float64       `json:"wall_per_floor"`
	// CommitP50: the median over the actions of the time from an action
	// leaving its author until the last other seat has committed it.
	CommitP50 time.Duration `json:"commit_p50_ns"`
}

// modelArrival is an envelope on its way to a seat: when it arrives.
type modelArrival struct {
	at  int64
	env []byte
}

// gameModel is modelGame's discrete-event schedule.
type gameModel struct {
	nodes    []*lockstep.Node
	bots     []engine.Bot
	rands    []*engine.Rand
	clock    []int64 // by seat: virtual ns
	cpu      []int64
	inbox    [][]modelArrival
	over     []int64 // by seat: when it saw the game end, -1 before
	wire     int64   // a broadcast's time on the wire: the gossip p50 less delivery
	fsync    int64
	delivery int64 // CPU a seat spends on each envelope it receives, besides its Step
	first    int64 // the first action's signing, -1 before
	propose  bool  // the host has proposed the roster
	// sent and committed: by action (author, seq), when it left its
	// author and when the last other seat committed it.
	sent, committed map[slotKey]int64
	res             *ModelGame
}

// ModelGames plays games bot games of g at n seats (bots moving at once,
// the k-th seeded by seed and k as a Table's) on secret tables or
// open-hands ones and schedules each as ModelGame says: a broadcast takes
// latency, of which perDelivery is the receiver's CPU, and an fsync takes
// fsync.
func ModelGames(g *engine.Game, n int, seed []byte, secret bool, latency, fsync, perDelivery time.Duration, games int) (ModelGame, error) {
	var all ModelGame
	var commits []time.Duration
	for k := range games {
		r, cs, err := modelGame(g, n, append(append([]byte{}, seed...), byte(k), byte(k>>8)), secret, latency, fsync, perDelivery)
		if err != nil {
			return all, fmt.Errorf("game %d: %w", k+1, err)
		}
		all.Mode = r.Mode
		all.Games++
		all.Steps += r.Steps
		all.Wall += r.Wall
		all.StartToMove += r.StartToMove
		all.SeatCPU += r.SeatCPU
		all.TotalCPU += r.TotalCPU
		all.Envelopes += r.Envelopes
		all.Messages += r.Messages
		all.Asks += r.Asks
		all.Rounds += r.Rounds
		all.Floor += r.Floor
		commits = append(commits, cs...)
	}
	if all.Games == 0 {
		return all, errors.New("no game to model")
	}
	all.StartToMove /= time.Duration(all.Games)
	if all.Floor > 0 {
		all.WallPerFloor = float64(all.Wall) / float64(all.Floor)
	}
	if len(commits) > 0 {
		all.CommitP50 = percentile(commits, 50)
	}
	return all, nil
}

// modelGame models one game (ModelGames) and returns with it the commit
// time of each of its actions.
func modelGame(g *engine.Game, n int, seed []byte, secret bool, latency, fsync, perDelivery time.Duration) (ModelGame, []time.Duration, error) {
	res := ModelGame{Games: 1}
	// The gossip p50 already holds one delivery's CPU (the floor's
	// broadcasts were one at a time): the wire is the rest, and the
	// receiver's core spends the CPU, behind whatever else it is doing.
	wire := max(latency-perDelivery, 0)
	m := &gameModel{clock: make([]int64, n), cpu: make([]int64, n), inbox: make([][]modelArrival, n), over: make([]int64, n),
		wire: int64(wire), fsync: int64(fsync), delivery: int64(perDelivery), first: -1, res: &res,
		sent: map[slotKey]int64{}, committed: map[slotKey]int64{}}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	for i := range n {
		id, err := crypto.GenerateIdentity(rand.Reader)
		if err != nil {
			return res, nil, err
		}
		cfg := lockstep.Config{Identity: id, Name: fmt.Sprintf("bot%d", i+1), Games: singleGame(g)}
		if secret {
			cfg.Cards = cardsource.Maker(rand.Reader)
		}
		node, err := lockstep.New(cfg)
		if err != nil {
			return res, nil, err
		}
		m.nodes = append(m.nodes, node)
		m.bots = append(m.bots, g.Bots[i%len(g.Bots)].New())
		m.rands = append(m.rands, botRand(seed, i))
		m.over[i] = -1
	}
	var lobby crypto.Hash
	if _, err := rand.Read(lobby[:]); err != nil {
		return res, nil, err
	}
	for i, node := range m.nodes {
		err := m.timed(i, func() error {
			if i == 0 {
				return node.Host(lobby, g, nil)
			}
			return node.Join(lobby)
		})
		if err != nil {
			return res, nil, err
		}
	}
	if err := m.run(); err != nil {
		return res, nil, err
	}
	st := m.nodes[0].Status()
	res.Mode, res.Steps = st.Mode, st.Seq
	for i := range m.nodes {
		res.Wall = max(res.Wall, time.Duration(m.over[i]))
		res.SeatCPU = max(res.SeatCPU, time.Duration(m.cpu[i]))
		res.TotalCPU += time.Duration(m.cpu[i])
	}
	res.StartToMove = time.Duration(m.first)
	res.Rounds = lockstep.CriticalRounds(m.nodes[0].Log())
	res.Floor = time.Duration(res.Rounds) * latency
	if res.Floor > 0 {
		res.WallPerFloor = float64(res.Wall) / float64(res.Floor)
	}
	var commits []time.Duration
	for k, at := range m.sent {
		if c, ok := m.committed[k]; ok {
			commits = append(commits, time.Duration(c-at))
		}
	}
	if len(commits) > 0 {
		res.CommitP50 = percentile(commits, 50)
	}
	return res, commits, nil
}

// timed runs f as seat i's work: its thread CPU moves i's clock, then
// what it made ready leaves.
func (m *gameModel) timed(i int, f func() error) error {
	t0 := cpuNow()
	err := f()
	d := cpuNow() - t0
	m.cpu[i] += d
	m.clock[i] += d
	if err != nil {
		return fmt.Errorf("seat %d: %w", i+1, err)
	}
	return m.drain(i)
}

// drain sends what seat i's node made ready: after the fsync of what it
// signed, each envelope to every other seat, arriving its wire time later.
func (m *gameModel) drain(i int) error {
	node := m.nodes[i]
	for node.HasReady() {
		t0 := cpuNow()
		rd := node.Ready()
		// As the runner sends them: what leaves at once in bundles.
		out := crypto.Messages(rd.Messages, MaxEnvelope)
		for _, env := range rd.Messages {
			if env.Kind == crypto.KindAction && m.first < 0 {
				m.first = m.clock[i]
			}
		}
		m.res.Envelopes += len(rd.Messages)
		d := cpuNow() - t0
		m.cpu[i] += d
		m.clock[i] += d
		if rd.MustSync {
			m.clock[i] += m.fsync
		}
		for _, env := range rd.Messages {
			if k := (slotKey{peer.ID(env.Author), env.Seq}); env.Kind == crypto.KindAction {
				if _, again := m.sent[k]; !again {
					m.sent[k] = m.clock[i]
				}
			}
		}
		for _, e := range rd.Entries {
			if k := (slotKey{peer.ID(e.Author), e.Seq}); e.Kind == crypto.KindAction && e.Author != node.ID() {
				m.committed[k] = max(m.committed[k], m.clock[i])
			}
		}
		for _, b := range out {
			m.res.Messages++
			for k := range m.nodes {
				if k != i {
					m.inbox[k] = append(m.inbox[k], modelArrival{m.clock[i] + m.wire, b})
				}
			}
		}
		for _, ev := range rd.Events {
			switch ev.Kind {
			case lockstep.EventCheat, lockstep.EventDesync, lockstep.EventEquivocation, lockstep.EventDropVote:
				return fmt.Errorf("seat %d: %s", i+1, ev.Text)
			}
		}
		node.Advance()
		for _, q := range rd.Requests {
			m.res.Asks++
			m.answer(i, q)
		}
	}
	if m.over[i] < 0 && node.Status().Phase == lockstep.PhaseOver {
		m.over[i] = m.clock[i]
	}
	return nil
}

// answer serves seat i's gap request from the seat it names (or the next
// one), the answer arriving a round trip later.
func (m *gameModel) answer(i int, q lockstep.GapRequest) {
	j := (i + 1) % len(m.nodes)
	for k, node := range m.nodes {
		if k != i && node.ID() == q.To {
			j = k
		}
	}
	m.clock[i] += 2 * m.wire
	_ = m.nodes[i].StepAnswer(m.nodes[j].Answer(q))
}

// next is what seat i would do next and from when: step what has arrived,
// act, propose the roster, work on a proof, or wait for an arrival.
func (m *gameModel) next(i int) (start int64, what int) {
	node := m.nodes[i]
	soonest := int64(-1)
	for _, a := range m.inbox[i] {
		if a.at <= m.clock[i] {
			return m.clock[i], doStep
		}
		if soonest < 0 || a.at < soonest {
			soonest = a.at
		}
	}
	st := node.Status()
	switch {
	case st.Phase == lockstep.PhaseOver || st.Phase == lockstep.PhaseStopped:
	case node.CanAct():
		return m.clock[i], doAct
	case i == 0 && st.Phase <= lockstep.PhaseLobby && len(node.Joined()) >= len(m.nodes) && !m.propose:
		return m.clock[i], doPropose
	case node.HasWork():
		return m.clock[i], doWork
	}
	if soonest >= 0 {
		return soonest, doStep
	}
	return -1, 0
}

const (
	doStep = iota + 1
	doAct
	doPropose
	doWork
)

func (m *gameModel) run() error {
	idle := 0
	for guard := 0; guard < 1<<22; guard++ {
		who, start, what := -1, int64(0), 0
		for i := range m.nodes {
			if s, w := m.next(i); w != 0 && (who < 0 || s < start) {
				who, start, what = i, s, w
			}
		}
		if who < 0 {
			done := true
			for i := range m.nodes {
				done = done && m.over[i] >= 0
			}
			if done {
				return nil
			}
			// Nothing to do anywhere and the game not over: let a
			// second pass (timers: re-sends, asks), a few times.
			if idle++; idle > 5 {
				return errors.New("the modelled table stalls")
			}
			for i, node := range m.nodes {
				m.clock[i] += int64(time.Second)
				node.Tick(m.clock[i]/int64(time.Millisecond) + 1)
				if err := m.drain(i); err != nil {
					return err
				}
			}
			continue
		}
		idle = 0
		m.clock[who] = max(m.clock[who], start)
		node := m.nodes[who]
		var err error
		switch what {
		case doStep:
			// Everything that has arrived, as the runner takes a burst.
			var batch [][]byte
			keep := m.inbox[who][:0]
			for _, a := range m.inbox[who] {
				if a.at <= m.clock[who] {
					batch = append(batch, a.env)
				} else {
					keep = append(keep, a)
				}
			}
			m.inbox[who] = keep
			d := m.delivery * int64(len(batch))
			m.clock[who] += d
			m.cpu[who] += d
			err = m.timed(who, func() error {
				for _, b := range batch {
					envs, err := crypto.UnmarshalMessage(b)
					if err != nil {
						return err
					}
					for _, env := range envs {
						_ = node.Step(env) // a rejection comes back as an event
					}
				}
				return nil
			})
		case doAct:
			err = m.timed(who, func() error {
				s := node.State()
				return node.Act(m.bots[who].Choose(s, s.Legal(nil), m.rands[who]))
			})
		case doPropose:
			m.propose = true
			err = m.timed(who, node.Propose)
		case doWork:
			err = m.timed(who, func() error { node.Work(); return nil })
		}
		if err != nil {
			return err
		}
	}
	return errors.New("the modelled game does not end")
}
