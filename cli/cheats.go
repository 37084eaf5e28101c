package cli

import (
	"errors"
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
	// What is the kind of cheat: out-of-turn, illegal, wrong-hash,
	// wrong-checkpoint, bad-reveal, forged, equivocation, malformed,
	// outsider.
	What string `json:"what"`
	// Seat is the seat of the peer concerned, counted from 1; 0 if it
	// has none (the lobby, an outsider).
	Seat int    `json:"seat,omitempty"`
	Name string `json:"name,omitempty"`
	Peer string `json:"peer"`
	Step uint64 `json:"step"`
	// Text says it in plain words.
	Text string `json:"text"`
}

// cheatKinds maps lockstep's rejection reasons to what is said of them.
// Reasons that are no one's fault (a duplicate, a stale re-send, another
// session) are not cheats and are not named.
var cheatKinds = []struct {
	err  error
	what string
	says string
}{
	{lockstep.ErrNotYourTurn, "out-of-turn", "sent an action out of turn"},
	{lockstep.ErrIllegal, "illegal", "sent an illegal move"},
	{lockstep.ErrCheckpoint, "wrong-checkpoint", "signed a checkpoint that disagrees with ours"},
	{lockstep.ErrStateHash, "wrong-hash", "sent an envelope built on a state that is not ours (wrong state hash)"},
	{lockstep.ErrBadReveal, "bad-reveal", "sent a bad reveal (not the next link of its hash chain)"},
	{lockstep.ErrEquivocation, "equivocation", "signed two different envelopes for one slot; the proof is in the log"},
	{lockstep.ErrBadBody, "malformed", "sent a malformed envelope"},
	{lockstep.ErrMalformed, "malformed", "sent a malformed envelope"},
	{lockstep.ErrNotMember, "outsider", "is not at the table but sent an envelope for it"},
}

// cheatOf says whether ev is a cheat and names it. Seats are counted from
// 1, as on the boards. A forged signature proves nothing about the peer
// it names, so that peer is not blamed.
func cheatOf(ev lockstep.Event, st lockstep.Status) (Cheat, bool) {
	var err error
	switch ev.Kind {
	case lockstep.EventRejected:
		err = ev.Err
	case lockstep.EventEquivocation:
		err = lockstep.ErrEquivocation
	default:
		return Cheat{}, false
	}
	if err == nil {
		return Cheat{}, false
	}
	c := Cheat{Event: "cheat", Peer: ev.Peer.String(), Step: ev.Seq}
	c.Name, c.Seat = memberAndSeat(ev.Peer, st)
	if c.Seat == 0 && ev.Seat >= 0 {
		c.Seat = ev.Seat + 1
	}
	if errors.Is(err, lockstep.ErrBadSignature) {
		c.What = "forged"
		c.Text = fmt.Sprintf("An envelope claiming to come from %s has a forged signature; it was dropped (%s is not blamed)", whoIs(c), c.Name)
		if c.Name == "" {
			c.Text = fmt.Sprintf("An envelope claiming to come from %s has a forged signature; it was dropped", whoIs(c))
		}
		return c, true
	}
	for _, k := range cheatKinds {
		if errors.Is(err, k.err) {
			c.What = k.what
			c.Text = fmt.Sprintf("%s %s", capitalize(whoIs(c)), k.says)
			if k.what == "wrong-checkpoint" {
				c.Text = fmt.Sprintf("%s's checkpoint at step %d disagrees with ours", capitalize(whoIs(c)), ev.Seq)
			}
			// The details after the reason's own words: the engine's
			// reason for an illegal move, the hashes of a checkpoint.
			detail := ""
			if ev.Err != nil {
				detail = plainErr(errors.New(strings.TrimPrefix(strings.TrimPrefix(ev.Err.Error(), k.err.Error()), ": ")))
			}
			if detail != "" && k.what != "equivocation" {
				c.Text += ": " + detail
			}
			return c, true
		}
	}
	return Cheat{}, false
}

// dropsText names what the topic validator dropped since last time, or ""
// if nothing new. Those senders are not members (or not provably so), so
// no seat is blamed.
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

// whoIs names the peer of c: "Seat 3 (Mallory)", "Mallory" before the
// seats are drawn, "an outsider (peer …k3Qm)" for a stranger.
func whoIs(c Cheat) string {
	short := c.Peer[max(0, len(c.Peer)-6):]
	switch {
	case c.Seat > 0 && c.Name != "":
		return fmt.Sprintf("Seat %d (%s)", c.Seat, c.Name)
	case c.Seat > 0:
		return fmt.Sprintf("Seat %d (peer …%s)", c.Seat, short)
	case c.Name != "":
		return c.Name
	}
	return fmt.Sprintf("an outsider (peer …%s)", short)
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

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
