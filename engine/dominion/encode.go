package dominion

import (
	"fmt"

	"github.com/boardmesh/boardmesh/engine"
)

// Encode writes the canonical encoding. Count arrays are written card by
// card under the card's name, so a desync report names the very card.
func (s *State) Encode(e *engine.Encoder) {
	e.Uint("players", uint64(s.n))
	e.Begin("kingdom")
	for i, k := range s.kingdom {
		e.Int(digits[i], int(k))
	}
	e.End()
	encCounts(e, "supply", &s.supply)
	encCounts(e, "trash", &s.trash)
	e.Len("seats", len(s.p))
	for i := range s.p {
		p := &s.p[i]
		e.BeginItem("seat", i)
		encHandles(e, "hand", p.hand)
		encHandles(e, "deck", p.deck)
		encHandles(e, "discard", p.disc)
		encHandles(e, "play", p.play)
		encCounts(e, "own", &p.own)
		e.Int("turns", p.turns)
		e.End()
	}
	e.Int("cur", s.cur)
	e.Int("phase", s.phase)
	e.Int("turn", s.turn)
	e.Int("actions", s.actions)
	e.Int("buys", s.buys)
	e.Int("coins", s.coins)
	e.Int("merchants", s.merchants)
	e.Bool("silver", s.silver)
	e.Bool("bought", s.bought)
	e.Len("stack", len(s.stack))
	for i, f := range s.stack {
		e.BeginItem("stack", i)
		e.Int("card", int(f.card))
		e.Int("step", int(f.step))
		e.Int("target", int(f.target))
		e.Int("n", int(f.n))
		e.Int("arg", int(f.arg))
		e.Int("mask", int(f.mask))
		e.End()
	}
	e.Int("ask", s.ask)
	e.Int("askSeat", s.askSeat)
	e.Int("req", s.req)
	e.Int("reqWho", s.reqWho)
	e.Int("reqN", s.reqN)
	encHandles(e, "aside", s.aside)
	e.Int("asideOwner", s.asideOwner)
	e.Int("dropped", int(s.dropped))
	e.Text("reason", s.reason)
	s.cards.Encode(e)
}

// encHandles writes a zone's handles (engine.Handle.Arg), in order.
func encHandles(e *engine.Encoder, name string, z []engine.Handle) {
	e.Len(name, len(z))
	for _, h := range z {
		e.Uint(name, uint64(h.Arg()))
	}
}

var digits = [10]string{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"}

func encCounts(e *engine.Encoder, name string, z *counts) {
	e.Begin(name)
	for c := range z {
		e.Int(cards[c].name, int(z[c]))
	}
	e.End()
}

// decoder wraps engine.Decoder with range checks, so a decoded state can
// never index out of its arrays.
type decoder struct {
	*engine.Decoder
	bad string
}

func (d *decoder) in(what string, lo, hi int) int {
	v := d.Int()
	if d.Err() == nil && d.bad == "" && (v < lo || v > hi) {
		d.bad = fmt.Sprintf("%s %d outside %d..%d", what, v, lo, hi)
	}
	return v
}

func (d *decoder) counts(z *counts) {
	for c := range z {
		z[c] = int16(d.in("count", 0, 2000))
	}
}

// handles reads a zone; checkZones checks its handles once the decks are
// read.
func (d *decoder) handles(max int) []engine.Handle {
	n := d.Len(max)
	if n == 0 || d.Err() != nil {
		return nil
	}
	out := make([]engine.Handle, n)
	for i := range out {
		a := d.Uint()
		h, ok := engine.HandleArg(int32(min(a, 1<<31-1)))
		if !ok && d.bad == "" {
			d.bad = "a card that is no handle"
		}
		out[i] = h
	}
	return out
}

// checkZones refuses a state whose zones name a card that does not exist,
// was reshuffled away, is still in the Supply, or is in two places; and a
// public card in the play area that is not public.
func (s *State) checkZones() error {
	bad := func(what string) error { return fmt.Errorf("%w: %s", engine.ErrDecode, what) }
	var seen [][]bool
	for d := 0; d < s.cards.NumDecks(); d++ {
		n := 0
		if d < len(s.cards.Decks()) {
			n = len(s.cards.Decks()[d])
		} else {
			n = len(s.cards.Sources(d))
		}
		seen = append(seen, make([]bool, n))
	}
	sizes := pileSizes(s.n)
	check := func(z []engine.Handle, public bool) error {
		for _, h := range z {
			if !s.cards.Valid(h) || seen[h.Deck][h.Pos] {
				return bad("a card in two places, or none")
			}
			seen[h.Deck][h.Pos] = true
			if h.Deck == supplyDeck {
				c, _ := s.cards.Public(h)
				if int(h.Pos) < pileStart(&sizes, int(c))+int(s.supply[c]) {
					return bad("a card still in the Supply")
				}
			}
			if _, ok := s.cards.Public(h); public && !ok {
				return bad("a card in play that nobody saw")
			}
		}
		return nil
	}
	for i := range s.p {
		p := &s.p[i]
		for _, z := range [][]engine.Handle{p.hand, p.deck, p.disc} {
			if err := check(z, false); err != nil {
				return err
			}
		}
		if err := check(p.play, true); err != nil {
			return err
		}
	}
	if err := check(s.aside, false); err != nil {
		return err
	}
	for d := len(s.cards.Decks()); d < s.cards.NumDecks(); d++ {
		for _, h := range s.cards.Sources(d) {
			if seen[h.Deck][h.Pos] {
				return bad("a card reshuffled away is still in a zone")
			}
		}
	}
	return nil
}

// decode rebuilds a state from its canonical encoding.
func decode(b []byte) (*State, error) {
	d := &decoder{Decoder: engine.NewDecoder(b)}
	s := &State{}
	s.n = int(d.Uint())
	if s.n < 2 || s.n > 6 {
		return nil, fmt.Errorf("%w: %d players", engine.ErrDecode, s.n)
	}
	for i := range s.kingdom {
		s.kingdom[i] = int8(d.in("kingdom card", -1, NumCards-1))
		if s.kingdom[i] >= 0 && s.kingdom[i] < firstKingdom {
			d.bad = "a base card in the Kingdom"
		}
	}
	s.setPiles()
	d.counts(&s.supply)
	d.counts(&s.trash)
	if d.Len(6) != s.n {
		d.bad = "seat count"
	}
	s.p = make([]player, s.n)
	for i := range s.p {
		p := &s.p[i]
		p.hand = d.handles(engine.MaxDeckSize)
		p.deck = d.handles(engine.MaxDeckSize)
		p.disc = d.handles(engine.MaxDeckSize)
		p.play = d.handles(engine.MaxDeckSize)
		d.counts(&p.own)
		p.turns = d.in("turns", 0, 1<<30)
	}
	s.cur = d.in("current seat", 0, s.n-1)
	s.phase = d.in("phase", phaseSetup, phaseOver)
	s.turn = d.in("turn", 0, 1<<30)
	s.actions = d.in("actions", 0, 1<<20)
	s.buys = d.in("buys", 0, 1<<20)
	s.coins = d.in("coins", 0, 1<<20)
	s.merchants = d.in("merchants", 0, 1<<20)
	s.silver = d.Bool()
	s.bought = d.Bool()
	if n := d.Len(64); n > 0 {
		s.stack = make([]frame, n)
		for i := range s.stack {
			f := &s.stack[i]
			f.card = int8(d.in("frame card", firstKingdom, NumCards-1))
			f.step = int8(d.in("frame step", 0, stepDone))
			f.target = int8(d.in("frame target", 0, s.n))
			f.n = int8(d.in("frame counter", -100, 100))
			f.arg = int8(d.in("frame argument", 0, NumCards-1))
			f.mask = uint8(d.in("frame mask", 0, 255))
		}
	}
	s.ask = d.in("choice", askNone, numAsks-1)
	s.askSeat = d.in("choosing seat", 0, s.n-1)
	s.req = d.in("chance step", reqNone, reqDeal)
	s.reqWho = d.in("drawing seat", 0, s.n-1)
	s.reqN = d.in("cards to draw", 0, 10)
	s.aside = d.handles(64)
	s.asideOwner = d.in("aside owner", 0, s.n-1)
	s.dropped = uint8(d.in("dropped seats", 0, 1<<s.n-1))
	s.reason = d.Text(400)
	if d.bad != "" {
		return nil, fmt.Errorf("%w: %s", engine.ErrDecode, d.bad)
	}
	if d.Err() != nil {
		return nil, d.Err()
	}
	cs, err := engine.DecodeDecks(d.Decoder, declaredDecks(s.n))
	if err != nil {
		return nil, err
	}
	s.cards = cs
	if err := d.Finish(); err != nil {
		return nil, err
	}
	if err := s.checkZones(); err != nil {
		return nil, err
	}
	if s.ask > askMain && len(s.stack) == 0 {
		return nil, fmt.Errorf("%w: a card's choice with no card being played", engine.ErrDecode)
	}
	if (s.ask == askLibrary || s.ask == askSentry || s.ask == askBandit) && len(s.aside) == 0 {
		return nil, fmt.Errorf("%w: a choice about revealed cards with none revealed", engine.ErrDecode)
	}
	return s, nil
}
