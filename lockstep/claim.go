package lockstep

import (
	"errors"
	"fmt"

	"github.com/boardmesh/boardmesh/crypto"
	"github.com/boardmesh/boardmesh/engine"
)

// The claim. A table with two seats in play cannot drop one (a drop needs
// a strict majority of the seats in play, so that the two sides of a
// partition can never drop each other), and a secret table of two cannot
// go on without both card keys anyway. When one of the two has kept the
// other waiting for the drop time (Config.DropAfter, or StallAfter when
// drops are off), the game is paused, Status.Claim says so, and the one
// left may claim the win (Node.Claim): it signs a claim envelope (kind
// claim, seq = the log position, the state hash, body = its seat), which
// becomes the log's last entry and ends the game with that seat as the
// only winner. If the other comes back first, the game goes on as before.
// A peer that comes back after a claim finds it in the log (catch-up) and
// sees the game end the same way; a claim cannot be taken back.
//
// A claim that follows a cheat (the claimant's card layer proved the other
// a cheat by an envelope it signed, so there was no drop time to wait)
// says so in its body: the cheat's name and that envelope (claimBody).
// The result then reads "bob was convicted of a cheat (a wrong decryption
// share: …); ada claimed the win", on the claimant's screen, on the other
// side's and in any replay alike, since each builds it from the log
// entry. A replay has no card layer to re-check the envelope's proof with;
// it checks what the log alone can: that the envelope is the other seat's,
// signed by it, of this session, of a card kind the cheat's name goes with.

// cheatWords are the cheats a claim may name (lockstep/deal's CheatKind
// names of the cheats that convict), each in the words the result uses and
// with the envelope kinds that can prove it. The names are the wire
// format: never change one.
var cheatWords = []struct {
	name  string
	words string
	kinds []crypto.Kind
}{
	{"wrong share", "a wrong decryption share", []crypto.Kind{crypto.KindShare, crypto.KindAction}},
	{"missing share", "a share or re-masking envelope that leaves out one it owes", []crypto.Kind{crypto.KindShare, crypto.KindRemask}},
	{"forged shuffle", "a forged shuffle", []crypto.Kind{crypto.KindShuffle}},
	{"bad re-masking", "a re-masking proven wrong", []crypto.Kind{crypto.KindRemask}},
	{"bad key", "a card key whose proof fails", []crypto.Kind{crypto.KindCardKey}},
	{"bad escrow", "a wrong escrow of its card key", []crypto.Kind{crypto.KindEscrow}},
	{"false accusation", "a false accusation of an escrow", []crypto.Kind{crypto.KindAccuse}},
	{"wrong piece", "a wrong piece of a dropped seat's key", []crypto.Kind{crypto.KindPiece}},
	{"bad reveal", "a revealed card that does not match its ciphertext", []crypto.Kind{crypto.KindAction}},
	{"unexpected", "a card envelope for a slot where it owed nothing", []crypto.Kind{crypto.KindCardKey, crypto.KindShuffle, crypto.KindRemask, crypto.KindShare, crypto.KindEscrow, crypto.KindPiece, crypto.KindAccuse}},
}

// A cheat's proof must outlive a restart: a claim signed after one names
// it, and what we sign is on disk before it leaves. The card layer's
// proofs that it took are on disk already (card records), and a restart
// steps them again, so the layer proves the cheat anew; one it refused
// (a bad key proof, an envelope for a slot that owes none) and an action
// whose shown card does not match its ciphertext (a bad reveal, refused
// by the whole move) are kept as card records too (proveCheat), before
// the claim can be signed. A restart steps an action found there again
// at the same log position (recheckAction): the layer refuses it again
// and names the same cheat, so nothing on disk is taken on trust.

// proveCheat completes c, a cheat the card layer named, with its proof: a
// cheat the layer found in the cards the refused action m.cardRefused
// shows is proved by that action, signed by its mover. Then the proof of
// a convicting cheat goes to disk.
func (n *Node) proveCheat(c *CardCheat) {
	m := n.m
	if env := m.cardRefused; env != nil && !c.Convicted && c.Proof == nil && (c.Kind == "bad reveal" || c.Kind == "wrong share") {
		if mi, ok := m.member(env.Author); ok && m.seatOf != nil && m.seatOf[mi] == c.Seat-1 {
			c.Convicted, c.Proof = true, env
			m.cardRefused = nil
		}
	}
	if c.Convicted && c.Proof != nil {
		n.tookCard(c.Proof) // once: a card record already there is not written again
	}
}

// recheckAction steps again, in a restart's replay, an action of another
// seat found among the card records: a refused move kept as the proof of
// a bad reveal (proveCheat). At the same log position as when it came,
// the card layer refuses it again and names the cheat again. One that
// is not the move due here (a disk edited) changes nothing. A move due
// here that the layer takes is no refused move: the file holds, as a
// card record, a genuine move its log does not (a damaged or edited
// file); taking it would leave this node's log one entry longer than the
// file's, so the restart stops and says so.
func (n *Node) recheckAction(env *crypto.Envelope) error {
	m := n.m
	x, ok := m.expect()
	if !ok || x.kind != crypto.KindAction || len(x.who) != 1 || m.members[x.who[0]].ID != env.Author || n.verify(env) != nil {
		return nil
	}
	if m.check(env, x, x.who[0]) != nil {
		return nil
	}
	if m.apply(env, x) == nil {
		return fmt.Errorf("lockstep: the log file's card records hold a move of %s for step %d that its log does not: the file is damaged or was edited", m.name(x.who[0]), env.Seq+1)
	}
	return nil
}

// claimCheat is the cheat a claim names, checked against the log.
type claimCheat struct {
	words string
	proof *crypto.Envelope
}

// checkClaimCheat checks the cheat a claim of seat names against the
// other seat in play: nil for a plain claim.
func (m *machine) checkClaimCheat(b *claimBody, seat int) (*claimCheat, error) {
	if b.Cheat == "" {
		return nil, nil
	}
	i := 0
	for i < len(cheatWords) && cheatWords[i].name != b.Cheat {
		i++
	}
	if i == len(cheatWords) {
		return nil, fmt.Errorf("%w: a claim names a cheat %q this version does not know", ErrBadBody, b.Cheat)
	}
	proof, err := crypto.Unmarshal(b.Proof)
	if err != nil {
		return nil, fmt.Errorf("%w: a claim's proof of a cheat: %v", ErrBadBody, err)
	}
	other := m.otherSeat(seat)
	who := m.members[m.seats[other]]
	if proof.Session != m.session || proof.Author != who.ID {
		return nil, fmt.Errorf("%w: a claim's proof of a cheat is not an envelope of %s (seat %d) of this session", ErrBadBody, m.name(m.seats[other]), other+1)
	}
	fits := false
	for _, k := range cheatWords[i].kinds {
		fits = fits || proof.Kind == k
	}
	if !fits {
		return nil, fmt.Errorf("%w: a claim proves %s with a %s envelope", ErrBadBody, cheatWords[i].words, proof.Kind)
	}
	if proof.Kind == crypto.KindAction && proof.Seq != m.seq {
		// A refused move proves a cheat only at the step it was refused
		// at, the one the claim is made at (the table cannot have gone
		// on without it); a move of an earlier step is one the table
		// took, or never asked for.
		return nil, fmt.Errorf("%w: a claim proves %s with %s's move of step %d, but the table is at step %d: a move the table took, or never asked for, proves no cheat", ErrBadBody, cheatWords[i].words, m.name(m.seats[other]), proof.Seq+1, m.seq+1)
	}
	if err := crypto.Verify(proof); err != nil {
		return nil, fmt.Errorf("%w: a claim's proof of a cheat is not signed by %s (seat %d): %v", ErrBadBody, m.name(m.seats[other]), other+1, err)
	}
	return &claimCheat{words: cheatWords[i].words, proof: proof}, nil
}

// claimReason is a claim's result in words: claimant claimed the win
// after other left, or after other was convicted of cheat.
func (m *machine) claimReason(claimant, other int, cheat *claimCheat) string {
	c, o := m.name(m.seats[claimant]), m.name(m.seats[other])
	if cheat == nil {
		return fmt.Sprintf("%s left the table; %s claimed the win", o, c)
	}
	return fmt.Sprintf("%s was convicted of a cheat (%s: the %s envelope %s signed is in the claim); %s claimed the win", o, cheat.words, cheat.proof.Kind, o, c)
}

// claimState says whether seat may claim now, and if not, why.
func (m *machine) claimState(seat int) error {
	if m.phase != PhasePlaying || m.seatOf == nil {
		return fmt.Errorf("%w: no game is waiting for a player", ErrPhase)
	}
	if seat < 0 || seat >= len(m.seats) || m.dropped[seat] {
		return fmt.Errorf("%w: only a seat still in play may claim", ErrPhase)
	}
	active := 0
	for _, d := range m.dropped {
		if !d {
			active++
		}
	}
	if active != 2 {
		return fmt.Errorf("%w: a claim is for a table of two players in play (%d are): the others can vote the absent one out", ErrPhase, active)
	}
	return nil
}

// otherSeat is the seat in play that is not seat (two in play).
func (m *machine) otherSeat(seat int) int {
	for s, d := range m.dropped {
		if !d && s != seat {
			return s
		}
	}
	return -1
}

// checkClaim checks a claim envelope as the entry at the current log
// position. strict (Verify, reading the claimant's log) also wants the
// state hash to be this machine's, unless cards are pending (the claimant
// may have gone on by a cards step, whose public values no action in the
// log lists, since the claim ends it): a live peer that was away may have
// gone on by steps that make no entry (cards opened, a checkpoint round
// half done), and the claim ends the game whatever its state.
func (m *machine) checkClaim(env *crypto.Envelope, strict bool) (int, *claimCheat, error) {
	if env.Session != m.session {
		return 0, nil, ErrWrongSession
	}
	mi, ok := m.member(env.Author)
	if !ok {
		return 0, nil, ErrNotMember
	}
	if m.seatOf == nil {
		return 0, nil, fmt.Errorf("%w: a claim before the seat draw", ErrUnexpected)
	}
	seat := m.seatOf[mi]
	body, err := decodeClaim(env.Body)
	if err != nil {
		return 0, nil, err
	}
	if body.Seat != uint64(seat) {
		return 0, nil, fmt.Errorf("%w: a claim for seat %d signed by seat %d", ErrBadBody, body.Seat+1, seat+1)
	}
	if env.Seq != uint64(len(m.log)) {
		return 0, nil, fmt.Errorf("%w: a claim at log position %d, the log is at %d", ErrUnexpected, env.Seq, len(m.log))
	}
	if err := m.claimState(seat); err != nil {
		return 0, nil, err
	}
	if strict && !m.cardsPending && len(m.dropCards) == 0 && env.StateHash != m.hashes[m.seq] {
		// (While cards are pending, the claimant may have gone on by
		// steps whose public cards only a next action would list.)
		return 0, nil, fmt.Errorf("%w: claim for state %s, ours is %s", ErrStateHash, env.StateHash.Short(), m.hashes[m.seq].Short())
	}
	cheat, err := m.checkClaimCheat(body, seat)
	if err != nil {
		return 0, nil, err
	}
	return seat, cheat, nil
}

// applyClaim ends the game by seat's claim (after cheat, if not nil).
func (m *machine) applyClaim(env *crypto.Envelope, seat int, cheat *claimCheat) {
	m.group, m.groupWho = nil, nil // a round the absent player never finished
	m.appendLog(env)
	other := m.otherSeat(seat)
	scores := make([]int, len(m.seats))
	if m.st.ToAct().Kind == engine.ActorOver {
		scores = m.st.Result().Scores
	}
	r := engine.Result{Scores: scores, Winners: []int{seat}, Reason: m.claimReason(seat, other, cheat)}
	m.claimed = &r
	m.phase = PhaseOver
	// One step, which changes no state (the replay lists it with the
	// entry that made it).
	m.seq++
	m.hashes = append(m.hashes, m.hashes[len(m.hashes)-1])
	m.steps = append(m.steps, stepInfo{Kind: "claim", Seat: seat, Entry: len(m.log) - 1, What: r.Reason})
	m.events = append(m.events, Event{Kind: EventGameOver, Seq: m.seq, Seat: seat + 1, Result: &r, Text: "game over: " + r.Reason})
}

// result is the game's result once it is over.
func (m *machine) result() engine.Result {
	if m.claimed != nil {
		return *m.claimed
	}
	return m.st.Result()
}

// claimAfter is how long the other seat must have kept us waiting, and
// how long we must have kept it waiting before we take its claim
// (claimRefusal): Config.ClaimAfter, else the drop period, else the stall
// period.
func (n *Node) claimAfter() int64 {
	if n.cfg.ClaimAfter > 0 {
		return n.cfg.ClaimAfter
	}
	if n.cfg.DropAfter > 0 {
		return n.cfg.DropAfter
	}
	return n.cfg.StallAfter
}

// ClaimState says whether this peer may claim the win now (nil), and if
// not, why, in words.
func (n *Node) ClaimState() error {
	if n.stopped {
		return ErrStopped
	}
	m := n.m
	me := n.mySeat()
	if err := m.claimState(me); err != nil {
		return err
	}
	other := m.otherSeat(me)
	if n.convictedWhy(other) != "" {
		// Proven to cheat: no need to wait (secretdrop.go).
		return nil
	}
	for _, w := range n.Waiting() {
		if w.Seat == other && w.For >= n.claimAfter() {
			return nil
		}
	}
	return fmt.Errorf("%w: %s has not kept the table waiting for %s", ErrPhase, m.name(m.seats[other]), fmtMillis(n.claimAfter()))
}

// Claim signs this peer's claim of the win (see ClaimState) and ends the
// game. The claim is the log's last entry.
func (n *Node) Claim() error {
	if err := n.ClaimState(); err != nil {
		return err
	}
	m := n.m
	body := claimBody{Seat: uint64(n.mySeat())}
	if o := m.otherSeat(n.mySeat()); o >= 0 && o < len(n.convicted) {
		// The cheat that lets us claim at once goes into the log.
		if c := n.convicted[o]; c.Proof != nil && claimNames(c.Kind) {
			if p := c.Proof.Marshal(); len(p) <= crypto.MaxBody-1024 {
				body.Cheat, body.Proof = c.Kind, p
			}
		}
		if _, err := m.checkClaimCheat(&body, n.mySeat()); err != nil {
			// Never sign a claim the others would refuse: a plain one
			// still ends the game.
			body.Cheat, body.Proof = "", nil
		}
	}
	n.sign(&crypto.Envelope{Session: m.session, Seq: uint64(len(m.log)), Kind: crypto.KindClaim,
		StateHash: m.hashes[m.seq], Body: body.encode()})
	n.advance()
	return nil
}

// claimRefusal says why this peer refuses env, the other seat's plain
// claim of the win at the current position (claimant: its seat), or ""
// to take it. A plain claim says this peer kept the table waiting for the
// claim period; this peer takes it when that is so as far as it can tell:
//   - it has committed nothing since it restarted: it cannot tell how
//     long it was away, nor whether what it sent before went out, so it
//     takes the claim, as one that comes back after a crash should;
//   - else, it is not waiting for the claimant itself (it has sent all it
//     owes here, so the claimant waits for nothing of its own, or what it
//     sent never reached the claimant: a cut, which no claim can settle),
//     and it has been at this position for the claim period (ClaimAfter,
//     a tenth less).
//
// A claim after a proven cheat needs neither: the proof stands for the
// wait (and pinnedOnUs refuses one that pins a cheat on this peer).
func (n *Node) claimRefusal(env *crypto.Envelope, claimant int, cheat *claimCheat) string {
	if cheat != nil || env.Author == n.id.ID() {
		return ""
	}
	if n.restarted && len(n.m.log) == n.released {
		return ""
	}
	name := n.m.name(n.m.seats[claimant])
	for _, w := range n.Waiting() {
		if w.Seat == claimant {
			return fmt.Sprintf("%s claimed the win, saying this peer kept the table waiting, but this peer has sent all it owes here and waits for %s (%s); "+
				"if what this peer sent never reached %s, the two are cut off from each other; the claim is refused here", name, name, w.What, name)
		}
	}
	period := n.claimAfter()
	if waited := n.now - n.progress; n.progress > 0 && waited < period-period/10 {
		return fmt.Sprintf("%s claimed the win after this peer had kept the table waiting %s; a claim needs %s here; the claim is refused here",
			name, fmtMillis(waited), fmtMillis(period))
	}
	return ""
}

// pinnedOnUs reports whether env, another seat's claim, names a cheat
// of this peer's: its proof is an envelope this peer signed. The proof
// inside cannot be re-checked here (the card layer checks other seats'
// envelopes, not its own), and needs not be: an honest peer's card
// envelopes are what its card layer made by the protocol, so such a
// claim is false, or made by a client that is not this one. At a table
// of two there is no third seat to judge; the peer accused is the one
// that knows. (Verify, reading the claimant's log, cannot tell and takes
// the claim; the accused peer's own log never holds it.)
func (n *Node) pinnedOnUs(env *crypto.Envelope, cheat *claimCheat) bool {
	return cheat != nil && env.Author != n.id.ID() && cheat.proof.Author == n.id.ID()
}

// falseCheat is the refusal of claimant's claim of the win (made where:
// "" or " at log entry N") that pins cheat on this peer (pinnedOnUs).
func falseCheat(claimant, where string, cheat *claimCheat) error {
	return fmt.Errorf("%w: %s claimed the win%s, naming %s by this peer with an envelope this peer signed; this peer signed it as its own card layer made it by the protocol, so the claim is refused (whoever holds the card log can check that envelope)",
		ErrFalseCheat, claimant, where, cheat.words)
}

// claimNames reports whether a claim can name the cheat called name.
func claimNames(name string) bool {
	for _, c := range cheatWords {
		if c.name == name {
			return true
		}
	}
	return false
}

// claimStep commits a claim held for the current log position.
func (n *Node) claimStep() bool {
	m := n.m
	if m.phase != PhasePlaying {
		return false
	}
	at := uint64(len(m.log))
	for _, mem := range m.members {
		s := n.slot(crypto.KindClaim, mem.ID, at)
		env, ok := n.buf[s]
		if !ok {
			continue
		}
		seat, cheat, err := m.checkClaim(env, false)
		if errors.Is(err, ErrBadBody) {
			// Provably bad, by the claimant's own signature: a claim for
			// another seat, or one that pins a cheat on the other player
			// with a proof that is not that player's. Named, dropped.
			n.unbuf(s)
			_ = n.reject(env, err)
			continue
		}
		if err != nil {
			continue // a claim the table cannot take here (yet)
		}
		if why := n.claimRefusal(env, seat, cheat); why != "" {
			// Not kept waiting by this peer: taking the claim would end
			// the game, on this screen and in this log, as "this player
			// left", whenever the other player chose. Refused, without
			// blame (what this peer sent may never have reached the
			// claimant); the claimant's node has ended its game, so this
			// one pauses in turn, and may claim.
			n.unbuf(s)
			_ = n.reject(env, fmt.Errorf("%w: %s", ErrClaimRefused, why))
			continue
		}
		if n.pinnedOnUs(env, cheat) {
			// Taking it would end the game, on this screen and in this
			// log, with this honest peer convicted of a cheat it never
			// made. Refused and said; the claimant's own node has ended
			// its game, so this one pauses in turn, and may claim.
			n.unbuf(s)
			_ = n.reject(env, falseCheat(m.name(m.seats[seat]), "", cheat))
			continue
		}
		n.unbuf(s)
		m.applyClaim(env, seat, cheat)
		n.progress = n.now
		return true
	}
	return false
}

// pauseText is the status line of a table of two paused by an absent
// player, or "".
func (n *Node) pauseText() string {
	m := n.m
	me := n.mySeat()
	if m.claimState(me) != nil {
		return ""
	}
	other := m.otherSeat(me)
	if why := n.convictedWhy(other); why != "" {
		name := m.name(m.seats[other])
		return fmt.Sprintf("paused: %s is proven to cheat (%s), and the game cannot go on without them (the hidden cards need both players' keys); claim the win", name, why)
	}
	for _, w := range n.Waiting() {
		if w.Seat == other && w.For >= n.cfg.StallAfter {
			name := m.name(m.seats[other])
			why := "a drop needs a majority of the players"
			if n.Secret() {
				why = "the hidden cards need both players' keys"
			}
			if n.ClaimState() == nil {
				return fmt.Sprintf("paused: %s is away and the game cannot go on without them (%s); it goes on if %s comes back, or claim the win", name, why, name)
			}
			return fmt.Sprintf("paused: %s is away and the game cannot go on without them (%s); it goes on if %s comes back (a claim of the win is possible after %s)", name, why, name, fmtMillis(n.claimAfter()))
		}
	}
	return ""
}

// claimedAway stops this node when a peer's committed log shows that the
// other player of a table of two claimed the win at log position idx,
// where this node went on (its own envelope there never reached the
// claimant): the game is over for both, as the claimant's log says.
func (n *Node) claimedAway(idx uint64, env *crypto.Envelope) {
	m := n.m
	if n.stopped || env.Session != m.session || env.Seq != idx || n.verify(env) != nil {
		return
	}
	mi, ok := m.member(env.Author)
	if !ok || m.seatOf == nil {
		return
	}
	seat := m.seatOf[mi]
	body, err := decodeClaim(env.Body)
	if err != nil || body.Seat != uint64(seat) || seat == n.mySeat() || m.claimState(seat) != nil {
		return
	}
	cheat, err := m.checkClaimCheat(body, seat)
	if err != nil {
		return
	}
	if n.pinnedOnUs(env, cheat) {
		_ = n.reject(env, falseCheat(m.name(mi), fmt.Sprintf(" at log entry %d", idx), cheat))
		return
	}
	if cheat == nil && (!n.restarted || idx < uint64(n.released)) {
		// A plain claim where this peer, running all along, went on: it
		// had every input there, so it kept nobody waiting; what it sent
		// never reached the claimant (a cut), or the claimant says so
		// falsely. Either way no claim settles it (claimRefusal): said,
		// and this peer pauses in turn, the claimant's node having ended
		// its game. (Restarted since, this peer went on there after a time
		// away it cannot know: it takes the claim, as below.)
		_ = n.reject(env, fmt.Errorf("%w: %s claimed the win at log entry %d, where this peer had gone on (what it sent there never reached %s: the two are cut off from each other); the claim is refused here",
			ErrClaimRefused, m.name(mi), idx, m.name(mi)))
		return
	}
	n.stopped = true
	r := engine.Result{Scores: make([]int, len(m.seats)), Winners: []int{seat}, Reason: m.claimReason(seat, n.mySeat(), cheat)}
	n.rd.Events = append(n.rd.Events, Event{Kind: EventGameOver, Seat: seat + 1, Seq: idx, Result: &r,
		Text: fmt.Sprintf("game over: %s claimed the win at log entry %d, while what this peer did there never reached it; "+
			"this log can no longer join theirs (fetch the log afresh to watch)", m.name(mi), idx)})
}
