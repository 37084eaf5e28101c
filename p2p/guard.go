package p2p

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/boardmesh/boardmesh/crypto"
	"github.com/libp2p/go-libp2p/core/peer"
)

// MaxEnvelope is the largest envelope the wire format allows: the fixed
// header, a body of crypto.MaxBody bytes and the signature. No legitimate
// message on a session topic is larger, so gossipsub is told to drop
// anything bigger before it is even handed to the validator.
var MaxEnvelope = (&crypto.Envelope{Sig: make([]byte, crypto.SigLen)}).Size() + crypto.MaxBody

// maxPubSubMessage is MaxEnvelope plus room for gossipsub's own framing
// of one message in an RPC (topic name, field tags, lengths).
var maxPubSubMessage = MaxEnvelope + 4<<10

// Lobby rate limits. Before a roster exists anyone may send a join, so
// envelopes whose author is not known yet are rate-limited, per author
// and per forwarding peer: a join is one envelope re-sent every second or
// so, which a bucket of lobbyBurst refilled at lobbyRate per second lets
// through untouched; a flood is dropped (and counted).
const (
	lobbyBurst   = 16
	lobbyRate    = 4
	maxBucketMap = 4096
)

// Member rate limit. A member's valid signature makes every envelope it
// floods look legitimate to gossipsub, which would deliver and forward
// all of them. An honest peer signs a few envelopes per game step (an
// action, a reveal, a checkpoint), far below memberRate even in a bot
// game at full speed (`boardmesh play --auto`: at most about 90 a second
// per author, in a 4-player Sleeping Dragon's Lair; 25 in an 8-player
// Dominion); what a member sends beyond its bucket is ignored (not
// delivered, not forwarded) and counted, the member is named, and the
// lockstep catch-up brings anything honest that was lost. memberRate is
// also well below what a loaded peer validates in a second, and below
// what the gossip gate lets a peer send (peerRate, rpcgate.go), so a
// flooding member's excess reaches the validator, which can tell who it
// is: at 1,000 a second, peers starved of CPU validated too few of a
// member's flood to see it over its rate, and named nobody.
// State envelopes (a canonical state, sent only to explain a desync, a
// few per game at most) are large; they have a bucket of their own.
// A member's bytes are bounded too (memberBytesRate, a burst of two of
// the largest envelopes): honest envelopes are a few hundred bytes, and a
// large state envelope is rare; without it a member's 1 MiB envelopes
// passed a thousand a second, for every peer to hold and forward.
const (
	memberBurst     = 1000
	memberRate      = 500
	stateBurst      = 8
	stateRate       = 2
	memberBytesRate = 256 << 10
)

var memberBytesBurst = float64(2 * MaxEnvelope)

// Drops counts what the topic validator turned away, by reason. It is
// what a user sees as "dropped from outsiders" and what tests read.
type Drops struct {
	TooLarge     int64 // over MaxEnvelope
	Malformed    int64 // not an envelope
	BadSignature int64
	WrongSession int64
	Outsider     int64 // author not in the roster
	Throttled    int64 // a stranger over its lobby rate
	// OverMemberRate counts a member's envelopes (signature checked)
	// over its rate (memberRate, stateRate, memberBytesRate): a member's
	// flood; the runner names the member (nameFlooders).
	OverMemberRate int64
	// OverPeerRate counts messages cut out of a peer's RPCs before
	// gossipsub processed them: the peer (the sender, not necessarily
	// the author) was over its rate (rpcgate.go).
	OverPeerRate int64
	// OverPeerRateFrom is the peer whose messages were cut last (its
	// peer id), "" if none: the connection authenticated it, so it is
	// the sender of the flood, whoever signed what it sent.
	OverPeerRateFrom string
	// CatchupRefused counts catch-up streams refused over a peer's
	// concurrency or rate limit (not topic messages).
	CatchupRefused int64
}

// Total is the sum of all drops.
func (d Drops) Total() int64 {
	return d.TooLarge + d.Malformed + d.BadSignature + d.WrongSession + d.Outsider + d.Throttled + d.OverMemberRate + d.OverPeerRate + d.CatchupRefused
}

// guard is the admission policy of a session topic, shared by the
// validator goroutines of gossipsub and the runner, which tells it the
// session id and the roster as soon as it knows them.
type guard struct {
	self  peer.ID
	lobby crypto.Hash
	now   func() time.Time

	session atomic.Pointer[crypto.Hash]
	// open: the session may still change (lockstep's
	// Node.SessionMayChange, until the seat draw).
	open    atomic.Bool
	members atomic.Pointer[map[peer.ID]struct{}]

	mu      sync.Mutex
	buckets map[peer.ID]*bucket

	tooLarge, malformed, badSig, wrongSession, outsider, throttled, overMember atomic.Int64

	memberMu      sync.Mutex
	memberBuckets map[memberKey]*memberBuckets
}

func newGuard(self peer.ID, lobby crypto.Hash) *guard {
	return &guard{self: self, lobby: lobby, now: time.Now, buckets: make(map[peer.ID]*bucket)}
}

// setSession records the session id once the roster defines it; open
// says it may still change (a re-proposal before the seat draw).
func (g *guard) setSession(s crypto.Hash, open bool) {
	if s.IsZero() {
		return
	}
	g.open.Store(open)
	if old := g.session.Load(); old == nil || *old != s {
		g.session.Store(&s)
	}
}

// setMembers records the roster; from then on only its members may
// publish on the topic.
func (g *guard) setMembers(ids []peer.ID) {
	if len(ids) == 0 {
		return
	}
	m := make(map[peer.ID]struct{}, len(ids))
	for _, id := range ids {
		m[id] = struct{}{}
	}
	g.members.Store(&m)
}

// isMember says whether id is in the roster; false before there is one.
func (g *guard) isMember(id peer.ID) bool {
	m := g.members.Load()
	if m == nil {
		return false
	}
	_, ok := (*m)[id]
	return ok
}

// allMembers reports whether ok holds for every member of the roster.
func (g *guard) allMembers(ok func(peer.ID) bool) bool {
	m := g.members.Load()
	if m == nil {
		return false
	}
	for id := range *m {
		if !ok(id) {
			return false
		}
	}
	return true
}

// hasRoster says whether the roster is known.
func (g *guard) hasRoster() bool { return g.members.Load() != nil }

func (g *guard) drops() Drops {
	return Drops{TooLarge: g.tooLarge.Load(), Malformed: g.malformed.Load(), BadSignature: g.badSig.Load(),
		WrongSession: g.wrongSession.Load(), Outsider: g.outsider.Load(), Throttled: g.throttled.Load(),
		OverMemberRate: g.overMember.Load()}
}

// check is the validator. Cheap tests come first (size, format, roster
// membership, rate), so junk costs no signature check. Reject is only for
// what is provably bad; gossipsub then counts it against the forwarding
// peer's score, and a peer that keeps sending it is graylisted and pruned
// from the mesh (NewPubSub's score parameters).
//
// A bundle (crypto.UnmarshalMessage: several envelopes of one author in
// one message) is checked envelope by envelope, each as if it came alone,
// and accepted only whole: one envelope that would be refused or ignored
// alone refuses or ignores the message. What it returns with an Accept is
// the message's envelopes, a []*crypto.Envelope (one, for a lone envelope).
func (g *guard) check(from peer.ID, data []byte) (Verdict, any) {
	if len(data) > MaxEnvelope {
		g.tooLarge.Add(1)
		return Reject, nil
	}
	envs, err := crypto.UnmarshalMessage(data)
	if err != nil {
		g.malformed.Add(1)
		return Reject, nil
	}
	for _, env := range envs {
		if v := g.checkOne(from, env); v != Accept {
			return v, nil
		}
	}
	return Accept, envs
}

// checkOne is check of one envelope.
func (g *guard) checkOne(from peer.ID, env *crypto.Envelope) Verdict {
	local := from == g.self
	author := peer.ID(env.Author)
	if g.hasRoster() {
		if !g.isMember(author) {
			// Spectators and strangers do not publish once there is a
			// roster; nothing they say can change the game.
			g.outsider.Add(1)
			return Reject
		}
	}
	stranger := !local && !g.hasRoster() && author != g.self
	// A stranger in the lobby is allowed at a join's pace: first the
	// forwarding peer's bucket (libp2p authenticated it, so the cost of a
	// flood falls on its sender) before any signature is checked, then,
	// once the signature proves the author, the author's (checked after,
	// so a forger cannot spend an honest joiner's tokens).
	if stranger && !g.take(from) {
		g.throttled.Add(1)
		return Ignore
	}
	if !local {
		if err := crypto.Verify(env); err != nil {
			g.badSig.Add(1)
			return Reject
		}
	}
	if stranger && from != author && !g.take(author) {
		g.throttled.Add(1)
		return Ignore
	}
	if !local && g.hasRoster() && !g.takeMember(author, from != author, env.Kind == crypto.KindState, env.Size()) {
		g.overMember.Add(1)
		return Ignore
	}
	if env.Session == g.lobby {
		return Accept
	}
	if s := g.session.Load(); s != nil && env.Session != *s && !g.open.Load() {
		g.wrongSession.Add(1)
		return Reject
	}
	// While the session may still change, a member's envelope of another
	// one may be of the host's re-proposal, validated here before the
	// runner has stepped the roster that makes it ours: refusing it lost
	// the host's accept and seat-draw reveal until their re-send, and
	// counted an honest host as a sender of junk. The node keeps it for
	// the new roster, or ignores a superseded session's without blame.
	return Accept
}

// take spends one token of id's bucket.
func (g *guard) take(id peer.ID) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	b, ok := g.buckets[id]
	if !ok {
		if len(g.buckets) >= maxBucketMap {
			// Forget strangers quiet long enough to have a full bucket
			// again: they lose nothing by it.
			for k, x := range g.buckets {
				if g.now().Sub(x.at) > time.Duration(lobbyBurst/lobbyRate+1)*time.Second {
					delete(g.buckets, k)
				}
			}
		}
		if len(g.buckets) >= maxBucketMap {
			// Too many strangers at once: a new one waits until the
			// roster exists (or is a flood of fresh identities).
			return false
		}
		b = &bucket{tokens: lobbyBurst, at: g.now()}
		g.buckets[id] = b
	}
	return b.take(g.now(), lobbyBurst, lobbyRate)
}

// takeMember spends one token of a member author's envelope buckets and
// size tokens of its bytes. The map holds roster members only (checked
// before), two sets of buckets each, so it is bounded by the roster.
//
// A member has one set for what its own host hands us (the connection
// proves the sender) and one for what other hosts relay: its key flooded
// from another host (a thief of the key, or its owner running a second
// host) spends the relayed buckets only, and the member's own envelopes,
// which its host publishes to every peer directly, still get through. On
// an open table a lost honest envelope comes back by catch-up; on a secret
// table the card protocol's do not (they are no log entries), and one
// bucket for both starved the honest member's cards and stopped the game.
func (g *guard) takeMember(id peer.ID, relayed, state bool, size int) bool {
	g.memberMu.Lock()
	defer g.memberMu.Unlock()
	if g.memberBuckets == nil {
		g.memberBuckets = make(map[memberKey]*memberBuckets)
	}
	now := g.now()
	k := memberKey{id, relayed}
	b, ok := g.memberBuckets[k]
	if !ok {
		b = &memberBuckets{all: bucket{tokens: memberBurst, at: now}, state: bucket{tokens: stateBurst, at: now},
			bytes: bucket{tokens: memberBytesBurst, at: now}}
		g.memberBuckets[k] = b
	}
	if state && !b.state.take(now, stateBurst, stateRate) || !b.all.take(now, memberBurst, memberRate) ||
		!b.bytes.takeN(now, memberBytesBurst, memberBytesRate, float64(size)) {
		b.over++
		return false
	}
	return true
}

// memberFloods lists the members with envelopes over their rate, and how
// many so far.
func (g *guard) memberFloods() []floodCount {
	g.memberMu.Lock()
	defer g.memberMu.Unlock()
	var out []floodCount
	for k, b := range g.memberBuckets {
		if b.over == 0 {
			continue
		}
		i := 0
		for i < len(out) && out[i].id != k.id {
			i++
		}
		if i == len(out) {
			out = append(out, floodCount{id: k.id})
		}
		out[i].n += b.over
	}
	return out
}

// memberKey names one of a member's sets of buckets: its own host's, or
// the relayed (takeMember).
type memberKey struct {
	id      peer.ID
	relayed bool
}

// floodCount is how many of a peer's messages were dropped over its rate.
type floodCount struct {
	id peer.ID
	n  int64
}

// memberBuckets are one member's buckets: all its envelopes, its state
// envelopes, its bytes; over counts what they refused.
type memberBuckets struct {
	all, state, bytes bucket
	over              int64
}

// bucket is a token bucket: burst tokens, refilled at rate per second.
type bucket struct {
	tokens float64
	at     time.Time
}

func (b *bucket) take(now time.Time, burst, rate float64) bool { return b.takeN(now, burst, rate, 1) }

// takeN spends n tokens if there are that many.
func (b *bucket) takeN(now time.Time, burst, rate, n float64) bool {
	if dt := now.Sub(b.at).Seconds(); dt > 0 {
		b.tokens = min(burst, b.tokens+dt*rate)
		b.at = now
	}
	if b.tokens < n {
		return false
	}
	b.tokens -= n
	return true
}
