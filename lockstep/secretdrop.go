package lockstep

import (
	"fmt"
	"strings"

	"github.com/boardmesh/boardmesh/crypto"
	"github.com/boardmesh/boardmesh/engine"
)

// A drop on a secret table (3 or more seats in play). The drop votes
// commit as on an open table (finishDrop); then, before the game drops the
// seat, the card layer rebuilds the dropped seat's key from the escrow
// pieces the others publish (lockstep/deal's Drop), and every card the
// dropped seat held becomes public: nobody can open them for it any more,
// and the bot or the game's own rule for a departed player (each rules
// document's "A player who leaves") plays its cards face up. The drop is
// then counted as one step, like a drop of an open table's Dropper, at the
// first point where the state does not wait for cards: the card layer
// finishes the batch in flight first (with the rebuilt key's shares), in
// the same order on every peer, so every peer counts the same steps and
// hashes the same states whenever its pieces arrived.
//
// A table of two cannot drop (the votes need a strict majority): the game
// pauses, and the one left may claim the win (claim.go).

// startCardDrop hands the agreed drop of seats to the card layer.
func (m *machine) startCardDrop(seats []int) error {
	if m.cards != nil {
		for _, s := range seats {
			if err := m.cards.Drop(s); err != nil {
				return fmt.Errorf("lockstep: the hidden cards cannot drop seat %d: %w", s+1, err)
			}
		}
	}
	// A drop agreed while an earlier one still waits for its pieces joins
	// it: both are counted as one step once both keys are rebuilt.
	m.dropCards = append(m.dropCards, seats...)
	return nil
}

// dropReady reports whether the pending drop's step may be counted now.
func (m *machine) dropReady() bool {
	return m.phase == PhasePlaying && len(m.dropCards) > 0 && !m.cardsPending && !m.needCP && m.group == nil
}

// finishCardDrop counts the drop step: the dropped seats' cards are
// public in the state (shown by the card layer, or, for Verify, read from
// the next action's list), then the game drops them.
func (m *machine) finishCardDrop() error {
	m.posFrom() // a step with no entry (cardsDone)
	seats := m.dropCards
	m.dropCards = nil
	shown := m.newlyPublic()
	m.opened = append(m.opened, shown...)
	m.events = append(m.events, Event{Kind: EventDropped, Seats: seats, Seq: m.seq,
		Text: fmt.Sprintf("the card key of %s is rebuilt from the others' escrow pieces; %d hidden card(s) it held are shown to all", m.seatNames(seats), len(shown))})
	return m.applyDrop(seats)
}

// cardDropStep counts a pending drop once the card layer has rebuilt
// every dropped key.
func (n *Node) cardDropStep() bool {
	m := n.m
	if !m.dropReady() || m.cards == nil {
		return false
	}
	for _, s := range m.dropCards {
		if !m.cards.DropDone(s) {
			return false
		}
	}
	for _, s := range m.dropCards {
		if err := m.cards.ShowDropped(s); err != nil {
			n.rd.Events = append(n.rd.Events, Event{Kind: EventCheat, Cheat: CheatCards, Seq: m.seq, Text: err.Error()})
			return false
		}
	}
	if err := m.finishCardDrop(); err != nil {
		n.rd.Events = append(n.rd.Events, Event{Kind: EventCheat, Cheat: CheatCards, Seq: m.seq, Text: err.Error()})
	}
	n.progress = n.now
	return true
}

// verifyDrop is Verify's (and a seat-less peer's) way past a pending drop
// at entry env: the values of the cards the dropped seats held come from
// the list of cards opened to everyone that the next action carries (the
// live seats' card layers computed them from the rebuilt keys; the state
// hashes every seat signs after bind them).
func (m *machine) verifyDrop(env *crypto.Envelope) error {
	if m.cards != nil || !m.dropReady() {
		return nil
	}
	next := env
	for i := 0; next.Kind != crypto.KindAction && i < len(m.ahead); i++ {
		next = m.ahead[i]
	}
	if next.Kind != crypto.KindAction && m.droppedHidden() {
		// A growing log (Verifier) has not brought the action that names
		// them yet: it holds the entries until it has (as for a wait for
		// cards), rather than counting the drop without them, in a state
		// whose hash no seat signed.
		return fmt.Errorf("%w: the log does not say yet which hidden cards %s held (%w)", ErrUnexpected, m.seatNames(m.dropCards), errOpenedAhead)
	}
	if next.Kind == crypto.KindAction {
		s, err := decodeSecretAction(next.Body)
		if err != nil {
			return err
		}
		c := m.st.(engine.CardState).Cards()
		for _, p := range s.opened {
			if _, pub := c.Public(p.h); pub {
				continue
			}
			held := false
			for _, d := range m.dropCards {
				held = held || c.Seen(p.h, d)
			}
			if !held {
				continue
			}
			if err := c.Open(engine.Opening{Deck: p.h.Deck, Pos: p.h.Pos, To: engine.Public}, int(p.card)); err != nil {
				return fmt.Errorf("%w: %v", ErrIllegal, err)
			}
		}
	}
	return m.finishCardDrop()
}

// cardWaits is whom the card layer waits for, while the state waits for
// cards or a drop waits for the pieces of a key: the status shows it
// ("waiting for bob's decryption shares for batch 3"), and Tick's stall
// and drop machinery acts on it as on a missing action.
func (n *Node) cardWaits() []Wait {
	m := n.m
	if m.cards == nil || m.phase != PhasePlaying || !m.cardsPending && len(m.dropCards) == 0 {
		return nil
	}
	var out []Wait
	for _, w := range m.cards.Waiting() {
		// A dropped seat is listed too: its link of a shuffle chain
		// declared before its drop that another seat holds is still
		// awaited (lockstep/deal), and the status must say so rather
		// than nothing.
		if w.Seat < 0 || w.Seat >= len(m.seats) {
			continue
		}
		mi := m.seats[w.Seat]
		out = append(out, Wait{Peer: m.members[mi].ID, Name: m.name(mi), Seat: w.Seat, What: w.What, For: n.now - n.progress, Why: n.cardWhy(w)})
	}
	if n.cardsHeld() {
		// A restarted seat's layer signs nothing new until every other
		// seat in play has answered its catch-up (releaseCards): what the
		// deal waits for from this seat is held, and the seats that have
		// not answered yet are what it waits for.
		for _, mi := range m.activeMembers() {
			id := m.members[mi].ID
			if id == n.id.ID() || containsID(n.cardHeard, id) {
				continue
			}
			seat := m.seatOf[mi]
			why := fmt.Sprintf("held: waiting for %s (seat %d) to answer the card catch-up after restart", m.name(mi), seat+1)
			found := false
			for i := range out {
				if out[i].Seat == seat {
					out[i].Why, found = why, true
				}
			}
			if !found {
				out = append(out, Wait{Peer: id, Name: m.name(mi), Seat: seat, What: "an answer to the card catch-up", For: n.now - n.progress, Why: why})
			}
		}
	}
	return out
}

// cardWhy says why the card layer's wait w is held, or "": a dropped seat
// the deal still waits for (its link of a shuffle chain, issue 12), or a
// piece of a dropped seat's key that the others' escrow must give.
func (n *Node) cardWhy(w CardWait) string {
	m := n.m
	if m.dropped[w.Seat] {
		return fmt.Sprintf("held: %s (seat %d) was dropped, but the cards still wait for this from it", m.name(m.seats[w.Seat]), w.Seat+1)
	}
	if !strings.HasPrefix(w.What, "its piece of ") {
		return ""
	}
	for _, d := range m.dropCards {
		// The deal rebuilds the dropped keys in the order of the drops:
		// the first not done is the one it waits for.
		if d >= 0 && d < len(m.seats) && !m.cards.DropDone(d) {
			return fmt.Sprintf("held: %s (seat %d) was dropped; its card key is rebuilt from every other seat's escrow piece before the game goes on", m.name(m.seats[d]), d+1)
		}
	}
	return ""
}

// Convicted seats. A seat the card layer proved a cheat by an envelope it
// signed itself (a decryption share whose proof fails, or a share envelope
// that leaves out one it owes: CardCheat.Convicted) is dropped like a seat
// that vanished, without the drop time: each honest seat's node votes to
// drop it at the first Tick after its own card layer has checked the proof
// (dropConvicted). The drop is the ordinary drop vote, so every peer, and
// Verify, takes it at the same log position, and it needs every other seat
// in play to vote, so no peer can drop an honest one by claiming a proof:
// each voter has checked the signed envelope itself. The proof itself
// does not go into the log (a Verify has no card layer to check a share
// with); the votes do. What does not convict: a forged signature (it
// proves nothing against the seat it names) and a share that never comes
// (a stall: the vote waits for the drop time, Config.DropAfter). At a
// table of two there is no drop: the game pauses and the honest player may
// claim the win at once (claim.go). A forged shuffle convicts the same way:
// once its author is dropped, the card layer redoes the chain without it
// (lockstep/deal/forge.go); a re-masking proven wrong too. A cheat the card
// layer proved and stopped at (a bad key proof, an envelope for a slot
// that owes none) convicts too: a table of two may claim at once, a
// larger one stands still, named.

// convict records that the card layer proved seat (0-based) a cheat:
// the first cheat proved is the one kept (its text, name and proof).
func (n *Node) convict(seat int, c CardCheat) {
	if seat < 0 || seat >= len(n.m.seats) || c.Text == "" {
		return
	}
	if n.convicted == nil {
		n.convicted = make([]CardCheat, len(n.m.seats))
	}
	if n.convicted[seat].Text == "" {
		n.convicted[seat] = c
	}
}

// votedOut reports whether this node's seat is dropped, or whether this
// node holds drop votes for a seat set with its own seat in it, at its log
// position or an earlier one, from every voter that drop needs (a strict
// majority of the seats in play, dropQuorum):
// the others can take that drop and go on without this node, which is
// then no judge of the card envelopes they send after it (drainCards).
// Earlier ones: a node whose envelopes were lost on the way goes on alone
// past the position where the others voted it out (forked stops it once
// a catch-up shows their log); their votes are stale to it, and only the
// ones against its own seat are kept, in votesOut. A minority cannot make
// a complete set: it needs the votes of every seat outside it.
func (n *Node) votedOut() bool {
	me := n.mySeat()
	if me < 0 || n.m.phase != PhasePlaying {
		return false
	}
	if n.m.dropped[me] {
		return true // the drop is taken: this seat is out of the deal
	}
	var votes []*crypto.Envelope
	at := uint64(len(n.m.log))
	for s, env := range n.buf { // any complete set will do: the order does not matter
		if s.kind == crypto.KindDrop && env.Seq == at {
			votes = append(votes, env)
		}
	}
	votes = append(votes, n.votesOut...)
	for _, v := range votes {
		seats, err := decodeSeats(v.Body, len(n.m.seats))
		if err != nil || !containsInt(seats, me) || v.Seq > at {
			continue
		}
		who, ok := n.m.dropQuorum(seats)
		if !ok {
			continue
		}
		all := true
		for _, mi := range who {
			found := false
			for _, o := range votes {
				found = found || o.Author == n.m.members[mi].ID && o.Seq == v.Seq && string(o.Body) == string(v.Body)
			}
			all = all && found
		}
		if all {
			return true
		}
	}
	return false
}

// maxVotesOutPerMember bounds votesOut: a few positions' votes per member.
const maxVotesOutPerMember = 4

// keepVoteOut keeps a member's signed drop vote for an earlier log
// position that drops this node's seat (votedOut), at most
// maxVotesOutPerMember per member, the latest kept.
func (n *Node) keepVoteOut(env *crypto.Envelope) {
	if env.Kind != crypto.KindDrop || n.m.phase != PhasePlaying || env.Session != n.m.session || env.Seq >= uint64(len(n.m.log)) {
		return
	}
	if _, ok := n.m.member(env.Author); !ok || env.Author == n.id.ID() {
		return
	}
	seats, err := decodeSeats(env.Body, len(n.m.seats))
	if err != nil || !containsInt(seats, n.mySeat()) {
		return
	}
	mine, oldest := 0, -1
	for i, v := range n.votesOut {
		if crypto.Equal(v, env) {
			return
		}
		if v.Author == env.Author {
			mine++
			if oldest < 0 || v.Seq < n.votesOut[oldest].Seq {
				oldest = i
			}
		}
	}
	if mine >= maxVotesOutPerMember {
		if env.Seq <= n.votesOut[oldest].Seq {
			return
		}
		n.votesOut = append(n.votesOut[:oldest], n.votesOut[oldest+1:]...)
	}
	n.votesOut = append(n.votesOut, env)
}

// convictedWhy is why seat was proven a cheat, or "".
func (n *Node) convictedWhy(seat int) string {
	if seat < 0 || seat >= len(n.convicted) {
		return ""
	}
	return n.convicted[seat].Text
}

// dropConvicted votes to drop each convicted seat still in play, where a
// drop is possible now (3 or more seats in play, no round open).
func (n *Node) dropConvicted() {
	m := n.m
	if n.stopped || n.replaying || m.phase != PhasePlaying || len(m.dropCards) > 0 || m.cards == nil || m.cards.Err() != nil {
		// (A stopped card layer cannot rebuild a key: the drop would
		// stand still as the cheat did.)
		return
	}
	me := n.mySeat()
	for s, c := range n.convicted {
		if c.Text == "" || s == me || m.dropped[s] {
			continue
		}
		if _, ok := m.dropExpectation([]int{s}); !ok {
			continue
		}
		_ = n.voteDrop([]int{s}, "the card protocol proved it a cheat by an envelope it signed")
	}
}

// votesPin reports whether rest, the log a replaying node is about to
// feed, starts with a round of drop votes at the current log position
// whose votes all name steps this node has been in at this position: the
// round was taken at one of them (the latest, machine.dropStep), so a
// wait for cards open now was still open then and must not end before
// the round. A vote that names a state not reached yet is after the
// wait: the wait ended first.
func (m *machine) votesPin(rest []*crypto.Envelope) bool {
	if len(rest) == 0 || rest[0].Kind != crypto.KindDrop || rest[0].Seq != uint64(len(m.log)) {
		return false
	}
	for _, env := range rest {
		if env.Kind != crypto.KindDrop || env.Seq != rest[0].Seq || string(env.Body) != string(rest[0].Body) {
			break
		}
		if _, ok := m.voteStep(env.StateHash); !ok {
			return false
		}
	}
	return true
}

// droppedHidden reports whether a seat whose drop is pending holds a
// card not public: the drop's step shows it (verifyDrop).
func (m *machine) droppedHidden() bool {
	c := m.st.(engine.CardState).Cards()
	for d := 0; d < c.NumDecks(); d++ {
		for p := 0; c.Valid(engine.Handle{Deck: uint8(d), Pos: uint16(p)}); p++ {
			h := engine.Handle{Deck: uint8(d), Pos: uint16(p)}
			if _, pub := c.Public(h); pub {
				continue
			}
			for _, s := range m.dropCards {
				if c.Seen(h, s) {
					return true
				}
			}
		}
	}
	return false
}
