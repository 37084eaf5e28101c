package p2p

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sync"
	"time"

	"github.com/boardmesh/boardmesh/crypto"
	"github.com/boardmesh/boardmesh/engine"
	"github.com/boardmesh/boardmesh/lockstep"
	"github.com/libp2p/go-libp2p/core/peer"
)

// NetBench is the result of one `bench net` run at one table size.
type NetBench struct {
	Peers int `json:"peers"`
	// Actions is how many actions the commit figures are over.
	Actions int `json:"actions"`
	// CommitP50 and CommitP99: from the moment the acting peer publishes
	// an action until the last peer of the table has committed it.
	CommitP50 time.Duration `json:"commit_p50_ns"`
	CommitP99 time.Duration `json:"commit_p99_ns"`
	// Broadcasts is how many raw gossipsub messages the floor is over.
	Broadcasts int `json:"broadcasts"`
	// GossipP50 and GossipP99: a raw gossipsub message of the same size on
	// the same hosts, from Publish until every other peer has received it.
	GossipP50 time.Duration `json:"gossip_p50_ns"`
	GossipP99 time.Duration `json:"gossip_p99_ns"`
	// DeliveryCPU is this process's CPU over the floor's broadcasts per
	// copy delivered (sending, transports, gossipsub's forwarding and
	// duplicates, receiving), which Model charges each network message's
	// receiver.
	DeliveryCPU time.Duration `json:"delivery_cpu_ns"`
	// Ratio is CommitP50 / GossipP50.
	Ratio float64 `json:"ratio_p50"`
	// Stages is where the commit latency goes: for each Stage of a
	// receiving peer, then the update that shows the commit, the median
	// over the actions of the time from publishing until the first and
	// until the last receiver reached it.
	Stages []StageLatency `json:"stages"`
	// Game is a second full bot game, on a fresh table of the same size,
	// with no think time: how long a whole game takes against its floor.
	Game GameBench `json:"game"`
	// Model is bot games of the same seed modelled as on separate
	// machines (ModelGames: a core per peer), a broadcast taking GossipP50,
	// an fsync Game.FsyncP50 and each envelope received DeliveryCPU;
	// ModelCommitRatio is its CommitP50 / GossipP50.
	Model            ModelGame `json:"model"`
	ModelCommitRatio float64   `json:"model_commit_ratio_p50"`
}

// GameBench times one whole bot game of a local table whose bots move at
// once.
type GameBench struct {
	// Steps is the number of game steps, Entries the log's length.
	Steps   uint64 `json:"steps"`
	Entries int    `json:"entries"`
	// Rounds is the game's critical path in broadcast rounds
	// (CriticalRounds): the longest chain of envelopes its log needed,
	// each signed only once its author had received the one before it.
	Rounds int `json:"rounds"`
	// Wall is from the start of the runners until the last peer has
	// seen the game end; Floor is Rounds × the gossip p50 of the same
	// run, WallPerFloor their ratio.
	Wall         time.Duration `json:"wall_ns"`
	Floor        time.Duration `json:"floor_ns"`
	WallPerFloor float64       `json:"wall_per_floor"`
	// CPU is the CPU time (user and system) of this whole process, every
	// peer of the table together, over Wall; zero where not measured.
	CPU time.Duration `json:"cpu_ns"`
	// StartToMove is from the start of the runners (every host up and
	// connected, every peer's join queued) to the first action published.
	StartToMove time.Duration `json:"start_to_first_move_ns"`
	// FsyncP50 is the median of an append of an envelope's size and an
	// fsync in the temporary directory the logs are in, measured in the
	// same run: every peer pays one before each envelope it signs leaves
	// (what it signs is on disk first), which the floor leaves out.
	FsyncP50 time.Duration `json:"fsync_p50_ns"`
	// SignP50 and VerifyP50: the medians of signing and of checking an
	// action envelope of the same size (crypto.Sign, crypto.Verify),
	// measured in the same run.
	SignP50   time.Duration `json:"sign_p50_ns"`
	VerifyP50 time.Duration `json:"verify_p50_ns"`
	// LeastByWork is the least wall/floor the work every round needs
	// leaves room for, however fast the rest of a peer, where each hop
	// takes the gossip p50 (as in the modelled games): each round of the
	// critical path is a hop, its author's sign and fsync before the
	// envelope may leave, and its receiver's verify before it may answer.
	// It is 1 + (SignP50 + FsyncP50 + VerifyP50) / gossip p50. (A game
	// played back to back can beat it, and even its floor: the floor's
	// broadcasts are paced, and pay for waking the receiving threads.)
	LeastByWork float64 `json:"least_wall_per_floor_by_work"`
	// Cores is this process's GOMAXPROCS, which every peer of the table
	// shares. LeastByCores is the least wall/floor they leave room for
	// with the CPU the game took: CPU / Cores / Floor (zero where CPU was
	// not measured), since no schedule of that work on Cores cores ends
	// sooner. A ratio the aim wants below it needs less CPU, not less
	// waiting.
	Cores        int     `json:"cores"`
	LeastByCores float64 `json:"least_wall_per_floor_by_cores"`
	// JoinToMove is what players wait for over the lobby protocol, as
	// with `boardmesh host --start-when N` and `boardmesh join`: from
	// the moment the last joiner starts to join until every peer has
	// committed the first action (BenchJoin).
	JoinToMove time.Duration `json:"join_to_first_move_ns"`
}

// StageLatency is one row of NetBench.Stages.
type StageLatency struct {
	Stage    string        `json:"stage"`
	FirstP50 time.Duration `json:"first_p50_ns"`
	LastP50  time.Duration `json:"last_p50_ns"`
}

// stageShown is the row after the runner's stages: the update that shows
// a commit (the commit latency's end).
const stageShown = stageCount

// stageTimes is when each peer reached each stage with one action (zero:
// not yet; the first time counts).
type stageTimes [stageCount + 1][maxTablePeers]time.Time

// maxTablePeers bounds a bench table (lockstep's largest table).
const maxTablePeers = 8

// stageRows is NetBench.Stages from the stage times of each published
// action: per stage, the medians over the actions that every receiver
// (every peer but the author) reached, of the first and the last; every
// stage has its row, zero where no action was reached everywhere.
func stageRows(published map[slotKey]time.Time, authors map[slotKey]int, staged map[slotKey]*stageTimes, n int) []StageLatency {
	var rows []StageLatency
	for st := range int(stageCount) + 1 {
		var first, last []time.Duration
		for k, at := range published {
			ts := staged[k]
			if ts == nil {
				continue
			}
			var lo, hi time.Duration
			got := 0
			for p := range n {
				if p == authors[k] || ts[st][p].IsZero() {
					continue
				}
				d := ts[st][p].Sub(at)
				if got == 0 || d < lo {
					lo = d
				}
				if got == 0 || d > hi {
					hi = d
				}
				got++
			}
			if got == n-1 {
				first, last = append(first, lo), append(last, hi)
			}
		}
		name := "shown"
		if st < int(stageCount) {
			name = Stage(st).String()
		}
		row := StageLatency{Stage: name} // zero: no action reached it everywhere
		if len(first) > 0 {
			row.FirstP50, row.LastP50 = percentile(first, 50), percentile(last, 50)
		}
		rows = append(rows, row)
	}
	return rows
}

type slotKey struct {
	author peer.ID
	seq    uint64
}

// BenchNet measures raw gossipsub broadcasts between the hosts of a local
// table of n peers (the floor), then plays one bot game of g on that table
// and measures per-action commit latency. think is each bot's pause before
// it moves, so that each action is timed on a table that has finished
// handling the step before it, as at a real table, rather than queued
// behind it. Then modelGames games of the same seed modelled as on
// separate machines (ModelGames).
func BenchNet(ctx context.Context, g *engine.Game, n int, seed []byte, broadcasts int, think time.Duration, modelGames int) (NetBench, error) {
	res := NetBench{Peers: n}
	names := make([]string, n)
	bots := make([]engine.Bot, n)
	for i := range n {
		names[i] = fmt.Sprintf("bot%d", i+1)
		bots[i] = g.Bots[i%len(g.Bots)].New()
	}
	if n > maxTablePeers {
		return res, fmt.Errorf("at most %d peers", maxTablePeers)
	}
	var mu sync.Mutex
	published := map[slotKey]time.Time{}
	committed := map[slotKey][]time.Time{}
	authors := map[slotKey]int{}
	staged := map[slotKey]*stageTimes{}
	reached := func(p int, st int, e *crypto.Envelope, now time.Time) {
		k := slotKey{peer.ID(e.Author), e.Seq}
		ts := staged[k]
		if ts == nil {
			ts = &stageTimes{}
			staged[k] = ts
		}
		if ts[st][p].IsZero() {
			ts[st][p] = now
		}
	}
	dir, err := tempDir()
	if err != nil {
		return res, err
	}
	defer removeAll(dir)
	t, err := NewTable(ctx, TableConfig{Game: g, Names: names, Bots: bots, Seed: seed, Dir: dir, BotDelay: think,
		OnPublish: func(i int, e *crypto.Envelope) {
			if e.Kind != crypto.KindAction {
				return
			}
			k := slotKey{peer.ID(e.Author), e.Seq}
			mu.Lock()
			if _, again := published[k]; !again { // a re-send is not a new action
				published[k] = time.Now()
				authors[k] = i
			}
			mu.Unlock()
		},
		OnStage: func(i int, st Stage, e *crypto.Envelope) {
			if e.Kind != crypto.KindAction {
				return
			}
			now := time.Now()
			mu.Lock()
			reached(i, int(st), e, now)
			mu.Unlock()
		},
		OnUpdate: func(i int, u Update) {
			now := time.Now()
			mu.Lock()
			for _, e := range u.Entries {
				if e.Kind == crypto.KindAction {
					k := slotKey{peer.ID(e.Author), e.Seq}
					committed[k] = append(committed[k], now)
					reached(i, int(stageShown), e, now)
				}
			}
			mu.Unlock()
		}})
	if err != nil {
		return res, err
	}
	defer t.Close()
	floor, perDelivery, err := gossipFloor(ctx, t, broadcasts, think)
	if err != nil {
		return res, fmt.Errorf("gossip floor: %w", err)
	}
	res.DeliveryCPU = perDelivery
	if err := t.Run(ctx); err != nil {
		return res, err
	}
	var commits []time.Duration
	for k, at := range published {
		cs := committed[k]
		if len(cs) != n {
			continue // not committed everywhere (cannot happen in a finished game)
		}
		last := cs[0]
		for _, c := range cs[1:] {
			if c.After(last) {
				last = c
			}
		}
		commits = append(commits, last.Sub(at))
	}
	if len(commits) == 0 || len(floor) == 0 {
		return res, fmt.Errorf("no measurements")
	}
	res.Actions, res.Broadcasts = len(commits), len(floor)
	res.CommitP50, res.CommitP99 = percentile(commits, 50), percentile(commits, 99)
	res.GossipP50, res.GossipP99 = percentile(floor, 50), percentile(floor, 99)
	res.Ratio = float64(res.CommitP50) / float64(res.GossipP50)
	res.Stages = stageRows(published, authors, staged, n)
	if res.Game, err = benchGame(ctx, g, n, seed); err != nil {
		return res, fmt.Errorf("game without think time: %w", err)
	}
	if res.Game.FsyncP50, err = fsyncP50(500); err != nil {
		return res, err
	}
	if res.Game.SignP50, res.Game.VerifyP50, err = signVerifyP50(500); err != nil {
		return res, err
	}
	if res.Game.JoinToMove, err = BenchJoin(ctx, g, n); err != nil {
		return res, fmt.Errorf("join to first move: %w", err)
	}
	res.Game.Floor = time.Duration(res.Game.Rounds) * res.GossipP50
	res.Game.WallPerFloor = float64(res.Game.Wall) / float64(res.Game.Floor)
	res.Game.LeastByWork = 1 + float64(res.Game.SignP50+res.Game.FsyncP50+res.Game.VerifyP50)/float64(res.GossipP50)
	res.Game.Cores = runtime.GOMAXPROCS(0)
	if res.Game.CPU > 0 {
		res.Game.LeastByCores = float64(res.Game.CPU) / float64(res.Game.Cores) / float64(res.Game.Floor)
	}
	if res.Model, err = ModelGames(g, n, seed, false, res.GossipP50, res.Game.FsyncP50, res.DeliveryCPU, modelGames); err != nil {
		return res, fmt.Errorf("games modelled with a core per peer: %w", err)
	}
	res.ModelCommitRatio = float64(res.Model.CommitP50) / float64(res.GossipP50)
	return res, nil
}

// benchGame plays one bot game of g on a fresh local table of n peers
// whose bots move at once, and times it (GameBench; Floor is left to the
// caller, who has the gossip figure).
func benchGame(ctx context.Context, g *engine.Game, n int, seed []byte) (GameBench, error) {
	var res GameBench
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
	var firstMove, lastOver time.Time
	overs, over := 0, make([]bool, n)
	t, err := NewTable(ctx, TableConfig{Game: g, Names: names, Bots: bots, Seed: seed, Dir: dir,
		OnPublish: func(_ int, e *crypto.Envelope) {
			if e.Kind != crypto.KindAction {
				return
			}
			mu.Lock()
			if firstMove.IsZero() {
				firstMove = time.Now()
			}
			mu.Unlock()
		},
		OnUpdate: func(i int, u Update) {
			now := time.Now()
			mu.Lock()
			defer mu.Unlock()
			if u.Status.Phase == lockstep.PhaseOver && !over[i] {
				over[i] = true
				if overs++; overs == n {
					lastOver = now
				}
			}
		}})
	if err != nil {
		return res, err
	}
	defer t.Close()
	cpu0, cpuOK := processCPU()
	start := time.Now()
	if err := t.Run(ctx); err != nil {
		return res, err
	}
	cpu1, _ := processCPU()
	mu.Lock()
	defer mu.Unlock()
	if lastOver.IsZero() || firstMove.IsZero() {
		return res, fmt.Errorf("the game did not end at every peer")
	}
	res.Wall = lastOver.Sub(start)
	if cpuOK {
		// Run returns at once after the last game over (Table.Run ends
		// the linger), so the CPU over Run is the game's.
		res.CPU = cpu1 - cpu0
	}
	res.StartToMove = firstMove.Sub(start)
	var log []*crypto.Envelope
	for _, b := range t.Peers[0].Entries() {
		e, err := crypto.Unmarshal(b)
		if err != nil {
			return res, err
		}
		log = append(log, e)
	}
	res.Entries, res.Rounds = len(log), CriticalRounds(log)
	res.Steps = t.Peers[0].Status().Seq
	return res, nil
}

// CriticalRounds is the critical path of a session log in broadcast
// rounds (lockstep.CriticalRounds): the longest chain of envelopes each
// of which its author could sign only once it had the one before it from
// another peer.
func CriticalRounds(log []*crypto.Envelope) int { return lockstep.CriticalRounds(log) }

// gossipFloor publishes count messages of an envelope's size on a topic of
// their own, from each peer in turn, one at a time with pause before each
// (the bots' think time, so that both figures start from an idle table),
// and times each until every other peer has it.
// It also returns the process's CPU per copy delivered: the median of
// five batches of 100 more broadcasts without a pause.
func gossipFloor(ctx context.Context, t *Table, count int, pause time.Duration) ([]time.Duration, time.Duration, error) {
	name := "boardmesh/bench/" + t.Lobby.String()
	n := len(t.Peers)
	topics := make([]*Topic, n)
	for i, p := range t.Peers {
		tp, err := JoinTopic(p.PubSub, p.Host.ID(), name, func(peer.ID, []byte) (Verdict, any) { return Accept, nil })
		if err != nil {
			return nil, 0, err
		}
		defer tp.Close()
		topics[i] = tp
	}
	var ids []peer.ID
	for _, p := range t.Peers {
		ids = append(ids, p.Host.ID())
	}
	for _, tp := range topics {
		wctx, cancel := context.WithTimeout(ctx, 15*time.Second)
		err := tp.WaitPeers(wctx, ids)
		cancel()
		if err != nil {
			return nil, 0, err
		}
	}
	got := make(chan uint64, 64*n)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	for _, tp := range topics {
		go func() {
			for {
				m, err := tp.Next(ctx)
				if err != nil {
					return
				}
				got <- binary.BigEndian.Uint64(m.Data)
			}
		}()
	}
	msg := make([]byte, 260) // about an action envelope
	broadcast := func(i int) (time.Duration, error) {
		binary.BigEndian.PutUint64(msg, uint64(i))
		start := time.Now()
		if err := topics[i%n].Publish(ctx, msg); err != nil {
			return 0, err
		}
		for have := 0; have < n-1; {
			select {
			case k := <-got:
				if k == uint64(i) {
					have++
				}
			case <-time.After(5 * time.Second):
				return 0, fmt.Errorf("broadcast %d did not reach every peer", i)
			}
		}
		return time.Since(start), nil
	}
	var out []time.Duration
	for i := range count {
		if pause > 0 {
			time.Sleep(pause)
		}
		d, err := broadcast(i)
		if err != nil {
			return nil, 0, err
		}
		out = append(out, d)
	}
	// The CPU per copy delivered (sending, transports, gossipsub's
	// forwarding and duplicates, receiving), over broadcasts one after
	// the other without a pause: the paced ones' CPU is mostly the idle
	// hosts' own (heartbeats, timers) over the pauses. The runners are
	// not running yet. The median of cpuBatches batches: one batch's
	// figure swung from 29 to 196 µs between runs at 4 peers, with a
	// collection or a heartbeat in it or not.
	const cpuBroadcasts, cpuBatches = 100, 5
	var perCopy []time.Duration
	next := count
	for range cpuBatches {
		cpu0, cpuOK := processCPU()
		for range cpuBroadcasts {
			if _, err := broadcast(next); err != nil {
				return nil, 0, err
			}
			next++
		}
		if cpu1, _ := processCPU(); cpuOK && n > 1 {
			perCopy = append(perCopy, (cpu1-cpu0)/time.Duration(cpuBroadcasts*(n-1)))
		}
	}
	var perDelivery time.Duration
	if len(perCopy) > 0 {
		perDelivery = percentile(perCopy, 50)
	}
	return out, perDelivery, nil
}

func percentile(ds []time.Duration, p int) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	i := (len(s)*p + 99) / 100
	return s[min(max(i-1, 0), len(s)-1)]
}

// fsyncP50 appends count envelope-sized envelopes to a fresh log in a
// temporary directory with AppendSent, as a peer logs what it sends (one
// write and one fsync each, inside the log's room), and returns the median
// time of one.
func fsyncP50(count int) (time.Duration, error) {
	dir, err := tempDir()
	if err != nil {
		return 0, err
	}
	defer removeAll(dir)
	ds, err := timeAppendSent(dir, count, true)
	if err != nil {
		return 0, err
	}
	return percentile(ds, 50), nil
}

// benchEnvelope is the action envelope the bench's own timings sign, log
// and check: a 160-byte body, 342 bytes once signed and marshalled (the
// gossip floor times raw messages of 260 bytes).
func benchEnvelope(seq int) *crypto.Envelope {
	return &crypto.Envelope{Seq: uint64(seq), Kind: crypto.KindAction, Body: make([]byte, 160)}
}

// signVerifyP50 signs and checks count benchEnvelopes, each with its own
// seq, and returns the median time of one signature and of one check.
func signVerifyP50(count int) (sign, verify time.Duration, err error) {
	id, err := crypto.GenerateIdentity(rand.Reader)
	if err != nil {
		return 0, 0, err
	}
	signs, verifies := make([]time.Duration, count), make([]time.Duration, count)
	for i := range count {
		env := benchEnvelope(i)
		start := time.Now()
		crypto.Sign(id, env)
		signed := time.Now()
		err := crypto.Verify(env)
		signs[i], verifies[i] = signed.Sub(start), time.Since(signed)
		if err != nil {
			return 0, 0, fmt.Errorf("checking the benchmark's own signature: %w", err)
		}
	}
	return percentile(signs, 50), percentile(verifies, 50), nil
}

// timeAppendSent times count AppendSent calls of a benchEnvelope on a new
// log in dir, with the log's room or (room false) without it, every append
// making the file longer.
func timeAppendSent(dir string, count int, room bool) ([]time.Duration, error) {
	id, err := crypto.GenerateIdentity(rand.Reader)
	if err != nil {
		return nil, err
	}
	l, _, _, err := OpenLog(filepath.Join(dir, fmt.Sprintf("log-%v", room)))
	if err != nil {
		return nil, err
	}
	defer l.Close()
	l.noRoom = !room
	var ds []time.Duration
	for i := range count {
		env := benchEnvelope(i)
		crypto.Sign(id, env)
		start := time.Now()
		if err := l.AppendSent(env); err != nil {
			return nil, err
		}
		ds = append(ds, time.Since(start))
	}
	return ds, nil
}

func tempDir() (string, error) { return os.MkdirTemp("", "boardmesh-bench-") }

func removeAll(dir string) { os.RemoveAll(dir) }

// BenchJoin times the start of a game over the lobby protocol: a host
// that starts when n peers are in (`boardmesh host --start-when n`) and
// n-1 joiners (`boardmesh join ADDR`), every seat a bot, on loopback. The
// joiners join one after the other; the figure is from the moment the
// last one starts to join (the lobby query, the connection, the host's
// challenge, the roster, every accept, the seat draw) until every peer has
// committed the first action. The game is not played on.
func BenchJoin(ctx context.Context, g *engine.Game, n int) (time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	var mu sync.Mutex
	moved, seen := 0, make([]bool, n)
	allMoved := make(chan time.Time, 1)
	onUpdate := func(i int) func(Update) {
		return func(u Update) {
			mu.Lock()
			defer mu.Unlock()
			for _, e := range u.Entries {
				if e.Kind == crypto.KindAction && !seen[i] {
					seen[i] = true
					if moved++; moved == n {
						allMoved <- time.Now()
					}
				}
			}
		}
	}
	var peers []*NetPeer
	var homes []string
	var wg sync.WaitGroup
	defer func() {
		cancel()
		wg.Wait()
		for _, p := range peers {
			p.Close()
		}
		for _, h := range homes {
			removeAll(h)
		}
	}()
	start := func(p *NetPeer) {
		peers = append(peers, p)
		wg.Add(1)
		go func() {
			defer wg.Done()
			_ = p.Run(ctx) // ends when the figure is taken
		}()
	}
	cfg := func(i int) (NetConfig, error) {
		home, err := tempDir()
		if err != nil {
			return NetConfig{}, err
		}
		homes = append(homes, home)
		id, err := crypto.GenerateIdentity(rand.Reader)
		if err != nil {
			return NetConfig{}, err
		}
		name := fmt.Sprintf("bot%d", i+1)
		return NetConfig{Identity: id, Name: name, Home: home, NoQUIC: true, Games: singleGame(g),
			Bot: g.Bots[i%len(g.Bots)].New(), BotName: g.Bots[i%len(g.Bots)].Name, BotRand: engine.NewRand([]byte(name)), OnUpdate: onUpdate(i)}, nil
	}
	hc, err := cfg(0)
	if err != nil {
		return 0, err
	}
	hc.StartWhen = n
	host, err := HostLobby(hc, g, nil)
	if err != nil {
		return 0, err
	}
	start(host)
	addr := Addrs(host.Host)[0].String()
	var last time.Time
	for i := 1; i < n; i++ {
		jc, err := cfg(i)
		if err != nil {
			return 0, err
		}
		last = time.Now()
		j, _, err := JoinLobby(ctx, jc, addr, 5*time.Second)
		if err != nil {
			return 0, err
		}
		start(j)
	}
	select {
	case at := <-allMoved:
		return at.Sub(last), nil
	case <-ctx.Done():
		return 0, fmt.Errorf("no first move at every peer: %w", ctx.Err())
	}
}
