package lockstep

import (
	"bytes"
	"errors"
	"fmt"
	"testing"

	"github.com/boardmesh/boardmesh/crypto"
	"github.com/boardmesh/boardmesh/engine"
)

// randReader turns engine.Rand into an io.Reader, so that identities and
// lobby ids in tests are reproducible.
type randReader struct{ r *engine.Rand }

func (rr randReader) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(rr.r.Uint64())
	}
	return len(p), nil
}

func seededReader(seed string) randReader {
	return randReader{engine.NewRand([]byte(seed))}
}

// faults are the misbehaviours of the simulated network, per mille.
type faults struct {
	drop, dup int
	maxDelay  int64 // ms; each delivery is delayed uniformly in [1, maxDelay]
}

// simMsg is an envelope in flight.
type simMsg struct {
	to   int
	at   int64
	env  *crypto.Envelope
	from int
}

// simPeer is one peer of the simulated network: its node, its "disk" (the
// log file bytes it would write), its bot, and whether it is up.
type simPeer struct {
	id      *crypto.Identity
	name    string
	node    *Node
	disk    []byte
	games   func(string) (*engine.Game, error)
	bot     engine.Bot
	botRand *engine.Rand
	down    bool
	// hook, if set, may replace or add to what the peer broadcasts (an
	// attacker); it returns the envelopes to send instead of env.
	hook   func(env *crypto.Envelope) []*crypto.Envelope
	events []Event
	cfg    Config
	// synced is the length of disk at its last fsync: a crash that loses
	// the unsynced tail keeps at least this much.
	synced int
	// prevSynced is the length at the fsync before that one.
	prevSynced int
}

// simNet is an in-memory network of peers, after etcd raft's raft_test.go
// network: seeded, with drop, duplicate, delay (and so reorder), partition
// and crash/restart.
type simNet struct {
	t      testing.TB
	rng    *engine.Rand
	peers  []*simPeer
	flight []simMsg
	now    int64
	f      faults
	cut    [][]bool // cut[a][b]: no delivery from a to b
	// sent counts the broadcasts per kind (one per envelope, not per
	// receiver), and delivered counts deliveries.
	sent      map[crypto.Kind]int
	delivered int
	served    int
	verified  map[string]bool
	seed      string
	answers   []simAnswer
	// onSend, if set, sees every envelope a peer broadcasts; onDeliver
	// every envelope just before a peer steps it; onRequest every gap
	// request a peer makes.
	onSend    func(from int, env *crypto.Envelope)
	onDeliver func(to int, env *crypto.Envelope)
	onRequest func(from int, req GapRequest)
}

// simAnswer is a gap answer on its way over a stream.
type simAnswer struct {
	to int
	at int64
	a  GapAnswer
}

func newSimNet(t testing.TB, seed string, players int, f faults, games func(string) (*engine.Game, error), cfg Config) *simNet {
	n := &simNet{t: t, rng: engine.NewRand([]byte("net/" + seed)), f: f, sent: map[crypto.Kind]int{}, verified: map[string]bool{}, seed: seed}
	if cfg.Verifier == nil {
		// One signature check per envelope per network, as a p2p process
		// whose topic validator checked it would do; the cache is keyed by
		// the whole encoding, so a forgery never hits it.
		cfg.Verifier = func(env *crypto.Envelope) error {
			k := string(env.Marshal())
			if n.verified[k] {
				return nil
			}
			if err := crypto.Verify(env); err != nil {
				return err
			}
			n.verified[k] = true
			return nil
		}
	}
	keys := seededReader("keys/" + seed)
	for i := 0; i < players; i++ {
		id, err := crypto.GenerateIdentity(keys)
		if err != nil {
			t.Fatal(err)
		}
		c := cfg
		c.Identity, c.Name, c.Games = id, fmt.Sprintf("P%d", i), games
		node, err := New(c)
		if err != nil {
			t.Fatal(err)
		}
		n.peers = append(n.peers, &simPeer{id: id, name: c.Name, node: node, disk: AppendLogHeader(nil), games: games,
			botRand: engine.NewRand([]byte(fmt.Sprintf("bot/%s/%d", seed, i))), cfg: c})
	}
	n.cut = make([][]bool, players)
	for i := range n.cut {
		n.cut[i] = make([]bool, players)
	}
	return n
}

// lobby runs the lobby: peer 0 hosts game with opts, the others join, and
// the host proposes once every join has arrived.
func (n *simNet) lobby(game *engine.Game, opts engine.Options) {
	lobby, err := NewLobbyID(seededReader("lobby/" + n.seed))
	if err != nil {
		n.t.Fatal(err)
	}
	if err := n.peers[0].node.Host(lobby, game, opts); err != nil {
		n.t.Fatal(err)
	}
	for _, p := range n.peers[1:] {
		if err := p.node.Join(lobby); err != nil {
			n.t.Fatal(err)
		}
	}
	for i := 0; i < 100000 && len(n.peers[0].node.Joined()) < len(n.peers); i++ {
		n.step()
	}
	if err := n.peers[0].node.Propose(); err != nil {
		n.t.Fatal(err)
	}
}

// step advances the network by 10 ms: delivers what is due, ticks every
// peer, lets bots act and handles every Ready.
func (n *simNet) step() {
	n.now += 10
	if !n.busy() {
		// Nothing can happen before the next delivery or resend: skip
		// ahead, as a real clock would pass idle time.
		next := n.now + 500
		for _, m := range n.flight {
			next = min(next, m.at)
		}
		for _, a := range n.answers {
			next = min(next, a.at)
		}
		n.now = max(n.now, next)
	}
	due := n.flight[:0:0]
	rest := n.flight[:0:0]
	for _, m := range n.flight {
		if m.at <= n.now {
			due = append(due, m)
		} else {
			rest = append(rest, m)
		}
	}
	n.flight = rest
	// Deliver the due messages in a random order: reordering on top of
	// delays.
	n.rng.Shuffle(len(due), func(i, j int) { due[i], due[j] = due[j], due[i] })
	for _, m := range due {
		p := n.peers[m.to]
		if p.down {
			continue
		}
		n.delivered++
		if n.onDeliver != nil {
			n.onDeliver(m.to, m.env)
		}
		_ = p.node.Step(m.env)
		n.drain(m.to)
	}
	answers := n.answers
	n.answers = nil
	for _, a := range answers {
		if a.at > n.now {
			n.answers = append(n.answers, a)
			continue
		}
		if p := n.peers[a.to]; !p.down {
			_ = p.node.StepAnswer(a.a)
			n.drain(a.to)
		}
	}
	for i, p := range n.peers {
		if p.down {
			continue
		}
		p.node.Tick(n.now)
		n.drain(i)
		if p.bot != nil && p.node.CanAct() {
			st := p.node.State()
			a := p.bot.Choose(st, st.Legal(nil), p.botRand)
			if err := p.node.Act(a); err != nil {
				n.t.Fatalf("%s: bot action refused: %v", p.name, err)
			}
			n.drain(i)
		}
	}
}

// drain handles the Ready of peer i as a runner would.
func (n *simNet) drain(i int) {
	p := n.peers[i]
	for p.node.HasReady() {
		rd := p.node.Ready()
		for _, env := range rd.Persist {
			p.disk = AppendRecord(p.disk, RecordSent, env)
		}
		for _, env := range rd.Entries {
			p.disk = AppendRecord(p.disk, RecordEntry, env)
		}
		for _, env := range rd.Keep {
			p.disk = AppendRecord(p.disk, RecordState, env)
		}
		if rd.MustSync != (len(rd.Persist) > 0) {
			n.t.Fatalf("%s: MustSync %v with %d envelopes to persist", p.name, rd.MustSync, len(rd.Persist))
		}
		if rd.MustSync {
			p.prevSynced, p.synced = p.synced, len(p.disk) // fsync before anything is sent
		}
		for _, env := range rd.Messages {
			out := []*crypto.Envelope{env}
			if p.hook != nil {
				out = p.hook(env)
			}
			for _, e := range out {
				n.broadcast(i, e)
			}
		}
		for _, req := range rd.Requests {
			n.serve(i, req)
		}
		p.events = append(p.events, rd.Events...)
		p.node.Advance()
	}
}

func (n *simNet) broadcast(from int, env *crypto.Envelope) {
	n.sent[env.Kind]++
	if n.onSend != nil {
		n.onSend(from, env)
	}
	for to := range n.peers {
		if to == from {
			continue
		}
		n.send(from, to, env)
	}
}

func (n *simNet) send(from, to int, env *crypto.Envelope) {
	if n.cut[from][to] {
		return
	}
	copies := 1
	if n.f.drop > 0 && n.rng.Intn(1000) < n.f.drop {
		copies = 0
	}
	if n.f.dup > 0 && n.rng.Intn(1000) < n.f.dup {
		copies++
	}
	for c := 0; c < copies; c++ {
		d := int64(1)
		if n.f.maxDelay > 1 {
			d += int64(n.rng.Intn(int(n.f.maxDelay)))
		}
		// Receivers get their own decoded copy, as over a wire.
		wire, err := crypto.Unmarshal(env.Marshal())
		if err != nil {
			n.t.Fatal(err)
		}
		n.flight = append(n.flight, simMsg{to: to, at: n.now + d, env: wire, from: from})
	}
}

// serve answers a gap request over a reliable stream to one peer (the
// named one, or the next peer up), delivered after a delay.
func (n *simNet) serve(from int, req GapRequest) {
	if n.onRequest != nil {
		n.onRequest(from, req)
	}
	target := -1
	for i, p := range n.peers {
		if req.To != "" && p.id.ID() == req.To {
			target = i
		}
	}
	if target < 0 {
		target = (from + 1 + n.rng.Intn(len(n.peers)-1)) % len(n.peers)
	}
	if target == from || n.peers[target].down || n.cut[target][from] {
		return
	}
	n.served++
	a := n.peers[target].node.Answer(req)
	// The answer travels whole over a reliable stream, decoded afresh.
	wire := func(envs []*crypto.Envelope) []*crypto.Envelope {
		var out []*crypto.Envelope
		for _, env := range envs {
			outs := []*crypto.Envelope{env}
			if h := n.peers[target].hook; h != nil && env.Author == n.peers[target].id.ID() {
				outs = h(env)
			}
			for _, e := range outs {
				w, _ := crypto.Unmarshal(e.Marshal())
				out = append(out, w)
			}
		}
		return out
	}
	n.answers = append(n.answers, simAnswer{to: from, at: n.now + 5, a: GapAnswer{Peer: n.peers[target].id.ID(), From: a.From, Entries: wire(a.Entries), Pending: wire(a.Pending), NoCards: req.NoCards}})
}

// crash takes peer i down: it loses everything but its disk.
func (n *simNet) crash(i int) { n.peers[i].down = true }

// crashLosingTail takes peer i down as a power cut does: whatever was
// written since its last fsync may be lost, here cut at a random byte
// (a torn record included).
func (n *simNet) crashLosingTail(i int) {
	p := n.peers[i]
	p.down = true
	if extra := len(p.disk) - p.synced; extra > 0 {
		p.disk = p.disk[:p.synced+n.rng.Intn(extra+1)]
	}
}

// crashLosingSynced is a power cut on a disk that lied: even its last
// fsync did not reach the platter, so the envelopes signed (and sent)
// just before the crash may be lost too.
func (n *simNet) crashLosingSynced(i int) {
	p := n.peers[i]
	p.down = true
	if extra := len(p.disk) - p.prevSynced; extra > 0 {
		p.disk = p.disk[:p.prevSynced+n.rng.Intn(extra+1)]
	}
}

// restart brings peer i back from its disk.
func (n *simNet) restart(i int) {
	p := n.peers[i]
	lf, err := ParseLog(p.disk)
	if err != nil && !(errors.Is(err, ErrTruncated) && lf != nil) {
		n.t.Fatalf("%s: disk log: %v", p.name, err)
	}
	c := p.cfg
	c.Log, c.Sent = lf.Entries, lf.Sent
	node, err := New(c)
	if err != nil {
		n.t.Fatalf("%s: restart: %v", p.name, err)
	}
	// The restarted node re-persists nothing it already has; start its
	// disk afresh from what it replayed, as p2p would after compaction.
	p.disk = AppendLogHeader(nil)
	for _, env := range lf.Entries {
		p.disk = AppendRecord(p.disk, RecordEntry, env)
	}
	for _, env := range lf.Sent {
		p.disk = AppendRecord(p.disk, RecordSent, env)
	}
	p.synced, p.prevSynced = len(p.disk), len(p.disk)
	p.node, p.down = node, false
	p.node.Tick(n.now)
	n.drain(i)
}

// isolate cuts peer i off from everyone, both ways; heal undoes all cuts.
func (n *simNet) isolate(i int) {
	for j := range n.peers {
		if j != i {
			n.cut[i][j], n.cut[j][i] = true, true
		}
	}
}

func (n *simNet) heal() {
	for i := range n.cut {
		for j := range n.cut[i] {
			n.cut[i][j] = false
		}
	}
}

// run steps until done reports true or limit steps pass.
func (n *simNet) run(limit int, done func() bool) bool {
	for i := 0; i < limit; i++ {
		if done() {
			return true
		}
		n.step()
	}
	return done()
}

func (n *simNet) allOver(peers ...int) func() bool {
	return func() bool {
		for _, i := range peers {
			if n.peers[i].node.Status().Phase != PhaseOver {
				return false
			}
		}
		return true
	}
}

func (n *simNet) all() []int {
	out := make([]int, len(n.peers))
	for i := range out {
		out[i] = i
	}
	return out
}

// setBots gives every peer the game's first bot.
func (n *simNet) setBots(g *engine.Game) {
	for _, p := range n.peers {
		p.bot = g.Bots[0].New()
	}
}

// checkAgree asserts that peers ended with identical logs and hash
// sequences, and that the log verifies on its own.
func (n *simNet) checkAgree(peers ...int) *Replay {
	n.t.Helper()
	ref := n.peers[peers[0]].node
	for _, i := range peers[1:] {
		nd := n.peers[i].node
		if len(nd.Log()) != len(ref.Log()) {
			for k := 0; k < len(nd.Log()) && k < len(ref.Log()); k++ {
				if !bytes.Equal(nd.Log()[k].Marshal(), ref.Log()[k].Marshal()) {
					a, b := nd.Log()[k], ref.Log()[k]
					n.t.Logf("first difference at entry %d: %s seq %d by %s vs %s seq %d by %s", k, a.Kind, a.Seq, shortID(a.Author), b.Kind, b.Seq, shortID(b.Author))
					break
				}
			}
			n.t.Fatalf("%s has %d entries, %s has %d", n.peers[i].name, len(nd.Log()), n.peers[peers[0]].name, len(ref.Log()))
		}
		for k := range ref.Log() {
			if !bytes.Equal(nd.Log()[k].Marshal(), ref.Log()[k].Marshal()) {
				n.t.Fatalf("entry %d differs between %s and %s", k, n.peers[i].name, n.peers[peers[0]].name)
			}
		}
		if len(nd.Hashes()) != len(ref.Hashes()) {
			n.t.Fatalf("hash sequences differ in length")
		}
		for k := range ref.Hashes() {
			if nd.Hashes()[k] != ref.Hashes()[k] {
				n.t.Fatalf("hash %d differs", k)
			}
		}
	}
	games := n.peers[peers[0]].games
	r, err := Verify(ref.Log(), games)
	if err != nil {
		n.t.Fatalf("Verify of the agreed log: %v", err)
	}
	// The disk log parses back to the same entries.
	lf, err := ParseLog(n.peers[peers[0]].disk)
	if err != nil {
		n.t.Fatalf("disk log: %v", err)
	}
	if len(lf.Entries) != len(ref.Log()) {
		n.t.Fatalf("disk log holds %d entries, the node %d", len(lf.Entries), len(ref.Log()))
	}
	return r
}

// busy reports whether some peer's bot could act now.
func (n *simNet) busy() bool {
	for _, p := range n.peers {
		if !p.down && p.bot != nil && p.node.CanAct() {
			return true
		}
	}
	return false
}
