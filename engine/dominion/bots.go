package dominion

import "github.com/boardmesh/boardmesh/engine"

var bots = []engine.BotSpec{
	{Name: "bigmoney", Help: "Big Money: buys Province at $8, Gold at $6-7, Silver at $3-5, and nothing else",
		New: func() engine.Bot { return &moneyBot{} }},
	{Name: "smithy", Help: "Smithy Big Money: Big Money plus a Smithy early and one more per 12 cards; Duchies late",
		New: func() engine.Bot { return &moneyBot{engine: Smithy, perCards: 12, late: true} }},
	{Name: "witch", Help: "Witch Big Money: two Witches (or Militias if no Witch) to attack, else Big Money; Duchies late",
		New: func() engine.Bot { return &moneyBot{engine: Witch, fallback: Militia, most: 2, late: true} }},
	{Name: "chapel", Help: "Chapel Big Money: trashes Estates, Curses and most Coppers with one Chapel, then Big Money",
		New: func() engine.Bot { return &moneyBot{engine: Chapel, most: 1, chapel: true, late: true} }},
	{Name: "explorer", Help: "plays every Action it can, buys the dearest card it can afford (Kingdom cards first, at random among equals) and answers choices at random",
		New: func() engine.Bot { return explorer{} }},
	engine.RandomBotSpec,
}

// explorer is a weak but busy player: it plays and buys Kingdom cards all
// the time, so random playouts reach every card and every choice.
type explorer struct{}

// Choose picks one of legal.
func (explorer) Choose(st engine.State, legal []engine.Action, r *engine.Rand) engine.Action {
	s, ok := st.(*State)
	if !ok || s.ask != askMain {
		return legal[r.Intn(len(legal))]
	}
	var plays, buys []engine.Action
	for _, a := range legal {
		switch a.Op {
		case opPlay:
			plays = append(plays, a)
		case opBuy:
			buys = append(buys, a)
		case opAllTreasures:
			if len(plays) == 0 {
				return a
			}
		}
	}
	if len(plays) > 0 {
		return plays[r.Intn(len(plays))]
	}
	for _, a := range legal {
		if a.Op == opTreasure {
			return a
		}
	}
	best := -1
	var top []engine.Action
	for _, a := range buys {
		c := int(a.Args[0])
		v := 2 * cards[c].cost
		if c >= firstKingdom {
			v++
		}
		if c == Curse || c == Copper {
			v = -1
		}
		if v > best {
			best, top = v, top[:0]
		}
		if v == best {
			top = append(top, a)
		}
	}
	if len(top) > 0 && best >= 0 {
		return top[r.Intn(len(top))]
	}
	return engine.Action{Op: opEndTurn}
}

// moneyBot plays Big Money with at most one kind of Kingdom card (its
// engine): it buys the card at the right price while it owns few, plays
// it, and answers every other choice with simple good sense. It looks only
// at its own cards and the Supply, which any player may see.
type moneyBot struct {
	engine   int  // Kingdom card to buy (0: none)
	fallback int  // card to buy when engine is not in the Kingdom
	most     int  // at most this many copies (0: by perCards)
	perCards int  // one copy per this many cards owned
	late     bool // buy Duchy/Estate as the Provinces run out
	chapel   bool // trash down to a thin deck
}

// Choose picks one of legal.
func (b *moneyBot) Choose(st engine.State, legal []engine.Action, r *engine.Rand) engine.Action {
	s, ok := st.(*State)
	if !ok {
		return legal[0]
	}
	if s.ask != askMain {
		return b.answer(s, legal)
	}
	p := &s.p[s.cur]
	// Actions: non-terminals first (they give an Action back), then others.
	if a, ok := bestPlay(s, legal); ok {
		return a
	}
	for _, a := range legal {
		if a.Op == opAllTreasures {
			return a
		}
	}
	for _, a := range legal {
		if a.Op == opTreasure {
			return a
		}
	}
	if want := b.buy(s, p); want >= 0 {
		for _, a := range legal {
			if a.Op == opBuy && int(a.Args[0]) == want {
				return a
			}
		}
	}
	return engine.Action{Op: opEndTurn}
}

func bestPlay(s *State, legal []engine.Action) (engine.Action, bool) {
	var best engine.Action
	bestV := -1
	for _, a := range legal {
		if a.Op != opPlay {
			continue
		}
		v := 1
		switch s.argCard(a, s.cur) {
		case Village, Festival, Market, Laboratory, Merchant, Cellar, Harbinger, Sentry, Poacher:
			v = 3
		case ThroneRoom:
			v = 2
		}
		if v > bestV {
			best, bestV = a, v
		}
	}
	return best, bestV >= 0
}

// buy returns the card to buy with the coins at hand, or -1.
func (b *moneyBot) buy(s *State, p *player) int {
	coins := s.coins
	mine := s.owned(s.cur)
	eng := b.engine
	if eng != 0 && !s.inKingdom(eng) {
		eng = b.fallback
	}
	if eng != 0 && !s.inKingdom(eng) {
		eng = 0
	}
	prov := int(s.supply[Province])
	switch {
	case coins >= 8:
		if b.late || prov > 0 {
			return Province
		}
	case b.late && prov <= 4 && coins >= 5:
		return Duchy
	case b.late && prov <= 2 && coins >= 2 && coins < 3:
		return Estate
	}
	if eng != 0 && coins >= cards[eng].cost && s.supply[eng] > 0 && (coins < 6 || eng == Witch && coins < 8) {
		limit := b.most
		if b.perCards > 0 {
			limit = mine.total()/b.perCards + 1
		}
		if int(mine[eng]) < limit {
			return eng
		}
	}
	switch {
	case coins >= 8:
		return Province
	case coins >= 6:
		return Gold
	case coins >= 3:
		return Silver
	}
	return -1
}

// keep is how much a card is worth keeping in hand: the lowest is
// discarded or trashed first.
func keep(c int) int {
	switch {
	case c == Curse:
		return -10
	case isVictory(c) && !isAction(c) && !isTreasure(c):
		return -5
	case c == Copper:
		return 1
	case isTreasure(c):
		return 2 * cards[c].coins
	}
	return 2 + cards[c].cost
}

func pickBy(s *State, legal []engine.Action, better func(a, b int) bool) (engine.Action, bool) {
	var best engine.Action
	found := false
	for _, a := range legal {
		if a.Op != opPick {
			continue
		}
		if !found || better(s.argCard(a, s.askSeat), s.argCard(best, s.askSeat)) {
			best, found = a, true
		}
	}
	return best, found
}

func worst(s *State, legal []engine.Action) (engine.Action, bool) {
	return pickBy(s, legal, func(a, b int) bool { return keep(a) < keep(b) })
}

func dearest(s *State, legal []engine.Action) (engine.Action, bool) {
	return pickBy(s, legal, func(a, b int) bool {
		if cards[a].cost != cards[b].cost {
			return cards[a].cost > cards[b].cost
		}
		return keep(a) > keep(b)
	})
}

func find(legal []engine.Action, op int) (engine.Action, bool) {
	for _, a := range legal {
		if int(a.Op) == op {
			return a, true
		}
	}
	return engine.Action{}, false
}

// answer makes a card's choice.
func (b *moneyBot) answer(s *State, legal []engine.Action) engine.Action {
	done, canStop := find(legal, opDone)
	switch s.ask {
	case askMoat, askVassal, askMoneylender:
		if a, ok := find(legal, opYes); ok {
			return a
		}
	case askLibrary:
		if s.actions == 0 {
			if a, ok := find(legal, opYes); ok {
				return a
			}
		}
		return done
	case askMilitia, askPoacher, askRemodelTrash, askBureaucrat, askBandit:
		if a, ok := worst(s, legal); ok {
			return a
		}
	case askCellar:
		if a, ok := worst(s, legal); ok && keep(s.argCard(a, s.askSeat)) < 0 {
			return a
		}
		return done
	case askChapel:
		if a, ok := worst(s, legal); ok {
			c := s.argCard(a, s.askSeat)
			all := s.owned(s.askSeat)
			// Coppers go once the deck has other money to replace them.
			money := 2*int(all[Silver]) + 3*int(all[Gold])
			if c == Curse || c == Estate && s.supply[Province] > 4 || c == Copper && b.chapel && money >= 7 {
				return a
			}
		}
		return done
	case askThrone:
		for _, a := range legal {
			if a.Op == opPick {
				return a
			}
		}
	case askMineTrash:
		for _, want := range [...]int{Silver, Copper} {
			for _, a := range legal {
				if a.Op == opPick && s.argCard(a, s.askSeat) == want {
					return a
				}
			}
		}
		return done
	case askHarbinger, askArtisanTop:
		if a, ok := pickBy(s, legal, func(a, b int) bool { return keep(a) > keep(b) }); ok {
			return a
		}
	case askWorkshop, askRemodelGain, askMineGain, askArtisanGain:
		if a, ok := dearest(s, legal); ok {
			return a
		}
	case askSentry:
		c := s.argCard(legal[0], s.askSeat)
		v := sentryBack
		switch {
		case c == Curse || c == Estate || c == Copper && b.chapel:
			v = sentryTrash
		case keep(c) < 0:
			v = sentryDiscard
		}
		return engine.Action{Op: opSentry, Args: []int32{legal[0].Args[0], int32(v)}}
	}
	if canStop {
		return done
	}
	return legal[0]
}
