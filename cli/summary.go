package cli

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/boardmesh/boardmesh/crypto"
	"github.com/boardmesh/boardmesh/engine"
	"github.com/boardmesh/boardmesh/lockstep"
	"github.com/boardmesh/boardmesh/p2p"
)

// PlaySummary is what `play --auto` prints (as text, or JSON with --json).
type PlaySummary struct {
	Game    string `json:"game"`
	Version string `json:"version"`
	Peers   int    `json:"peers"`
	// Mode is the table's card mode, agreed by the roster: "secret
	// table", "open hands" or "open (no hidden cards)".
	Mode       string        `json:"mode"`
	Reason     string        `json:"reason"`
	Seats      []SummarySeat `json:"seats"`
	Steps      uint64        `json:"steps"`
	Turns      int           `json:"turns"`
	Entries    int           `json:"log_entries"`
	LogHash    string        `json:"log_hash"`
	LogsAgree  bool          `json:"logs_agree"`
	StateHash  string        `json:"final_state_hash"`
	Seconds    float64       `json:"seconds"`
	Disagreers []string      `json:"disagreeing_peers,omitempty"`
	// Log is your seat's session log, for `boardmesh replay`.
	Log string `json:"log"`
	// Desync is the report of a desync that stopped the game, and Bundle
	// the log file that holds it (replay explains it from that file).
	Desync string `json:"desync,omitempty"`
	Bundle string `json:"desync_bundle,omitempty"`
	// Cheats names every cheat a peer of the table detected (seats from 1).
	Cheats []Cheat `json:"cheats,omitempty"`
}

// SummarySeat is one seat's outcome.
type SummarySeat struct {
	Seat   int    `json:"seat"`
	Name   string `json:"name"`
	Score  int    `json:"score"`
	Winner bool   `json:"winner"`
}

func summarize(g *engine.Game, t *p2p.Table, elapsed time.Duration) (PlaySummary, bool) {
	first := t.Peers[0]
	res := first.Result()
	st := first.Status()
	s := PlaySummary{Game: g.Name, Version: g.Version, Peers: len(t.Peers), Steps: st.Seq, Turns: st.Turn,
		Entries: len(first.Entries()), LogHash: first.LogHash().String(), LogsAgree: true, Seconds: elapsed.Seconds(),
		Log: first.Log.Path(), Mode: st.Mode}
	for _, p := range t.Peers[1:] {
		if p.LogHash() != first.LogHash() {
			s.LogsAgree = false
			s.Disagreers = append(s.Disagreers, p.Name)
		}
	}
	if fin := first.Final(); fin != nil {
		h := engine.Hash(fin)
		s.StateHash = fmt.Sprintf("%x", h[:])
	}
	if res == nil {
		return s, false
	}
	s.Reason = res.Reason
	s.Seats = summarySeats(*res, st.Members, st.Seats)
	return s, true
}

// summarySeats lists each seat's outcome, named by the member who held it
// (members in roster order; seats[i] is the member index of seat i).
func summarySeats(res engine.Result, members []lockstep.Member, seats []int) []SummarySeat {
	var out []SummarySeat
	for seat, sc := range res.Scores {
		name := fmt.Sprintf("seat %d", seat+1)
		if seat < len(seats) && seats[seat] < len(members) {
			name = members[seats[seat]].Name
		}
		win := false
		for _, w := range res.Winners {
			win = win || w == seat
		}
		out = append(out, SummarySeat{Seat: seat + 1, Name: name, Score: sc, Winner: win})
	}
	return out
}

func printSummary(io *IOStreams, asJSON bool, g *engine.Game, t *p2p.Table, humans int, elapsed time.Duration, runErr error, cheats ...Cheat) error {
	s, over := summarize(g, t, elapsed)
	s.Cheats = cheats
	var desync *lockstep.DesyncReport
	if runErr != nil {
		// A desync stops the game (ErrStopped), or the player quit after
		// it did; either way the report is what to show.
		var by *p2p.TablePeer
		if desync, by = t.Desync(); desync != nil {
			by.Log.Sync()
			s.Desync, s.Bundle = desync.String(), by.Log.Path()
			for _, p := range t.Peers {
				if crypto.PeerID(p.Host.ID()) == desync.Peer {
					s.Desync = fmt.Sprintf("%s reports that %s's state diverged:\n%s", by.Name, p.Name, s.Desync)
				}
			}
		}
	}
	if asJSON {
		enc := json.NewEncoder(io.Out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(s); err != nil {
			return err
		}
	} else if over {
		fmt.Fprintf(io.Out, "%s: %d peers on loopback, %s, %d steps, %d turns, %.1f s\n", g.Title, s.Peers, s.Mode, s.Steps, s.Turns, s.Seconds)
		fmt.Fprintf(io.Out, "%s\n", s.Reason)
		for _, seat := range s.Seats {
			win := ""
			if seat.Winner {
				win = "  winner"
			}
			fmt.Fprintf(io.Out, "  seat %d  %-18s %4d%s\n", seat.Seat, seat.Name, seat.Score, win)
		}
		if s.LogsAgree {
			fmt.Fprintf(io.Out, "All %d peers committed identical logs: %d entries, sha256 %s…\n", s.Peers, s.Entries, s.LogHash[:16])
		} else {
			fmt.Fprintf(io.Out, "LOGS DIFFER: %v disagree with %s\n", s.Disagreers, t.Peers[0].Name)
		}
		fmt.Fprintf(io.Out, "Log: %s\n  %s\n", s.Log, replayCommand(s.Log, s.Mode, t.Peers[0].Status().MySeat))
	} else if desync != nil {
		printDesync(io, s.Desync, s.Bundle)
	}
	for _, c := range cheats {
		if c.kind == lockstep.CheatEquivocation && !over {
			return &ExitCodeError{Code: ExitCheating, Err: fmt.Errorf("a player was caught cheating: %s", c.Text)}
		}
	}
	if desync != nil {
		return &ExitCodeError{Code: ExitDesync, Err: fmt.Errorf("the peers' states diverged; desync bundle %s", s.Bundle)}
	}
	if runErr != nil {
		return runErr
	}
	if !over {
		return fmt.Errorf("the game did not finish")
	}
	if !s.LogsAgree {
		return &ExitCodeError{Code: ExitDesync, Err: fmt.Errorf("peers committed different logs")}
	}
	return nil
}

// printDesync prints a desync report and where its bundle is.
func printDesync(io *IOStreams, report, bundle string) {
	fmt.Fprintf(io.Out, "DESYNC: the game stopped because the peers' states diverged.\n%s\n", report)
	if bundle != "" {
		fmt.Fprintf(io.Out, "Desync bundle (the log with the diverged state): %s\n  boardmesh replay %s\n", bundle, shellQuote(bundle))
	}
}

// replayCommand is the line that replays log: at a secret table as the
// log's own seat (mySeat, 0-based), so that the replay names its cards
// (replay --seat rebuilds the seat; its key and identity are beside the
// log, or in the home).
func replayCommand(log, mode string, mySeat int) string {
	if mode == lockstep.ModeSecret && mySeat >= 0 {
		return fmt.Sprintf("boardmesh replay --seat %d %s   # with your own cards", mySeat+1, shellQuote(log))
	}
	return "boardmesh replay " + shellQuote(log)
}
