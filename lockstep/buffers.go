package lockstep

import (
	"fmt"

	"github.com/boardmesh/boardmesh/crypto"
)

// Every buffer of a Node is bounded per author, per kind and in bytes, and
// what does not fit is dropped and counted (Status.Counters), with one
// EventCheat (CheatFlood) per author and kind and log position. Nothing
// from a non-member is buffered once the roster exists (admissible).
const (
	// maxAhead bounds how far beyond the current step (seq) or beacon
	// round an envelope may be and still be kept for later: a peer that
	// far behind catches up with gap answers, whose entries come in order.
	// Honest peers that are ahead send such envelopes too, so dropping
	// them is counted but named as no cheat.
	maxAhead = 256
	// maxPerKind and maxAuthorBytes bound one author's uncommitted
	// envelopes of one kind, and of all kinds in bytes. maxPerKind is
	// above what an honest author can have in the maxAhead window (one
	// envelope per slot): a smaller share evicted honest envelopes of
	// peers far ahead and stalled a faulty-network game. When full, the
	// furthest are dropped first and counted; an author over its bytes
	// is named (honest envelopes are small).
	maxPerKind     = 2 * maxAhead
	maxAuthorBytes = 4 << 20
	// maxEarlyPerAuthor and maxEarlyBytes bound the envelopes kept before
	// the session id is known (maxEarly bounds their number).
	maxEarlyPerAuthor = 32
	maxEarlyBytes     = 16 << 20
	// maxStatesPerAuthor bounds the state envelopes of peers ahead of us.
	maxStatesPerAuthor = 2
)

// bufUse is one author's share of the buffer.
type bufUse struct {
	bytes  int
	byKind [crypto.LastKind + 1]int
}

// bufPut buffers env under s if its author's share allows, and reports
// whether it did; a refusal is counted and named as a flood.
func (n *Node) bufPut(s slot, env *crypto.Envelope) bool {
	n.unbuf(s) // a replaced join or an own envelope again
	u := n.use[env.Author]
	if u == nil {
		u = &bufUse{}
	}
	full := func() bool { return u.byKind[env.Kind] >= maxPerKind || u.bytes+env.Size() > maxAuthorBytes }
	for env.Author != n.id.ID() && full() {
		// Make room by dropping the author's envelope of this kind that
		// is furthest ahead, if it is further than this one: the one due
		// soonest always fits, so a flooder cannot crowd out its own
		// (or anyone's) next move, only its own far future.
		far, ok := n.furthest(env.Author, env.Kind)
		bytes := u.bytes+env.Size() > maxAuthorBytes
		if !ok || far.Seq < env.Seq || far.Seq == env.Seq && string(far.Body) <= string(env.Body) {
			n.dropped(env, bytes)
			return false
		}
		n.dropped(far, bytes)
		n.unbuf(slotOf(far))
		delete(n.seen, slotOf(far))
	}
	u.byKind[env.Kind]++
	u.bytes += env.Size()
	n.use[env.Author] = u
	n.buf[s] = env
	return true
}

// buffers reports whether any envelope of kind is buffered, without a
// walk of the buffer (a few authors' counts).
func (n *Node) buffers(kind crypto.Kind) bool {
	for _, u := range n.use {
		if u.byKind[kind] > 0 {
			return true
		}
	}
	return false
}

// furthest is the buffered envelope of author and kind with the highest
// seq (then body): the one to drop first.
func (n *Node) furthest(author crypto.PeerID, kind crypto.Kind) (*crypto.Envelope, bool) {
	var far *crypto.Envelope
	for s, env := range n.buf {
		if s.author == author && s.kind == kind &&
			(far == nil || env.Seq > far.Seq || env.Seq == far.Seq && string(env.Body) > string(far.Body)) {
			far = env
		}
	}
	return far, far != nil
}

// unbuf removes s from the buffer.
func (n *Node) unbuf(s slot) {
	env, ok := n.buf[s]
	if !ok {
		return
	}
	delete(n.buf, s)
	if u := n.use[env.Author]; u != nil {
		u.byKind[env.Kind]--
		u.bytes -= env.Size()
		if u.bytes <= 0 {
			delete(n.use, env.Author)
		}
	}
}

// tooFar reports whether env is for a step or round too far ahead to keep.
func (n *Node) tooFar(env *crypto.Envelope) bool {
	m := n.m
	if m.phase != PhasePlaying {
		return false
	}
	switch env.Kind {
	case crypto.KindAction, crypto.KindCheckpoint:
		return env.Seq > m.seq+maxAhead
	case crypto.KindReveal, crypto.KindExtend:
		return env.Seq > m.round+maxAhead
	case crypto.KindDrop, crypto.KindClaim, crypto.KindSettle:
		return env.Seq > uint64(len(m.log))+maxAhead
	}
	return false
}

// dropped counts an envelope dropped for its author's share, and names
// the author as a flooder if it exceeded its bytes.
func (n *Node) dropped(env *crypto.Envelope, bytes bool) {
	if bytes {
		n.flood(env, fmt.Sprintf("more than %d MiB of envelopes waiting", maxAuthorBytes>>20))
		return
	}
	n.counters.Dropped++
	n.counters.DroppedBytes += uint64(env.Size())
}

// flood counts a dropped envelope and names its author, once per author,
// kind and log position.
func (n *Node) flood(env *crypto.Envelope, why string) {
	n.counters.Dropped++
	n.counters.DroppedBytes += uint64(env.Size())
	if n.m.members != nil {
		if _, ok := n.m.member(env.Author); !ok {
			return // an outsider's: counted, nobody to name
		}
	}
	if at := uint64(len(n.m.log)); n.raised == nil || n.raisedAt != at {
		n.raised, n.raisedAt = map[raisedKey]bool{}, at
	}
	key := raisedKey{author: env.Author, kind: env.Kind, cheat: CheatFlood}
	if n.raised[key] || len(n.raised) >= maxRaised {
		return
	}
	n.raised[key] = true
	name, seat := n.who(env.Author)
	what := fmt.Sprintf("%s sends more than this peer keeps (%s); the excess is dropped", name, why)
	n.rd.Events = append(n.rd.Events, Event{Kind: EventCheat, Cheat: CheatFlood, Peer: env.Author, Seat: seat, Who: name,
		What: what, Seq: env.Seq, Text: CheatFlood.String() + ": " + what})
}

// keepEarly keeps an envelope that came before its session is known.
func (n *Node) keepEarly(env *crypto.Envelope) {
	mine := 0
	for _, e := range n.early {
		if e.Author == env.Author {
			mine++
		}
	}
	if len(n.early) >= maxEarly || mine >= maxEarlyPerAuthor || n.earlyBytes+env.Size() > maxEarlyBytes {
		n.counters.Dropped++
		n.counters.DroppedBytes += uint64(env.Size())
		return
	}
	n.early = append(n.early, env)
	n.earlyBytes += env.Size()
}

// keepState keeps a state envelope of a peer ahead of us, at most
// maxStatesPerAuthor per author (the earliest ones: they are compared
// first).
func (n *Node) keepState(env *crypto.Envelope) {
	mine := 0
	for _, e := range n.states {
		if e.Author == env.Author {
			if crypto.Equal(e, env) {
				return
			}
			mine++
		}
	}
	if mine >= maxStatesPerAuthor {
		n.flood(env, fmt.Sprintf("more than %d state envelopes ahead of this peer", maxStatesPerAuthor))
		return
	}
	n.states = append(n.states, env)
}

// NoteFlood names a member as a flooder on the word of the transport: it
// dropped envelopes signed by author (or sent by the member's own host)
// over the member's rate before they reached the node, so the node never
// saw them; what says it in plain words ("over 1000 envelopes a second,
// 5000 dropped"). It changes nothing but the events: one
// EventCheat (CheatFlood), at most once per author and log position like
// the node's own flood events. A non-member is not named (it is counted
// by the transport).
func (n *Node) NoteFlood(author crypto.PeerID, what string) {
	if n.m.members == nil {
		return
	}
	if _, ok := n.m.member(author); !ok {
		return
	}
	if at := uint64(len(n.m.log)); n.raised == nil || n.raisedAt != at {
		n.raised, n.raisedAt = map[raisedKey]bool{}, at
	}
	key := raisedKey{author: author, cheat: CheatFlood, reason: "transport"}
	if n.raised[key] || len(n.raised) >= maxRaised {
		return
	}
	n.raised[key] = true
	name, seat := n.who(author)
	what = fmt.Sprintf("%s sends more than this peer takes: %s", name, what)
	n.rd.Events = append(n.rd.Events, Event{Kind: EventCheat, Cheat: CheatFlood, Peer: author, Seat: seat, Who: name,
		What: what, Seq: uint64(len(n.m.log)), Text: CheatFlood.String() + ": " + what})
}
