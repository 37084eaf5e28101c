// Package deal is the hidden-card protocol between the seats of a secret
// table, as a pure state machine: no goroutines, no clock, no sockets, no
// disk, no map iteration (the purity test in engine/purity_test.go checks
// it). The cryptography is crypto/mentalpoker's (Barnett–Smart mental
// poker with a Neff shuffle proof); this package decides what travels in
// which envelope, in which order, who owes what, and names every cheat.
//
// It is a package of its own, under lockstep, so that lockstep's core does
// not depend on the group arithmetic (kyber) that only secret tables need;
// its rules are protocol rules and live here, not in the runner. A secret
// table's runner steps the card kinds (crypto.Kind.Card) into a Machine;
// lockstep.Node refuses them with lockstep.ErrCardKind.
//
// The usage loop, like lockstep.Node's:
//
//	m, err := deal.New(deal.Config{Identity: id, Session: sid, Seats: seats, Rand: crand, Decks: game.Decks})
//	for {
//		select {
//		case env := <-received: // crypto.Kind.Card() envelopes
//			m.Step(env)           // an error is a rejected envelope, named in an EventCheat
//		default:
//			if m.HasWork() {
//				m.Work()            // one shuffle proof made, prepared or checked
//			}
//		}
//		// the engine's card source, at the same log position on every peer:
//		//   b, err := m.Open([]deal.Opening{{Deck: 0, Pos: 7, To: 2}})
//		//   err := m.Reshuffle(9, handles)
//		for m.HasReady() {
//			rd := m.Ready()
//			keepSecret(rd.Secret); appendToDisk(rd.Persist)
//			if rd.MustSync {
//				fsync() // BEFORE sending anything
//			}
//			broadcast(rd.Messages)
//			handle(rd.Events) // EventOpened carries this seat's cards
//			m.Advance()
//		}
//	}
//
// # The protocol (docs/protocol.md §10 has every byte)
//
//  1. Keys. At New every seat signs a card-key envelope (seq 0): its
//     public key with a Schnorr proof bound to the session and its seat.
//     When every key has checked, the joint key is their sum (EventKeys).
//  2. Shuffle chains. Each declared deck that is not Open is one chain
//     (seq = the chain's number: the decks in Config order, then each
//     Reshuffle); seat 0 shuffles and re-masks the open deck, each next
//     seat the previous seat's output, each with a Neff proof. A seat
//     shuffles as soon as the previous output arrives, before checking
//     it (Work makes its own shuffle first, then checks the others'), so
//     the chain's critical path is n proofs plus the last check; a deck
//     is ready (EventDeckReady) when every link has checked, and no share
//     is posted for a deck before that.
//  3. Openings come in batches (Open; seq = the batch's number), one
//     after the other. Private to seat s: every other seat posts its
//     decryption share (Chaum–Pedersen proved) in one share envelope per
//     batch; s alone adds its own and learns the card: one broadcast
//     round. A peek is the same (the engine leaves the card in place);
//     a card opened privately to one seat and then to another is first
//     re-masked with proof by the new seat (a remask envelope, one more
//     round), since the old and the new shares together would open it
//     for everyone. Public: every seat whose share is not public yet
//     posts it; a holder revealing its own card inside an action attaches
//     RevealShare to it instead, checked by CheckReveal.
//  4. Reshuffle: a new chain over the current ciphertexts of the given
//     handles, into a new deck. Every chain and batch answers a state
//     (state.go): the caller names the shared game state's hash with At,
//     and every chain and batch declared after it
//     answers that state, and its shuffle, remask and share envelopes
//     carry the hash. One for another state than ours is set aside
//     unchecked, in an EventOtherState: a desync (a buggy engine asks
//     for other cards), which the session's state hashes explain, never a
//     cheat.
//  5. Escrow (3+ seats, escrow.go): once the keys have checked, each seat
//     splits its key among the others in an escrow envelope; no opening
//     starts before every escrow has checked. Drop(seat), at the agreed
//     point of a lockstep drop, has the others publish their pieces; the
//     dropped seat's key is rebuilt, its shares computed by everyone, its
//     cards shown to all, and later chains leave it out. Each piece lists
//     the dropped seat's shuffles (by seq, so by attempt of a redone
//     chain) and re-maskings its holder held; an attempt or batch no list
//     names goes on without it, so a seat that drops before its link of a
//     chain, or its re-masking of a batch, does not hold the table
//     forever. At 5 to 16 seats each escrow also carries a pair escrow
//     without each other seat (pairescrow.go), so two seats that drop at
//     once are both rebuilt.
//
// # Cheats
//
// Every envelope is checked: signature, session, seat, body (canonical,
// exact lengths; every point strictly decoded), then its proof. A forged
// signature, a replay or a malformed body is rejected and named, and
// changes nothing. A signed envelope whose proof fails (a forged shuffle,
// a substituted card, a wrong share, a re-masking that changes the card),
// one that leaves out a share it owes, or two different envelopes for one
// slot (an equivocation) is proof of cheating: the machine names the seat
// (counted from 1) in an EventCheat with the signed envelopes as
// Evidence, and stops, since the deal cannot go on without that seat;
// except a share envelope proven wrong, which convicts its author instead
// (convict.go, Event.Convicted): the machine sets it aside, takes nothing
// more from that seat and waits for its Drop, after which the seat's
// rebuilt key stands in for it; a forged shuffle, which convicts its
// author too: after its Drop the chain is redone from the last valid link
// by the seats after it (forge.go); and a re-masking proven wrong: after
// its Drop the openings it owed go on with the ciphertexts as they were
// (batch.go's remaskCheat).
//
// # Restart
//
// Ready.Secret (the seat's key) and Ready.Persist (what it signed) go to
// disk before anything is sent. A restarted seat passes them back as
// Config.Secret and Config.Sent, steps again every envelope it had
// received and repeats its Open, Reshuffle and Drop calls: it then sends
// the envelopes it had signed again, as they were, and never signs a
// different one for their slots (which the others would rightly prove to
// be an equivocation).
//
// # Determinism, and what is not here
//
// The outcome of every batch and chain depends only on the envelopes'
// contents, not on their arrival order, so peers that receive everything
// agree. After a drop, what the dropped seat signed for batches declared
// before it, and its links of chains some holder's piece says it holds,
// must still reach every peer (by relay or catch-up) for those to finish;
// its links no other seat held are skipped, and so are those only a holder
// dropped since had listed (a liar, or one that went before relaying),
// unless a seat in play lists them at that holder's drop (escrow.go's
// standing). Three seats dropped at once
// before their pieces came, or a seat dropped before its escrow reached
// anyone, cannot be rebuilt: Waiting says so in plain words. Stalls' timing is not here: Waiting says
// who is awaited; lockstep's stall and drop machinery decides when to act.
package deal
