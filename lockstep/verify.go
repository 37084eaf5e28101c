package lockstep

import (
	"fmt"

	"github.com/boardmesh/boardmesh/crypto"
	"github.com/boardmesh/boardmesh/engine"
)

// VerifyError names the first entry of a log that fails and why.
type VerifyError struct {
	Index int // 0-based position in the log
	Entry *crypto.Envelope
	Err   error
}

func (e *VerifyError) Error() string {
	if e.Entry == nil {
		return fmt.Sprintf("entry %d: %v", e.Index, e.Err)
	}
	return fmt.Sprintf("entry %d (%s, seq %d, by %s): %v", e.Index, e.Entry.Kind, e.Entry.Seq, shortID(e.Entry.Author), e.Err)
}

func (e *VerifyError) Unwrap() error { return e.Err }

// Replay is what Verify learned from a log.
type Replay struct {
	Game    *engine.Game
	Options engine.Options
	Lobby   crypto.Hash
	Session crypto.Hash
	Members []Member
	// Seats[i] is the member index in seat i.
	Seats   []int
	Dropped []bool
	Phase   Phase // PhaseOver for a finished game; PhaseStopped after evidence
	Final   engine.State
	Result  *engine.Result
	// Hashes[s] is the state hash after s steps; Steps[s] describes step s.
	Hashes  []crypto.Hash
	Steps   []ReplayStep
	Beacons []crypto.Hash
	// EntrySeq[i] is the number of steps applied before entry i.
	EntrySeq []uint64
	Cheater  crypto.PeerID // the author proven to equivocate, if any
	// Mode is the table's card mode in words, as Status.Mode: what the
	// roster every member accepted says.
	Mode string
}

// ReplayStep is one step of a replayed game.
type ReplayStep struct {
	Kind   string        `json:"kind"` // "action", "chance", "bot", "drop"
	Author crypto.PeerID `json:"-"`
	Seat   int           `json:"seat"`
	Entry  int           `json:"entry"` // log index of the entry that completed it, -1 for a bot's move
	What   string        `json:"what"`
}

// Verify re-checks a whole session log on its own: every signature, every
// join against the roster, every accept, every reveal against its chain,
// every beacon, every action's pre-state hash and legality in the engine,
// every checkpoint, every drop's votes and every piece of evidence. It
// returns a *VerifyError naming the first entry that fails. games resolves
// the roster's game (games.Lookup).
func Verify(log []*crypto.Envelope, games func(string) (*engine.Game, error)) (*Replay, error) {
	return verify(log, games, -1, true)
}

// VerifyFast is Verify without step descriptions: what the benchmarks and
// a restarting peer need.
func VerifyFast(log []*crypto.Envelope, games func(string) (*engine.Game, error)) (*Replay, error) {
	return verify(log, games, -1, false)
}

// ReplayTo verifies the first upto entries of log (all of them if upto is
// larger) and returns the replay at that point; Final is the state then.
func ReplayTo(log []*crypto.Envelope, games func(string) (*engine.Game, error), upto int) (*Replay, error) {
	return verify(log, games, upto, true)
}

func verify(log []*crypto.Envelope, games func(string) (*engine.Game, error), upto int, record bool) (*Replay, error) {
	m := newMachine(games)
	m.checkSigs, m.record = true, record
	m.scratch = make([]byte, 0, 1024)
	if upto < 0 || upto > len(log) {
		upto = len(log)
	}
	sigs := newSigBatches(log[:upto])
	for i, env := range log[:upto] {
		if env == nil {
			return nil, &VerifyError{Index: i, Err: fmt.Errorf("%w: missing entry", ErrMalformed)}
		}
		m.checkSigs = !sigs.good(i)
		m.ahead = log[i+1 : upto]
		if err := m.feed(env); err != nil {
			return replayOf(m), &VerifyError{Index: i, Entry: env, Err: err}
		}
		for _, ev := range m.events {
			if ev.Kind == EventEquivocation {
				m.phase = PhaseStopped
			}
		}
		m.events = m.events[:0]
	}
	return replayOf(m), nil
}

func replayOf(m *machine) *Replay {
	r := &Replay{Game: m.game, Lobby: m.lobby, Session: m.session, Seats: m.seats, Dropped: m.dropped,
		Phase: m.phase, Final: m.st, Hashes: m.hashes, Beacons: m.beacons, EntrySeq: m.logSeq}
	if m.roster != nil {
		r.Options = m.roster.Options
		r.Mode = m.modeWords()
	}
	for _, mem := range m.members {
		r.Members = append(r.Members, mem.Member)
	}
	for _, s := range m.steps {
		r.Steps = append(r.Steps, ReplayStep{Kind: s.Kind, Author: s.Author, Seat: s.Seat, Entry: s.Entry, What: s.What})
	}
	if m.phase == PhaseOver {
		res := m.result()
		r.Result = &res
	}
	if n := len(m.log); n > 0 && m.log[n-1].Kind == crypto.KindEvidence {
		r.Cheater, _ = CheckEvidence(m.log[n-1])
	}
	return r
}

// ReplayAt verifies log up to the state after seq steps and returns the
// replay at that point (Final is that state) and the number of entries it
// took. If the log ends earlier, it returns the replay at its end.
func ReplayAt(log []*crypto.Envelope, games func(string) (*engine.Game, error), seq uint64) (*Replay, int, error) {
	m, i, err := replayTo(log, games, seq)
	return replayOf(m), i, err
}

// replayTo is ReplayAt's machine.
func replayTo(log []*crypto.Envelope, games func(string) (*engine.Game, error), seq uint64) (*machine, int, error) {
	m := newMachine(games)
	m.checkSigs, m.record = true, true
	m.scratch = make([]byte, 0, 1024)
	sigs := newSigBatches(log)
	for i, env := range log {
		if m.phase >= PhasePlaying && m.seq >= seq {
			return m, i, nil
		}
		if env == nil {
			return m, i, &VerifyError{Index: i, Err: fmt.Errorf("%w: missing entry", ErrMalformed)}
		}
		m.checkSigs = !sigs.good(i)
		m.ahead = log[i+1:]
		// A wait for cards that ends at seq has no entry of its own: the
		// entry after it would take the replay past seq.
		if err := m.passWaitAt(env, seq); err != nil {
			return m, i, &VerifyError{Index: i, Entry: env, Err: err}
		}
		if m.phase >= PhasePlaying && m.seq >= seq {
			return m, i, nil
		}
		if err := m.feed(env); err != nil {
			return m, i, &VerifyError{Index: i, Entry: env, Err: err}
		}
	}
	return m, len(log), nil
}

// sigBatch is how many signatures sigBatches checks at once: past about 64
// a larger batch gains little, and a failed batch costs its single checks.
const sigBatch = 64

// sigBatches checks a log's signatures ahead of the machine, a batch at a
// time (crypto.BatchVerifier). The machine then skips the signature check
// of every entry in a batch that passed; in a batch that failed it checks
// each entry itself, at the point of its checks where it always did, so
// the first bad entry fails with the same error, at the same index, as
// with no batching (and an earlier entry's protocol error still comes
// first). Batch and single checks follow the same rules (crypto.Verify),
// so batching changes speed only.
type sigBatches struct {
	log       []*crypto.Envelope
	bv        *crypto.BatchVerifier
	goodUntil int // entries before it are in batches that passed
	doneUntil int // entries before it have been batched
}

func newSigBatches(log []*crypto.Envelope) *sigBatches {
	return &sigBatches{log: log, bv: crypto.NewBatchVerifier(sigBatch)}
}

// good reports whether entry i's signature is known good. Entries must be
// asked for in order.
func (s *sigBatches) good(i int) bool {
	if i >= s.doneUntil {
		s.bv.Reset()
		j := i
		for ; j < len(s.log) && j < i+sigBatch && s.log[j] != nil; j++ {
			s.bv.Add(s.log[j])
		}
		s.doneUntil = max(j, i+1)
		if s.bv.Verify() {
			s.goodUntil = j
		}
	}
	return i < s.goodUntil
}
