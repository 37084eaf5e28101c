package present

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"

	"github.com/boardmesh/boardmesh/engine"
	"github.com/boardmesh/boardmesh/lockstep"
)

// Env is what only the runner knows about the table.
type Env struct {
	// Human is set when a person plays the local seat (not --watch, not a
	// spectator).
	Human bool
	// Self is the local peer's id (its String()).
	Self string
	// Conn says whether the local peer is connected to a member (by its id
	// String()): "connected" or "not connected". Nil: all connected.
	Conn func(id string) string
	// Bot tells whether a member is played by a bot on this machine.
	Bot func(id string) bool
	// Joined lists who has joined the lobby, while it is open.
	Joined []lockstep.Member
	// Lobby is the lobby's code and addresses, where known.
	Lobby *Lobby
	// DropAfter is how long, in ms, a seat must keep the table waiting
	// before a drop may be proposed.
	DropAfter int64
	// Votes are the drop votes seen and not yet decided.
	Votes []Vote
}

// Build puts the Table together: r's history, the node's status st, the
// current engine state (nil before the game) and the runner's env.
func Build(r *Recorder, st lockstep.Status, state engine.State, env Env) Table {
	t := Table{Phase: phaseName(st.Phase), Turn: st.Turn + 1, Step: st.Seq, DropAfter: env.DropAfter,
		History: r.History(), Last: r.Last(), Cheats: r.Cheats(), Sync: r.Sync(), Votes: env.Votes, Lobby: env.Lobby}
	if st.Game != nil {
		t.Game, t.Title, t.Rules = st.Game.Name, st.Game.Title, st.Game.Version
	}
	if n := len(st.Members); n > 0 {
		t.Sync.Text = strings.Replace(t.Sync.Text, "all peers", fmt.Sprintf("all %d peers", n), 1)
	}
	viewer := st.MySeat
	if !env.Human {
		viewer = -1
	}
	t.You = viewer + 1
	if t.You > 0 {
		t.Since = since(t.History, t.You)
	}
	memberName := func(mi int) string {
		if mi < 0 || mi >= len(st.Members) {
			return ""
		}
		if n := st.Members[mi].Name; n != "" {
			return n
		}
		return short(st.Members[mi].ID.String())
	}
	seatOfMember := func(mi int) int {
		for si, x := range st.Seats {
			if x == mi {
				return si
			}
		}
		return -1
	}
	for si, mi := range st.Seats {
		s := Seat{Number: si + 1, Name: memberName(mi), Color: SeatColor(si + 1), You: si == viewer}
		if mi < len(st.Members) {
			id := st.Members[mi].ID.String()
			s.Peer = id
			s.Bot = env.Bot != nil && env.Bot(id)
		}
		s.Dropped = si < len(st.Dropped) && st.Dropped[si]
		t.Seats = append(t.Seats, s)
	}
	who := func(seat int) string {
		if seat >= 0 && seat < len(t.Seats) {
			return fmt.Sprintf("%s (seat %d)", t.Seats[seat].Name, seat+1)
		}
		return fmt.Sprintf("seat %d", seat+1)
	}

	// Peers, with their real connection state.
	for mi, m := range st.Members {
		id := m.ID.String()
		p := Peer{Name: memberName(mi), ID: short(id), Seat: seatOfMember(mi) + 1, Conn: "connected", Self: id == env.Self,
			Bot: env.Bot != nil && env.Bot(id)}
		switch {
		case p.Self:
			p.Conn = "here"
		case p.Seat > 0 && p.Seat <= len(st.Dropped) && st.Dropped[p.Seat-1]:
			p.Conn = "left"
		case env.Conn != nil:
			p.Conn = env.Conn(id)
		}
		for _, w := range st.Waiting {
			if w.Peer.String() == id {
				p.Waited = max(p.Waited, w.For)
			}
		}
		t.Peers = append(t.Peers, p)
	}
	// Stalls: who the table waits for, what, how long; a drop may be
	// proposed for a seated peer that is not us once it waited DropAfter.
	proposed := map[int]bool{} // seats someone voted to drop
	for _, v := range st.DropVotes {
		x := Vote{Seats: plus1(v.Seats), Needed: len(v.Needed), Have: len(v.Voters)}
		if len(v.Voters) > 0 {
			x.Voter = v.Voters[0] + 1
		}
		for _, vs := range v.Voters {
			x.Voters = append(x.Voters, vs+1)
		}
		t.Votes = append(t.Votes, x)
		for _, s := range v.Seats {
			proposed[s] = true
		}
	}
	if len(st.DropVotes) == 0 {
		t.Votes = append(t.Votes, env.Votes...)
	}
	t.Pause, t.CanClaim = claimLater(st, env)
	for _, w := range st.Waiting {
		s := Stall{Seat: w.Seat + 1, Name: w.Name, What: w.What, For: w.For, Why: w.Why}
		if s.Name == "" {
			s.Name = short(w.Peer.String())
		}
		possible := w.Seat >= 0 && (st.CanDrop == nil || w.Seat < len(st.CanDrop) && st.CanDrop[w.Seat])
		s.CanDrop = env.Human && st.Phase == lockstep.PhasePlaying && w.Seat >= 0 && w.Seat != st.MySeat &&
			w.Peer.String() != env.Self && possible && (env.DropAfter > 0 && w.For >= env.DropAfter || proposed[w.Seat])
		s.Droppable = possible
		t.Stalls = append(t.Stalls, s)
	}

	if state != nil {
		t.View = state.View(viewer)
		t.Board = t.View.Render(80, false)
		if g, ok := state.(engine.Glossary); ok {
			t.Terms = g.Terms(viewer)
		}
		t.Scores = scores(state, viewer, t.Seats, resultOf(st, state))
	}
	switch st.Actor.Kind {
	case engine.ActorChance:
		t.Chance = st.Phase == lockstep.PhasePlaying
	case engine.ActorSeat:
		t.ToAct = st.Actor.Seat + 1
	}

	// The status line.
	switch {
	case st.Phase == lockstep.PhaseStopped:
		t.Status = "The game stopped."
	case st.Phase == lockstep.PhaseOver:
		t.Status = "The game is over."
		if res := resultOf(st, state); res != nil {
			t.Result = &Result{Reason: res.Reason}
			for _, w := range res.Winners {
				t.Result.Winners = append(t.Result.Winners, w+1)
			}
		}
	case st.Phase <= lockstep.PhaseLobby:
		var names []string
		for _, m := range env.Joined {
			names = append(names, m.Name)
		}
		if t.Lobby == nil {
			t.Lobby = &Lobby{}
		}
		t.Lobby.Joined = names
		t.Status = fmt.Sprintf("In the lobby: %d joined", len(names))
		if len(names) > 0 {
			t.Status += " (" + strings.Join(names, ", ") + ")"
		}
		if t.Lobby.Host {
			t.Status += " — press s to start"
		}
	case st.Phase < lockstep.PhasePlaying:
		t.Status = "Starting: everyone accepts the roster, then the seats are drawn"
	case st.Actor.Kind == engine.ActorChance:
		t.Status = fmt.Sprintf("Turn %d: drawing from the beacon", t.Turn)
	case st.Actor.Kind == engine.ActorCards:
		t.Status = fmt.Sprintf("Turn %d: the cards are dealt by mental poker", t.Turn)
	case st.Actor.Kind == engine.ActorSeat && st.Actor.Seat == viewer && viewer >= 0 && st.Moved:
		// Sent with this seat's checkpoint; committed once every seat's
		// checkpoint of the turn is in (the stalls below say who is
		// awaited).
		t.Status = fmt.Sprintf("Turn %d: your move is sent; waiting for the turn's checkpoints", t.Turn)
	case st.Actor.Kind == engine.ActorSeat && st.Actor.Seat == viewer && viewer >= 0 && !st.CanAct:
		// The engine's next mover is the viewer, but the protocol still
		// waits for something first (every seat's checkpoint of the turn,
		// or a restarted peer's catch-up): a move now would be refused, so
		// none is offered (a page once offered moves behind a dead
		// player's missing checkpoint, and each click was refused with
		// "it is not this peer's move"). The stalls below say who is
		// awaited.
		t.Status = fmt.Sprintf("Turn %d: your move next", t.Turn)
	case st.Actor.Kind == engine.ActorSeat && st.Actor.Seat == viewer && viewer >= 0:
		t.Status = fmt.Sprintf("Turn %d: your move", t.Turn)
		if state != nil {
			t.Actions = Actions(state)
			t.Default = DefaultAction(t.Actions)
		}
	case st.Actor.Kind == engine.ActorSeat:
		t.Status = fmt.Sprintf("Turn %d: %s to move", t.Turn, who(st.Actor.Seat))
	}
	if st.Mode != "" && st.Phase >= lockstep.PhasePlaying {
		// Every peer agreed to the mode in the roster; say which it is.
		t.Status += " · " + st.Mode
	}
	if st.Phase == lockstep.PhasePlaying {
		var ws []string
		for _, s := range t.Stalls {
			if s.For >= 2000 && s.Seat-1 != viewer {
				ws = append(ws, fmt.Sprintf("waiting for %s (%s, %d s)", s.Name, s.What, s.For/1000))
			}
		}
		if len(ws) > 0 {
			t.Status += " — " + strings.Join(ws, "; ")
		}
	}
	return t
}

// claimLater is the pause line and whether the viewer may claim the win.
// A player's node claims after its own stall time (the runner gives a
// person's node no drop time, so that it votes no drop by itself), but the
// player's screen offers the claim, like a drop, only once the other has
// kept the table waiting env.DropAfter (--drop-after): until then the
// line says when.
func claimLater(st lockstep.Status, env Env) (string, bool) {
	if !env.Human || !st.CanClaim || env.DropAfter <= 0 {
		return st.Pause, env.Human && st.CanClaim
	}
	var waited int64
	for _, w := range st.Waiting {
		if w.Seat >= 0 && w.Seat != st.MySeat && !(w.Seat < len(st.Dropped) && st.Dropped[w.Seat]) {
			waited = max(waited, w.For)
		}
	}
	if waited >= env.DropAfter {
		return st.Pause, true
	}
	pause, ok := strings.CutSuffix(st.Pause, ", or claim the win")
	if !ok {
		return st.Pause, false
	}
	return pause + fmt.Sprintf(" (a claim of the win is possible after %s)", seconds(env.DropAfter)), false
}

// seconds is ms in words: "8 s", "1 min 30 s".
func seconds(ms int64) string {
	s := (ms + 999) / 1000
	if s < 60 {
		return fmt.Sprintf("%d s", s)
	}
	if s%60 == 0 {
		return fmt.Sprintf("%d min", s/60)
	}
	return fmt.Sprintf("%d min %d s", s/60, s%60)
}

// since is the game's lines after the viewer's own last move, by others.
func since(h []Entry, you int) []Entry {
	i := len(h)
	for i > 0 && !(h[i-1].Seat == you && h[i-1].Kind == "action") {
		i--
	}
	var out []Entry
	for _, e := range h[i:] {
		if e.Kind == "action" || e.Kind == "bot" || e.Kind == "chance" || e.Kind == "drop" || e.Kind == "cheat" {
			out = append(out, e)
		}
	}
	if i == 0 && len(out) > 50 {
		out = out[len(out)-50:] // never moved yet: the latest only
	}
	return out
}

func plus1(xs []int) []int {
	out := make([]int, len(xs))
	for i, x := range xs {
		out[i] = x + 1
	}
	return out
}

func phaseName(p lockstep.Phase) string {
	switch {
	case p <= lockstep.PhaseLobby:
		return "lobby"
	case p < lockstep.PhasePlaying:
		return "starting"
	case p == lockstep.PhasePlaying:
		return "playing"
	case p == lockstep.PhaseOver:
		return "over"
	}
	return "stopped"
}

func short(id string) string { return id[max(0, len(id)-6):] }

// resultOf is the result of a game that is over, nil before: the node's
// (a claim ends a game the engine state does not see ended), else the
// state's.
func resultOf(st lockstep.Status, state engine.State) *engine.Result {
	switch {
	case st.Phase != lockstep.PhaseOver:
		return nil
	case st.Result != nil:
		return st.Result
	case state != nil:
		r := state.Result()
		return &r
	}
	return nil
}

// scores lists every seat's score the viewer may know, with its parts;
// res, once the game is over, its result.
func scores(state engine.State, viewer int, seats []Seat, res *engine.Result) []Score {
	over := res != nil
	if res == nil {
		res = &engine.Result{}
	}
	sc, _ := state.(engine.Scorer)
	var out []Score
	for seat := 0; seat < state.Players(); seat++ {
		s := Score{Seat: seat + 1}
		if seat < len(seats) {
			s.Name = seats[seat].Name
		}
		known := false
		if sc != nil {
			parts, ok := sc.ScoreParts(seat, viewer)
			if ok {
				known = true
				s.Parts = parts
				for _, p := range parts {
					s.Total += p.Points
				}
			}
		}
		if over && seat < len(res.Scores) {
			known = true
			s.Total = res.Scores[seat]
			for _, w := range res.Winners {
				s.Winner = s.Winner || w == seat
			}
		}
		if known {
			out = append(out, s)
		}
	}
	return out
}

// Actions lists the legal moves of the seat to act in state, with their
// IDs, labels, groups and what the game says of them.
func Actions(state engine.State) []Action {
	legal := state.Legal(nil)
	inf, _ := state.(engine.ActionInformer)
	out := make([]Action, len(legal))
	for i, a := range legal {
		label := state.Describe(a)
		x := Action{ID: ActionID(a), Label: label, Group: GroupOf(label), Action: a}
		if inf != nil {
			info := inf.ActionInfo(a)
			if info.Target.Kind != "" {
				t := info.Target
				x.Target = &t
			}
			x.Text, x.Risky = info.Text, info.Risky
		}
		out[i] = x
	}
	if c, ok := state.(engine.Combiner); ok {
		for _, combo := range c.Combos(legal) {
			if len(combo.Steps) < 2 {
				continue
			}
			x := Action{Label: combo.Label, Group: GroupOf(combo.Label), Action: combo.Steps[0], Then: combo.Steps[1:]}
			var ids []string
			for _, st := range combo.Steps {
				ids = append(ids, ActionID(st))
			}
			x.ID, x.Steps = strings.Join(ids, "+"), ids
			if inf != nil {
				if t := inf.ActionInfo(combo.Steps[len(combo.Steps)-1]).Target; t.Kind != "" {
					x.Target = &t
				}
			}
			out = append(out, x)
		}
	}
	return out
}

// DefaultAction is the ID of the move to highlight first: the first that
// is not risky, or the first.
func DefaultAction(as []Action) string {
	for _, a := range as {
		if !a.Risky {
			return a.ID
		}
	}
	if len(as) > 0 {
		return as[0].ID
	}
	return ""
}

// ActionID is a move's stable id: its op and arguments joined by dots
// ("3.1.-2").
func ActionID(a engine.Action) string {
	var b strings.Builder
	b.WriteString(strconv.Itoa(int(a.Op)))
	for _, x := range a.Args {
		b.WriteByte('.')
		b.WriteString(strconv.Itoa(int(x)))
	}
	return b.String()
}

// Choose finds the legal move with the given id; ok is false when the id
// names no legal move (a stale click, a hostile browser). For a combo it
// returns its first move; ChooseAll returns them all.
func Choose(actions []Action, id string) (engine.Action, bool) {
	all, ok := ChooseAll(actions, id)
	if !ok {
		return engine.Action{}, false
	}
	return all[0], true
}

// ChooseAll is the moves of the action with the given id: one, or a
// combo's steps in order.
func ChooseAll(actions []Action, id string) ([]engine.Action, bool) {
	for _, a := range actions {
		if a.ID == id {
			return append([]engine.Action{a.Action}, a.Then...), true
		}
	}
	return nil, false
}

// GroupOf is the leading words of a move's label, up to the first word
// that names a place or a number: "Play Post Office at (1,2)" groups under
// "Play Post Office", "Move a pawn from START to Road space 3" under "Move
// a pawn from START to Road space".
func GroupOf(label string) string {
	words := strings.Fields(label)
	n := len(words)
	for i, w := range words {
		if strings.ContainsFunc(w, func(r rune) bool { return unicode.IsDigit(r) || r == '(' || r == '$' }) {
			n = i
			break
		}
	}
	for n > 1 {
		switch strings.ToLower(words[n-1]) {
		case "at", "to", "on", "onto", "from", "in", "into", "with", "for", "of", "a", "the", "-", "—":
			n--
			continue
		}
		break
	}
	if n == 0 {
		return label
	}
	return strings.Join(words[:n], " ")
}
