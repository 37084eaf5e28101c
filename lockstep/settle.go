package lockstep

import (
	"fmt"
	"sort"

	"github.com/boardmesh/boardmesh/crypto"
)

// Settling (kind settle, protocol §5.6). A voter takes only the round of
// its own greatest vote at a log position (mayTakeDrop), which keeps two
// honest peers from taking two rounds, but can hold honest voters for
// good: at five seats with E gone, A, B, C and D vote E out, D holds its
// vote back, A and B extend theirs to D and E, and D then shows its vote
// for E to C alone. C takes E's drop (its greatest vote), and A and B,
// whose greatest round can no longer complete (it needs C), wait for
// each other: three honest seats of five stand still because one hostile
// seat chose the order (TestHostileVoterCannotStallHonestMajority).
//
// A settle is a voter's signed word that at log position seq it takes no
// round but the one for the seats in its body (and never commits that
// position otherwise). A peer signs one per position at most: two that
// name two rounds are an equivocation, proven like any other. It signs
// one
//   - after taking a round at a position where it saw a vote for another
//     seat set (settleTaken), or when such a vote comes later
//     (settleStale): its word then is only what its log shows; and
//   - when it has voted there, a smaller round S than its greatest is
//     complete, and each of its greater votes V has a voter other than
//     itself that settled on S (settleHeld): V needs that voter, so no
//     honest peer can take V unless that voter lied.
//
// A peer may then take S (a round below its greatest vote) once it has
// settled on S itself and every voter other than itself of each of its
// votes above S has settled on S too (othersSettled). That is safe, with
// the rule it extends: say honest P takes S and honest Q takes T ≠ S, P
// outside T and Q outside S, so P voted T and Q voted S.
//   - If P took S by settling and T is above S, T's voter Q settled on S,
//     and an honest Q takes only S there.
//   - If P took S by settling and T is below S, then Q voted S, above T,
//     so Q did not take T as its greatest vote; it took T by settling, so
//     S's voter P settled on T. But P settled on S, and signs one settle
//     per position.
//   - Neither settled: the rule of greatest votes (advance.go).
//
// A settled peer may still follow a greater round that drops its own
// seat (the others went on without it), as before.
//
// A settle may name no seats: no drop at all. Voters held by a round that
// the others went past without voting (E's action reached them, while A
// and B, which it reached late, voted E out) waited for each other's gap
// answers for good, each a voter the other's round needs. A peer that
// committed a position otherwise settles on no drop there when it holds,
// or later gets, another member's vote for it (settleWentOn,
// settleStale); a held voter settles on no drop once each round it voted
// has a voter other than itself that did (maySettleNone), and commits the
// position otherwise once every such voter did (settledNone), or once the
// gap answers free it as before (noteWentOn: that keeps its word too). The proof
// is the one above, with no drop as the round taken: a round T that
// honest Q takes needs P's vote, so P's rule needed Q's settle on no drop.
//
// A hostile voter can still hold an honest one: it votes V, settles on S
// to one peer (who settles too) and lets another take V with its vote.
// The settled peer then waits, as a held voter did before, and the others
// drop it after their drop period; no two honest logs part.

// settleOn signs this node's settle on seats at log position at, unless
// it settled there already. It reports whether it signed.
func (n *Node) settleOn(at uint64, seats []int) bool {
	if n.settled[at] != nil {
		return false
	}
	env := n.sign(&crypto.Envelope{Session: n.m.session, Seq: at, Kind: crypto.KindSettle, Body: encodeSeats(seats)})
	if string(env.Body) != string(encodeSeats(seats)) {
		// Signed before (sign never signs a slot again), and so bound:
		// noteOwnSettle has it.
		n.noteOwnSettle(env)
		return false
	}
	n.settled[at] = seats
	n.keepSettle(env)
	return true
}

// noteOwnSettle binds this node to a settle of its own it finds signed:
// from its disk at a restart, or back from a peer after a crash that lost
// it from the disk.
func (n *Node) noteOwnSettle(env *crypto.Envelope) {
	if env.Kind != crypto.KindSettle || n.settled[env.Seq] != nil {
		return
	}
	seats, err := decodeSettle(env.Body, maxSeats)
	if err != nil {
		return
	}
	n.settled[env.Seq] = seats
	n.keepSettle(env)
}

// keepSettle keeps one of our settles for the gap answers of voters held
// at its position (Answer), the last maxSettles of them.
func (n *Node) keepSettle(env *crypto.Envelope) {
	n.settles = append(n.settles, env)
	if len(n.settles) > maxSettles {
		n.settles = n.settles[len(n.settles)-maxSettles:]
	}
}

// maxSettles bounds the settles a node keeps for answers: one per drop
// position it saw contested, and a table of eight drops six seats at most.
const maxSettles = 16

// settleTaken signs the settle of a peer that took the round for seats
// at log position at, where another round was voted: the held voters of
// the other round may need its word to go on. The settle leaves the
// buffer at once: its position is committed, so it is not re-sent, but
// served in gap answers (settlesFrom), which held voters ask every peer
// for.
func (n *Node) settleTaken(at uint64, seats []int) {
	if n.settleOn(at, seats) {
		n.unbuf(n.slot(crypto.KindSettle, n.id.ID(), at))
	}
}

// settleStale answers a drop vote that came after this node committed its
// position: the voter may be held by its vote, and this node settles on
// what it did there: the drop of other seats it took, or no drop at all
// (the entry there is not a drop vote).
func (n *Node) settleStale(env *crypto.Envelope) {
	m := n.m
	if env.Kind != crypto.KindDrop || env.Seq >= uint64(len(m.log)) || n.settled[env.Seq] != nil || m.seatOf == nil ||
		env.Session != m.session || m.phase < PhasePlaying {
		return
	}
	entry := m.log[env.Seq]
	if entry.Kind != crypto.KindDrop {
		n.settleTaken(env.Seq, []int{})
		return
	}
	if string(entry.Body) == string(env.Body) {
		return
	}
	seats, err := decodeSeats(entry.Body, len(m.seats))
	if err != nil {
		return
	}
	n.settleTaken(env.Seq, seats)
}

// settleWentOn settles on no drop at each log position from from on that
// this node has just committed otherwise while it held another member's
// drop vote for it (sorted, so that what it signs is in one order), and
// forgets those votes: they can no longer complete.
func (n *Node) settleWentOn(from uint64) {
	m := n.m
	if m.phase != PhasePlaying && m.phase != PhaseOver || !n.buffers(crypto.KindDrop) {
		return // (after every commit: no walk of the buffer without a vote in it)
	}
	var at []uint64
	for s, env := range n.buf {
		if s.kind == crypto.KindDrop && env.Seq >= from && env.Seq < uint64(len(m.log)) && env.Author != n.id.ID() {
			at = append(at, env.Seq)
			n.unbuf(s)
		}
	}
	sort.Slice(at, func(a, b int) bool { return at[a] < at[b] })
	for _, p := range at {
		if m.log[p].Kind != crypto.KindDrop && n.settled[p] == nil {
			n.settleTaken(p, []int{})
		}
	}
}

// settledNone reports whether this node, held by its votes at log
// position at, may commit the position otherwise: it settled on no drop
// there, and so did every voter but itself of each round it voted.
func (n *Node) settledNone(at uint64) bool {
	seats := n.settled[at]
	return seats != nil && len(seats) == 0 && n.settledBy(at, seats, true)
}

// maySettleNone reports whether this node, held by its votes at log
// position at, may settle on no drop: each round it voted has a voter
// other than itself that settled on no drop (went on without voting),
// so no honest peer can take that round.
func (n *Node) maySettleNone(at uint64) bool {
	return len(n.voted[at]) > 0 && n.settled[at] == nil && n.settledBy(at, []int{}, false)
}

// otherRounds reports whether this node voted, or holds a vote of anyone,
// for a seat set other than seats at log position at.
func (n *Node) otherRounds(at uint64, seats []int) bool {
	for _, v := range n.voted[at] {
		if !equalInts(v, seats) {
			return true
		}
	}
	body := string(encodeSeats(seats))
	for s, env := range n.buf {
		if s.kind == crypto.KindDrop && env.Seq == at && s.extra != body {
			return true
		}
	}
	return false
}

// hasSettle reports whether member id settled on seats at log position
// at (a settle of its in the buffer).
func (n *Node) hasSettle(id crypto.PeerID, at uint64, seats []int) bool {
	env, ok := n.buf[n.slot(crypto.KindSettle, id, at)]
	return ok && string(env.Body) == string(encodeSeats(seats))
}

// othersSettled reports whether, for each of this node's votes above
// seats at log position at, every voter of it but this node settled on
// seats there.
func (n *Node) othersSettled(at uint64, seats []int) bool { return n.settledBy(at, seats, true) }

// settledBy reports whether each of this node's votes above seats at log
// position at (every vote, for no seats) has voters other than this node
// that settled on seats there: all of them (every), or at least one.
func (n *Node) settledBy(at uint64, seats []int, every bool) bool {
	m := n.m
	for _, v := range n.voted[at] {
		if !voteLess(seats, v) {
			continue
		}
		found, missing := false, false
		for _, mi := range m.dropVoters(v) {
			if id := m.members[mi].ID; id != n.id.ID() {
				if n.hasSettle(id, at, seats) {
					found = true
				} else {
					missing = true
				}
			}
		}
		if every && missing || !every && !found {
			return false
		}
	}
	return true
}

// maySettle reports whether this node, held by its votes at log position
// at, may settle on the smaller round seats: it voted there, seats is
// below its greatest vote and does not drop it, and each of its votes
// above seats has a voter other than this node that settled on seats.
func (n *Node) maySettle(at uint64, seats []int) bool {
	own := n.ownDropVote(at)
	if own == nil || n.settled[at] != nil || !voteLess(seats, own) || containsInt(seats, n.mySeat()) {
		return false
	}
	return n.settledBy(at, seats, false)
}

// settleHeld settles on a complete smaller round at the current log
// position that maySettle allows, the first in seat order.
func (n *Node) settleHeld() {
	m := n.m
	at := uint64(len(m.log))
	if m.phase != PhasePlaying || m.group != nil || len(n.voted[at]) == 0 || n.settled[at] != nil {
		return
	}
	var sets [][]int
	for s, env := range n.buf {
		if s.kind != crypto.KindSettle || env.Seq != at {
			continue
		}
		seats, err := decodeSettle(env.Body, len(m.seats))
		if err == nil && len(seats) > 0 && n.maySettle(at, seats) {
			sets = addSet(sets, seats)
		}
	}
	sort.Slice(sets, func(a, b int) bool { return lessInts(sets[a], sets[b]) })
	for _, seats := range sets {
		if _, _, _, ok := n.roundVotes(seats); !ok {
			continue
		}
		if n.settleOn(at, seats) {
			n.rd.Events = append(n.rd.Events, Event{Kind: EventDropVote, Seats: seats, Seq: m.seq,
				Text: fmt.Sprintf("settled on the drop of %s: a peer that the greater drop this peer voted for needs took it, so that drop can no longer complete; this peer takes it once the others held with it settle too", m.seatNames(seats))})
		}
		return
	}
	if n.maySettleNone(at) && n.settleOn(at, []int{}) {
		n.rd.Events = append(n.rd.Events, Event{Kind: EventDropVote, Seq: m.seq,
			Text: "settled on no drop here: a peer that every drop this peer voted for here needs went on without it, so none can complete; this peer goes on once the others held with it settle too"})
	}
}

// settlesFrom is this node's settles at log positions from from up to
// its log's end: the ones a voter held there may lack.
func (n *Node) settlesFrom(from uint64) []*crypto.Envelope {
	var out []*crypto.Envelope
	for _, env := range n.settles {
		if env.Seq >= from && env.Seq < uint64(len(n.m.log)) {
			out = append(out, env)
		}
	}
	return out
}

// settleWaits are the waits of a node that settled at the current log
// position: each voter of a greater vote of its that has not settled too.
func (n *Node) settleWaits() []Wait {
	m := n.m
	at := uint64(len(m.log))
	seats := n.settled[at]
	if m.phase != PhasePlaying || seats == nil {
		return nil
	}
	var out []Wait
	var named []int
	for _, v := range n.voted[at] {
		if !voteLess(seats, v) {
			continue
		}
		for _, mi := range m.dropVoters(v) {
			if id := m.members[mi].ID; id == n.id.ID() || n.hasSettle(id, at, seats) || containsInt(named, mi) {
				continue
			}
			named = append(named, mi)
			why := fmt.Sprintf("held: this peer settled on the drop of %s here, and takes it once every peer held with it settles too", m.seatNames(seats))
			if len(seats) == 0 {
				why = "held: this peer settled on no drop here, and goes on once every peer held with it settles too"
			}
			out = append(out, Wait{Peer: m.members[mi].ID, Name: m.name(mi), Seat: m.seatOf[mi], What: voteWaiting, For: n.now - n.progress, Why: why})
		}
	}
	return out
}
