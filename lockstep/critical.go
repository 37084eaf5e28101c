package lockstep

import "github.com/boardmesh/boardmesh/crypto"

// CriticalRounds is the critical path of a session log in broadcast
// rounds: the longest chain of envelopes in which each one's author had
// to receive the one before it from another peer before it could sign it,
// when every peer signs what is due as soon as it can (a bot with no
// think time) and every broadcast takes one round. A game can take no
// less than this many one-way gossip latencies.
//
// An entry needs every entry of the groups before it in the log (the
// joins, the roster, the accepts, one beacon round's reveals, one
// checkpoint round, one action, one round of drop votes): what they
// decide is the state it signs. Received from another peer, such an entry
// puts it one round later; signed by its own author, in the same round
// (the acting peer's reveal leaves with its action, a peer's second
// action in a row with its first, the last revealer's checkpoint with its
// reveal). The first action of a turn at an open table needs only what
// its author's checkpoint needs: it is signed with it (Node.CanAct). A
// chain extension needs nothing: a peer signs it rounds before it is due.
func CriticalRounds(log []*crypto.Envelope) int {
	var c critical
	secret := false
	for i, e := range log {
		switch {
		case e.Kind == crypto.KindRoster:
			if r, err := decodeRoster(e.Body); err == nil {
				secret = r.Secret
			}
		case e.Kind == crypto.KindExtend:
			continue
		}
		early := e.Kind == crypto.KindAction && i > 0 && log[i-1].Kind == crypto.KindCheckpoint && !secret
		same := c.group != nil && c.group.Kind == e.Kind && c.group.Seq == e.Seq && e.Kind != crypto.KindAction
		if !same && !early {
			c.close()
			c.group = e
		}
		c.add(e)
	}
	c.close()
	return c.deepest
}

// critical tracks CriticalRounds: the deepest round of the groups closed
// so far, overall (best, of author bestBy) and among the other authors
// (second), and per author its own deepest.
type critical struct {
	group        *crypto.Envelope // the first entry of the open group
	best, second int
	bestBy       crypto.PeerID
	own          map[crypto.PeerID]int
	open         []authorRound // the open group's entries
	deepest      int
}

type authorRound struct {
	author crypto.PeerID
	round  int
}

// add puts e in the open group at the round its dependencies give it.
func (c *critical) add(e *crypto.Envelope) {
	others := c.best
	if e.Author == c.bestBy {
		others = c.second
	}
	r := max(others+1, c.own[e.Author])
	c.open = append(c.open, authorRound{e.Author, r})
	c.deepest = max(c.deepest, r)
}

// close makes the open group a dependency of what follows.
func (c *critical) close() {
	if c.own == nil {
		c.own = map[crypto.PeerID]int{}
	}
	for _, x := range c.open {
		c.own[x.author] = max(c.own[x.author], x.round)
		switch {
		case x.author == c.bestBy:
			c.best = max(c.best, x.round)
		case x.round > c.best:
			c.second, c.best, c.bestBy = c.best, x.round, x.author
		case x.round > c.second:
			c.second = x.round
		}
	}
	c.open = c.open[:0]
}
