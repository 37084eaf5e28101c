package serpentcity

// ipSources computes a player's Influence Points by source from the board
// as it stands; bought and card IP are kept, the rest is positional and can
// be lost.
func (s *State) ipSources(p int) [nSrc]int {
	var src [nSrc]int
	r := &s.cfg.r
	pl := &s.pl[p]
	for t := 0; t < s.cfg.T; t++ {
		k := pl.terr[t]
		if k == 0 {
			continue
		}
		if !s.shared(t) {
			if lv := s.level(k); lv > 0 {
				src[srcDominance] += r.DominanceIP[lv-1]
			}
		}
		if s.ownBuildings(p, t) >= maxBuildings {
			if pl.architect {
				src[srcSets] += r.ArchitectIP
			} else {
				src[srcSets] += r.SetIP
			}
		}
	}
	src[srcCapital] = pl.capital * r.CapitalIP
	src[srcBought] = pl.ipBought
	src[srcCards] = pl.ipCard
	return src
}

// settle recomputes every player's IP after a change and ends the game at
// once when someone has reached the target.
func (s *State) settle() {
	if s.ph == phOver {
		return
	}
	best := -1
	for p := range s.pl {
		src := s.ipSources(p)
		total := 0
		for _, x := range src {
			total += x
		}
		s.pl[p].src, s.pl[p].ip = src, total
		if total >= s.winIP && (best < 0 || s.better(p, best)) {
			best = p
		}
	}
	if best >= 0 {
		s.finish([]int{best}, "reached "+itoa(s.winIP)+" Influence Points")
	}
}

// better orders players for the end of the game: more IP, then more
// Resources, then the earlier seat.
func (s *State) better(a, b int) bool {
	if s.pl[a].ip != s.pl[b].ip {
		return s.pl[a].ip > s.pl[b].ip
	}
	if ra, rb := s.totalRes(a), s.totalRes(b); ra != rb {
		return ra > rb
	}
	return a < b
}

func (s *State) finish(winners []int, reason string) {
	s.ph = phOver
	s.over = true
	s.winners = winners
	s.endReason = reason
}

// produce pays p's income at the start of their turn.
func (s *State) produce(p int) {
	r := &s.cfg.r
	pl := &s.pl[p]
	for t := 0; t < s.cfg.T; t++ {
		k := pl.terr[t]
		if k == 0 {
			continue
		}
		typ := s.cfg.ttype[t]
		amount := 0
		switch {
		case s.cfg.isMine(t):
			amount = r.MineProduce
		case s.shared(t):
			amount = r.SharedProduce
		default:
			if lv := s.level(k); lv > 0 {
				amount = r.Production[lv-1]
			}
		}
		amount += s.ownBuildings(p, t)
		s.gain(p, typ, amount)
	}
	if pl.investor > 0 {
		s.gain(p, Coin, pl.investor)
	}
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	neg := n < 0
	if neg {
		n = -n
	}
	var b [20]byte
	i := len(b)
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	if neg {
		i--
		b[i] = '-'
	}
	return string(b[i:])
}
