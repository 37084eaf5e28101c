package infinitecity

import "github.com/boardmesh/boardmesh/engine"

// GreedyBotSpec is the bot that scores every placement by the groups it
// builds.
var GreedyBotSpec = engine.BotSpec{
	Name: "greedy",
	Help: "lays tiles where they grow its groups most and picks targets that gain it most points over the leader",
	New:  func() engine.Bot { return &GreedyBot{} },
}

// GreedyBot looks one action ahead. A tile is valued by what it adds to
// the bot's groups (a group scores only from three tiles on, so joining
// groups and reaching three count most), its printed bonus and ring, and
// whether its instruction gives another marker or tile. Any other choice
// is tried on a copy of the state and valued by the bot's score minus the
// best other score.
type GreedyBot struct {
	labels []int
	sizes  []int
	stack  []int
	vals   []int
	nb     [][4]int
}

// Choose picks the best-valued legal action; ties are broken at random.
func (b *GreedyBot) Choose(es engine.State, legal []engine.Action, r *engine.Rand) engine.Action {
	s, ok := es.(*State)
	if !ok || len(legal) == 1 {
		return legal[r.Intn(len(legal))]
	}
	me := s.current
	b.vals = b.vals[:0]
	if legal[0].Op == OpPlay {
		b.groups(s, me)
		for _, a := range legal {
			b.vals = append(b.vals, b.playValue(s, me, a))
		}
	} else {
		for _, a := range legal {
			c := s.clone()
			if c.Apply(me, a) != nil {
				b.vals = append(b.vals, -1<<30)
				continue
			}
			b.vals = append(b.vals, lead(c.Scores(), me))
		}
	}
	best := b.vals[0]
	for _, v := range b.vals {
		best = max(best, v)
	}
	n := 0
	for _, v := range b.vals {
		if v == best {
			n++
		}
	}
	pick := r.Intn(n)
	for i, v := range b.vals {
		if v == best {
			if pick == 0 {
				return legal[i]
			}
			pick--
		}
	}
	return legal[0]
}

// lead is a player's total minus the best total of the others, in
// quarter points to match playValue.
func lead(sc []Score, me int) int {
	other := 0
	for p, x := range sc {
		if p != me {
			other = max(other, x.Total)
		}
	}
	return 4 * (sc[me].Total - other)
}

// groups labels the tiles the bot controls by connected group.
func (b *GreedyBot) groups(s *State, me int) {
	b.nb = s.nbIndex(b.nb)
	b.labels = append(b.labels[:0], make([]int, len(s.board))...)
	b.sizes = b.sizes[:0]
	for i := range s.board {
		if s.board[i].marks[me] == 0 || b.labels[i] != 0 {
			continue
		}
		b.sizes = append(b.sizes, 0)
		id := len(b.sizes)
		b.labels[i] = id
		b.stack = append(b.stack[:0], i)
		for len(b.stack) > 0 {
			j := b.stack[len(b.stack)-1]
			b.stack = b.stack[:len(b.stack)-1]
			b.sizes[id-1]++
			for _, n := range b.nb[j] {
				if n >= 0 && b.labels[n] == 0 && s.board[n].marks[me] > 0 {
					b.labels[n] = id
					b.stack = append(b.stack, n)
				}
			}
		}
	}
}

func groupPoints(n int) int {
	if n >= minGroup {
		return n
	}
	return 0
}

// playValue values laying tile a.Args[0] on (a.Args[1], a.Args[2]), in
// quarter points.
func (b *GreedyBot) playValue(s *State, me int, a engine.Action) int {
	k, x, y := s.tileOf(handlePos(a.Args[0]), me), int(a.Args[1]), int(a.Args[2])
	if k < 0 {
		return 0 // not the bot's own peer: it cannot know the tile
	}
	var seen [4]int
	n := 0
	size, before := 1, 0
	for _, d := range dirs {
		j := s.find(x+d[0], y+d[1])
		if j < 0 || b.labels[j] == 0 {
			continue
		}
		id := b.labels[j]
		dup := false
		for _, o := range seen[:n] {
			dup = dup || o == id
		}
		if dup {
			continue
		}
		seen[n] = id
		n++
		size += b.sizes[id-1]
		before += groupPoints(b.sizes[id-1])
	}
	kind := s.set.Kinds[k]
	v := 4*(groupPoints(size)-before) + size + 4*kind.Bonus
	if kind.Rings {
		v += 2
	}
	switch kind.Instr {
	case InPlayAnother, InLibrary, InMarkAdjacent, InMarkLine, InMarkNearOwn:
		v += 3
	case InProtect:
		v++ // protects the group around it
	}
	return v
}
