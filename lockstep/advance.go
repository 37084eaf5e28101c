package lockstep

import (
	"errors"
	"sort"

	"github.com/boardmesh/boardmesh/crypto"
)

// advance commits everything that is ready, in log order, and signs this
// peer's own contributions (accepts, reveals, checkpoints, extensions) as
// soon as they are due. Log order depends only on the entries, never on
// their arrival, which is why every honest peer ends with the same log.
func (n *Node) advance() {
	for !n.stopped {
		from := len(n.m.log)
		progressed := n.advanceOnce()
		n.committed(from)
		if n.replayEarly {
			n.replayEarly = false
			early := n.early
			n.early, n.earlyBytes = nil, 0
			for _, e := range early {
				_ = n.Step(e)
			}
		}
		if !progressed {
			break
		}
	}
	n.drainCards()
	n.drainEvents()
}

// advanceOnce makes at most one group of progress and reports whether it did.
func (n *Node) advanceOnce() bool {
	m := n.m
	if m.phase == PhaseLobby {
		return n.commitRoster()
	}
	if n.supersede() {
		return true
	}
	if n.claimStep() || n.cardsStep() || n.cardDropStep() {
		return true
	}
	x, ok := m.expect()
	if !ok {
		// A wait for cards: a drop vote may still commit (the seat the
		// deal waits for has left).
		return m.cardsPending && n.tryDrop()
	}
	n.contribute(x)
	if x.kind == crypto.KindReveal && m.phase == PhasePlaying && len(m.group) == 0 {
		if n.commitExtensions(x.seq) {
			return true
		}
		if len(m.extensionsNeeded(x.seq)) > 0 {
			return n.tryDrop()
		}
	}
	if at := uint64(len(m.log)); n.commitGroup(x) {
		n.settleWentOn(at) // settle.go
		return true
	}
	return n.tryDrop()
}

// contribute signs this peer's part of x when it is due.
func (n *Node) contribute(x expectation) {
	m := n.m
	me := n.myMember()
	if me < 0 || !containsInt(x.who, me) {
		return
	}
	if m.phase == PhasePlaying && m.dropped[m.seatOf[me]] {
		return
	}
	switch x.kind {
	case crypto.KindAccept:
		n.sign(&crypto.Envelope{Session: m.session, Kind: crypto.KindAccept})
	case crypto.KindCheckpoint:
		n.sign(&crypto.Envelope{Session: m.session, Seq: x.seq, Kind: crypto.KindCheckpoint,
			StateHash: x.hash, Body: encodeUintBody(uint64(m.turn))})
	case crypto.KindReveal:
		n.maybeExtend(x.seq)
		// A peer reveals round r only once every chain covers r: were it
		// to reveal first, a peer whose chain ran out could choose its
		// next chain knowing this reveal, and so steer the beacon.
		if m.phase == PhasePlaying && len(m.extensionsNeeded(x.seq)) > 0 {
			return
		}
		if r, ok := n.reveal(x.seq); ok {
			n.sign(&crypto.Envelope{Session: m.session, Seq: x.seq, Kind: crypto.KindReveal,
				StateHash: x.hash, Body: encodeHashBody(r)})
		}
	}
}

// reveal is this peer's chain element for beacon round r.
func (n *Node) reveal(r uint64) (crypto.Hash, bool) {
	for i := len(n.chains) - 1; i >= 0; i-- {
		c := n.chains[i]
		if r >= c.start {
			if r-c.start >= uint64(c.chain.Len()) {
				return crypto.Hash{}, false
			}
			return c.chain.Reveal(int(r-c.start) + 1)
		}
	}
	return crypto.Hash{}, false
}

// maybeExtend signs a chain extension when this peer's chain will run out
// within a few rounds, early enough that nobody waits for it.
func (n *Node) maybeExtend(round uint64) {
	me := n.myMember()
	if me < 0 || n.m.phase != PhasePlaying {
		return
	}
	last := n.chains[len(n.chains)-1]
	end := last.start + uint64(last.chain.Len())
	margin := min(uint64(16), uint64(n.cfg.ChainLength+1)/2)
	if round+margin < end {
		return
	}
	c := crypto.NewChain(n.id.ChainSeed(n.lobby, uint64(len(n.chains))), n.cfg.ChainLength)
	n.chains = append(n.chains, ownSeg{start: end, chain: c})
	x := &extendBody{Commitment: c.Commitment(), ChainLen: uint64(c.Len())}
	n.sign(&crypto.Envelope{Session: n.m.session, Seq: end, Kind: crypto.KindExtend, Body: x.encode()})
}

// commitExtensions commits the buffered extensions that round r needs.
func (n *Node) commitExtensions(r uint64) bool {
	m := n.m
	progressed := false
	for _, mi := range m.extensionsNeeded(r) {
		s := n.slot(crypto.KindExtend, m.members[mi].ID, m.members[mi].chainEnd())
		env, ok := n.buf[s]
		if !ok {
			continue
		}
		x, who, err := m.checkExtend(env)
		if err != nil {
			n.unbuf(s)
			_ = n.reject(env, err)
			continue
		}
		m.applyExtend(env, x, who)
		progressed = true
	}
	return progressed
}

// commitGroup commits the rest of group x if every envelope of it is here
// and checks out; otherwise it rejects the bad ones and commits nothing.
func (n *Node) commitGroup(x expectation) bool {
	m := n.m
	envs := make([]*crypto.Envelope, 0, len(x.who))
	complete := true
	for i := len(m.group); i < len(x.who); i++ {
		s := n.slot(x.kind, m.members[x.who[i]].ID, x.seq)
		env, ok := n.buf[s]
		if !ok {
			complete = false
			continue
		}
		if err := m.check(env, x, x.who[i]); err != nil {
			n.unbuf(s)
			_ = n.reject(env, err)
			n.suspect(env, err)
			complete = false
			continue
		}
		envs = append(envs, env)
	}
	if !complete || !n.mayCommitNormally(x) {
		return false
	}
	for _, env := range envs {
		if err := m.apply(env, x); err != nil {
			if errors.Is(err, errCardsStopped) {
				return false // nobody to blame here; the stop was named
			}
			n.unbuf(slotOf(env))
			_ = n.reject(env, err)
			return len(envs) > 1
		}
	}
	return true
}

// mayCommitNormally keeps a peer that voted to drop seats at this log
// position from committing the position otherwise, even when the missing
// input arrives late: were both to happen on different peers, the logs
// would split. Such a peer goes on only by the drop, or once the log of a
// peer that went on without voting shows it (StepAnswer), which proves
// the drop can never complete.
func (n *Node) mayCommitNormally(x expectation) bool {
	at := uint64(len(n.m.log))
	if n.m.phase != PhasePlaying || len(n.voted[at]) == 0 && n.settled[at] == nil {
		return true
	}
	return n.settledNone(at) // settle.go
}

// tryDrop commits a complete round of drop votes at the current log
// position (dropRound), when its votes name the current step.
func (n *Node) tryDrop() bool {
	m := n.m
	if m.phase != PhasePlaying || m.group != nil {
		return false
	}
	n.settleHeld() // settle.go
	seats, x, envs, _ := n.dropRound()
	if envs == nil {
		return false
	}
	at := uint64(len(m.log))
	contested := n.otherRounds(at, seats)
	m.startDrop(seats)
	for _, env := range envs {
		if err := m.apply(env, x); err != nil {
			m.dropSet = nil
			return false
		}
	}
	if contested {
		n.settleTaken(at, seats) // settle.go
	}
	n.clearDropVotes()
	// Our votes at this step are spent: the drop happened.
	for at := range n.voted {
		if at < uint64(len(m.log)) {
			delete(n.voted, at)
		}
	}
	return true
}

// Which complete round a peer may take. Two rounds of drop votes for two
// seat sets can both complete at one log position: three of five vote to
// drop E, then (the fourth, D, not joining for the drop period) to drop D
// and E, and D's late vote for E alone completes the first round too. A
// peer that then takes whichever is complete in its buffer first forks
// the table: one honest peer commits the drop of E, another the drop of D
// and E. So a peer that voted at a position takes only the round of its
// own greatest vote there (voteLess), or a greater round that drops its
// own seat (the others went on without it).
//
// Why that is enough: say honest P takes S and honest Q takes T, S ≠ T,
// P outside T and Q outside S. Then P voted T (T needs its vote) and Q
// voted S, so by the rule T < S (S is P's greatest vote, or above it: a
// peer in S takes S only then) and S < T (likewise for Q): impossible.
// So one of any two peers that took different rounds is dropped by the
// other's: the peer the others dropped while it went on alone, which the
// catch-up's overlap shows it (forked). The order must be one every peer
// shares (it is a rule of the protocol), and any fixed order would do for
// the proof; the larger set is the greater one so that a vote extended to
// a seat that is gone too supersedes the smaller vote it extends, and it
// applies to any votes of a peer at one position, not only to those that
// extend one another (the seats a checkpoint round waits for shrink as
// checkpoints come).
//
// The cost was liveness: a voter whose greatest round can no longer
// complete (the others took a smaller drop before they extended their
// votes) stayed held at that position, and one hostile voter could choose
// that for a majority of honest ones. A voter used to take the drop a peer
// outside its votes showed it committed (a gap answer), but that trusted
// one peer's word: a hostile peer could give its vote for the greater
// round to one honest peer only, which takes it, and show another the
// smaller round's votes as committed, which then took that: two honest
// logs. What frees a held voter now is a signed word from every voter its
// greater rounds need that it takes only the smaller one: settling
// (settle.go), with its own proof that nothing forks.

// voteLess is the order of drop votes at one position: the larger seat
// set is the greater; of two sets of one size, the one first in seat
// order (lessInts) is the lesser.
func voteLess(a, b []int) bool {
	if len(a) != len(b) {
		return len(a) < len(b)
	}
	return lessInts(a, b)
}

// ownDropVote is the greatest seat set (voteLess) this node voted to drop
// at log position at, or nil if it did not vote there.
func (n *Node) ownDropVote(at uint64) []int {
	var top []int
	for _, v := range n.voted[at] {
		if top == nil || voteLess(top, v) {
			top = v
		}
	}
	return top
}

// mayTakeDrop reports whether this node may commit a complete round of
// drop votes for seats at the current log position (see above).
func (n *Node) mayTakeDrop(seats []int) bool {
	at := uint64(len(n.m.log))
	own := n.ownDropVote(at)
	if settled := n.settled[at]; settled != nil && !equalInts(settled, seats) {
		return containsInt(seats, n.mySeat()) && voteLess(own, seats)
	}
	if own == nil || equalInts(own, seats) {
		return true
	}
	if containsInt(seats, n.mySeat()) && voteLess(own, seats) {
		return true
	}
	return n.settled[at] != nil && n.othersSettled(at, seats) // settle.go
}

// dropRound finds the round of drop votes at the current log position:
// of the seat sets every voter has voted for here that this node may take
// (mayTakeDrop), one that drops its own seat first (the others went on
// without it: following them keeps its log theirs), then the first in a
// fixed order (so that two peers holding the same votes make the same
// choice).
// It returns the round's votes in voter order when the latest step they
// name is the current one (machine.dropStep: the drop is taken there);
// or ahead, when a vote names no state of this position we have been in:
// its voter ended a wait for cards (with no entry) before it voted, and
// we must end it too to take the drop (cardsStep). A round whose votes
// all name steps before ours is skipped: we went past it (a voter never
// does, cardsStep), so only a peer outside the vote can be there.
func (n *Node) dropRound() (seats []int, x expectation, envs []*crypto.Envelope, ahead bool) {
	m := n.m
	var sets [][]int
	at := uint64(len(m.log))
	for s, env := range n.buf {
		if s.kind != crypto.KindDrop || env.Seq != at {
			continue
		}
		seats, err := decodeSeats(env.Body, len(m.seats))
		if err != nil {
			n.unbuf(s)
			_ = n.reject(env, err)
			continue
		}
		sets = addSet(sets, seats)
	}
	me := n.mySeat()
	sort.Slice(sets, func(a, b int) bool {
		if ina, inb := containsInt(sets[a], me), containsInt(sets[b], me); ina != inb {
			return ina
		}
		return lessInts(sets[a], sets[b])
	})
	for _, seats := range sets {
		if !n.mayTakeDrop(seats) {
			continue
		}
		x, votes, later, ok := n.roundVotes(seats)
		if !ok {
			continue
		}
		if later {
			return seats, x, nil, true
		}
		if k, ok := m.dropStep(votes); ok && k == m.seq {
			return seats, x, votes, false
		}
	}
	return nil, expectation{}, nil, false
}

// roundVotes gathers the round of drop votes for seats at the current log
// position from the buffer, in voter order: ok when every vote the round
// needs is here and checks out; later when a vote names a state of this
// position we have not been in (yet).
func (n *Node) roundVotes(seats []int) (x expectation, votes []*crypto.Envelope, later, ok bool) {
	m := n.m
	x, ok = m.dropExpectation(seats)
	if !ok {
		return x, nil, false, false
	}
	at := uint64(len(m.log))
	body := string(encodeSeats(seats))
	votes = make([]*crypto.Envelope, 0, len(x.who))
	m.startDrop(seats)
	for _, mi := range x.who {
		s := n.slot(crypto.KindDrop, m.members[mi].ID, at)
		s.extra = body
		env, have := n.buf[s]
		if !have {
			break
		}
		if err := m.check(env, x, mi); err != nil {
			if !errors.Is(err, ErrStateHash) {
				break
			}
			later = true // a state we have not been in (yet)
		}
		votes = append(votes, env)
	}
	m.dropSet = nil
	return x, votes, later, len(votes) == len(x.who)
}

// addSet adds seats to sets unless a set of the same seats is there.
func addSet(sets [][]int, seats []int) [][]int {
	for _, x := range sets {
		if equalInts(x, seats) {
			return sets
		}
	}
	return append(sets, seats)
}

// clearDropVotes forgets buffered votes that can no longer complete.
func (n *Node) clearDropVotes() {
	for s, env := range n.buf {
		if (s.kind == crypto.KindDrop || s.kind == crypto.KindSettle) && env.Seq < uint64(len(n.m.log)) {
			n.unbuf(s)
		}
	}
}

func lessInts(a, b []int) bool {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			return a[i] < b[i]
		}
	}
	return len(a) < len(b)
}

// commitRoster commits the lobby once a roster and every join it names are
// here: the joins in roster order, then the roster.
func (n *Node) commitRoster() bool {
	m := n.m
	var rosters []*crypto.Envelope
	for s, env := range n.buf {
		if s.kind == crypto.KindRoster && env.Session == n.lobby {
			rosters = append(rosters, env)
		}
	}
	rosterOrder(rosters)
	for _, env := range rosters {
		r, err := decodeRoster(env.Body)
		if err != nil {
			n.unbuf(slotOf(env))
			_ = n.reject(env, err)
			continue
		}
		if err := n.modeAgrees(r); err != nil {
			n.unbuf(slotOf(env))
			n.rd.Events = append(n.rd.Events, Event{Kind: EventRefused, Peer: env.Author, Err: err, Text: err.Error()})
			continue
		}
		joins := make([]*crypto.Envelope, 0, len(r.Members))
		for _, mem := range r.Members {
			if j, ok := n.buf[n.slot(crypto.KindJoin, mem.ID, 0)]; ok && joinMatches(j, mem) {
				joins = append(joins, j)
			}
		}
		if len(joins) < len(r.Members) {
			if n.asked[env.Author] == 0 {
				n.asked[env.Author] = 1
				n.rd.Requests = append(n.rd.Requests, GapRequest{To: env.Author})
			}
			continue
		}
		// Try the lobby on a scratch machine first, so a bad roster leaves
		// nothing behind.
		try := newMachine(m.games)
		var ferr error
		for _, j := range joins {
			if ferr = try.feed(j); ferr != nil {
				break
			}
		}
		if ferr == nil {
			ferr = try.feed(env)
		}
		if ferr != nil {
			n.unbuf(slotOf(env))
			_ = n.reject(env, ferr)
			if errors.Is(ferr, ErrRefused) {
				n.rd.Events = append(n.rd.Events, Event{Kind: EventRefused, Peer: env.Author, Err: ferr, Text: ferr.Error()})
			}
			continue
		}
		for _, j := range joins {
			_ = m.feed(j)
		}
		_ = m.feed(env)
		for _, j := range joins {
			n.unbuf(slotOf(j))
		}
		// Joins that did not make the roster stay out of the session.
		for s := range n.buf {
			if s.kind == crypto.KindJoin || s.kind == crypto.KindRoster {
				n.unbuf(s)
			}
		}
		n.acceptSince = n.now
		n.rd.Events = append(n.rd.Events, Event{Kind: EventRoster, Peer: env.Author,
			Text: "roster agreed: " + rosterNames(r)})
		if n.myMember() < 0 {
			n.rd.Events = append(n.rd.Events, Event{Kind: EventRefused, Peer: env.Author, Err: ErrNotMember,
				Text: "the roster does not include this peer (it joined too late); following the game as a spectator"})
		}
		n.replayEarly = true
		return true
	}
	return false
}

func rosterNames(r *rosterBody) string {
	s := ""
	for i, mem := range r.Members {
		if i > 0 {
			s += ", "
		}
		if mem.Name != "" {
			s += mem.Name
		} else {
			s += shortID(mem.ID)
		}
	}
	return s
}
