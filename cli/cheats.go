package cli

import (
	"fmt"
	"strings"

	"github.com/boardmesh/boardmesh/crypto"
	"github.com/boardmesh/boardmesh/lockstep"
	"github.com/boardmesh/boardmesh/p2p"
)

// Cheat is one misbehaviour a node detected, as every front end names it:
// the terminal UI's log, --auto lines and --json objects.
type Cheat struct {
	Event string `json:"event"` // "cheat"
	// What is the kind of cheat, lockstep's CheatKind name: "forged",
	// "replayed", "out of turn", "illegal", "wrong state hash", "bad
	// reveal", "equivocation", "flood", "wrong checkpoint", "malformed",
	// "lying state".
	What string `json:"what"`
	kind lockstep.CheatKind
	// Seat is the seat of the peer concerned, counted from 1; 0 if it
	// has none (the lobby, an outsider).
	Seat int    `json:"seat,omitempty"`
	Name string `json:"name,omitempty"`
	Peer string `json:"peer"`
	Step uint64 `json:"step"`
	// Text says it in plain words.
	Text string `json:"text"`
}

// cheatOf says whether ev names a cheat and gives it in the form every
// front end shows. The words are lockstep's (EventCheat.What, seats
// counted from 1, a forged or replayed envelope not blamed on the peer it
// names); this only adds the member's plain name for the JSON.
func cheatOf(ev lockstep.Event, st lockstep.Status) (Cheat, bool) {
	if ev.Kind != lockstep.EventCheat && ev.Kind != lockstep.EventEquivocation {
		return Cheat{}, false
	}
	c := Cheat{Event: "cheat", kind: ev.Cheat, Seat: ev.Seat, Peer: ev.Peer.String(), Step: ev.Seq, Text: ev.What}
	if ev.Kind == lockstep.EventEquivocation {
		c.kind = lockstep.CheatEquivocation
	}
	c.What = c.kind.String()
	if c.Text == "" {
		c.Text = ev.Text
	}
	c.Text = capitalize(c.Text)
	c.Name, _ = memberAndSeat(ev.Peer, st)
	return c, true
}

// dropsText names what the topic validator and the gossip gate dropped
// since last time, or "" if nothing new. Those senders are not members (or
// not provably so), so no seat is blamed here; a member over its rate is
// named by its own cheat event (Runner.nameFlooders).
func dropsText(now, before p2p.Drops) string {
	var parts []string
	add := func(n, m int64, what string) {
		if d := n - m; d > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", d, what))
		}
	}
	add(now.Outsider, before.Outsider, "from outsiders (not at the table)")
	add(now.BadSignature, before.BadSignature, "with forged signatures")
	add(now.Malformed, before.Malformed, "malformed")
	add(now.TooLarge, before.TooLarge, "too large")
	add(now.WrongSession, before.WrongSession, "for another session")
	add(now.Throttled, before.Throttled, "over a stranger's rate in the lobby (a flood)")
	add(now.OverMemberRate, before.OverMemberRate, "signed by a member over its rate (a flood; the member is named)")
	if d := now.OverPeerRate - before.OverPeerRate; d > 0 {
		parts = append(parts, fmt.Sprintf("%d sent by a peer over its rate (a flood; the last one cut: peer %s)", d, now.OverPeerRateFrom))
	}
	add(now.CatchupRefused, before.CatchupRefused, "catch-up requests over a peer's limit")
	if len(parts) == 0 {
		return ""
	}
	return "Dropped before they reached the game: " + strings.Join(parts, ", ")
}

// memberAndSeat is a peer's name and its seat counted from 1 (0 if none).
func memberAndSeat(id crypto.PeerID, st lockstep.Status) (string, int) {
	for mi, m := range st.Members {
		if m.ID != id {
			continue
		}
		for si, x := range st.Seats {
			if x == mi {
				return m.Name, si + 1
			}
		}
		return m.Name, 0
	}
	return "", 0
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// plainErr is an error without the package prefixes of sentinel errors.
func plainErr(err error) string {
	if err == nil {
		return ""
	}
	s := err.Error()
	for _, p := range []string{"lockstep: ", "crypto: "} {
		s = strings.ReplaceAll(s, p, "")
	}
	return s
}
