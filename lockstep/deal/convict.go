package deal

import (
	"fmt"

	"github.com/boardmesh/boardmesh/crypto"
)

// Convicted seats. A decryption share envelope that its author signed and
// whose proof fails (a wrong share), or that leaves out a share its author
// owes or holds one it does not (a missing share), proves its author a
// cheat to anyone who holds it. Unlike the other proven cheats, it need not
// stop the table: the batch cannot open without that seat's shares, but at
// a table of 3 or more the others can drop the seat (lockstep's drop vote,
// which the node casts at once on such a proof) and rebuild its key from
// the escrow, whose shares then stand in for the ones it would not give.
// So the machine names the cheat with the signed envelope as evidence
// (Event.Convicted), sets the envelope aside, counts nothing the seat signs
// from then on (its later envelopes cannot help it: the batch waits for its
// drop, and after the drop its rebuilt key speaks for it), and waits, as it
// waits for a seat that went silent. At a table of two it waits for ever:
// the game pauses, and the other player may claim the win. A forged
// shuffle convicts the same way (forge.go): its chain is redone without
// the forger once it is dropped; the forger's shuffles of other chains
// are still taken, and so is its escrow: a shuffle can convict a seat
// before its escrow, signed first, has arrived, and without the escrow
// its key is never rebuilt.
//
// Only a signed envelope of the seat convicts it: a forged signature is
// rejected as a forgery and proves nothing, and a share that never comes is
// a stall (lockstep's drop vote after its drop time), not a cheat.

// convict names seat's proven cheat (env, signed by it, is the proof),
// sets env aside and returns the error for Step. The machine goes on.
func (m *Machine) convict(kind CheatKind, seat int, text string, env *crypto.Envelope) error {
	if m.dropped[seat] {
		text += "; it is dropped already"
	} else if m.escrowOn() && m.live() >= 3 {
		text += fmt.Sprintf("; the table goes on without %s once it is dropped (its key is rebuilt from the escrow)", m.who(seat))
	} else {
		text += fmt.Sprintf("; the cards cannot go on without a valid share of %s", m.who(seat))
	}
	m.convicted[seat] = true
	m.rd.Events = append(m.rd.Events, Event{Kind: EventCheat, Cheat: kind, Seat: seat + 1, Text: text, Evidence: []*crypto.Envelope{env}, Convicted: true})
	return fmt.Errorf("%w (%s): %s", ErrCheat, kind, text)
}

// live is the number of seats not dropped.
func (m *Machine) live() int {
	n := 0
	for _, d := range m.dropped {
		if !d {
			n++
		}
	}
	return n
}

// Convicted reports whether seat (0-based) is proven a cheat by a signed
// share envelope of its own (see convict): the table is to drop it.
func (m *Machine) Convicted(seat int) bool {
	return seat >= 0 && seat < len(m.convicted) && m.convicted[seat]
}

// setAside forgets seat s's share envelope for batch b and whatever of it
// checked, after its conviction: the batch waits for the seat's drop, and
// then computes the seat's shares from its rebuilt key.
func (b *batch) setAside(s int) {
	b.shareEnv[s] = nil
	for i := range b.entries {
		b.entries[i].shares[s] = nil
	}
}
