package p2p

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"slices"
	"sync"
	"time"

	"github.com/boardmesh/boardmesh/crypto"
	"github.com/boardmesh/boardmesh/engine"
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
	// Ratio is CommitP50 / GossipP50.
	Ratio float64 `json:"ratio_p50"`
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
// behind it.
func BenchNet(ctx context.Context, g *engine.Game, n int, seed []byte, broadcasts int, think time.Duration) (NetBench, error) {
	res := NetBench{Peers: n}
	names := make([]string, n)
	bots := make([]engine.Bot, n)
	for i := range n {
		names[i] = fmt.Sprintf("bot%d", i+1)
		bots[i] = g.Bots[i%len(g.Bots)].New()
	}
	var mu sync.Mutex
	published := map[slotKey]time.Time{}
	committed := map[slotKey][]time.Time{}
	dir, err := tempDir()
	if err != nil {
		return res, err
	}
	defer removeAll(dir)
	t, err := NewTable(ctx, TableConfig{Game: g, Names: names, Bots: bots, Seed: seed, Dir: dir, BotDelay: think,
		OnPublish: func(_ int, e *crypto.Envelope) {
			if e.Kind != crypto.KindAction {
				return
			}
			k := slotKey{peer.ID(e.Author), e.Seq}
			mu.Lock()
			if _, again := published[k]; !again { // a re-send is not a new action
				published[k] = time.Now()
			}
			mu.Unlock()
		},
		OnUpdate: func(_ int, u Update) {
			now := time.Now()
			mu.Lock()
			for _, e := range u.Entries {
				if e.Kind == crypto.KindAction {
					k := slotKey{peer.ID(e.Author), e.Seq}
					committed[k] = append(committed[k], now)
				}
			}
			mu.Unlock()
		}})
	if err != nil {
		return res, err
	}
	defer t.Close()
	floor, err := gossipFloor(ctx, t, broadcasts, think)
	if err != nil {
		return res, fmt.Errorf("gossip floor: %w", err)
	}
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
	return res, nil
}

// gossipFloor publishes count messages of an envelope's size on a topic of
// their own, from each peer in turn, one at a time with pause before each
// (the bots' think time, so that both figures start from an idle table),
// and times each until every other peer has it.
func gossipFloor(ctx context.Context, t *Table, count int, pause time.Duration) ([]time.Duration, error) {
	name := "boardmesh/bench/" + t.Lobby.String()
	n := len(t.Peers)
	topics := make([]*Topic, n)
	for i, p := range t.Peers {
		tp, err := JoinTopic(p.PubSub, p.Host.ID(), name, func(peer.ID, []byte) (Verdict, any) { return Accept, nil })
		if err != nil {
			return nil, err
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
			return nil, err
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
	var out []time.Duration
	msg := make([]byte, 260) // about an action envelope
	for i := range count {
		if pause > 0 {
			time.Sleep(pause)
		}
		binary.BigEndian.PutUint64(msg, uint64(i))
		start := time.Now()
		if err := topics[i%n].Publish(ctx, msg); err != nil {
			return nil, err
		}
		for have := 0; have < n-1; {
			select {
			case k := <-got:
				if k == uint64(i) {
					have++
				}
			case <-time.After(5 * time.Second):
				return nil, fmt.Errorf("broadcast %d did not reach every peer", i)
			}
		}
		out = append(out, time.Since(start))
	}
	return out, nil
}

func percentile(ds []time.Duration, p int) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	i := (len(s)*p + 99) / 100
	return s[min(max(i-1, 0), len(s)-1)]
}

func tempDir() (string, error) { return os.MkdirTemp("", "boardmesh-bench-") }

func removeAll(dir string) { os.RemoveAll(dir) }
