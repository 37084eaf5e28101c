package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/boardmesh/boardmesh/cli/present"
	"github.com/boardmesh/boardmesh/crypto"
	"github.com/boardmesh/boardmesh/engine"
	"github.com/boardmesh/boardmesh/engine/games"
	"github.com/boardmesh/boardmesh/lockstep"
	"github.com/boardmesh/boardmesh/p2p/fileio"
	"github.com/spf13/cobra"
)

// ReplayOptions are the inputs of `boardmesh replay`.
type ReplayOptions struct {
	IO    *IOStreams
	Games func(string) (*engine.Game, error)
	// Ctx cancels a long read (Ctrl-C).
	Ctx context.Context
	// ReadFile reads the log file, bounded; tests replace it.
	ReadFile func(ctx context.Context, path string) ([]byte, error)
	File     string
	JSON     bool
	At       int64 // -1: the whole game
	// Seat tells the history as that seat (from 1) saw it; 0 as a
	// spectator, who sees only what was public.
	Seat int
}

func newCmdReplay(f *Factory, runF func(*ReplayOptions) error) *cobra.Command {
	opts := &ReplayOptions{IO: f.IO, Games: games.Lookup, ReadFile: readLogFile, At: -1}
	cmd := &cobra.Command{
		Use:   "replay FILE",
		Short: "Verify a session log and print the game turn by turn",
		Long: `Verify a session log on its own and print the game turn by turn.

Every entry is re-checked: each signature, each join against the roster, each
reveal against its hash chain, each beacon, each action's pre-state hash and
its legality in the rules engine, each checkpoint and each drop vote. The
first entry that fails is named with the reason. A log that ends with an
equivocation proof names the cheater.

The game is told step by step with what came out of each step (the card
turned over, the dice rolled, what was bought and scored), as a spectator
saw it; --seat N tells it as seat N saw it, its own cards named too. At a
secret table the log holds only the cards opened to everyone: seat N's own
cards are named when the log is seat N's own, with its hidden-card key
beside it (FILE.cardkey) and the identity that wrote it (FILE.identity for
a 'play' table, the home's for a session log), from which replay rebuilds
the seat as a resumed peer would; otherwise it says why they stay unnamed.
Seats are counted from 1, in the text and in --json ("seat": 0 is the
table or the beacon).

With --at SEQ, print the state after SEQ steps instead (the state the action
with seq SEQ was played in). The file format is described in docs/protocol.md.`,
		Example: `  # the summary of a 'play' game prints its log's path:
  boardmesh replay \
    ~/.config/boardmesh/plays/20261201-101500.000-a1b2c3/peer0.log
  boardmesh replay --seat 1 game.log      # the history as seat 1 saw it
  boardmesh replay --json game.log | jq '.steps[] | select(.kind == "action")'
  boardmesh replay --at 120 game.log`,
		Args: usageArgs(cobra.ExactArgs(1)),
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.File = args[0]
			opts.Ctx = cmd.Context()
			if opts.At < -1 {
				return &UsageError{Err: fmt.Errorf("--at %d: want a step number, 0 or more", opts.At)}
			}
			if opts.Seat < 0 {
				return &UsageError{Err: fmt.Errorf("--seat %d: want a seat number from 1 (0: as a spectator)", opts.Seat)}
			}
			if runF != nil {
				return runF(opts)
			}
			return replayRun(opts)
		},
	}
	cmd.Flags().BoolVar(&opts.JSON, "json", false, "print JSON instead of text")
	cmd.Flags().Int64Var(&opts.At, "at", -1, "print the state after this many steps")
	cmd.Flags().IntVar(&opts.Seat, "seat", 0, "tell the history as this seat (from 1) saw it (default: as a spectator)")
	return cmd
}

// readLogFile reads a log or bundle no larger than lockstep.MaxLogFile,
// from a file, a pipe or a device alike, and gives up on Ctrl-C.
func readLogFile(ctx context.Context, path string) ([]byte, error) {
	b, err := fileio.ReadFileHead(ctx, path, lockstep.MaxLogFile, lockstep.LogMagic)
	if errors.Is(err, fileio.ErrWrongHead) {
		return nil, fmt.Errorf("%s: not a boardmesh log file (bad magic)", path)
	}
	return b, err
}

func replayRun(opts *ReplayOptions) error {
	ctx := opts.Ctx
	if ctx == nil {
		ctx = context.Background()
	}
	data, err := opts.ReadFile(ctx, opts.File)
	if err != nil {
		return err
	}
	lf, err := lockstep.ParseLog(data)
	if err != nil {
		var le *lockstep.LogError
		if errors.As(err, &le) && le.Record < 0 {
			return fmt.Errorf("%s: %w", opts.File, le.Err)
		}
		if errors.Is(err, lockstep.ErrTruncated) {
			return fmt.Errorf("%s is truncated: %w (the %d entries before it are intact)", opts.File, err, len(lf.Entries))
		}
		more := ""
		if n := recordsAfter(lf); n > 0 {
			more = fmt.Sprintf("; %d good records follow it", n)
		}
		if len(lf.Damaged) > 1 {
			more += fmt.Sprintf("; %d damaged places in all", len(lf.Damaged))
		}
		return fmt.Errorf("%s is corrupted: %w (the %d entries before it are intact%s)", opts.File, err, len(lf.Entries), more)
	}
	if len(lf.Entries) == 0 {
		return fmt.Errorf("%s holds no log entries", opts.File)
	}
	if opts.At >= 0 {
		return replayAt(opts, lf.Entries)
	}
	r, verr := lockstep.Verify(lf.Entries, opts.Games)
	// State envelopes kept with the log make it a desync bundle: each is
	// explained against the verified log.
	var desyncs []*lockstep.DesyncReport
	if verr == nil {
		states := append([]*crypto.Envelope(nil), lf.States...)
		var own []*crypto.Envelope
		for _, env := range lf.Sent {
			if env.Kind == crypto.KindState {
				states = append(states, env)
				own = append(own, env)
			}
		}
		for _, env := range states {
			// Our own states' hashes carry a secret table's log past a
			// wait for cards it ends with (lockstep.ExplainDesync).
			rep, err := lockstep.ExplainDesync(lf.Entries, opts.Games, env, own...)
			if err != nil {
				fmt.Fprintf(opts.IO.ErrOut, "a kept state envelope does not explain anything: %v\n", err)
				continue
			}
			if rep != nil {
				desyncs = append(desyncs, rep)
			}
		}
	}
	if r != nil && opts.Seat > len(r.Seats) {
		return &UsageError{Err: fmt.Errorf("--seat %d: the game has %d seats", opts.Seat, len(r.Seats))}
	}
	// Only a log that verifies is rebuilt as a seat.
	var own engine.State
	if verr == nil {
		var unnamed string
		if own, unnamed = seatKnowledge(opts, lf, r); unnamed != "" {
			fmt.Fprintln(opts.IO.ErrOut, unnamed)
		}
	}
	hist, told := replayHistory(opts, lf.Entries, own)
	if opts.JSON {
		if err := printReplayJSON(opts, r, lf.Entries, verr, desyncs, hist, told); err != nil {
			return err
		}
	} else {
		printReplayText(opts, r, lf.Entries, verr, hist)
		for _, d := range desyncs {
			fmt.Fprintf(opts.IO.Out, "%s\n", d)
		}
	}
	if err := replayExit(r, verr); err != nil {
		return err
	}
	if len(desyncs) > 0 {
		return &ExitCodeError{Code: ExitDesync, Err: fmt.Errorf("the log holds a desync report: %s's state differs from the log's after step %d", memberName(r, desyncs[0].Peer), desyncs[0].Entry)}
	}
	return nil
}

// replayExit maps the outcome to the command's error: a log that fails
// verification or proves cheating is the cheating exit code.
func replayExit(r *lockstep.Replay, verr error) error {
	if verr != nil {
		return &ExitCodeError{Code: ExitCheating, Err: fmt.Errorf("the log does not verify: %w", verr)}
	}
	if r.Cheater != "" {
		return &ExitCodeError{Code: ExitCheating, Err: fmt.Errorf("the log ends with proof that %s equivocated", memberName(r, r.Cheater))}
	}
	return nil
}

func memberName(r *lockstep.Replay, id any) string {
	for _, m := range r.Members {
		if m.ID == id {
			if m.Name != "" {
				return m.Name
			}
		}
	}
	return fmt.Sprint(id)
}

func seatName(r *lockstep.Replay, seat int) string {
	if seat < 0 || seat >= len(r.Seats) {
		return "chance"
	}
	m := r.Members[r.Seats[seat]]
	name := m.Name
	if name == "" {
		name = m.ID.String()
	}
	return fmt.Sprintf("seat %d (%s)", seat+1, name)
}

// replayHistory tells the game with the presentation model's Recorder, as
// opts.Seat saw it: every step with what came out of it. own, if not nil,
// is the seat's state rebuilt with its knowledge of its own cards
// (seatKnowledge), which names them at a secret table.
// It also returns each step told on its own, in step order.
func replayHistory(opts *ReplayOptions, log []*crypto.Envelope, own engine.State) ([]present.Entry, []engine.Narration) {
	pre, _ := lockstep.VerifyFast(log, opts.Games)
	var know *engine.Knowledge
	if cs, ok := own.(engine.CardState); ok {
		know = cs.Cards().Knowledge()
	}
	var told []engine.Narration
	v := lockstep.NewVerifier(opts.Games)
	v.OnStep(func(prev, next engine.State, s lockstep.ReplayStep, a engine.Action) {
		undo := withKnowledge(know, prev, next)
		told = append(told, present.Narrate(prev, next, prev.ToAct(), a, opts.Seat-1))
		undo()
	})
	for _, env := range log {
		if v.Feed(env) != nil {
			break
		}
	}
	// The log of a seat that left while its table waited for cards (its
	// first hand dealt, say) ends before the entry that passes the wait:
	// the seat's own state, which passed it, tells the rest, as a live
	// peer's does.
	if hint := present.CardHint(own); hint != nil {
		v.SetCardHint(hint)
		_ = v.PassCards() // a refusal stops the telling where Feed's would
	}
	rec := present.NewRecorder(opts.Games)
	rec.SetViewer(opts.Seat - 1)
	if own != nil {
		rec.SetKnowledge(own)
	}
	if pre != nil {
		rec.SetNames(func(seat int) string {
			if seat < len(pre.Seats) && pre.Seats[seat] < len(pre.Members) {
				return pre.Members[pre.Seats[seat]].Name
			}
			return ""
		})
	}
	rec.Feed(log...)
	if own != nil {
		rec.SetCardHint(own)
		rec.Flush() // no later knowledge is coming
	}
	var out []present.Entry
	for _, e := range rec.History() {
		if e.Kind != "table" || strings.HasPrefix(e.Text, "the history stops") {
			out = append(out, e)
		}
	}
	return out, told
}

func printReplayText(opts *ReplayOptions, r *lockstep.Replay, log []*crypto.Envelope, verr error, hist []present.Entry) {
	w := opts.IO.Out
	if r != nil && r.Game != nil {
		fmt.Fprintf(w, "%s (%s), options %s\n", r.Game.Title, r.Game.Version, r.Options)
		fmt.Fprintf(w, "session %s, %d entries\n", r.Session, len(log))
		for seat := range r.Seats {
			fmt.Fprintf(w, "  %s  %s\n", seatName(r, seat), r.Members[r.Seats[seat]].ID)
		}
		as := "as a spectator saw it"
		if opts.Seat > 0 {
			as = fmt.Sprintf("as seat %d saw it", opts.Seat)
		}
		fmt.Fprintf(w, "The game %s (step, turn, who: what — what came out):\n", as)
		for _, e := range hist {
			who := e.Who
			if who == "" {
				who = "the beacon"
			}
			line := e.Text
			if e.Outcome != "" {
				if line != "" {
					line += " — "
				}
				line += e.Outcome
			}
			fmt.Fprintf(w, "%5d  t%-3d %-24s %s\n", e.Seq, e.Turn, who, line)
		}
	}
	if verr != nil {
		fmt.Fprintf(w, "verification FAILED at %v\n", verr)
		return
	}
	switch {
	case r.Cheater != "":
		fmt.Fprintf(w, "stopped: %s signed two different envelopes for one slot (proof in the last entry)\n", memberName(r, r.Cheater))
	case r.Result != nil:
		parts := make([]string, len(r.Result.Scores))
		for i, s := range r.Result.Scores {
			parts[i] = fmt.Sprintf("%s %d", seatName(r, i), s)
		}
		win := make([]string, len(r.Result.Winners))
		for i, s := range r.Result.Winners {
			win[i] = seatName(r, s)
		}
		fmt.Fprintf(w, "game over: %s\nscores: %s\nwinner: %s\n", r.Result.Reason, strings.Join(parts, ", "), strings.Join(win, ", "))
	default:
		fmt.Fprintf(w, "the log ends before the game does (%s)\n", r.Phase)
	}
	fmt.Fprintf(w, "verified: %d entries; every signature, reveal, beacon, action and checkpoint checks\n", len(log))
}

type replayJSON struct {
	Game     string           `json:"game,omitempty"`
	Version  string           `json:"version,omitempty"`
	Options  string           `json:"options,omitempty"`
	Session  string           `json:"session,omitempty"`
	Entries  int              `json:"entries"`
	Verified bool             `json:"verified"`
	Error    string           `json:"error,omitempty"`
	Seats    []replaySeatJSON `json:"seats"`
	Steps    []replayStepJSON `json:"steps"`
	// History is the game told with outcomes, as Seat saw it (0: as a
	// spectator).
	History []present.Entry `json:"history"`
	Seat    int             `json:"seen_by_seat"`
	Result  *replayResult   `json:"result,omitempty"`
	Cheater string          `json:"cheater,omitempty"`
	State   []engine.Field  `json:"state,omitempty"`
	At      *int64          `json:"at,omitempty"`
	Hash    string          `json:"hash,omitempty"`
	Desyncs []desyncJSON    `json:"desyncs,omitempty"`
}

// replayResult is engine.Result with seats from 1.
type replayResult struct {
	Scores  []int  `json:"scores"`
	Winners []int  `json:"winners"`
	Reason  string `json:"reason"`
}

type replaySeatJSON struct {
	Seat    int    `json:"seat"`
	Name    string `json:"name"`
	PeerID  string `json:"peer_id"`
	Dropped bool   `json:"dropped"`
}

type replayStepJSON struct {
	Step  int    `json:"step"`
	Kind  string `json:"kind"`
	Seat  int    `json:"seat"`
	Entry int    `json:"entry"`
	What  string `json:"what"`
	// Outcome is what came out of the step, as the replay's seat saw it.
	Outcome string `json:"outcome,omitempty"`
	Hash    string `json:"hash"`
}

func replayToJSON(r *lockstep.Replay, log []*crypto.Envelope, verr error) replayJSON {
	out := replayJSON{Entries: len(log), Verified: verr == nil, Seats: []replaySeatJSON{}, Steps: []replayStepJSON{}}
	if verr != nil {
		out.Error = verr.Error()
	}
	if r == nil || r.Game == nil {
		return out
	}
	out.Game, out.Version, out.Options, out.Session = r.Game.Name, r.Game.Version, r.Options.String(), r.Session.String()
	for seat, mi := range r.Seats {
		out.Seats = append(out.Seats, replaySeatJSON{Seat: seat + 1, Name: r.Members[mi].Name, PeerID: r.Members[mi].ID.String(), Dropped: r.Dropped[seat]})
	}
	for s, st := range r.Steps {
		out.Steps = append(out.Steps, replayStepJSON{Step: s, Kind: st.Kind, Seat: st.Seat + 1, Entry: st.Entry, What: st.What, Hash: r.Hashes[s+1].String()})
	}
	if r.Result != nil {
		res := &replayResult{Scores: r.Result.Scores, Reason: r.Result.Reason, Winners: []int{}}
		for _, w := range r.Result.Winners {
			res.Winners = append(res.Winners, w+1)
		}
		out.Result = res
	}
	if r.Cheater != "" {
		out.Cheater = r.Cheater.String()
	}
	return out
}

func printReplayJSON(opts *ReplayOptions, r *lockstep.Replay, log []*crypto.Envelope, verr error, desyncs []*lockstep.DesyncReport, hist []present.Entry, told []engine.Narration) error {
	out := replayToJSON(r, log, verr)
	for i := range out.Steps {
		if i >= len(told) {
			break
		}
		if out.Steps[i].Kind == "chance" {
			out.Steps[i].What = "the beacon drew"
			if told[i].What != "" {
				out.Steps[i].What = told[i].What
			}
		} else if told[i].What != "" {
			out.Steps[i].What = told[i].What
		}
		out.Steps[i].Outcome = told[i].Outcome
	}
	out.History, out.Seat = hist, opts.Seat
	if out.History == nil {
		out.History = []present.Entry{}
	}
	for _, d := range desyncs {
		out.Desyncs = append(out.Desyncs, desyncJSON{Peer: d.Peer.String(), Seq: d.Seq, Entry: d.Entry,
			Author: d.EntryAuthor.String(), What: d.EntryWhat, LogHash: d.Mine.String(), TheirHash: d.Theirs.String(), Diff: d.Diff})
	}
	enc := json.NewEncoder(opts.IO.Out)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

type desyncJSON struct {
	Peer      string             `json:"peer"`
	Seq       uint64             `json:"seq"`
	Entry     uint64             `json:"first_divergent_step"`
	Author    string             `json:"author,omitempty"`
	What      string             `json:"what"`
	LogHash   string             `json:"log_hash"`
	TheirHash string             `json:"their_hash"`
	Diff      []engine.FieldDiff `json:"diff"`
}

// replayAt prints the state after opts.At steps.
func replayAt(opts *ReplayOptions, log []*crypto.Envelope) error {
	r, used, err := lockstep.ReplayAt(log, opts.Games, uint64(opts.At))
	if err != nil {
		return &ExitCodeError{Code: ExitCheating, Err: fmt.Errorf("the log does not verify: %w", err)}
	}
	if r.Final == nil {
		return fmt.Errorf("the log ends before the game starts")
	}
	steps := int64(len(r.Steps))
	if steps < opts.At {
		return fmt.Errorf("the log has only %d steps; --at %d is beyond its end", steps, opts.At)
	}
	hash := r.Hashes[steps]
	if opts.JSON {
		out := replayToJSON(r, log[:used], nil)
		out.Entries = used
		out.At, out.Hash, out.State = &steps, hash.String(), engine.TraceFields(r.Final)
		enc := json.NewEncoder(opts.IO.Out)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	w := opts.IO.Out
	fmt.Fprintf(w, "%s: state after %d steps (entries 0–%d verified), hash %s\n", r.Game.Title, steps, used-1, hash)
	if who := r.Final.ToAct(); who.Kind == engine.ActorSeat {
		fmt.Fprintf(w, "to act: %s\n", seatName(r, who.Seat))
	} else {
		fmt.Fprintf(w, "to act: %s\n", who)
	}
	fmt.Fprintln(w, r.Final.View(-1).Render(100, false))
	return nil
}

// recordsAfter counts the good records after the first damage.
func recordsAfter(lf *lockstep.LogFile) int {
	n := 0
	for _, off := range lf.Offsets {
		if off >= lf.Good {
			n++
		}
	}
	return n
}
