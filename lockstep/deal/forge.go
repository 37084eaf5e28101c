package deal

import (
	"fmt"

	"github.com/boardmesh/boardmesh/crypto"
)

// Forged shuffles at a table of 3 or more. A shuffle link whose proof
// fails, or whose output is no deck of its chain, is signed by its author:
// it convicts it (convict.go), and the table drops it as it drops a seat
// proven to give a wrong share. The chain cannot simply skip the forged
// link as it skips one that never came (escrow.go's decideChains): each
// seat makes its own link as soon as its predecessor's output is in, and
// checks the proofs after (the pipeline that keeps the setup fast), so the
// seats after the forger may have shuffled its forged output already.
//
// So, once the forger is dropped, the chain is redone from the last valid
// link: the first link in seat order that is not checked is the forged
// one, every link before it is checked (their proofs do not depend on
// anything after), and the redo's input is the output of those links. The
// seats after the forger that have a link in the chain shuffle again, in
// seat order, the seats up to the forger have none in the redo (their
// shuffles are in its input), so every honest seat has shuffled the deck
// once and it stays unknown to each. The redo's shuffle envelopes take a
// new seq, redoSeq(chain, forger), which no other chain or attempt uses,
// so no honest seat signs a slot twice; the proofs bind it. Every peer
// comes to the same redo: whether a link's proof holds is a property of
// the signed envelope and of its input, the first unchecked link in seat
// order is the same on every peer that holds the links before it, and the
// drop is at the same place of the log. A restarted seat comes to it
// again as its links and the drop come back. A second forger in the redo
// is redone the same way.
//
// Who shuffles again is fixed by the log, not by when each peer made the
// redo: the seats after the forger that had a link in the attempt, less
// those dropped before the forger (Drop's order). A seat after the forger
// dropped after it stays one of them on every peer, whether it went
// before or after this peer's redo; its holders' lists (which name the
// redo's seq) decide whether its link of the redo is skipped (escrow.go).

// chainMask and redoSeq: the seq of the shuffle envelopes of chain ci's
// redo without forger f. A chain's own seq is its index (below 2^32).
const chainMask = 1<<32 - 1

func redoSeq(ci, f int) uint64 { return uint64(f+1)<<32 | uint64(ci) }

// chainOf is the chain that shuffle seq belongs to, if it is declared
// here: its index, or a redo of it that this peer has made (its current
// attempt or a past one).
func (m *Machine) chainOf(seq uint64) (int, bool) {
	ci := seq & chainMask
	if ci >= uint64(len(m.chains)) {
		return 0, false
	}
	c := m.chains[ci]
	if seq == ci || seq == c.seq {
		return int(ci), true
	}
	for _, p := range c.past {
		if p == seq {
			return int(ci), true
		}
	}
	return 0, false
}

// forged convicts seat of the forged link env in chain ci, marks the link
// so nobody shuffles on it or checks a link after it, and returns the
// error for Step. At a table that can drop the seat, the chain is redone
// once it is dropped (redo); otherwise it waits, as for a wrong share.
func (m *Machine) forged(ci, seat int, text string, env *crypto.Envelope) error {
	c := m.chains[ci]
	c.links[seat] = link{env: env, forged: true}
	return m.convict(CheatForgedShuffle, seat, text, env)
}

// forgedBefore reports whether a link before seat's is forged.
func (c *chain) forgedBefore(seat int) bool {
	for j := 0; j < seat && j < len(c.links); j++ {
		if c.links[j].forged {
			return true
		}
	}
	return false
}

// redo redoes chain ci without its forger, if the first link in seat
// order that is not checked is a forged one and its author is dropped.
func (m *Machine) redo(ci int, c *chain) bool {
	f := -1
	for s, l := range c.links {
		if !l.verified {
			f = s
			break
		}
	}
	if f < 0 || !c.links[f].forged || !m.dropped[f] {
		return false
	}
	in := c.input(f)
	c.past = append(c.past, c.seq)
	c.seq = redoSeq(ci, f)
	c.in = in
	shuffles := 0
	for s := range c.links {
		// Who shuffles again is fixed at the same place of the log on
		// every peer, whenever it makes the redo: the members after the
		// forger not dropped before it. One dropped after it is a member
		// (it may have sent its shuffle of the redo before it went): the
		// holders' lists decide whether its link is skipped (decideLink).
		c.member[s] = c.member[s] && s > f && !(m.dropped[s] && m.dropOrder[s] < m.dropOrder[f])
		if !c.member[s] {
			c.links[s] = link{skipped: true, verified: true}
			continue
		}
		c.links[s] = link{}
		shuffles++
	}
	for s := range c.links {
		if c.member[s] && m.dropped[s] {
			m.decideLink(ci, s)
		}
	}
	text := fmt.Sprintf("chain %d (deck %d) is shuffled again from the last valid shuffle before %s's forged one, by the %d seat(s) after it", ci, c.deck, m.who(f), shuffles)
	if shuffles == 0 {
		text = fmt.Sprintf("chain %d (deck %d) goes on from the last valid shuffle before %s's forged one, which was the last", ci, c.deck, m.who(f))
	}
	m.rd.Events = append(m.rd.Events, Event{Kind: EventChainRedone, Seat: f + 1, Deck: c.deck, Text: text})
	m.release() // the redo's links that came before this peer made it
	return true
}
