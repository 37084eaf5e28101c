package cli

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/boardmesh/boardmesh/cli/tui"
	"github.com/boardmesh/boardmesh/crypto"
	"github.com/boardmesh/boardmesh/engine"
	"github.com/boardmesh/boardmesh/lockstep"
	"github.com/boardmesh/boardmesh/p2p"
	"github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
)

// tableView turns one peer's runner updates into terminal UI snapshots
// and keeps the running story of the game. It lives on the runner's
// goroutine (OnUpdate), so it needs no lock.
type tableView struct {
	title  string
	host   host.Host
	human  bool // the local seat is played by a person
	bots   map[crypto.PeerID]bool
	prev   engine.State
	log    []string
	sync   string
	desync bool
	result string
	over   bool
	status lockstep.Status
	state  engine.State
	joined []lockstep.Member
	// canStart: this is the host's view; s starts the game in the lobby.
	canStart bool
	// selfWait: the table's last stall was for our own move.
	selfWait bool
	// drops is the validator's count last shown, at dropsAt: a flood is
	// summed up every few seconds, not line by line.
	drops   p2p.Drops
	dropsAt time.Time
	// reach says how each peer is connected beyond the LAN (internet.go);
	// its changes wait in reachLines for the runner's goroutine.
	reach      *p2p.Reach
	reachMu    sync.Mutex
	reachLines []string
}

func newTableView(title string, h host.Host, human bool) *tableView {
	return &tableView{title: title, host: h, human: human, bots: map[crypto.PeerID]bool{}}
}

// self is this peer's ID in lockstep's form.
func (v *tableView) self() crypto.PeerID { return crypto.PeerID(v.host.ID()) }

func (v *tableView) name(id crypto.PeerID) string {
	for _, m := range v.status.Members {
		if m.ID == id && m.Name != "" {
			return m.Name
		}
	}
	s := id.String()
	return s[max(0, len(s)-6):]
}

func (v *tableView) seatName(seat int) string {
	if seat < 0 || seat >= len(v.status.Seats) {
		return fmt.Sprintf("seat %d", seat+1)
	}
	mi := v.status.Seats[seat]
	if mi < len(v.status.Members) {
		return v.name(v.status.Members[mi].ID)
	}
	return fmt.Sprintf("seat %d", seat+1)
}

// seatOf is the seat of a peer, -1 for a spectator or before the draw.
func (v *tableView) seatOf(id crypto.PeerID) int {
	for si, mi := range v.status.Seats {
		if mi < len(v.status.Members) && v.status.Members[mi].ID == id {
			return si
		}
	}
	return -1
}

// who names a peer for the status and the log: its name and, once seats
// are drawn, its seat number, the number the boards show.
func (v *tableView) who(id crypto.PeerID) string {
	if s := v.seatOf(id); s >= 0 {
		return fmt.Sprintf("%s (seat %d)", v.name(id), s+1)
	}
	return v.name(id)
}

// whoSeat is who for a seat.
func (v *tableView) whoSeat(seat int) string {
	if seat < 0 || seat >= len(v.status.Seats) || v.status.Seats[seat] >= len(v.status.Members) {
		return fmt.Sprintf("seat %d", seat+1)
	}
	return fmt.Sprintf("%s (seat %d)", v.seatName(seat), seat+1)
}

func (v *tableView) add(line string) {
	v.log = append(v.log, line)
	if len(v.log) > 200 {
		v.log = v.log[len(v.log)-200:]
	}
}

// dropsEvery is how often the junk a flood sends is summed up.
const dropsEvery = 2 * time.Second

// update folds one runner update in.
func (v *tableView) update(u p2p.Update) {
	v.drainReach()
	v.status = u.Status
	v.joined = u.Joined
	for _, e := range u.Entries {
		if e.Kind != crypto.KindAction || v.prev == nil {
			continue
		}
		a, err := engine.DecodeAction(e.Body)
		if err != nil {
			continue
		}
		v.add(fmt.Sprintf("%s: %s", v.who(e.Author), v.prev.Describe(a)))
	}
	for _, ev := range u.Events {
		// Waiting for our own move is what "your move" says already: the
		// log keeps it, and the resumption after it, out.
		switch ev.Kind {
		case lockstep.EventWaiting:
			self := len(ev.Waiting) > 0
			for _, w := range ev.Waiting {
				self = self && w.Peer == v.self()
			}
			v.selfWait = self
			if self {
				continue
			}
		case lockstep.EventResumed:
			if v.selfWait {
				v.selfWait = false
				continue
			}
		}
		if c, ok := cheatOf(ev, u.Status); ok {
			v.add("CHEAT: " + c.Text)
			continue
		}
		switch ev.Kind {
		case lockstep.EventJoined, lockstep.EventStarted, lockstep.EventDropped, lockstep.EventRefused,
			lockstep.EventEquivocation, lockstep.EventWaiting, lockstep.EventResumed:
			v.add(ev.Text)
		case lockstep.EventTurn:
			v.sync = fmt.Sprintf("state hashes of all %d peers agree (turn %d, step %d)", len(u.Status.Members), ev.Turn, ev.Seq)
		case lockstep.EventDesync:
			v.desync = true
			if ev.Desync != nil {
				v.sync = ev.Desync.String()
			} else {
				v.sync = ev.Text
			}
			v.add(ev.Text)
		case lockstep.EventGameOver:
			v.over = true
			if ev.Result != nil {
				v.result = v.resultText(*ev.Result)
			}
			v.sync = fmt.Sprintf("state hashes of all %d peers agree on the final state", len(u.Status.Members))
			v.add(ev.Text)
		}
	}
	for _, note := range u.Notes {
		v.add(note)
	}
	if t := dropsText(u.Drops, v.drops); t != "" && time.Since(v.dropsAt) >= dropsEvery {
		v.drops, v.dropsAt = u.Drops, time.Now()
		v.add(t)
	}
	if u.State != nil {
		v.state = u.State
		v.prev = u.State
	}
}

func (v *tableView) resultText(r engine.Result) string {
	var b strings.Builder
	b.WriteString(r.Reason)
	for seat, sc := range r.Scores {
		win := ""
		for _, w := range r.Winners {
			if w == seat {
				win = "  winner"
			}
		}
		fmt.Fprintf(&b, "\n  %d %-14s %4d%s", seat+1, v.seatName(seat), sc, win)
	}
	return b.String()
}

// snapshot is the UI's picture of the table now.
func (v *tableView) snapshot() tui.Snapshot {
	st := v.status
	s := tui.Snapshot{Title: v.title, Seat: st.MySeat, Step: st.Seq, Log: append([]string(nil), v.log...), Sync: v.sync, Desync: v.desync, Over: v.over, Result: v.result}
	if !v.human {
		s.Seat = -1 // --watch: nobody here plays, so show what a spectator sees
	}
	if v.state != nil {
		s.State = v.state
	}
	switch {
	case st.Phase == lockstep.PhaseStopped:
		s.Status = "The game stopped."
	case v.over:
		s.Status = "The game is over."
	case st.Phase <= lockstep.PhaseLobby:
		var names []string
		for _, m := range v.joined {
			names = append(names, m.Name)
		}
		s.Status = fmt.Sprintf("In the lobby: %d joined (%s)", len(v.joined), strings.Join(names, ", "))
		if v.canStart {
			s.CanStart = true
			s.Status += " — press s to start"
		}
	case st.Phase < lockstep.PhasePlaying:
		s.Status = "Starting: everyone accepts the roster, then the seats are drawn"
	case st.Actor.Kind == engine.ActorChance:
		s.Status = fmt.Sprintf("Turn %d: drawing from the beacon", st.Turn+1)
	case st.Actor.Kind == engine.ActorSeat && st.Actor.Seat == st.MySeat && v.human:
		s.Status = fmt.Sprintf("Turn %d: your move", st.Turn+1)
		if v.state != nil {
			s.Legal = v.state.Legal(nil)
		}
	case st.Actor.Kind == engine.ActorSeat:
		s.Status = fmt.Sprintf("Turn %d: %s to move", st.Turn+1, v.whoSeat(st.Actor.Seat))
	}
	if len(st.Waiting) > 0 && !v.over {
		var ws []string
		for _, w := range st.Waiting {
			if w.For >= 2000 && w.Peer != v.self() {
				ws = append(ws, w.String())
			}
		}
		if len(ws) > 0 {
			s.Status += " — " + strings.Join(ws, "; ")
		}
	}
	for mi, m := range st.Members {
		seat := -1
		for si, x := range st.Seats {
			if x == mi {
				seat = si
			}
		}
		conn := v.connText(peer.ID(m.ID))
		if m.ID == v.self() {
			conn = "here"
		} else if c := v.host.Network().Connectedness(peer.ID(m.ID)); c != network.Connected && c != network.Limited {
			conn = "not connected"
		}
		for _, w := range st.Waiting {
			if w.Peer == m.ID && w.For >= 2000 && m.ID != v.self() {
				conn += fmt.Sprintf(", waited %d s", w.For/1000)
			}
		}
		s.Peers = append(s.Peers, tui.PeerInfo{Name: v.name(m.ID), Seat: seat, Conn: conn, Self: v.human && m.ID == v.self(), Bot: v.bots[m.ID] || !v.human})
	}
	return s
}
