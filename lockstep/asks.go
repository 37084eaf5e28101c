package lockstep

// Pacing of a stalled node's gap asks.
//
// A table that waits for one player (a human thinking for a minute, a bot
// with a delay) is stalled at every other peer: nothing commits for as long
// as the player thinks. Each of those peers used to ask a gap every
// ResendAfter, from forkOverlap entries back, and each answer carried those
// entries and the card envelopes near them, all of which the asker had:
// 75 answers in 25 s at a 4-peer Dominion table with a 3 s bot delay.
// Nothing is lost in such a wait, so the asks back off: ResendAfter after
// the stall began, then twice as long each time (2, 4, 8 s...) up to
// maxAskBackoff times ResendAfter.
//
// What a lost envelope needs is kept:
//   - re-sends are not paced (Tick re-sends our own uncommitted envelopes
//     every ResendAfter as before): an envelope of a stalled step that a
//     peer lost comes back from its author within a second;
//   - the first ask of every stall comes ResendAfter after it began, as
//     before, and the backoff starts again at ResendAfter whenever
//     anything new arrives (an envelope we did not hold, a card envelope)
//     or the position moves: a peer that lost the input the others
//     committed (and so stopped re-sending) sees their next envelopes
//     arrive and asks at once, and if those are lost too, it asks within
//     the cap;
//   - each ask is the same as before (gapAsk: forkOverlap entries back,
//     the peers in play in turn), so a fork or a drop committed by the
//     others is still shown; the restarted node's asks (until CaughtUp) and
//     the asks of a node held by its own drop vote are not paced.

// maxAskBackoff is the longest wait between two asks of one stall, in
// ResendAfter periods: 8 s by default.
const maxAskBackoff = 8

// askPacer is the state of the paced asks (Node.asks).
type askPacer struct {
	since int64 // Node.progress when the pacing began: a new value is a new stall
	at    int64 // when we last asked (or the stall began)
	every int64 // the wait after at before the next ask
}

// askDue reports whether a stalled node asks for a gap now, and if so
// counts the ask. Tick calls it only once ResendAfter has passed without
// progress.
func (n *Node) askDue(now int64) bool {
	p := &n.asks
	if p.every == 0 || p.since != n.progress {
		*p = askPacer{since: n.progress, at: n.progress, every: n.cfg.ResendAfter}
	}
	if now-p.at < p.every {
		return false
	}
	p.at = now
	p.every = min(2*p.every, maxAskBackoff*n.cfg.ResendAfter)
	return true
}

// learnedNew starts the backoff again: an envelope we did not hold came,
// so the table moves somewhere, and what we lack may be due now.
func (n *Node) learnedNew() {
	n.asks.every = n.cfg.ResendAfter
}
