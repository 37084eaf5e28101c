package serpentcity

import (
	"fmt"

	"github.com/boardmesh/boardmesh/engine"
)

// Encode writes the canonical encoding. Default tables are written as one
// flag; custom tables as their JSON, so any peer can rebuild the state.
func (s *State) Encode(e *engine.Encoder) {
	e.Bool("customRules", s.cfg.custom)
	if s.cfg.custom {
		e.Blob("rules", s.cfg.raw)
	}
	e.Int("players", s.n)
	e.Int("winIP", s.winIP)
	e.Int("rounds", s.rounds)
	e.Bool("luck", s.luck)
	e.Bool("balance", s.balance)
	e.Bool("passTwice", s.doublePass)
	for i := range s.pl {
		p := &s.pl[i]
		e.BeginItem("player", i)
		e.Ints("res", p.res[:])
		e.Int("start", p.start)
		e.Ints("road", p.road)
		e.Ints("frozen", p.frozen)
		e.Ints("terr", p.terr)
		e.Ints("fresh", p.fresh)
		e.Int("capital", p.capital)
		e.Ints("economic", handleInts(p.hand[0]))
		e.Ints("military", handleInts(p.hand[1]))
		e.Int("investor", p.investor)
		e.Bool("architect", p.architect)
		e.Int("ipBought", p.ipBought)
		e.Int("ipCard", p.ipCard)
		e.Int("ip", p.ip)
		e.Ints("src", p.src[:])
		e.Bool("passedLast", p.passedLast)
		e.Bool("dropped", p.dropped)
		e.End()
	}
	e.Len("buildings", len(s.bld))
	for t := range s.bld {
		e.BeginItem("buildings", t)
		e.Ints("owners", s.bld[t])
		e.End()
	}
	for d := 0; d < 2; d++ {
		e.BeginItem("deck", d)
		e.Ints("pile", handleInts(s.pile[d]))
		e.Ints("spent", handleInts(s.disc[d]))
		e.End()
	}
	e.Int("cur", s.cur)
	e.Int("round", s.round)
	e.Int("turns", s.turns)
	e.Int("phase", int(s.ph))
	e.Int("mp", s.mp)
	e.Ints("dice", s.dice[:])
	for _, f := range []struct {
		n string
		v bool
	}{{"acted", s.acted}, {"bonusTaken", s.bonusTaken}, {"conflictUsed", s.conflictUsed}, {"econPlayed", s.econPlayed},
		{"capitalEntered", s.capitalEntered}, {"passed", s.passed}, {"ending", s.ending}} {
		e.Bool(f.n, f.v)
	}
	e.Int("ipBuys", s.ipBuys)
	e.Int("offers", s.offers)
	e.Ints("entered", boolsToInts(s.entered))
	e.Ints("forcedDone", boolsToInts(s.forcedDone))
	e.Int("picks", s.picks)
	e.Int("who", s.who)
	e.Int("drawDeck", s.drawDk)
	e.Int("lastDraw", int(s.lastDrw))
	e.Int("drawSeat", s.drawSeat)
	e.Int("lastReward", s.lastRew)
	e.Begin("conflict")
	e.Int("loc", s.cLoc)
	e.Int("attacker", s.cAtt)
	e.Int("defender", s.cDef)
	e.Int("attackerCard", s.cAttCard)
	e.Int("defenderCard", s.cDefCard)
	e.Int("attackerHandle", int(s.cAttH))
	e.Int("defenderHandle", int(s.cDefH))
	e.Bool("forced", s.cForced)
	e.Text("last", s.lastFight)
	e.End()
	e.Begin("trade")
	e.Int("partner", s.tPartner)
	e.Int("give", s.tGive)
	e.Int("giveN", s.tGiveN)
	e.Int("get", s.tGet)
	e.End()
	e.Bool("over", s.over)
	e.Ints("winners", s.winners)
	e.Text("endReason", s.endReason)
	s.cards.Encode(e)
}

// handleInts writes handles as action arguments (Handle.Arg).
func handleInts(hs []engine.Handle) []int {
	out := make([]int, len(hs))
	for i, h := range hs {
		out[i] = int(h.Arg())
	}
	return out
}

func boolsToInts(b []bool) []int {
	out := make([]int, len(b))
	for i, x := range b {
		if x {
			out[i] = 1
		}
	}
	return out
}

var defaultCfg = compile(DefaultRules(), false, nil)

// configFor parses a table's custom rules. It keeps no cache: a cache would
// be global mutable state shared by every peer in a process, and decoding a
// state is rare (catch-up, replay, desync reports).
func configFor(raw []byte) (*config, error) {
	r, err := ParseRules(raw)
	if err != nil {
		return nil, err
	}
	raw = append([]byte(nil), raw...)
	return compile(r, true, raw), nil
}

// Decode rebuilds a state from its canonical encoding.
func Decode(b []byte) (engine.State, error) {
	d := engine.NewDecoder(b)
	cfg := defaultCfg
	if d.Bool() {
		raw := d.Blob(1 << 20)
		if d.Err() != nil {
			return nil, d.Err()
		}
		c, err := configFor(raw)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", engine.ErrDecode, err)
		}
		cfg = c
	}
	s := &State{cfg: cfg}
	s.n = d.Int()
	if d.Err() == nil && (s.n < 2 || s.n > 6) {
		return nil, fmt.Errorf("%w: %d players", engine.ErrDecode, s.n)
	}
	s.winIP, s.rounds = d.Int(), d.Int()
	s.luck, s.balance, s.doublePass = d.Bool(), d.Bool(), d.Bool()
	T, R := cfg.T, cfg.R
	badField := ""
	fixed := func(v []int, n int, what string) []int {
		if len(v) != n {
			if badField == "" {
				badField = what
			}
			return make([]int, n)
		}
		return v
	}
	s.pl = make([]player, max(s.n, 0))
	for i := range s.pl {
		p := &s.pl[i]
		copy(p.res[:], fixed(d.Ints(nRes), nRes, "res"))
		p.start = d.Int()
		p.road = fixed(d.Ints(R), R, "road")
		p.frozen = fixed(d.Ints(R), R, "frozen")
		p.terr = fixed(d.Ints(T), T, "terr")
		p.fresh = fixed(d.Ints(T), T, "fresh")
		p.capital = d.Int()
		p.hand[0] = intHandles(d.Ints(engine.MaxDeckSize), &badField)
		p.hand[1] = intHandles(d.Ints(engine.MaxDeckSize), &badField)
		p.investor = d.Int()
		p.architect = d.Bool()
		p.ipBought, p.ipCard, p.ip = d.Int(), d.Int(), d.Int()
		copy(p.src[:], fixed(d.Ints(nSrc), nSrc, "src"))
		p.passedLast, p.dropped = d.Bool(), d.Bool()
	}
	if d.Len(T) != T && badField == "" {
		badField = "buildings"
	}
	s.bld = make([][]int, T)
	for t := range s.bld {
		s.bld[t] = d.Ints(maxBuildings)
	}
	for k := 0; k < 2; k++ {
		s.pile[k] = intHandles(d.Ints(engine.MaxDeckSize), &badField)
		s.disc[k] = intHandles(d.Ints(engine.MaxDeckSize), &badField)
	}
	s.cur, s.round, s.turns = d.Int(), d.Int(), d.Int()
	s.ph = phase(d.Int())
	s.mp = d.Int()
	copy(s.dice[:], fixed(d.Ints(2), 2, "dice"))
	for _, f := range []*bool{&s.acted, &s.bonusTaken, &s.conflictUsed, &s.econPlayed, &s.capitalEntered, &s.passed, &s.ending} {
		*f = d.Bool()
	}
	s.ipBuys, s.offers = d.Int(), d.Int()
	s.entered = intsToBools(fixed(d.Ints(T), T, "entered"))
	s.forcedDone = intsToBools(fixed(d.Ints(T), T, "forcedDone"))
	s.picks, s.who, s.drawDk = d.Int(), d.Int(), d.Int()
	s.lastDrw = int32(d.Int())
	s.drawSeat, s.lastRew = d.Int(), d.Int()
	s.cLoc, s.cAtt, s.cDef, s.cAttCard, s.cDefCard = d.Int(), d.Int(), d.Int(), d.Int(), d.Int()
	s.cAttH, s.cDefH = int32(d.Int()), int32(d.Int())
	s.cForced = d.Bool()
	s.lastFight = d.Text(400)
	s.tPartner, s.tGive, s.tGiveN, s.tGet = d.Int(), d.Int(), d.Int(), d.Int()
	s.over = d.Bool()
	s.winners = d.Ints(6)
	s.endReason = d.Text(200)
	if d.Err() != nil {
		return nil, d.Err()
	}
	fresh := cfg.newCards()
	cs, err := engine.DecodeCards(d, fresh.Decks())
	if err != nil {
		return nil, err
	}
	s.cards = cs
	if err := d.Finish(); err != nil {
		return nil, err
	}
	if badField != "" {
		return nil, fmt.Errorf("%w: %s has the wrong length", engine.ErrDecode, badField)
	}
	if err := s.sane(); err != nil {
		return nil, fmt.Errorf("%w: %v", engine.ErrDecode, err)
	}
	return s, nil
}

// intHandles reads handles written by handleInts; a number that is no
// handle marks the field bad.
func intHandles(v []int, bad *string) []engine.Handle {
	out := make([]engine.Handle, 0, len(v))
	for _, x := range v {
		h, ok := engine.HandleArg(int32(x))
		if !ok || x > 1<<30 {
			if *bad == "" {
				*bad = "cards"
			}
			continue
		}
		out = append(out, h)
	}
	return out
}

func intsToBools(v []int) []bool {
	out := make([]bool, len(v))
	for i, x := range v {
		out[i] = x != 0
	}
	return out
}

// sane checks every number a decoded state later uses as an index or a
// count, so a corrupt encoding is refused instead of panicking later.
func (s *State) sane() error {
	n, T := s.n, s.cfg.T
	in := func(v, lo, hi int) bool { return v >= lo && v <= hi }
	if !in(s.cur, 0, n-1) || !in(s.who, 0, n-1) || !in(s.cAtt, 0, n-1) || !in(s.cDef, 0, n-1) || !in(s.tPartner, 0, n-1) {
		return fmt.Errorf("seat out of range")
	}
	if !in(int(s.ph), 0, int(phOver)) || !in(s.drawDk, 0, 1) || !in(s.cLoc, 0, T) || !in(s.tGive, 0, nRes-1) || !in(s.tGet, 0, nRes-1) {
		return fmt.Errorf("phase or index out of range")
	}
	if !in(s.drawSeat, 0, n-1) || !s.handleOrNone(s.lastDrw) || !s.handleOrNone(s.cAttH) || !s.handleOrNone(s.cDefH) {
		return fmt.Errorf("last draw or conflict card out of range")
	}
	if !in(s.cAttCard, -1, len(s.cfg.decks[1])-1) || !in(s.cDefCard, -1, len(s.cfg.decks[1])-1) {
		return fmt.Errorf("card out of range")
	}
	if s.winIP < 1 || s.rounds < 1 || s.mp < 0 || s.picks < 0 {
		return fmt.Errorf("bad counters")
	}
	for t := range s.bld {
		for _, o := range s.bld[t] {
			if !in(o, 0, n-1) {
				return fmt.Errorf("building owner out of range")
			}
		}
	}
	for _, w := range s.winners {
		if !in(w, 0, n-1) {
			return fmt.Errorf("winner out of range")
		}
	}
	for i := range s.pl {
		p := &s.pl[i]
		neg := p.start < 0 || p.capital < 0 || p.investor < 0
		for _, v := range [][]int{p.res[:], p.road, p.frozen, p.terr, p.fresh} {
			for _, x := range v {
				neg = neg || x < 0
			}
		}
		if neg {
			return fmt.Errorf("negative count")
		}
	}
	if s.ph == phDraw {
		// The card being drawn is in its drawer's hand, not yet seen.
		h, ok := engine.HandleArg(s.lastDrw)
		if !ok || s.drawSeat != s.who || s.inHand(s.who, s.deckOf(h), h) < 0 || s.cards.Seen(h, s.who) {
			return fmt.Errorf("no card is being drawn")
		}
	}
	if s.ph == phDefCard && (s.cAttH >= 0) != (s.cAttCard >= 0) {
		return fmt.Errorf("the attacker's card has no handle, or no kind")
	}
	if s.ph == phDefCard && s.cAttH >= 0 {
		// The attacker's card, shown, waits in its hand for the resolution.
		h, _ := engine.HandleArg(s.cAttH)
		if v, pub := s.cards.Public(h); !pub || int(v) != s.cAttCard || s.inHand(s.cAtt, milDeck, h) < 0 {
			return fmt.Errorf("the attacker's card is not a shown card of its hand")
		}
	}
	return s.saneCards()
}

// handleOrNone says whether v is -1 or a handle of the state's decks.
func (s *State) handleOrNone(v int32) bool {
	if v == -1 {
		return true
	}
	h, ok := engine.HandleArg(v)
	return ok && s.cards.Valid(h)
}

// saneCards checks the card zones: every handle in a pile, a hand or the
// spent cards names a live position of a deck of its kind, none is in two
// places, and spent cards are public (they were played face up).
func (s *State) saneCards() error {
	var seen [][]bool
	for d := 0; d < s.cards.NumDecks(); d++ {
		n := len(s.cards.Sources(d))
		if d < 2 {
			n = len(s.cards.Decks()[d])
		}
		seen = append(seen, make([]bool, n))
	}
	dead := make([][]bool, len(seen))
	for d := range seen {
		dead[d] = make([]bool, len(seen[d]))
	}
	for d := 2; d < s.cards.NumDecks(); d++ {
		for _, h := range s.cards.Sources(d) {
			if int(h.Deck) < len(dead) && int(h.Pos) < len(dead[h.Deck]) {
				dead[h.Deck][h.Pos] = true
			}
		}
	}
	zone := func(hs []engine.Handle, d int, public bool) error {
		for _, h := range hs {
			if !s.cards.Valid(h) || int(h.Deck) >= len(seen) || int(h.Pos) >= len(seen[h.Deck]) || s.deckOf(h) != d {
				return fmt.Errorf("card %s is not a card of the %s deck", h, deckNames[d])
			}
			if dead[h.Deck][h.Pos] {
				return fmt.Errorf("card %s was reshuffled away", h)
			}
			if seen[h.Deck][h.Pos] {
				return fmt.Errorf("card %s is in two places", h)
			}
			seen[h.Deck][h.Pos] = true
			if _, pub := s.cards.Public(h); public && !pub {
				return fmt.Errorf("spent card %s was never shown", h)
			}
		}
		return nil
	}
	for d := 0; d < 2; d++ {
		if err := zone(s.pile[d], d, false); err != nil {
			return err
		}
		if err := zone(s.disc[d], d, true); err != nil {
			return err
		}
		for p := range s.pl {
			if err := zone(s.pl[p].hand[d], d, false); err != nil {
				return err
			}
		}
	}
	return nil
}
