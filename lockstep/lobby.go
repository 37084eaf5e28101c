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
// disk never holds a roster that was superseded. The host cannot
// re-propose after the seat draw: the draw needs its own reveal for round
// 0, which it signs only once it holds every accept.

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
		if err != nil || !strictSubset(r.Members, current) {
			n.unbuf(slotOf(env))
			continue
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
		n.rd.Events = append(n.rd.Events, Event{Kind: EventRoster, Peer: env.Author,
			Text: fmt.Sprintf("the host proposed the table again without %s (no accept in time): %s",
				strings.Join(gone, ", "), rosterNames(r))})
		if n.myMember() < 0 {
			n.rd.Events = append(n.rd.Events, Event{Kind: EventRefused, Peer: env.Author, Err: ErrNotMember,
				Text: "the host proposed the table again without this peer (its accept did not arrive in time); following the game as a spectator"})
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

// repropose is the host's side of the accept time-out: a roster without
// the members whose accept it lacks, if enough remain to play.
func (n *Node) repropose() {
	m := n.m
	if !n.hosting || m.phase != PhaseAccept || m.host != n.id.ID() || n.stopped {
		return
	}
	var keep []Member
	var silent []string
	for _, mem := range m.members {
		if _, ok := n.buf[n.slot(crypto.KindAccept, mem.ID, 0)]; ok || mem.ID == n.id.ID() {
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
		n.rd.Events = append(n.rd.Events, Event{Kind: EventWaiting,
			Text: fmt.Sprintf("no accept from %s; %s needs %d players, so the table waits for them",
				strings.Join(silent, ", "), m.game.Title, m.game.MinPlayers)})
		return
	}
	r := &rosterBody{Lobby: n.lobby, Game: m.roster.Game, Version: m.roster.Version, Options: m.roster.Options, Members: keep, Secret: m.roster.Secret}
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
