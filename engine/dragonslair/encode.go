package dragonslair

import (
	"fmt"

	"github.com/boardmesh/boardmesh/engine"
)

// encodingFormat changes whenever the encoding does.
const encodingFormat = 2

// cardKeys name the per-card fields of the encoding.
var cardKeys = [numCards]string{"coin", "necklace", "cup", "scepter", "crown", "clink", "crunch", "sneeze",
	"cap", "raven", "hideout", "egg", "sphere", "passage"}

// Encode writes the canonical encoding: options, the turn, the pile, the
// seats and the recent events, each under a field name.
func (s *State) Encode(e *engine.Encoder) {
	e.Uint("format", encodingFormat)
	e.Uint("players", uint64(s.n))
	e.Bool("full", s.full)
	e.Uint("heroMode", uint64(s.heroMode))
	e.Bool("ravens", s.ravens)
	e.Uint("red", uint64(s.red))
	e.Uint("eggBonus", uint64(s.eggBonus))
	e.Uint("phase", uint64(s.phase))
	e.Uint("cur", uint64(s.cur))
	e.Uint("turnSeat", uint64(s.turnSeat))
	e.Uint("round", uint64(s.round))
	e.Uint("turns", uint64(s.turns))
	e.Uint("draws", uint64(s.draws))
	e.Uint("dragon", uint64(s.dragon))
	e.Uint("hall", uint64(s.hall))
	e.Bool("ending", s.ending)
	e.Bool("tiebreak", s.tiebreak)
	e.Uint("tieNext", uint64(s.tieNext))
	e.Int("turnBase", int(s.turnBase))
	e.Uint("heroPool", uint64(s.heroPool))
	e.Uint("pileDeck", uint64(s.pd))
	e.Uint("mid", uint64(s.mid))
	encodeCounts(e, "deck", &s.deck)
	encodeSlots(e, "top", s.top[:s.topN])
	encodeSlots(e, "bottom", s.bottom[:s.botN])
	encodeCounts(e, "discard", &s.discard)
	encodeHandles(e, "discards", s.discH)
	encodeCounts(e, "front", &s.front)
	encodeHandles(e, "inFront", s.frontH)
	for i := 0; i < int(s.n); i++ {
		p := &s.seats[i]
		e.BeginItem("seat", i)
		e.Int("score", int(p.score))
		e.Uint("eggs", uint64(p.eggs))
		e.Int("hero", int(p.hero))
		e.Bool("used", p.used)
		e.Bool("dropped", p.dropped)
		e.Bool("tied", p.tied)
		e.Int("tieGain", int(p.tieGain))
		e.End()
	}
	e.Uint("winner", uint64(s.winner))
	e.Uint("reason", uint64(s.reason))
	for i := range s.log {
		l := &s.log[i]
		e.BeginItem("log", i)
		e.Uint("ev", uint64(l.ev))
		e.Int("seat", int(l.seat))
		e.Uint("card", uint64(l.card))
		e.Int("amount", int(l.amount))
		e.Int("other", int(l.other))
		e.End()
	}
	s.cards.Encode(e)
}

func encodeHandles(e *engine.Encoder, name string, hs []engine.Handle) {
	e.Len(name, len(hs))
	for _, h := range hs {
		e.Uint("handle", uint64(h.Arg()))
	}
}

func encodeCounts(e *engine.Encoder, name string, c *[numCards]uint8) {
	e.Begin(name)
	for i, x := range c {
		e.Uint(cardKeys[i], uint64(x))
	}
	e.End()
}

func encodeSlots(e *engine.Encoder, name string, sl []slot) {
	e.Len(name, len(sl))
	for i := range sl {
		e.BeginItem(name, i)
		e.Uint("handle", uint64(sl[i].h.Arg()))
		e.Uint("claim", uint64(sl[i].claim))
		e.Uint("by", uint64(sl[i].by))
		e.End()
	}
}

// decoder wraps engine.Decoder with range checks, so that no byte string
// can produce a state that panics later.
type decoder struct {
	*engine.Decoder
	bad string
}

func (d *decoder) uint(what string, max uint64) uint64 {
	v := d.Uint()
	if v > max {
		if d.bad == "" {
			d.bad = fmt.Sprintf("%s %d out of range", what, v)
		}
		return 0 // a safe value; decode fails on d.bad
	}
	return v
}

func (d *decoder) int(what string, lo, hi int) int {
	v := d.Int()
	if v < lo || v > hi {
		if d.bad == "" {
			d.bad = fmt.Sprintf("%s %d out of range", what, v)
		}
		return lo // a safe value; decode fails on d.bad
	}
	return v
}

func (d *decoder) counts(c *[numCards]uint8) {
	for i := range c {
		c[i] = uint8(d.uint(cardKeys[i], 255))
	}
}

func (d *decoder) slots(sl *[pileCap]slot, n *uint8) {
	*n = uint8(d.Len(pileCap))
	for i := 0; i < int(*n); i++ {
		sl[i].h = d.handle()
		sl[i].claim = uint8(d.uint("claim", uint64(claimSafe)))
		sl[i].by = uint8(d.uint("claiming seat", maxPlayers-1))
	}
}

func (d *decoder) handle() engine.Handle {
	h, ok := engine.HandleArg(int32(d.uint("handle", 1<<31-1)))
	if !ok && d.bad == "" {
		d.bad = "a card handle out of range"
	}
	return h
}

// maxLoose bounds the handles in front of a player or in the discards:
// every card of the game.
const maxLoose = 128

func (d *decoder) handles() []engine.Handle {
	n := d.Len(maxLoose)
	var out []engine.Handle
	for i := 0; i < n && d.Err() == nil; i++ {
		out = append(out, d.handle())
	}
	return out
}

// decode rebuilds a state from its canonical encoding and checks it is a
// state the rules can reach the shape of: ranges, the seat to act, and
// every card accounted for.
func decode(b []byte) (engine.State, error) {
	d := &decoder{Decoder: engine.NewDecoder(b)}
	s := &State{}
	if f := d.Uint(); f != encodingFormat && d.Err() == nil {
		return nil, fmt.Errorf("%w: dragonslair encoding format %d, want %d", engine.ErrDecode, f, encodingFormat)
	}
	s.n = uint8(d.uint("players", maxPlayers))
	s.full = d.Bool()
	s.heroMode = uint8(d.uint("hero mode", uint64(heroesNone)))
	s.ravens = d.Bool()
	s.red = uint8(d.uint("red field", 255))
	s.eggBonus = uint8(d.uint("egg bonus", 255))
	s.phase = phase(d.uint("phase", uint64(phaseOver)))
	s.cur = uint8(d.uint("seat to act", maxPlayers-1))
	s.turnSeat = uint8(d.uint("turn seat", maxPlayers-1))
	s.round = uint16(d.uint("round", 1<<16-1))
	s.turns = uint32(d.uint("turns", 1<<32-1))
	s.draws = uint32(d.uint("draws", 1<<32-1))
	s.dragon = uint8(d.uint("dragon", 255))
	s.hall = uint8(d.uint("hall", nest))
	s.ending = d.Bool()
	s.tiebreak = d.Bool()
	s.tieNext = uint8(d.uint("tie turns", maxPlayers))
	s.turnBase = int32(d.Int())
	s.heroPool = uint16(d.uint("hero pool", 1<<numHeroes-1))
	s.pd = uint8(d.uint("pile deck", engine.MaxDecks-1))
	s.mid = uint16(d.uint("pile position", engine.MaxDeckSize))
	d.counts(&s.deck)
	d.slots(&s.top, &s.topN)
	d.slots(&s.bottom, &s.botN)
	d.counts(&s.discard)
	s.discH = d.handles()
	d.counts(&s.front)
	s.frontH = d.handles()
	for i := range s.seats {
		s.seats[i].hero = noHero
	}
	if d.Err() != nil {
		return nil, d.Err()
	}
	if d.bad != "" {
		return nil, fmt.Errorf("%w: dragonslair: %s", engine.ErrDecode, d.bad)
	}
	if s.n < 2 {
		return nil, fmt.Errorf("%w: %d players", engine.ErrDecode, s.n)
	}
	for i := 0; i < int(s.n); i++ {
		p := &s.seats[i]
		p.score = int32(d.int("score", 0, 1<<31-1))
		p.eggs = uint8(d.uint("eggs", 255))
		p.hero = hero(d.int("hero", int(noHero), int(numHeroes)-1))
		p.used = d.Bool()
		p.dropped = d.Bool()
		p.tied = d.Bool()
		p.tieGain = int32(d.Int())
	}
	s.winner = uint8(d.uint("winner mask", 1<<s.n-1))
	s.reason = uint8(d.uint("reason", uint64(reasonLeft)))
	for i := range s.log {
		l := &s.log[i]
		l.ev = event(d.uint("event", uint64(numEvents-1)))
		l.seat = int8(d.int("event seat", -1, int(s.n)-1))
		l.card = card(d.uint("event card", uint64(numCards-1)))
		l.amount = int32(d.Int())
		l.other = int8(d.int("event seat", -1, int(s.n)-1))
	}
	if d.Err() != nil {
		return nil, d.Err()
	}
	cs, err := engine.DecodeCards(d.Decoder, [][]uint16{declaredDeck(s.full, s.ravens)})
	if err != nil {
		return nil, err
	}
	s.cards = cs
	if err := d.Finish(); err != nil {
		return nil, err
	}
	if d.bad != "" {
		return nil, fmt.Errorf("%w: dragonslair: %s", engine.ErrDecode, d.bad)
	}
	if err := s.check(); err != nil {
		return nil, fmt.Errorf("%w: dragonslair: %v", engine.ErrDecode, err)
	}
	return s, nil
}

// check verifies the invariants every reachable state keeps: the seats
// in range, a phase that fits the pile, and every card accounted for.
func (s *State) check() error {
	if s.cur >= s.n || s.turnSeat >= s.n {
		return fmt.Errorf("seat to act %d or turn seat %d out of range", s.cur, s.turnSeat)
	}
	switch s.phase {
	case phaseStart, phaseCard, phaseSphere, phaseDwarf, phaseDraw, phaseElf, phasePeek, phaseElfPut:
		if s.cur != s.turnSeat {
			return fmt.Errorf("seat %d to act in seat %d's turn", s.cur, s.turnSeat)
		}
	}
	switch s.phase {
	case phaseStart, phaseDraw, phaseElf, phasePeek:
		if s.deckSize() == 0 {
			return fmt.Errorf("the pile is empty where a card must be drawn")
		}
	}
	if (s.phase == phaseSphere || s.phase == phaseDraw || s.phase == phasePeek || s.phase == phaseElf || s.phase == phaseElfPut) && s.topN == 0 {
		return fmt.Errorf("a card on top is pending but the top part is empty")
	}
	if s.red == 0 {
		return fmt.Errorf("red field 0")
	}
	return s.conservation()
}

// conservation checks that every card of the game is in exactly one
// place: the pile, the discards, in front of the turn player, or kept as
// an egg; and that every handle names a live position once, the handles
// in front and in the discards public cards of their kinds, those of the
// pile none that has been turned over.
func (s *State) conservation() error {
	want := deckCounts(s.full, s.ravens)
	var have [numCards]int
	for c := range have {
		have[c] = int(s.deck[c]) + int(s.discard[c]) + int(s.front[c])
	}
	for i := 0; i < int(s.n); i++ {
		have[cardEgg] += int(s.seats[i].eggs)
	}
	for c := range have {
		if have[c] != int(want[c]) {
			return fmt.Errorf("%d of %s in the game, want %d", have[c], card(c), want[c])
		}
	}
	if int(s.pd) >= s.cards.NumDecks() || int(s.mid) > s.deckLen(int(s.pd)) {
		return fmt.Errorf("the pile is at %d:%d, which does not exist", s.pd, s.mid)
	}
	pile := 0
	for _, k := range s.deck {
		pile += int(k)
	}
	if pile != s.deckSize() {
		return fmt.Errorf("the pile has %d cards but holds %d handles", pile, s.deckSize())
	}
	seen := make([][]bool, s.cards.NumDecks())
	for d := range seen {
		seen[d] = make([]bool, s.deckLen(d))
	}
	use := func(h engine.Handle) error {
		if !s.cards.Valid(h) || seen[h.Deck][h.Pos] {
			return fmt.Errorf("card %s is not a card or is in two places", h)
		}
		seen[h.Deck][h.Pos] = true
		return nil
	}
	for i := int(s.mid); i < s.deckLen(int(s.pd)); i++ {
		if err := use(engine.Handle{Deck: s.pd, Pos: uint16(i)}); err != nil {
			return err
		}
	}
	for _, part := range [][]slot{s.top[:s.topN], s.bottom[:s.botN]} {
		for _, sl := range part {
			if err := use(sl.h); err != nil {
				return err
			}
			if _, pub := s.cards.Public(sl.h); pub {
				return fmt.Errorf("card %s of the pile has been turned over", sl.h)
			}
		}
	}
	for _, zone := range []struct {
		hs     []engine.Handle
		counts *[numCards]uint8
	}{{s.discH, &s.discard}, {s.frontH, &s.front}} {
		var k [numCards]int
		for _, h := range zone.hs {
			if err := use(h); err != nil {
				return err
			}
			v, pub := s.cards.Public(h)
			if !pub || int(v) >= int(numCards) {
				return fmt.Errorf("card %s lies face up but was never turned over", h)
			}
			k[v]++
		}
		for c := range k {
			if k[c] != int(zone.counts[c]) {
				return fmt.Errorf("%d handles of %s for %d cards", k[c], card(c), zone.counts[c])
			}
		}
	}
	return nil
}
