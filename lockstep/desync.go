package lockstep

import (
	"errors"
	"fmt"
	"sort"

	"github.com/boardmesh/boardmesh/crypto"
	"github.com/boardmesh/boardmesh/engine"
)

// How a state envelope is weighed (the protocol rule; docs/protocol.md
// §5.4 says it for other implementations):
//
//   - A state hash its author signed in a committed entry (the pre-state
//     hash of its action at step t, its checkpoint at step t, and every
//     agreed checkpoint, which every active member signed) binds it: a
//     state of that author whose first differing step s is at or before
//     such a t is a lie. Its author is named (CheatLyingState) and is the
//     suspect; nothing stops and no report is built, so no honest
//     player's move is blamed for what the checkpoints already agreed on.
//   - Otherwise the state explains a desync (a DesyncReport, the game
//     stops) when something signed disputes our state there: its author
//     signed a state hash that differs from ours (an action, reveal or
//     checkpoint we refused: suspect), or our log holds, at a step from s
//     to the state's, an action of another member whose pre-state hash
//     the state contradicts. The second is how a peer with a buggy engine
//     is explained: it refuses the next honest action and so signs
//     nothing more but its state. So does a state whose first differing
//     step is its author's own action (ownMoveDiverged): only the author's
//     own move is named.
//   - A state that nothing signed disputes yet is held (and answered with
//     ours, once): it explains a desync as soon as its author signs a
//     differing hash, it is a lie as soon as its author signs an agreeing
//     one at or after s, and it is weighed against the log again when the
//     table stalls (Config.StallAfter), for an action that had not reached
//     us when the state did. A state alone, differing at a step nobody
//     signed, stops nothing and blames nobody.
//
// A node weighs states, and answers them, even once it has stopped: the
// peers on the other side of a desync need our state to report it.

// suspect reacts to an envelope whose state hash is not ours. Either its
// author lies, or one of us has diverged; we cannot tell alone, so we send
// our canonical state: a peer that has really diverged finds the
// difference, reports it and sends its own, and a liar learns nothing it
// did not know. A checkpoint mismatch also stops the game, as the design
// requires: the next turn cannot start without agreement. The author has
// now signed a differing hash: its held states explain a desync.
func (n *Node) suspect(env *crypto.Envelope, err error) {
	if !errors.Is(err, ErrCheckpoint) && !errors.Is(err, ErrStateHash) {
		return
	}
	n.sendState(n.m.seq)
	if !containsID(n.disputed, env.Author) {
		n.disputed = append(n.disputed, env.Author)
	}
	if errors.Is(err, ErrCheckpoint) {
		n.stopped = true
	}
	n.reweigh(false)
}

// sendState signs and broadcasts our state after seq steps, once per seq.
// For an earlier step the state is rebuilt from our log, so two peers at
// different steps still compare like with like.
func (n *Node) sendState(seq uint64) {
	m := n.m
	if m.phase < PhasePlaying || seq > m.seq || n.stateSent[seq] || n.myMember() < 0 {
		return
	}
	st := m.st
	if seq < m.seq {
		var err error
		if st, err = n.stateAt(seq); err != nil || crypto.Hash(engine.Hash(st)) != m.hashes[seq] {
			// Rebuilt otherwise than we had it (an engine whose moves
			// depend on what this seat knows, which a replay from the
			// log does not: a buggy one): a state that does not hash to
			// the hash beside it is no evidence. Ours now is.
			if seq != m.seq && !n.stateSent[m.seq] {
				n.sendState(m.seq)
			}
			return
		}
	}
	n.stateSent[seq] = true
	from := min(m.agreed, seq)
	b := &stateBody{From: from, Hashes: append([]crypto.Hash(nil), m.hashes[from:seq+1]...), State: engine.Encode(st)}
	n.sign(&crypto.Envelope{Session: m.session, Seq: seq, Kind: crypto.KindState, StateHash: m.hashes[seq], Body: b.encode()})
}

// stepState takes another peer's state and weighs it if it differs from
// ours at a step we have reached; one from a peer ahead is kept until we
// reach its step.
func (n *Node) stepState(env *crypto.Envelope) error {
	m := n.m
	mi, ok := m.member(env.Author)
	if !ok {
		return n.reject(env, ErrNotMember)
	}
	if m.seatOf == nil {
		// Before the seat draw there is no game state to compare (and a
		// session stopped by evidence in the accept phase has no seats).
		return n.reject(env, fmt.Errorf("%w: a state envelope before the seat draw", ErrUnexpected))
	}
	if env.Author == n.id.ID() {
		return ErrDuplicate
	}
	if n.m.dropped[n.m.seatOf[mi]] {
		// A dropped peer's state no longer has to agree with ours: it may
		// have gone on alone before it learnt of the drop.
		return ErrDropped
	}
	body, err := decodeState(env.Body)
	if err != nil {
		return n.reject(env, err)
	}
	if err := body.fits(env); err != nil {
		return n.reject(env, err)
	}
	n.seen[slotOf(env)] = env
	if env.Seq > m.seq {
		// They are ahead. A lie about the steps we share is one already;
		// if our common steps differ, send our state at our step: they
		// will answer with theirs at the same one.
		if s, differs := n.firstDiff(body); differs && s <= m.seq {
			if err := n.lie(env, body, s); err != nil {
				return err
			}
			n.sendState(m.seq)
		}
		n.keepState(env)
		return nil
	}
	if m.hashes[env.Seq] == env.StateHash {
		// The same state as ours, unless it lies about an earlier step.
		if s, differs := n.firstDiff(body); differs {
			return n.lie(env, body, s)
		}
		return nil
	}
	done, err := n.weigh(env, body, true)
	if !done {
		n.hold(env, body)
	}
	return err
}

// firstDiff is the first step at which body's hashes differ from ours,
// among the steps we have reached.
func (n *Node) firstDiff(body *stateBody) (uint64, bool) {
	for i, h := range body.Hashes {
		s := body.From + uint64(i)
		if s >= uint64(len(n.m.hashes)) {
			break
		}
		if n.m.hashes[s] != h {
			return s, true
		}
	}
	return 0, false
}

// lie rejects env as a lying state if its author signed, in an entry we
// committed, a state hash at step s or later: a hash equal to ours (we
// committed it), while env says its state differed from ours at s.
func (n *Node) lie(env *crypto.Envelope, body *stateBody, s uint64) error {
	t, what, ok := n.signedSince(env.Author, s)
	if !ok {
		return nil
	}
	return n.reject(env, fmt.Errorf("%w: it says its state after %d steps was %s, ours is %s, yet it signed %s at step %d with our state hash",
		ErrLyingState, s, body.Hashes[s-body.From].Short(), n.m.hashes[s].Short(), what, t))
}

// signedSince finds the first step at or after s for which the author
// signed a state hash in an entry we committed.
func (n *Node) signedSince(author crypto.PeerID, s uint64) (uint64, string, bool) {
	m := n.m
	t, what, ok := uint64(0), "", false
	// Every active member signed every agreed checkpoint, and a dropped
	// author's state is not weighed at all.
	if k := sort.Search(len(m.cps), func(j int) bool { return m.cps[j] >= s }); k < len(m.cps) {
		t, what, ok = m.cps[k], "the agreed checkpoint", true
	}
	if m.groupKind == crypto.KindCheckpoint && m.seq >= s && (!ok || m.seq < t) {
		for _, env := range m.group {
			if env.Author == author {
				t, what, ok = m.seq, "its checkpoint", true
			}
		}
	}
	for i := s; i < uint64(len(m.steps)) && (!ok || i < t); i++ {
		if st := m.steps[i]; st.Kind == "action" && st.Author == author {
			t, what, ok = i, "its action", true
			break
		}
	}
	return t, what, ok
}

// disputedInLog reports whether our log holds an action of a member other
// than author, at a step from s to the last of body, whose pre-state hash
// (ours) body contradicts.
func (n *Node) disputedInLog(author crypto.PeerID, body *stateBody, s uint64) bool {
	m := n.m
	for t := s; t-body.From < uint64(len(body.Hashes)) && t < uint64(len(m.steps)); t++ {
		st := m.steps[t]
		if st.Kind == "action" && st.Author != author && body.Hashes[t-body.From] != m.hashes[t] {
			return true
		}
	}
	return false
}

// ownMoveDiverged reports whether the first step after which a state of
// author differs from ours (the state after s steps) is author's own
// action: its engine applied its own move otherwise than ours did. The
// report then names the author's own move as the first divergent entry,
// so no other player is blamed, and a liar could stop the game no more
// than with a wrong checkpoint. It is how a peer is explained whose
// engine went wrong on its own move and which signs no differing hash
// after it: at a secret table its card layer may stop first (a reshuffle
// of its wrong discard pile does not match the shuffles the others sent)
// and it sends its state then (drainCards).
func (n *Node) ownMoveDiverged(author crypto.PeerID, s uint64) bool {
	m := n.m
	if s == 0 || s-1 >= uint64(len(m.steps)) {
		return false
	}
	st := m.steps[s-1]
	return st.Kind == "action" && st.Author == author
}

// weigh decides what a state envelope that differs from ours at a step we
// have reached is (see the rule above): a lie (rejected, its author
// named), a desync (reported), or neither yet (done is false: the caller
// holds it). logToo lets actions in our log dispute it: true when the
// state is weighed first, or again once the table has stalled.
func (n *Node) weigh(env *crypto.Envelope, body *stateBody, logToo bool) (done bool, err error) {
	s, differs := n.firstDiff(body)
	if !differs {
		return true, nil
	}
	if err := n.lie(env, body, s); err != nil {
		return true, err
	}
	if containsID(n.disputed, env.Author) || n.ownMoveDiverged(env.Author, s) || logToo && (n.disputedInLog(env.Author, body, s) || n.disputedByCards(env.Author, body, s)) {
		n.report(env, n.m.byID[env.Author], body)
		return true, nil
	}
	// Answer with ours at that step (once): a peer that did sign a
	// differing hash, or that will, can then be explained on both sides.
	n.sendState(env.Seq)
	return false, nil
}

// heldState is a held state envelope with its body, decoded once.
type heldState struct {
	env  *crypto.Envelope
	body *stateBody
}

// hold keeps a state that nothing signed disputes yet, at most
// maxStatesPerAuthor per author (the latest: an author that signs nothing
// more says the most in its last state); what it drops is counted.
func (n *Node) hold(env *crypto.Envelope, body *stateBody) {
	mine := 0
	for _, h := range n.held {
		if h.env.Author == env.Author {
			mine++
		}
	}
	if mine >= maxStatesPerAuthor {
		for i, h := range n.held {
			if h.env.Author == env.Author {
				n.counters.Dropped++
				n.counters.DroppedBytes += uint64(h.env.Size())
				n.held = append(n.held[:i:i], n.held[i+1:]...)
				break
			}
		}
	}
	n.held = append(n.held, heldState{env: env, body: body})
}

// reweigh weighs the held states again (see weigh for logToo); those of
// authors dropped since are let go.
func (n *Node) reweigh(logToo bool) {
	if len(n.held) == 0 {
		return
	}
	held := n.held
	n.held = nil
	var keep []heldState
	for _, h := range held {
		mi, ok := n.m.byID[h.env.Author]
		if !ok || n.m.dropped[n.m.seatOf[mi]] {
			continue
		}
		if done, _ := n.weigh(h.env, h.body, logToo); !done {
			keep = append(keep, h)
		}
	}
	n.held = keep
}

// report builds the desync report against a differing state envelope.
func (n *Node) report(env *crypto.Envelope, mi int, body *stateBody) {
	m := n.m
	r := &DesyncReport{Peer: env.Author, Seq: env.Seq, Evidence: env, TheirState: body.State, Agreed: m.agreed}
	// The first step after which the hashes differ is the first divergent
	// entry: both peers applied the same signed entries up to it.
	r.Entry = env.Seq
	found := false
	for i, h := range body.Hashes {
		s := body.From + uint64(i)
		if s < uint64(len(m.hashes)) && m.hashes[s] != h {
			r.Mine, r.Theirs, found = m.hashes[s], h, true
			if s > 0 {
				r.Entry = s - 1
			}
			break
		}
	}
	if !found {
		r.Mine, r.Theirs = m.hashes[env.Seq], env.StateHash
	}
	if r.Entry < uint64(len(m.steps)) && found && body.From <= r.Entry+1 {
		st := m.steps[r.Entry]
		r.EntryAuthor = st.Author
		r.EntryWhat = st.Kind
		if st.Seat >= 0 {
			r.EntryWhat = fmt.Sprintf("%s of seat %d", st.Kind, st.Seat+1)
		}
		if st.Kind == "chance" {
			r.EntryWhat = "chance step (beacon)"
		}
	} else {
		r.EntryWhat = fmt.Sprintf("state before step %d", env.Seq)
	}
	mine := m.st
	var mineErr error
	if env.Seq < m.seq {
		// Their state is at env.Seq: ours must be too, or every change
		// since would show as a difference.
		mine, mineErr = n.stateAt(env.Seq)
	}
	theirs, err := engine.DecodeState(m.game, body.State)
	switch {
	case mineErr != nil:
		r.MyState = engine.Encode(m.st)
		r.Diff = []engine.FieldDiff{{Path: "(state)", A: fmt.Sprintf("not rebuilt at step %d: %v", env.Seq, mineErr), B: "(not compared)"}}
	case err != nil:
		r.MyState = engine.Encode(mine)
		r.Diff = []engine.FieldDiff{{Path: "(state)", A: "decodes", B: "does not decode: " + err.Error()}}
	default:
		r.MyState = engine.Encode(mine)
		r.Diff = engine.Diff(mine, theirs)
	}
	n.rd.Keep = append(n.rd.Keep, env)
	n.reports = append(n.reports, r)
	n.rd.Events = append(n.rd.Events, Event{Kind: EventDesync, Peer: env.Author, Seat: m.seatOf[mi] + 1, Seq: env.Seq,
		Desync: r, Text: r.String()})
	n.sendState(env.Seq)
	n.stopped = true
}

// stateAt replays our own log to the state after seq steps.
func (n *Node) stateAt(seq uint64) (engine.State, error) {
	rm := newMachine(n.m.games)
	for i, env := range n.m.log {
		if rm.phase == PhasePlaying && rm.seq >= seq {
			break
		}
		rm.ahead = n.m.log[i+1:]
		if err := rm.passWaitAt(env, seq); err != nil {
			return nil, err
		}
		if rm.phase == PhasePlaying && rm.seq >= seq {
			break
		}
		if err := rm.feed(env); err != nil {
			return nil, err
		}
	}
	if rm.st != nil && rm.seq < seq {
		// Our log ends with a wait for cards (desynccards.go): our own
		// hashes say which state came after it.
		rm.passCardsByHash(seq, func(k uint64) []crypto.Hash {
			if k < uint64(len(n.m.hashes)) {
				return []crypto.Hash{n.m.hashes[k]}
			}
			return nil
		})
	}
	if rm.st == nil || rm.seq != seq {
		return nil, fmt.Errorf("lockstep: no state at step %d", seq)
	}
	return rm.st, nil
}

// recheckStates looks again at state envelopes from peers that were
// ahead, now that we may have reached their step, and at the held ones,
// whose authors may since have signed what decides them.
func (n *Node) recheckStates() {
	if len(n.states) > 0 {
		keep := n.states[:0]
		var reached []*crypto.Envelope
		for _, env := range n.states {
			if env.Seq > n.m.seq {
				keep = append(keep, env)
			} else {
				reached = append(reached, env)
			}
		}
		n.states = keep
		for _, env := range reached {
			mi, ok := n.m.byID[env.Author]
			if !ok || n.m.dropped[n.m.seatOf[mi]] {
				continue
			}
			body, err := decodeState(env.Body)
			if err != nil {
				continue
			}
			if n.m.hashes[env.Seq] == env.StateHash {
				// The same state as ours, unless it lies about a step
				// before it.
				if s, differs := n.firstDiff(body); differs {
					_ = n.lie(env, body, s)
				}
				continue
			}
			if done, _ := n.weigh(env, body, true); !done {
				n.hold(env, body)
			}
		}
	}
	n.reweigh(false)
}

// ExplainDesync rebuilds a desync report from a log alone and a state
// envelope kept with it (a RecordState of the log file, or this peer's
// own in a RecordSent): it replays and verifies the log to the envelope's
// step, finds the first step after which the envelope's hashes differ
// from the log's, and diffs the envelope's state against the log's. Mine
// is the log's side. It returns nil if the state agrees with the log.
//
// own are the state envelopes the log's peer signed (its RecordSent ones),
// if any: at a secret table a game stopped by a desync right after a wait
// for cards has no later entry to say which cards the wait opened to
// everyone, and their hashes (or env's, where it agrees) do
// (desynccards.go). One that is not a valid state envelope of the
// session is ignored; none can make the log's state other than what its
// entries and a signed hash bind.
func ExplainDesync(log []*crypto.Envelope, games func(string) (*engine.Game, error), env *crypto.Envelope, own ...*crypto.Envelope) (*DesyncReport, error) {
	if env.Kind != crypto.KindState {
		return nil, fmt.Errorf("%w: a %s envelope explains no desync", ErrBadBody, env.Kind)
	}
	if err := crypto.Verify(env); err != nil {
		return nil, err
	}
	body, err := decodeState(env.Body)
	if err != nil {
		return nil, err
	}
	if err := body.fits(env); err != nil {
		return nil, err
	}
	m, _, err := replayTo(log, games, env.Seq)
	if err != nil {
		return nil, err
	}
	if env.Session != m.session {
		return nil, ErrWrongSession
	}
	if m.st != nil && m.seq < env.Seq {
		hints := []*stateBody{body}
		for _, o := range own {
			if o == nil || o.Kind != crypto.KindState || o.Session != m.session || crypto.Verify(o) != nil {
				continue
			}
			if ob, err := decodeState(o.Body); err == nil && ob.fits(o) == nil {
				hints = append(hints, ob)
			}
		}
		m.passCardsByHash(env.Seq, hashesOf(hints))
	}
	r := replayOf(m)
	if r.Final == nil || uint64(len(r.Steps)) != env.Seq {
		return nil, fmt.Errorf("the log does not reach step %d", env.Seq)
	}
	if r.Hashes[env.Seq] == env.StateHash {
		return nil, nil
	}
	rep := &DesyncReport{Peer: env.Author, Seq: env.Seq, Entry: env.Seq, Evidence: env, TheirState: body.State, Agreed: m.agreed,
		Mine: r.Hashes[env.Seq], Theirs: env.StateHash, MyState: engine.Encode(r.Final),
		EntryWhat: fmt.Sprintf("state before step %d", env.Seq)}
	for i, h := range body.Hashes {
		s := body.From + uint64(i)
		if r.Hashes[s] != h {
			rep.Mine, rep.Theirs = r.Hashes[s], h
			if s > 0 {
				st := r.Steps[s-1]
				rep.Entry, rep.EntryAuthor, rep.EntryWhat = s-1, st.Author, st.Kind
				if st.What != "" {
					rep.EntryWhat = st.Kind + ": " + st.What
				}
			}
			break
		}
	}
	if theirs, err := engine.DecodeState(r.Game, body.State); err == nil {
		rep.Diff = engine.Diff(r.Final, theirs)
	} else {
		rep.Diff = []engine.FieldDiff{{Path: "(state)", A: "decodes", B: "does not decode: " + err.Error()}}
	}
	return rep, nil
}
