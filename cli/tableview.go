package cli

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/boardmesh/boardmesh/cli/present"
	"github.com/boardmesh/boardmesh/cli/tui"
	"github.com/boardmesh/boardmesh/crypto"
	"github.com/boardmesh/boardmesh/docs/rules"
	"github.com/boardmesh/boardmesh/engine"
	"github.com/boardmesh/boardmesh/engine/games"
	"github.com/boardmesh/boardmesh/lockstep"
	"github.com/boardmesh/boardmesh/p2p"
	"github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
)

// tableView turns one peer's runner updates into the presentation model
// (package present) and the terminal UI's snapshots of it. It lives on
// the runner's goroutine (OnUpdate), so it needs no lock.
type tableView struct {
	title string
	host  host.Host
	human bool // the local seat is played by a person
	bots  map[string]bool
	rec   *present.Recorder
	// earlier holds the entries committed before this process started
	// (resume): the history is told from the session's first entry.
	earlier []*crypto.Envelope
	status  lockstep.Status
	state   engine.State
	joined  []lockstep.Member
	// canStart: this is the host's view; s starts the game in the lobby.
	canStart bool
	lobby    *present.Lobby
	// dropAfter is the --drop-after delay in ms: from then on a drop may
	// be proposed for a seat the table waits for.
	dropAfter int64
	// selfWait: the table's last stall was for our own move.
	selfWait bool
	votes    []present.Vote
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

// dropsEvery is how often the junk a flood sends is summed up.
const dropsEvery = 2 * time.Second

// self is this peer's ID in lockstep's form.
func (v *tableView) self() crypto.PeerID { return crypto.PeerID(v.host.ID()) }

// defaultDropAfter is how long a seat may keep the table waiting before
// the others may vote it out (--drop-after).
const defaultDropAfter = 60 * time.Second

func newTableView(title string, h host.Host, human bool) *tableView {
	return &tableView{title: title, host: h, human: human, bots: map[string]bool{}, rec: present.NewRecorder(games.Lookup), dropAfter: defaultDropAfter.Milliseconds()}
}

func (v *tableView) name(mi int) string {
	if mi < 0 || mi >= len(v.status.Members) {
		return ""
	}
	if n := v.status.Members[mi].Name; n != "" {
		return n
	}
	s := v.status.Members[mi].ID.String()
	return s[max(0, len(s)-6):]
}

// seatOfPeer is the seat of a peer (by id String()), -1 for none.
func (v *tableView) seatOfPeer(id string) (int, string) {
	for mi, m := range v.status.Members {
		if m.ID.String() == id {
			for si, x := range v.status.Seats {
				if x == mi {
					return si, v.name(mi)
				}
			}
			return -1, v.name(mi)
		}
	}
	return -1, ""
}

// prime tells the recorder the seats' names and the viewer from the
// status, and feeds it the entries committed before this process started
// (once): a resumed peer's first screen tells the game from its log, not
// only from the first update, which a stalled table may bring late.
func (v *tableView) prime() {
	v.rec.SetNames(func(seat int) string {
		if seat < len(v.status.Seats) {
			return v.name(v.status.Seats[seat])
		}
		return ""
	})
	if v.human {
		v.rec.SetViewer(v.status.MySeat)
	}
	if v.earlier != nil {
		v.rec.Feed(v.earlier...)
		v.earlier = nil
		if v.state != nil {
			v.rec.SetCardHint(v.state)
		}
	}
}

// update folds one runner update in.
func (v *tableView) update(u p2p.Update) {
	v.drainReach()
	v.status = u.Status
	v.joined = u.Joined
	// What our seat knows of its own cards, for the history to name our
	// draws at a secret table, from the entries read from disk on resume
	// (prime) on: the recorder holds a step until our peer has read the
	// cards it opened to us.
	v.rec.SetKnowledge(u.State)
	v.prime()
	// The update's entries end the log at Status.Entries: skip any the
	// recorder already has (those read from disk on resume).
	ents := u.Entries
	if skip := v.rec.Len() - (u.Status.Entries - len(ents)); skip > 0 {
		ents = ents[min(skip, len(ents)):]
	}
	// The line that the game began comes before its first step: the
	// runner reports a Ready's events after its entries, and the Ready
	// that draws the seats may already hold the first deal.
	for _, ev := range u.Events {
		if ev.Kind == lockstep.EventStarted {
			v.rec.Event(ev, -1, "")
		}
	}
	v.rec.Feed(ents...)
	if u.Status.Phase >= lockstep.PhaseOver {
		v.rec.Flush() // no later knowledge is coming for what it holds
	}
	// Our own state holds the cards opened to everyone before the next
	// action lists them (a secret table): told at once.
	v.rec.SetCardHint(u.State)
	self := v.self().String()
	for _, ev := range u.Events {
		// Waiting for our own move is what "your move" says already: the
		// log keeps it, and the resumption after it, out.
		switch ev.Kind {
		case lockstep.EventWaiting:
			mine := len(ev.Waiting) > 0
			for _, w := range ev.Waiting {
				mine = mine && w.Peer.String() == self
			}
			v.selfWait = mine
			if mine {
				continue
			}
		case lockstep.EventResumed:
			if v.selfWait {
				v.selfWait = false
				continue
			}
		case lockstep.EventStarted:
			continue // told before the entries
		case lockstep.EventDropVote:
			v.votes = append(v.votes, present.Vote{Voter: u.Status.MySeat + 1, Seats: plus1(ev.Seats)})
		case lockstep.EventDropped:
			v.votes = nil
		}
		if c, ok := cheatOf(ev, u.Status); ok {
			v.rec.Cheat(present.Cheat{Kind: c.What, Seat: c.Seat, Name: c.Name, Text: c.Text})
			continue
		}
		seat, name := v.seatOfPeer(ev.Peer.String())
		if ev.Kind == lockstep.EventJoined {
			for _, m := range u.Joined {
				if m.ID == ev.Peer && m.Name != "" {
					ev.Text = fmt.Sprintf("%s joined (%d in the lobby)", m.Name, len(u.Joined))
				}
			}
		}
		v.rec.Event(ev, seat, name)
	}
	for _, note := range u.Notes {
		v.rec.Note(note)
	}
	if t := dropsText(u.Drops, v.drops); t != "" && time.Since(v.dropsAt) >= dropsEvery {
		v.drops, v.dropsAt = u.Drops, time.Now()
		v.rec.Note(t)
	}
	if u.State != nil {
		v.state = u.State
	}
}

func plus1(xs []int) []int {
	out := make([]int, len(xs))
	for i, x := range xs {
		out[i] = x + 1
	}
	return out
}

// table is the presentation model of the table now.
func (v *tableView) table() present.Table {
	env := present.Env{Human: v.human, Self: v.self().String(), Joined: v.joined, DropAfter: v.dropAfter, Votes: v.votes,
		Bot: func(id string) bool { return v.bots[id] || !v.human },
		Conn: func(id string) string {
			for _, m := range v.status.Members {
				if m.ID.String() == id {
					// Seen on the network, or heard from: its moves arrive
					// (a peer may reach us through another).
					if c := v.host.Network().Connectedness(peer.ID(m.ID)); c == network.Connected || c == network.Limited {
						return v.connText(peer.ID(m.ID))
					}
					for _, w := range v.status.Waiting {
						if w.Peer == m.ID {
							return "not connected"
						}
					}
					return "connected through the others"
				}
			}
			return "not connected"
		}}
	if v.lobby != nil || v.canStart {
		l := present.Lobby{Host: v.canStart}
		if v.lobby != nil {
			l = *v.lobby
			l.Host = v.canStart
		}
		env.Lobby = &l
	}
	t := present.Build(v.rec, v.status, v.state, env)
	if t.Title == "" {
		t.Title = v.title
	}
	return t
}

// snapshot is the UI's picture of the table now.
func (v *tableView) snapshot() tui.Snapshot {
	return snapshotOf(v.table(), v.state, v.canStart)
}

// snapshotOf turns the presentation model into a terminal UI snapshot.
func snapshotOf(t present.Table, state engine.State, canStart bool) tui.Snapshot {
	s := tui.Snapshot{Title: t.Title, Seat: t.You - 1, Step: t.Step, Status: t.Status, History: t.History,
		Sync: t.Sync.Text, Desync: !t.Sync.OK && t.Sync.Text != "", Over: t.Phase == "over", Table: &t, State: state}
	if t.Phase == "lobby" && canStart {
		s.CanStart = true
	}
	for _, a := range t.Actions {
		s.Legal = append(s.Legal, a.Action)
	}
	if t.Result != nil {
		s.Result = resultText(t)
	}
	s.Rules = rules.Summary(t.Game)
	for _, p := range t.Peers {
		conn := p.Conn
		if p.Waited >= 2000 && !p.Self {
			conn += fmt.Sprintf(", waited %d s", p.Waited/1000)
		}
		s.Peers = append(s.Peers, tui.PeerInfo{Name: p.Name, Seat: p.Seat - 1, Conn: conn, Self: p.Self, Bot: p.Bot})
	}
	return s
}

// resultText is the game-over table: the reason, then every seat's score
// and how it is made up.
func resultText(t present.Table) string {
	var b strings.Builder
	b.WriteString(t.Result.Reason)
	for _, sc := range t.Scores {
		win := ""
		if sc.Winner {
			win = "  winner"
		}
		fmt.Fprintf(&b, "\n  %d %-14s %4d%s", sc.Seat, sc.Name, sc.Total, win)
		if len(sc.Parts) > 0 {
			var parts []string
			for _, p := range sc.Parts {
				parts = append(parts, fmt.Sprintf("%s %+d", p.Label, p.Points))
			}
			b.WriteString("  (" + strings.Join(parts, ", ") + ")")
		}
	}
	return b.String()
}

// lobbyOf is what the lobby screen shows of a networked peer: the join
// code (when mDNS can find it), the address to dial, and the command to
// give the others. Every player on one machine needs a home of their own.
func lobbyOf(peer *p2p.NetPeer, nf *NetFlags) *present.Lobby {
	l := &present.Lobby{}
	for _, a := range p2p.Addrs(peer.Host) {
		l.Addresses = append(l.Addresses, a.String())
	}
	l.Addresses = preferLAN(l.Addresses)
	if !nf.Loopback && !nf.NoMDNS {
		l.Code = p2p.JoinCode(peer.Host.ID())
		l.Join = "boardmesh join " + l.Code
	} else if len(l.Addresses) > 0 {
		// Another player on this machine needs a home of their own.
		l.Join = "boardmesh join --loopback --home ~/boardmesh-2 " + l.Addresses[0]
	}
	return l
}

// resumeCommand is the command that rejoins the session, as it must be
// typed: with the --home in use (and --loopback for a loopback table).
func resumeCommand(nf *NetFlags, lobby string) string {
	cmd := "boardmesh resume"
	if nf.Home != "" {
		cmd += " --home " + shellQuote(nf.Home)
	}
	if nf.Loopback {
		cmd += " --loopback"
	}
	return cmd + " " + lobby
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("/._-~+=:,", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
