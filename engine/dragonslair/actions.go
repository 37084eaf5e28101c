package dragonslair

import (
	"fmt"
	"strings"

	"github.com/boardmesh/boardmesh/engine"
)

// Ops of the actions. Arguments: opThief takes the target seat,
// opChooseHero the hero, opElfUnder the mask of the top cards the Elf's
// player saw that are noises (bit i: the i-th from the top); the others
// take none.
const (
	opDraw uint16 = iota + 1
	opEscape
	opEscapePower
	opElf
	opThief
	opSphereKeep
	opSphereUnder
	opDwarfUse
	opDwarfDecline
	opWizardUse
	opWizardDecline
	opChooseHero
	opElfUnder
)

// oneArg holds shared, read-only argument slices so that listing legal
// actions allocates nothing. Nobody may write to them.
var oneArg = func() (a [16][]int32) {
	for i := range a {
		a[i] = []int32{int32(i)}
	}
	return
}()

func act(op uint16) engine.Action { return engine.Action{Op: op} }

func actArg(op uint16, x int) engine.Action { return engine.Action{Op: op, Args: oneArg[x]} }

// canThief reports whether the turn player may use the Night Thief now.
func (s *State) canThief() bool {
	p := &s.seats[s.cur]
	return p.hero == heroThief && !p.used && int(s.round) >= thiefFromRound
}

// powerOnEscape reports whether the turn player has an unused escape power
// that would add gold now.
func (s *State) powerOnEscape() bool {
	p := &s.seats[s.turnSeat]
	if p.used {
		return false
	}
	switch p.hero {
	case heroBard:
		return true
	case heroAlchemist:
		return s.bestTreasure() > 0
	case heroKnight:
		return s.noises() > 0
	}
	return false
}

// Legal appends every legal action of the seat to act.
func (s *State) Legal(dst []engine.Action) []engine.Action {
	switch s.phase {
	case phaseChooseHero:
		for h := hero(0); h < numHeroes; h++ {
			if s.heroPool&(1<<h) != 0 {
				dst = append(dst, actArg(opChooseHero, int(h)))
			}
		}
	case phaseStart:
		if !s.pileEmpty() {
			dst = append(dst, act(opDraw))
		}
		p := &s.seats[s.cur]
		if p.hero == heroElf && !p.used && !s.pileEmpty() {
			dst = append(dst, act(opElf))
		}
		dst = s.appendThief(dst)
	case phaseCard:
		if s.hall < nest && !s.pileEmpty() {
			dst = append(dst, act(opDraw))
		}
		dst = append(dst, act(opEscape))
		if s.powerOnEscape() {
			dst = append(dst, act(opEscapePower))
		}
		dst = s.appendThief(dst)
	case phaseSphere:
		dst = append(dst, act(opSphereKeep), act(opSphereUnder))
	case phaseDwarf:
		dst = append(dst, act(opDwarfUse), act(opDwarfDecline))
	case phaseWizard:
		dst = append(dst, act(opWizardUse), act(opWizardDecline))
	case phaseElfPut:
		k := min(elfLook, int(s.topN))
		mask, known := 0, true
		for i := 0; i < k; i++ {
			v, ok := s.cards.Value(s.top[i].h, int(s.cur))
			known = known && ok
			if ok && card(v).isNoise() {
				mask |= 1 << i
			}
		}
		if known {
			dst = append(dst, actArg(opElfUnder, mask))
			break
		}
		// A secret table's other peers cannot tell which cards are
		// noises: any mask may be the right one. Each claim is checked
		// when its card is turned over (Open).
		for m := 0; m < 1<<k; m++ {
			dst = append(dst, actArg(opElfUnder, m))
		}
	}
	return dst
}

func (s *State) appendThief(dst []engine.Action) []engine.Action {
	if !s.canThief() {
		return dst
	}
	for t := 0; t < int(s.n); t++ {
		if t != int(s.cur) && s.seats[t].score > 0 {
			dst = append(dst, actArg(opThief, t))
		}
	}
	return dst
}

// Apply performs seat's action, or returns why it may not be taken and
// leaves the state unchanged. Every check happens before the first change.
func (s *State) Apply(seat int, a engine.Action) error {
	if err := engine.CheckTurn(s.ToAct(), seat); err != nil {
		return err
	}
	var buf [16]engine.Action
	legal := s.Legal(buf[:0])
	ok := false
	for _, l := range legal {
		if l.Equal(a) {
			ok = true
			break
		}
	}
	if !ok {
		return s.illegal(a, legal)
	}
	p := &s.seats[seat]
	switch a.Op {
	case opChooseHero:
		h := hero(a.Args[0])
		p.hero = h
		s.heroPool &^= 1 << h
		s.push(last{ev: evHeroChosen, seat: int8(seat), amount: int32(h)})
		s.nextChooser(seat)
	case opDraw:
		s.draw()
	case opEscape:
		s.escape(false)
	case opEscapePower:
		s.escape(true)
	case opElf:
		p.used = true
		s.fillTop(min(elfLook, s.deckSize()))
		s.phase = phaseElf
		s.settle()
	case opElfUnder:
		s.elfUnder(int(a.Args[0]))
	case opThief:
		t := int(a.Args[0])
		take := min(int32(thiefGold), s.seats[t].score)
		s.seats[t].score -= take
		p.score += take
		p.used = true
		s.push(last{ev: evThief, seat: int8(seat), other: int8(t), amount: take})
	case opSphereKeep:
		s.push(last{ev: evSphereKeep, seat: int8(seat)})
		s.phase = phaseCard
	case opSphereUnder:
		s.putUnder(0)
		s.push(last{ev: evSphereBottom, seat: int8(seat)})
		s.phase = phaseCard
	case opDwarfUse:
		s.bust(true)
	case opDwarfDecline:
		s.bust(false)
	case opWizardUse:
		p.used = true
		p.score += wizardGold
		s.push(last{ev: evWizard, seat: int8(seat), amount: wizardGold})
		s.afterRound(true)
	case opWizardDecline:
		s.afterRound(false)
	}
	return nil
}

// illegal explains a refused action and lists what is allowed instead.
func (s *State) illegal(a engine.Action, legal []engine.Action) error {
	var what string
	switch {
	case a.Op < opDraw || a.Op > opElfUnder:
		what = fmt.Sprintf("there is no move %s in this game", a)
	case s.argCount(a.Op) != len(a.Args):
		what = fmt.Sprintf("%s takes %d argument(s), not %d", opNames[a.Op], s.argCount(a.Op), len(a.Args))
	default:
		what = "you cannot " + opNames[a.Op] + " now"
		if a.Op == opDraw && s.phase == phaseCard && s.hall >= nest {
			what = "the Nest is the deepest hall: you must escape"
		}
	}
	allowed := make([]string, len(legal))
	for i, l := range legal {
		allowed[i] = s.Describe(l)
	}
	return engine.Illegal("%s; allowed: %s", what, strings.Join(allowed, "; "))
}

func (s *State) argCount(op uint16) int {
	if op == opThief || op == opChooseHero || op == opElfUnder {
		return 1
	}
	return 0
}

var opNames = [...]string{
	opDraw:          "turn over a card",
	opEscape:        "escape",
	opEscapePower:   "escape with your hero's power",
	opElf:           "use the Elf Tracker",
	opThief:         "use the Night Thief on that player",
	opSphereKeep:    "keep the peeked card on top",
	opSphereUnder:   "put the peeked card under the deck",
	opDwarfUse:      "use the Dwarf Digger",
	opDwarfDecline:  "decline the Dwarf Digger",
	opWizardUse:     "use the Sleepy Wizard",
	opWizardDecline: "decline the Sleepy Wizard",
	opChooseHero:    "choose that hero",
	opElfUnder:      "send those cards under the deck",
}

// nextChooser passes the hero choice to the next seat, or starts play.
func (s *State) nextChooser(seat int) {
	for o := seat + 1; o < int(s.n); o++ {
		if !s.seats[o].dropped {
			s.cur = uint8(o)
			return
		}
	}
	s.startTurn(s.nextActive(int(s.n) - 1))
}

// elfUnder sends the cards of mask among the top ones the Elf's player
// saw under the deck, in the order they lay, and records the claim on
// every card seen: a noise sent under, no noise left on top.
func (s *State) elfUnder(mask int) {
	seat := s.turnSeat
	k := min(elfLook, int(s.topN))
	for i := 0; i < k; i++ {
		s.top[i].claim, s.top[i].by = claimSafe, seat
		if mask&(1<<i) != 0 {
			s.top[i].claim = claimNoise
		}
	}
	moved := 0
	for i := 0; i < k-moved; {
		if s.top[i].claim == claimNoise && s.putUnder(i) {
			moved++
			continue
		}
		i++
	}
	s.push(last{ev: evElf, seat: int8(seat), amount: int32(moved)})
	s.phase = phaseStart
}
