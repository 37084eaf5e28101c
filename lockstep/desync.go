package lockstep

import (
	"errors"
	"fmt"

	"github.com/boardmesh/boardmesh/crypto"
	"github.com/boardmesh/boardmesh/engine"
)

// suspect reacts to an envelope whose state hash is not ours. Either its
// author lies, or one of us has diverged; we cannot tell alone, so we send
// our canonical state: a peer that has really diverged finds the
// difference, reports it and sends its own, and a liar learns nothing it
// did not know. A checkpoint mismatch also stops the game, as the design
// requires: the next turn cannot start without agreement.
func (n *Node) suspect(env *crypto.Envelope, err error) {
	if !errors.Is(err, ErrCheckpoint) && !errors.Is(err, ErrStateHash) {
		return
	}
	n.sendState(n.m.seq)
	if errors.Is(err, ErrCheckpoint) {
		n.stopped = true
	}
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
		if st, err = n.stateAt(seq); err != nil {
			return
		}
	}
	n.stateSent[seq] = true
	from := min(m.agreed, seq)
	b := &stateBody{From: from, Hashes: append([]crypto.Hash(nil), m.hashes[from:seq+1]...), State: engine.Encode(st)}
	n.sign(&crypto.Envelope{Session: m.session, Seq: seq, Kind: crypto.KindState, StateHash: m.hashes[seq], Body: b.encode()})
}

// stepState takes another peer's state and, if it differs from ours at
// the same step, builds the desync report.
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
		// They are ahead. If our common steps already differ, send our
		// state at our step: they will answer with theirs at the same one.
		for i, h := range body.Hashes {
			if s := body.From + uint64(i); s <= m.seq && m.hashes[s] != h {
				n.sendState(m.seq)
				break
			}
		}
		n.keepState(env)
		return nil
	}
	if m.hashes[env.Seq] == env.StateHash {
		return nil
	}
	n.report(env, mi, body)
	return nil
}

// report builds the desync report against a differing state envelope.
func (n *Node) report(env *crypto.Envelope, mi int, body *stateBody) {
	m := n.m
	r := &DesyncReport{Peer: env.Author, Seq: env.Seq, Evidence: env, TheirState: body.State}
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
	if env.Seq < m.seq {
		if s, err := n.stateAt(env.Seq); err == nil {
			mine = s
		}
	}
	r.MyState = engine.Encode(mine)
	if theirs, err := engine.DecodeState(m.game, body.State); err == nil {
		r.Diff = engine.Diff(mine, theirs)
	} else {
		r.Diff = []engine.FieldDiff{{Path: "(state)", A: "decodes", B: "does not decode: " + err.Error()}}
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
	for _, env := range n.m.log {
		if rm.phase == PhasePlaying && rm.seq >= seq {
			break
		}
		if err := rm.feed(env); err != nil {
			return nil, err
		}
	}
	if rm.st == nil || rm.seq != seq {
		return nil, fmt.Errorf("lockstep: no state at step %d", seq)
	}
	return rm.st, nil
}

// recheckStates looks again at state envelopes from peers that were ahead.
func (n *Node) recheckStates() {
	if len(n.states) == 0 || n.stopped {
		return
	}
	keep := n.states[:0]
	for _, env := range n.states {
		if env.Seq > n.m.seq {
			keep = append(keep, env)
			continue
		}
		if n.m.hashes[env.Seq] != env.StateHash {
			body, _ := decodeState(env.Body)
			n.report(env, n.m.byID[env.Author], body)
		}
	}
	n.states = keep
}

// ExplainDesync rebuilds a desync report from a log alone and a state
// envelope kept with it (a RecordState of the log file, or this peer's
// own in a RecordSent): it replays and verifies the log to the envelope's
// step, finds the first step after which the envelope's hashes differ
// from the log's, and diffs the envelope's state against the log's. Mine
// is the log's side. It returns nil if the state agrees with the log.
func ExplainDesync(log []*crypto.Envelope, games func(string) (*engine.Game, error), env *crypto.Envelope) (*DesyncReport, error) {
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
	r, _, err := ReplayAt(log, games, env.Seq)
	if err != nil {
		return nil, err
	}
	if env.Session != r.Session {
		return nil, ErrWrongSession
	}
	if r.Final == nil || uint64(len(r.Steps)) != env.Seq {
		return nil, fmt.Errorf("the log does not reach step %d", env.Seq)
	}
	if r.Hashes[env.Seq] == env.StateHash {
		return nil, nil
	}
	rep := &DesyncReport{Peer: env.Author, Seq: env.Seq, Entry: env.Seq, Evidence: env, TheirState: body.State,
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
