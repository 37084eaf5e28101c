package p2p

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/libp2p/go-libp2p/core/protocol"
)

// CatchupProtocol is the stream protocol a peer uses to fetch envelopes
// that gossip lost, or a whole log after a restart. The request is one
// opaque query (lockstep says what it means: a range of seqs, a round, or
// "everything"); the answer is a count and that many envelopes. Every
// envelope is self-authenticating, so the asker verifies what it gets and
// any peer is as good a source as the author.
const CatchupProtocol = protocol.ID("/boardmesh/catchup/1.0.0")

// Limits of the catch-up stream. A query is a uvarint and a mode byte, so
// maxQuery is generous. An answer holds at most maxCatchupItems frames of
// at most MaxEnvelope bytes each and maxCatchupAnswer bytes in all; a
// server cuts its answer to fit (the asker asks again from where it got
// to), an asker refuses a larger one. Every stream has a deadline for all
// its reads and writes together.
const (
	maxQuery         = 16
	maxCatchupItems  = 2*4096 + 1
	maxCatchupAnswer = 32 << 20
	catchupTimeout   = 30 * time.Second
	serveTimeout     = 15 * time.Second
)

// Serving limits: at most servePerPeer streams of one peer at once and
// serveTotal of all peers; each peer may open serveBurst streams at once
// and then serveRate a second. Spectators (CatchupCommitted) have a pool
// of their own, smaller, so no number of them can take a member's place;
// a peer with no access at all is reset before it takes a place in
// either. A place is taken only once the whole query has come: while it
// is read, the stream holds a place among the queries being read
// (serveReading, watchReading, with the same per-peer bound), for
// queryTimeout at most, so that a peer that opens streams and says
// nothing (one byte of a length, never the rest) keeps no asker from the
// places where queries are answered (libp2p's resource manager lets one
// IPv4 address hold 8 connections, loopback aside, so filling the
// queries being read takes several addresses). A spectator's answer,
// once made, leaves its place for the sending budget (watchBytes) while it
// is written, so a slow reader holds bytes, not a place. A spectator's stream over a limit is
// told busy (catchupBusy) while the server still serves, so that it can
// tell a full table from one that has gone; any other is reset.
const (
	servePerPeer = 2
	serveTotal   = 16
	serveReading = 64
	serveBurst   = 8
	serveRate    = 4

	watchPerPeer = 1
	watchTotal   = 4
	watchReading = 32
	watchBurst   = 4
	watchRate    = 2
	// A spectator's answer leaves its place once it is made: while it is
	// written it holds the sending budget instead (catchupServer.sending:
	// one answer to a peer at once, watchBytes of answers in all), so
	// that a few peer ids that ask and then read slowly keep no other
	// spectator from a place.
	// An answer to a spectator is at most watchAnswer bytes of items (a
	// prefix; it asks again from where it got to).
	watchBytes  = 16 << 20
	watchAnswer = 4 << 20

	queryTimeout = 5 * time.Second
	busyTimeout  = time.Second
)

// catchupBusy, in place of an answer's count, says "here, but over a
// limit: ask again later". It is a count no answer may have (an asker that
// does not know it refuses it as too large, as it would a reset).
const catchupBusy = 1<<32 - 1

// ErrCatchupBusy is Fetch's error when the peer answered busy: it is
// there, and serving, but had no place for us.
var ErrCatchupBusy = errors.New("the peer is busy")

// CatchupAccess is what a peer may ask over the catch-up stream.
type CatchupAccess int

const (
	// CatchupNone: the stream is reset unread (an outsider).
	CatchupNone CatchupAccess = iota
	// CatchupCommitted: committed entries only (query mode 1), from the
	// spectators' pool: what a spectator verifies and shows.
	CatchupCommitted
	// CatchupFull: every query mode (a member, or a joiner in the lobby).
	CatchupFull
)

// CatchupPolicy says what peer p, authenticated by libp2p's handshake,
// may ask. It is called for every stream before anything is read, so it
// must be cheap and safe from any goroutine.
type CatchupPolicy func(p peer.ID) CatchupAccess

// CatchupServer answers one catch-up query with envelopes.
type CatchupServer func(from peer.ID, query []byte) ([][]byte, error)

// streamLimits tracks the streams of one protocol being served, per
// peer: at most perPeer of one peer and total of all at once, and burst
// streams of one peer in a row, then rate a second (no rate if burst is
// 0: the stream was counted against one already).
type streamLimits struct {
	perPeer, total int
	burst, rate    float64

	mu      sync.Mutex
	now     func() time.Time
	active  map[peer.ID]int
	n       int
	buckets map[peer.ID]*bucket
	refused atomic.Int64
}

func newStreamLimits(perPeer, total int, burst, rate float64) *streamLimits {
	return &streamLimits{perPeer: perPeer, total: total, burst: burst, rate: rate,
		now: time.Now, active: map[peer.ID]int{}, buckets: map[peer.ID]*bucket{}}
}

// enter admits one stream of p, or says no.
func (l *streamLimits) enter(p peer.ID) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.burst == 0 {
		if l.active[p] >= l.perPeer || l.n >= l.total {
			l.refused.Add(1)
			return false
		}
		l.active[p]++
		l.n++
		return true
	}
	b, ok := l.buckets[p]
	if !ok {
		if len(l.buckets) >= maxBucketMap {
			for k, x := range l.buckets {
				if l.active[k] == 0 && l.now().Sub(x.at) > time.Duration(l.burst/l.rate+1)*time.Second {
					delete(l.buckets, k)
				}
			}
		}
		if len(l.buckets) >= maxBucketMap {
			l.refused.Add(1)
			return false
		}
		b = &bucket{tokens: l.burst, at: l.now()}
		l.buckets[p] = b
	}
	if l.active[p] >= l.perPeer || l.n >= l.total || !b.take(l.now(), l.burst, l.rate) {
		l.refused.Add(1)
		return false
	}
	l.active[p]++
	l.n++
	return true
}

func (l *streamLimits) leave(p peer.ID) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.n--
	if l.active[p]--; l.active[p] <= 0 {
		delete(l.active, p)
	}
}

// ServeCatchup registers serve as h's catch-up handler, with the limits
// above; allow says who may ask what (nil: everyone everything, for
// tests). It returns the count of streams refused: over a limit, by the
// policy, or with a query the asker may not make.
func ServeCatchup(h host.Host, allow CatchupPolicy, serve CatchupServer) func() int64 {
	c := &catchupServer{self: h.ID(), serve: serve,
		fullIn: newStreamLimits(servePerPeer, serveReading, serveBurst, serveRate), full: newStreamLimits(servePerPeer, serveTotal, 0, 0),
		watchIn: newStreamLimits(watchPerPeer, watchReading, watchBurst, watchRate), watch: newStreamLimits(watchPerPeer, watchTotal, 0, 0),
		sending: newSendBudget(watchPerPeer, watchBytes)}
	h.SetStreamHandler(CatchupProtocol, func(s network.Stream) {
		access := CatchupFull
		if allow != nil {
			access = allow(s.Conn().RemotePeer())
		}
		c.handle(s, access)
	})
	return func() int64 {
		return c.fullIn.refused.Load() + c.full.refused.Load() + c.watchIn.refused.Load() + c.watch.refused.Load() + c.sending.refused.Load() + c.denied.Load()
	}
}

// catchupServer is one host's catch-up handler and its limits.
type catchupServer struct {
	self                         peer.ID
	serve                        CatchupServer
	fullIn, full, watchIn, watch *streamLimits
	sending                      *sendBudget // spectators' answers being written
	denied                       atomic.Int64

	// The last probe of serve (alive): when, and whether it failed.
	mu       sync.Mutex
	probing  bool
	probedAt time.Time
	ended    bool
}

func (c *catchupServer) handle(s network.Stream, access CatchupAccess) {
	from := s.Conn().RemotePeer()
	reading, lim := c.fullIn, c.full
	switch access {
	case CatchupFull:
	case CatchupCommitted:
		reading, lim = c.watchIn, c.watch
	default:
		c.deny(s)
		return
	}
	if !reading.enter(from) {
		c.refuse(s, access)
		return
	}
	s.SetDeadline(time.Now().Add(queryTimeout))
	r := bufio.NewReaderSize(io.LimitReader(s, maxQuery+binary.MaxVarintLen64), 16)
	query, err := readFrame(r, maxQuery)
	reading.leave(from)
	if err != nil {
		s.Reset()
		return
	}
	if access == CatchupCommitted {
		if _, mode, err := ParseQuery(query); err != nil || mode != queryCommitted {
			c.deny(s)
			return
		}
	}
	if access == CatchupCommitted && c.sending.holds(from) {
		c.refuse(s, access) // one answer to a peer at a time; make no second
		return
	}
	if !lim.enter(from) {
		c.refuse(s, access)
		return
	}
	s.SetDeadline(time.Now().Add(serveTimeout))
	items, err := c.serve(from, query)
	if access == CatchupCommitted {
		// The place was for making the answer; how fast the asker
		// reads it is the sending budget's business.
		lim.leave(from)
	} else {
		defer lim.leave(from)
	}
	if err != nil {
		s.Reset()
		return
	}
	items = capItems(items)
	if access == CatchupCommitted {
		items = capBytes(items, watchAnswer)
		n := answerBytes(items)
		if !c.sending.enter(from, n) {
			c.refuse(s, access)
			return
		}
		defer c.sending.leave(from, n)
	}
	defer s.Close()
	w := bufio.NewWriter(s)
	if err := writeFrames(w, items); err != nil {
		s.Reset()
		return
	}
	if err := w.Flush(); err != nil {
		s.Reset()
	}
}

// deny resets a stream whose asker may not ask what it asks (or anything),
// and counts it.
func (c *catchupServer) deny(s network.Stream) {
	c.denied.Add(1)
	s.Reset()
}

// refuse answers a spectator's stream over a limit with catchupBusy, or
// resets it if serve serves no more (a host that outlived its runner is
// not a table still there, however many streams hold its places). A
// member's stream over a limit is reset: its runner asks again, or
// another member, whatever it is told.
func (c *catchupServer) refuse(s network.Stream, access CatchupAccess) {
	if access != CatchupCommitted || !c.alive() {
		s.Reset()
		return
	}
	s.SetDeadline(time.Now().Add(busyTimeout))
	if _, err := s.Write(binary.AppendUvarint(nil, catchupBusy)); err != nil {
		s.Reset()
		return
	}
	s.Close()
}

// alive says whether serve still answers: it asks serve, on our own
// behalf (a member: there are spectators only once there is a roster, so
// the runner does not take the probe for a spectator it served), for the
// committed entries past any log's end (nothing), at most
// once a second whatever the number of streams over a limit; the streams
// that come meanwhile, or while a probe is under way, get the last
// probe's answer (before the first: serving, as a server just set up is).
func (c *catchupServer) alive() bool {
	c.mu.Lock()
	if c.probing || time.Since(c.probedAt) < time.Second {
		defer c.mu.Unlock()
		return !c.ended
	}
	c.probing = true
	c.mu.Unlock()
	_, err := c.serve(c.self, CommittedQuery(math.MaxUint64))
	c.mu.Lock()
	defer c.mu.Unlock()
	c.probing, c.probedAt, c.ended = false, time.Now(), err != nil
	return !c.ended
}

// capBytes cuts an answer to at most max bytes of items, but never below
// its first item (a prefix is still a valid answer; the asker asks again).
func capBytes(items [][]byte, max int) [][]byte {
	total := 0
	for i, it := range items {
		if total += len(it); total > max && i > 0 {
			return items[:i]
		}
	}
	return items
}

// answerBytes is the bytes of an answer's items.
func answerBytes(items [][]byte) int {
	n := 0
	for _, it := range items {
		n += len(it)
	}
	return n
}

// sendBudget bounds the answers being written: at most perPeer of one
// peer at once and total bytes of all of them.
type sendBudget struct {
	perPeer, total int

	mu      sync.Mutex
	active  map[peer.ID]int
	used    int
	refused atomic.Int64
}

func newSendBudget(perPeer, total int) *sendBudget {
	return &sendBudget{perPeer: perPeer, total: total, active: map[peer.ID]int{}}
}

// enter admits an answer of n bytes to p, or says no.
func (b *sendBudget) enter(p peer.ID, n int) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.active[p] >= b.perPeer || b.used+n > b.total {
		b.refused.Add(1)
		return false
	}
	b.active[p]++
	b.used += n
	return true
}

// holds says whether p has as many answers being written as it may.
func (b *sendBudget) holds(p peer.ID) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.active[p] >= b.perPeer {
		b.refused.Add(1)
		return true
	}
	return false
}

func (b *sendBudget) leave(p peer.ID, n int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.used -= n
	if b.active[p]--; b.active[p] <= 0 {
		delete(b.active, p)
	}
}

// capItems cuts an answer to the limits an asker enforces. Items are in
// log order, so a prefix is still a valid answer.
func capItems(items [][]byte) [][]byte {
	if len(items) > maxCatchupItems {
		items = items[:maxCatchupItems]
	}
	total := 0
	for i, it := range items {
		total += len(it)
		if total > maxCatchupAnswer || len(it) > MaxEnvelope {
			return items[:i]
		}
	}
	return items
}

// Fetch asks peer p one catch-up query and returns the envelopes it sent.
func Fetch(ctx context.Context, h host.Host, p peer.ID, query []byte) ([][]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, catchupTimeout)
	defer cancel()
	s, err := h.NewStream(ctx, p, CatchupProtocol)
	if err != nil {
		return nil, fmt.Errorf("catch-up from %s: %w", short(p), err)
	}
	defer s.Close()
	if dl, ok := ctx.Deadline(); ok {
		s.SetDeadline(dl)
	}
	// The deadline alone bounds the stream by catchupTimeout; a caller
	// that gives up sooner (a runner told to stop) must not wait for a
	// silent peer that long: its cancellation resets the stream.
	stop := context.AfterFunc(ctx, func() { s.Reset() })
	defer stop()
	w := bufio.NewWriter(s)
	if err := writeFrame(w, query); err != nil {
		s.Reset()
		return nil, fmt.Errorf("catch-up from %s: %w", short(p), err)
	}
	if err := w.Flush(); err != nil {
		s.Reset()
		return nil, fmt.Errorf("catch-up from %s: %w", short(p), err)
	}
	s.CloseWrite()
	items, err := readFrames(bufio.NewReader(s))
	if err != nil {
		s.Reset()
		if cerr := ctx.Err(); cerr != nil {
			err = cerr
		}
		return nil, fmt.Errorf("catch-up from %s: %w", short(p), err)
	}
	return items, nil
}

func writeFrame(w *bufio.Writer, b []byte) error {
	var hdr [binary.MaxVarintLen64]byte
	n := binary.PutUvarint(hdr[:], uint64(len(b)))
	if _, err := w.Write(hdr[:n]); err != nil {
		return err
	}
	_, err := w.Write(b)
	return err
}

func writeFrames(w *bufio.Writer, items [][]byte) error {
	var hdr [binary.MaxVarintLen64]byte
	n := binary.PutUvarint(hdr[:], uint64(len(items)))
	if _, err := w.Write(hdr[:n]); err != nil {
		return err
	}
	for _, it := range items {
		if err := writeFrame(w, it); err != nil {
			return err
		}
	}
	return nil
}

var errFrameTooLarge = errors.New("frame too large")

func readFrame(r *bufio.Reader, max int) ([]byte, error) {
	n, err := binary.ReadUvarint(r)
	if err != nil {
		return nil, err
	}
	if n > uint64(max) {
		return nil, fmt.Errorf("%w: %d bytes", errFrameTooLarge, n)
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(r, b); err != nil {
		return nil, err
	}
	return b, nil
}

func readFrames(r *bufio.Reader) ([][]byte, error) {
	count, err := binary.ReadUvarint(r)
	if err != nil {
		return nil, err
	}
	if count == catchupBusy {
		return nil, ErrCatchupBusy
	}
	if count > maxCatchupItems {
		return nil, fmt.Errorf("%w: %d items", errFrameTooLarge, count)
	}
	items := make([][]byte, 0, min(count, 4096))
	total := 0
	for range count {
		b, err := readFrame(r, MaxEnvelope)
		if err != nil {
			return nil, err
		}
		total += len(b)
		if total > maxCatchupAnswer {
			return nil, fmt.Errorf("%w: answer over %d bytes", errFrameTooLarge, maxCatchupAnswer)
		}
		items = append(items, b)
	}
	return items, nil
}
