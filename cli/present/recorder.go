package present

import (
	"fmt"
	"strings"

	"github.com/boardmesh/boardmesh/crypto"
	"github.com/boardmesh/boardmesh/engine"
	"github.com/boardmesh/boardmesh/lockstep"
)

// maxHistory bounds the history kept: the oldest entries go first.
const maxHistory = 10000

// Recorder builds the history of a table for one viewer. Feed it every
// committed log entry, in log order, from the session's first; it replays
// them with its own lockstep.Verifier (so it tells each step from the
// states just before and after it, never a later one) and asks the game's
// engine.Narrator what the viewer may know of each step. Event adds what
// the node reports about the table. A Recorder is not safe for concurrent
// use.
type Recorder struct {
	ver    *lockstep.Verifier
	viewer int // 0-based seat, -1 a spectator
	// names names seats (0-based) for the history; set by SetNames.
	names   func(seat int) string
	history []Entry
	failed  error
	seq     uint64
	turn    int
	cheats  []Cheat
	sync    Sync
	votes   []Vote
	// know is what the viewer's own peer knows of the cards opened to it
	// alone (SetKnowledge): a Verifier's states hold none of it, so
	// without it the history of a secret table could not name the
	// viewer's own cards.
	know *engine.Knowledge
	// held: the steps (and the table lines after them) not told yet,
	// oldest first, because the first of them opened a card to the viewer
	// that know lacks (its peer reads a private opening after the step
	// commits); waits counts the SetKnowledge calls they have waited.
	held  []heldLine
	waits int
}

// heldLine is a step to tell (step set) or a table line to add.
type heldLine struct {
	step  *heldStep
	entry Entry
}

type heldStep struct {
	prev, next engine.State
	s          lockstep.ReplayStep
	a          engine.Action
	seq        uint64
	// missing: the cards it opened to the viewer that the knowledge
	// lacks, less those learned since.
	missing []engine.Handle
}

// maxHeld bounds the lines held for the viewer's knowledge, and maxWaits
// the updates they wait: beyond either, they are told without it (as a
// table without SetKnowledge tells them), so a card its peer never reads
// cannot stop the history.
const (
	maxHeld  = 256
	maxWaits = 256
)

// NewRecorder returns a Recorder of an empty log for a spectator; games
// resolves the roster's game (games.Lookup).
func NewRecorder(games func(string) (*engine.Game, error)) *Recorder {
	r := &Recorder{ver: lockstep.NewVerifier(games), viewer: -1}
	r.ver.OnStep(r.step)
	return r
}

// SetViewer sets the seat (0-based, -1 a spectator) the history is told
// for. It applies to the steps fed from now on, so set it as soon as the
// seats are drawn (a runner's update carries the status with the entries).
func (r *Recorder) SetViewer(seat int) { r.viewer = seat }

// SetNames sets how seats (0-based) are named in the history.
func (r *Recorder) SetNames(f func(seat int) string) { r.names = f }

// Feed tells the committed entries. An entry the Verifier refuses (which
// an honest node never commits) stops the telling; the error is kept and
// shown as a table entry.
func (r *Recorder) Feed(entries ...*crypto.Envelope) {
	for _, env := range entries {
		if r.failed != nil {
			return
		}
		if err := r.ver.Feed(env); err != nil {
			r.stop(err)
		}
	}
}

// SetCardHint gives the recorder of a live peer the values of the cards
// opened to everyone that the peer's state holds (state, nil for none):
// on a secret table the log lists them only with the next action, and a
// card turned over is told as soon as it is open. It tells what the hint
// lets it tell now.
func (r *Recorder) SetCardHint(state engine.State) {
	hint := CardHint(state)
	if hint == nil {
		return
	}
	r.ver.SetCardHint(hint)
	if r.failed == nil {
		if err := r.ver.PassCards(); err != nil {
			r.stop(err)
		}
	}
}

// CardHint is a lockstep.Verifier's card hint (SetCardHint) from a
// peer's own state: the values of the cards opened to everyone that it
// holds. It is nil for a state without hidden cards.
func CardHint(state engine.State) func(engine.Handle) (int, bool) {
	cs, ok := state.(engine.CardState)
	if !ok {
		return nil
	}
	c := cs.Cards()
	return func(h engine.Handle) (int, bool) {
		if !c.Valid(h) {
			return 0, false
		}
		v, ok := c.Public(h)
		return int(v), ok
	}
}

// stop ends the telling at an entry the Verifier refused, with a table
// line that says why.
func (r *Recorder) stop(err error) {
	r.failed = err
	r.addLine(Entry{Seq: r.seq, Turn: r.turn, Kind: "table", Text: "the history stops here: " + err.Error()})
}

// SetKnowledge gives the recorder of a live peer its seat's knowledge of
// the cards opened to it alone, from state (the peer's own state), so that
// the history names the viewer's own cards at a secret table as at an open
// one. The knowledge is used only to tell steps to the viewer's seat,
// never in the Verifier's checks. A step that opened a card to the viewer
// that the knowledge lacks (its peer reads a private opening after the
// step commits: at the start of a game, behind the setup's proofs, a dozen
// updates later and more) is held, with everything after it, until a
// SetKnowledge knows the card or shows it opened to everyone since (its
// value then comes from there) or reshuffled away, or until Flush.
func (r *Recorder) SetKnowledge(state engine.State) {
	cs, ok := state.(engine.CardState)
	if !ok {
		return
	}
	live := cs.Cards()
	r.know = live.Knowledge().Clone() // public values are added below
	if r.know == nil || len(r.held) == 0 {
		return
	}
	for _, h := range r.held {
		if h.step == nil {
			continue
		}
		left := h.step.missing[:0]
		for _, c := range h.step.missing {
			if _, known := r.know.Card(c); known {
				continue
			}
			if v, open := live.Public(c); open {
				_ = r.know.Learn(c, v) // the value everyone knows now
				continue
			}
			// The peer's own state opens a card to its seat and learns it
			// at once, when its card layer has read it: until then it is
			// coming, unless it was reshuffled away since.
			if !live.Dead(c) {
				left = append(left, c)
			}
		}
		h.step.missing = left
	}
	r.waits++
	r.release(r.waits > maxWaits)
}

// Flush tells every held step now, with what the knowledge holds (at the
// end of a game, say, when no later knowledge is coming).
func (r *Recorder) Flush() { r.release(true) }

// release tells the held lines in order, up to the first step with a card
// the knowledge still lacks (all of them if force).
func (r *Recorder) release(force bool) {
	for len(r.held) > 0 {
		h := r.held[0]
		if h.step != nil && !force && len(h.step.missing) > 0 {
			return
		}
		r.held = r.held[1:]
		if h.step != nil {
			r.tell(h.step)
		} else {
			r.add(h.entry)
		}
	}
	r.held, r.waits = nil, 0
}

// unlearned lists the cards the step from prev to next opened to the
// viewer that its knowledge lacks.
func (r *Recorder) unlearned(prev, next engine.State) []engine.Handle {
	if r.know == nil || r.know.Seat != r.viewer {
		return nil
	}
	a, ok1 := prev.(engine.CardState)
	b, ok2 := next.(engine.CardState)
	if !ok1 || !ok2 {
		return nil
	}
	return b.Cards().Unlearned(nil, a.Cards(), r.know)
}

// addLine adds a table line, after the held steps if any.
func (r *Recorder) addLine(e Entry) {
	if len(r.held) > 0 {
		r.held = append(r.held, heldLine{entry: e})
		return
	}
	r.add(e)
}

// Len is the number of entries fed so far.
func (r *Recorder) Len() int { return r.ver.Len() }

// History is the history so far, oldest first. The slice is a copy.
func (r *Recorder) History() []Entry { return append([]Entry(nil), r.history...) }

// Last is the target of the newest move that had one.
func (r *Recorder) Last() *engine.Target {
	for i := len(r.history) - 1; i >= 0; i-- {
		if r.history[i].Target != nil {
			return r.history[i].Target
		}
	}
	return nil
}

// Cheats lists the cheats and rejections reported so far.
func (r *Recorder) Cheats() []Cheat { return append([]Cheat(nil), r.cheats...) }

// Sync is the latest state-hash agreement.
func (r *Recorder) Sync() Sync { return r.sync }

func (r *Recorder) seatName(seat int) string {
	if seat < 0 {
		return ""
	}
	if r.names != nil {
		if n := r.names(seat); n != "" {
			return fmt.Sprintf("%s (seat %d)", n, seat+1)
		}
	}
	return fmt.Sprintf("seat %d", seat+1)
}

func (r *Recorder) add(e Entry) {
	r.history = append(r.history, e)
	if len(r.history) > maxHistory {
		r.history = append(r.history[:0:0], r.history[len(r.history)-maxHistory:]...)
	}
}

// step tells one step of the game (the Verifier's OnStep), or holds it
// for the viewer's knowledge of its cards.
func (r *Recorder) step(prev, next engine.State, s lockstep.ReplayStep, a engine.Action) {
	h := &heldStep{prev: prev, next: next, s: s, a: a, seq: r.seq, missing: r.unlearned(prev, next)}
	r.seq, r.turn = r.seq+1, next.Turn()+1
	if len(r.held) == 0 && len(h.missing) == 0 {
		r.tell(h)
		return
	}
	r.held = append(r.held, heldLine{step: h})
	if len(r.held) > maxHeld {
		r.release(true)
	}
}

// tell tells one step.
func (r *Recorder) tell(h *heldStep) {
	prev, next, s, a := h.prev, h.next, h.s, h.a
	who := prev.ToAct()
	e := Entry{Seq: h.seq, Turn: prev.Turn() + 1, Kind: s.Kind}
	switch s.Kind {
	case "drop":
		e.Text = "dropped by agreement"
		e.Seat, e.Who = s.Seat+1, r.seatName(s.Seat)
		r.add(e)
		return
	case "chance", "cards":
		// On a secret table the card layer opens what chance draws on an
		// open one (the card turned over): told the same way.
		n := r.narrate(prev, next, who, engine.Action{})
		if n.What == "" {
			// An outcome of the step before (the cards a play drew): it
			// belongs to that line.
			if n.Outcome != "" {
				r.mergeOutcome(n.Outcome)
			}
			return
		}
		e.Kind, e.Who, e.Text, e.Outcome = "chance", "", n.What, n.Outcome
		r.add(e)
		return
	}
	n := r.narrate(prev, next, who, a)
	e.Seat, e.Who, e.Text, e.Outcome = s.Seat+1, r.seatName(s.Seat), n.What, n.Outcome
	if inf, ok := prev.(engine.ActionInformer); ok {
		if t := inf.ActionInfo(a).Target; t.Kind != "" && t.Kind != engine.TargetButton && t.Kind != engine.TargetCard {
			// A card in the hand is the mover's secret until played, and
			// its name is in the line anyway: only public places.
			e.Target = &t
		}
	}
	if s.Kind == "bot" {
		e.Who += " [left; played by the bot]"
	}
	r.add(e)
}

// narrate tells one step for the viewer, with the viewer's knowledge of
// its own cards attached to both states for the telling only (a
// Verifier's state carries none, and keeps none).
func (r *Recorder) narrate(prev, next engine.State, who engine.Actor, a engine.Action) engine.Narration {
	if r.know != nil && r.know.Seat == r.viewer {
		for _, st := range []engine.State{prev, next} {
			if cs, ok := st.(engine.CardState); ok && cs.Cards().Knowledge() == nil {
				c := cs.Cards()
				c.SetKnowledge(r.know)
				defer c.SetKnowledge(nil)
			}
		}
	}
	return narrate(prev, next, who, a, r.viewer)
}

// mergeOutcome adds an outcome to the last line of the game (not a table
// line); the same outcome twice in a row counts up ("drew a card ×2").
func (r *Recorder) mergeOutcome(o string) {
	i := len(r.history) - 1
	for i >= 0 && r.history[i].Kind == "table" {
		i--
	}
	if i < 0 {
		r.add(Entry{Seq: r.seq, Turn: r.turn, Kind: "chance", Text: o})
		return
	}
	e := &r.history[i]
	if e.Outcome == "" {
		e.Outcome = o
		return
	}
	parts := strings.Split(e.Outcome, "; ")
	last := parts[len(parts)-1]
	base, n := last, 1
	if k := strings.LastIndex(last, " ×"); k > 0 {
		if _, err := fmt.Sscanf(last[k+len(" ×"):], "%d", &n); err == nil {
			base = last[:k]
		} else {
			n = 1
		}
	}
	if base == o {
		parts[len(parts)-1] = fmt.Sprintf("%s ×%d", base, n+1)
		e.Outcome = strings.Join(parts, "; ")
		return
	}
	e.Outcome += "; " + o
}

// Narrate tells one step as viewer (0-based, -1 a spectator) may know it:
// the game's engine.Narrator, or Describe for an action of a game without
// one.
func Narrate(prev, next engine.State, who engine.Actor, a engine.Action, viewer int) engine.Narration {
	return narrate(prev, next, who, a, viewer)
}

// narrate asks the game, or falls back on Describe for actions.
func narrate(prev, next engine.State, who engine.Actor, a engine.Action, viewer int) engine.Narration {
	if n, ok := prev.(engine.Narrator); ok {
		return n.Narrate(next, who, a, viewer)
	}
	switch who.Kind {
	case engine.ActorSeat:
		return engine.Narration{What: prev.Describe(a)}
	case engine.ActorChance:
		return engine.Narration{What: "the beacon drew"}
	}
	return engine.Narration{}
}

// Event adds what the node reports. seatOf maps the event's peer to its
// seat (0-based, -1 none); mine tells whether the event is about the
// viewer's own peer (a stall for our own move is not news).
func (r *Recorder) Event(ev lockstep.Event, seatOf int, name string) {
	t := Entry{Seq: r.seq, Turn: r.turn, Kind: "table", Text: ev.Text}
	switch ev.Kind {
	case lockstep.EventJoined, lockstep.EventStarted, lockstep.EventRefused, lockstep.EventResumed, lockstep.EventWaiting, lockstep.EventDropVote, lockstep.EventCards:
		r.addLine(t)
	case lockstep.EventDropped:
		t.Text = "dropped by agreement: " + r.seatList(ev.Seats)
		r.addLine(t)
	case lockstep.EventTurn:
		r.sync = Sync{OK: true, Text: fmt.Sprintf("state hashes of all peers agree (turn %d, step %d)", ev.Turn, ev.Seq)}
	case lockstep.EventGameOver:
		r.sync = Sync{OK: true, Text: "state hashes of all peers agree on the final state"}
		if !strings.HasPrefix(t.Text, "game over") {
			t.Text = "game over: " + t.Text
		}
		r.addLine(t)
	case lockstep.EventRejected:
		if ev.Cheat == lockstep.CheatWrongHash || ev.Cheat == lockstep.CheatWrongCheckpoint {
			// A state hash that differs from ours is no cheat yet: the
			// states are compared, and the desync report (or a lie
			// named) follows.
			r.sync = Sync{OK: false, Text: ev.Text}
			t.Kind, t.Seat = "desync", seatOf+1
			r.addLine(t)
			return
		}
		c := Cheat{Kind: "rejected", Seat: seatOf + 1, Name: name, Text: ev.Text}
		r.cheats = append(r.cheats, c)
		t.Kind = "cheat"
		t.Seat, t.Text = c.Seat, "rejected: "+ev.Text
		r.addLine(t)
	case lockstep.EventEquivocation:
		c := Cheat{Kind: "equivocation", Seat: seatOf + 1, Name: name, Text: fmt.Sprintf("%s signed two different envelopes for one slot: proof of cheating, the game stops", nameOr(name, seatOf))}
		r.cheats = append(r.cheats, c)
		t.Kind, t.Seat, t.Text = "cheat", c.Seat, c.Text
		r.addLine(t)
	case lockstep.EventDesync:
		text := ev.Text
		if ev.Desync != nil {
			text = ev.Desync.String()
		}
		r.sync = Sync{OK: false, Text: text}
		r.cheats = append(r.cheats, Cheat{Kind: "desync", Seat: seatOf + 1, Name: name, Text: text})
		t.Kind = "desync"
		r.addLine(t)
	}
}

// Cheat records a cheat the runner has put in plain words, with a line in
// the history.
func (r *Recorder) Cheat(c Cheat) {
	r.cheats = append(r.cheats, c)
	r.addLine(Entry{Seq: r.seq, Turn: r.turn, Kind: "cheat", Seat: c.Seat, Text: "CHEAT: " + c.Text})
}

// Note adds a line about the table (what the validator dropped, …).
func (r *Recorder) Note(text string) {
	r.addLine(Entry{Seq: r.seq, Turn: r.turn, Kind: "table", Text: text})
}

func nameOr(name string, seat int) string {
	if name != "" {
		if seat >= 0 {
			return fmt.Sprintf("%s (seat %d)", name, seat+1)
		}
		return name
	}
	if seat >= 0 {
		return fmt.Sprintf("seat %d", seat+1)
	}
	return "a peer"
}

func (r *Recorder) seatList(seats []int) string {
	parts := make([]string, len(seats))
	for i, s := range seats {
		parts[i] = r.seatName(s)
	}
	return strings.Join(parts, ", ")
}
