package lockstep

import (
	"fmt"
	"sort"
	"strings"

	"github.com/boardmesh/boardmesh/crypto"
)

// The lobby, after the roster is proposed.
//
// A join is not a slot: a joiner that joins again before the roster (an
// honest user who quits and comes back under another name, with the same
// key) replaces its earlier join, and the host's roster names the one it
// holds. Peers holding another join of that member fetch the roster's
// from the host (commitRoster asks).
//
// The accept phase has a time-out (Config.AcceptTimeout): when it passes
// without every accept, the host proposes the roster again without the
// members whose accept it lacks. A re-proposal is a roster of the same
// host and lobby whose members are a strict subset of the current one's
// (so successive rosters can only shrink, and every peer agrees which is
// the latest: the smallest); it has its own session id. A peer in the
// accept phase or the seat draw of the earlier roster takes the new one
// at once and accepts it; envelopes of the superseded session are then
// ignored without blame. The lobby's entries (joins, roster, accepts,
// reveals of round 0) are released in Ready.Entries only once the seats
// are drawn: until then a re-proposal can replace them, and the log on
// disk never holds a roster that was superseded.
//
// The seat draw has the same time-out, counted on each peer from when it
// holds every accept (its last commit). Its reveals are out by then, so a
// re-proposal there could let the host see the draw and choose another;
// three rules keep it from that (docs/protocol.md §9):
//   - the host may re-propose only without exactly the members whose
//     seat-draw reveal it lacks;
//   - a member in the seat draw takes such a re-proposal only after its
//     own time-out, and only if it too lacks exactly those reveals; if it
//     holds one of them it refuses it for good (the draw can complete:
//     the reveal it holds reaches the host by gossip and catch-up), and
//     if it lacks others too it keeps it until they come or the
//     re-proposal can be judged;
//   - every re-proposal draws the seats at a later beacon round
//     (rosterBody.Draw): the chain elements of the new draw have never
//     been revealed, so nobody, the host included, can tell the new draw
//     from the reveals it saw.
//
// When fewer members than the game needs are left with a reveal, the
// lobby stops (ErrCannotStart): it can never start.

// DefaultAcceptTimeout is the default of Config.AcceptTimeout (ms).
const DefaultAcceptTimeout = 20000

// maxJoiners bounds the joins a lobby keeps (one per author).
const maxJoiners = 4 * maxMembers

// joinMatches reports whether a join is the one a roster member names.
func joinMatches(env *crypto.Envelope, mem Member) bool {
	j, err := decodeJoin(env.Body)
	return err == nil && env.Author == mem.ID && j.Name == mem.Name && j.Commitment == mem.Commitment && j.ChainLen == mem.ChainLen
}

// Propose closes the lobby: the host signs a roster of everyone who has
// joined. Only the host may propose.
func (n *Node) Propose() error { return n.ProposeMembers(nil) }

// ProposeMembers closes the lobby with a roster of the joined peers in
// ids (the host is always included); nil means everyone who has joined.
// The runner uses it to admit only the peers that answered its lobby
// challenge. Only the host may propose, once (a re-proposal after the
// accept time-out is the node's own doing).
func (n *Node) ProposeMembers(ids []crypto.PeerID) error {
	if !n.hosting || n.m.phase != PhaseLobby || n.game == nil {
		return fmt.Errorf("%w: only the host can start the game, once", ErrPhase)
	}
	var members []Member
	for _, m := range n.Joined() {
		if ids == nil || m.ID == n.id.ID() || containsID(ids, m.ID) {
			members = append(members, m)
		}
	}
	if len(members) < n.game.MinPlayers || len(members) > n.game.MaxPlayers {
		return fmt.Errorf("%s is for %d to %d players; %d have joined", n.game.Title, n.game.MinPlayers, n.game.MaxPlayers, len(members))
	}
	r := &rosterBody{Lobby: n.lobby, Game: n.game.Name, Version: n.game.Version, Options: n.opts, Members: members, Secret: n.secretTable()}
	n.sign(&crypto.Envelope{Session: n.lobby, Kind: crypto.KindRoster, Body: r.encode()})
	n.advance()
	return nil
}

func containsID(ids []crypto.PeerID, id crypto.PeerID) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}

// strictSubset reports whether every member of a is in b, with the same
// join, and b has more.
func strictSubset(a, b []Member) bool {
	if len(a) >= len(b) {
		return false
	}
	for _, x := range a {
		found := false
		for _, y := range b {
			found = found || x == y
		}
		if !found {
			return false
		}
	}
	return true
}

// rosterOrder sorts candidate rosters so that, of one host's, the latest
// (the smallest) comes first; the body breaks ties, so every peer
// holding the same rosters tries them in the same order.
func rosterOrder(rosters []*crypto.Envelope) {
	size := func(e *crypto.Envelope) int {
		if r, err := decodeRoster(e.Body); err == nil {
			return len(r.Members)
		}
		return 0
	}
	sort.Slice(rosters, func(a, b int) bool {
		x, y := rosters[a], rosters[b]
		if x.Author != y.Author {
			return x.Author < y.Author
		}
		if sx, sy := size(x), size(y); sx != sy {
			return sx < sy
		}
		return string(x.Body) < string(y.Body)
	})
}

// lobbyOpen reports whether the lobby's entries may still be replaced by
// a re-proposal: a roster is agreed but the seats are not drawn.
func (n *Node) lobbyOpen() bool {
	return !n.stopped && (n.m.phase == PhaseAccept || n.m.phase == PhaseSeats)
}

// SessionMayChange reports whether the session id may still change: a
// roster is agreed but the seats are not drawn, so the host may propose
// it again (a new session). Until then an envelope of another session
// from a member may be of the re-proposal that has not arrived yet; the
// node keeps it (bounded) for when it has, and a transport must let it
// through rather than refuse it as another session's. (Added for the
// runner's topic validator; additive.)
func (n *Node) SessionMayChange() bool { return n.lobbyOpen() }

// supersede takes a re-proposal of the roster, if one is buffered: the
// lobby is replayed on a fresh machine with the joins it names and the
// new roster, and this peer accepts it (advance signs the accept).
func (n *Node) supersede() bool {
	if !n.lobbyOpen() {
		return false
	}
	m := n.m
	var cands []*crypto.Envelope
	for s, env := range n.buf {
		if s.kind == crypto.KindRoster && env.Session == n.lobby && env.Author == m.host {
			cands = append(cands, env)
		}
	}
	rosterOrder(cands)
	current := make([]Member, len(m.members))
	for i, mem := range m.members {
		current[i] = mem.Member
	}
	for _, env := range cands {
		r, err := decodeRoster(env.Body)
		if err != nil || !strictSubset(r.Members, current) || r.Draw <= m.roster.Draw {
			n.unbuf(slotOf(env))
			continue
		}
		if m.phase == PhaseSeats {
			if ok, keep := n.drawMayChange(env, r); !ok {
				if !keep {
					n.unbuf(slotOf(env))
				}
				continue
			}
		}
		// The same peer's machine, new entries: its card layer maker
		// with it (fresh).
		try := m.fresh()
		var ferr error
		for _, j := range m.joinEnv {
			if _, in := memberIndex(r.Members, j.Author); in && ferr == nil {
				ferr = try.feed(j)
			}
		}
		if ferr == nil {
			ferr = try.feed(env)
		}
		n.unbuf(slotOf(env))
		if ferr != nil {
			_ = n.reject(env, ferr)
			continue
		}
		why := "accept"
		if m.phase == PhaseSeats {
			why = "seat draw"
		}
		var gone []string
		for _, mem := range current {
			if _, in := memberIndex(r.Members, mem.ID); !in {
				gone = append(gone, m.nameOf(mem.ID))
			}
		}
		n.superseded = append(n.superseded, m.session)
		// Envelopes of the old session are of no use any more.
		for s := range n.buf {
			if s.session == m.session {
				n.unbuf(s)
			}
		}
		n.m = try
		n.acceptSince = n.now
		if m.phase == PhaseSeats && n.hosting {
			// The members take a seat-draw re-proposal after their own
			// time-out, counted from when each held every accept: give
			// them that long again before leaving anyone else out.
			n.acceptSince = n.now + n.cfg.AcceptTimeout
		}
		n.rd.Events = append(n.rd.Events, Event{Kind: EventRoster, Peer: env.Author,
			Text: fmt.Sprintf("the host proposed the table again without %s (no %s in time): %s",
				strings.Join(gone, ", "), why, rosterNames(r))})
		if n.myMember() < 0 {
			n.rd.Events = append(n.rd.Events, Event{Kind: EventRefused, Peer: env.Author, Err: ErrNotMember,
				Text: "the host proposed the table again without this peer (its accept or seat draw did not arrive in time); following the game as a spectator"})
		}
		n.replayEarly = true
		return true
	}
	return false
}

func memberIndex(ms []Member, id crypto.PeerID) (int, bool) {
	for i, m := range ms {
		if m.ID == id {
			return i, true
		}
	}
	return -1, false
}

// repropose is the host's side of the accept and seat-draw time-outs: a
// roster without the members whose accept (or seat-draw reveal) it
// lacks, if enough remain to play.
func (n *Node) repropose() {
	m := n.m
	if !n.hosting || (m.phase != PhaseAccept && m.phase != PhaseSeats) || m.host != n.id.ID() || n.stopped {
		return
	}
	kind, seq, what := crypto.KindAccept, uint64(0), "accept"
	if m.phase == PhaseSeats {
		kind, seq, what = crypto.KindReveal, m.roster.Draw, "seat draw"
	}
	var keep []Member
	var silent []string
	for _, mem := range m.members {
		if _, ok := n.buf[n.slot(kind, mem.ID, seq)]; ok || mem.ID == n.id.ID() {
			keep = append(keep, mem.Member)
		} else {
			silent = append(silent, m.nameOf(mem.ID))
		}
	}
	if len(silent) == 0 {
		return
	}
	n.acceptSince = n.now
	if len(keep) < m.game.MinPlayers {
		if m.phase == PhaseSeats {
			return // drawStalled stops the lobby
		}
		n.rd.Events = append(n.rd.Events, Event{Kind: EventWaiting,
			Text: fmt.Sprintf("no %s from %s; %s needs %d players, so the table waits for them",
				what, strings.Join(silent, ", "), m.game.Title, m.game.MinPlayers)})
		return
	}
	// A later seat-draw round: see rosterBody.Draw.
	r := &rosterBody{Lobby: n.lobby, Game: m.roster.Game, Version: m.roster.Version, Options: m.roster.Options, Members: keep,
		Secret: m.roster.Secret, Draw: m.roster.Draw + 1}
	n.sign(&crypto.Envelope{Session: n.lobby, Kind: crypto.KindRoster, Body: r.encode()})
	n.advance()
}

// superseded reports whether s is the session of a roster replaced by a
// re-proposal.
func (n *Node) isSuperseded(s crypto.Hash) bool {
	for _, x := range n.superseded {
		if x == s {
			return true
		}
	}
	return false
}

// joiners counts the distinct authors of buffered joins.
func (n *Node) joiners() int {
	c := 0
	for s := range n.buf {
		if s.kind == crypto.KindJoin {
			c++
		}
	}
	return c
}

// drawLacking lists the members whose seat-draw reveal this peer lacks
// (never itself), in roster order.
func (n *Node) drawLacking() []int {
	m := n.m
	if m.phase != PhaseSeats {
		return nil
	}
	var out []int
	for mi, mem := range m.members {
		if mem.ID == n.id.ID() {
			continue
		}
		if _, ok := n.buf[n.slot(crypto.KindReveal, mem.ID, m.roster.Draw)]; !ok {
			out = append(out, mi)
		}
	}
	return out
}

// drawTimedOut reports whether this peer has waited the time-out in the
// seat draw (since its last commit: the accepts).
func (n *Node) drawTimedOut() bool {
	return n.m.phase == PhaseSeats && n.now-n.progress >= n.cfg.AcceptTimeout
}

// drawMayChange judges a re-proposal r (in env) that reached this peer
// in the seat draw: ok when it may take it now; otherwise keep says
// whether it may still (wait for the time-out or for other reveals)
// rather than never.
//
// Without the host's reveal here the host may not have signed it: a host
// whose accept phase timed out (an accept it lacks reached this peer)
// re-proposes without revealing, and this peer takes that at once, as in
// the accept phase; the draw cannot complete without the host's reveal.
// With it here, the host held every accept and the draw can complete:
// the strict rule holds.
func (n *Node) drawMayChange(env *crypto.Envelope, r *rosterBody) (ok, keep bool) {
	m := n.m
	var removed []int
	for mi, mem := range m.members {
		if _, in := memberIndex(r.Members, mem.ID); !in {
			removed = append(removed, mi)
		}
	}
	lacking := n.drawLacking()
	hostRevealed := true
	for _, mi := range lacking {
		hostRevealed = hostRevealed && m.members[mi].ID != m.host
	}
	if !hostRevealed {
		return true, false
	}
	for _, mi := range removed {
		if !containsInt(lacking, mi) {
			// A reveal of the draw the host wants to redo is here: the
			// draw can complete, and a host that redid it could choose
			// the seats. Refused; the reveal reaches the host too.
			n.rd.Events = append(n.rd.Events, Event{Kind: EventRefused, Peer: env.Author, Err: ErrRedraw,
				Text: fmt.Sprintf("refused the host's new table without %s: %s's seat draw is here, so the draw can complete and may not be redone",
					m.name(mi), m.name(mi))})
			return false, false
		}
	}
	if !n.drawTimedOut() || len(removed) != len(lacking) {
		return false, true
	}
	return true, false
}

// drawStalled is the seat draw's time-out on this peer: the host
// re-proposes, every peer takes a re-proposal it kept, and a lobby left
// with too few players to start stops.
func (n *Node) drawStalled() {
	if !n.drawTimedOut() || n.stopped {
		return
	}
	m := n.m
	if n.hosting {
		n.repropose()
	}
	n.advance()
	if n.stopped || n.m != m || !n.drawTimedOut() {
		return
	}
	// Not counting the host as missing: one in the accept phase (an
	// accept it lacks reached this peer) has not revealed, and re-proposes.
	var names []string
	for _, mi := range n.drawLacking() {
		if m.members[mi].ID != m.host {
			names = append(names, m.name(mi))
		}
	}
	if len(m.members)-len(names) >= m.game.MinPlayers || n.myMember() < 0 {
		return
	}
	n.stopped = true
	left := fmt.Sprintf("only %d are left", len(m.members)-len(names))
	if len(m.members)-len(names) == 1 {
		left = "only this peer is left"
	}
	err := fmt.Errorf("%w: the seat draw of %s never came; %s needs %d players and %s",
		ErrCannotStart, strings.Join(names, ", "), m.game.Title, m.game.MinPlayers, left)
	n.rd.Events = append(n.rd.Events, Event{Kind: EventRefused, Err: err, Text: err.Error()})
}
