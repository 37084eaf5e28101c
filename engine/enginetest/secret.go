package enginetest

import (
	"bytes"
	"fmt"

	"github.com/boardmesh/boardmesh/engine"
)

// SecretTable plays one game of a card game on a secret table, one state
// per seat, with a trusted in-process dealer in the place of the card
// layer: it holds the shuffled decks (Perm) and answers every opening as
// mental poker would, a public card to every peer, a private one to its
// recipient's peer only (NoCard to the others). It is the engine half of a
// secret table without the cryptography, for tests of what each seat's
// engine holds.
type SecretTable struct {
	// Peers holds seat i's state, with seat i's Knowledge attached.
	Peers []engine.CardState
	// Perm is the dealer's shuffled decks: Perm[d][p] is the card at (d, p);
	// a deck made by a reshuffle joins it when it appears.
	Perm [][]uint16
	// Took says, for a reshuffled deck d, which of its sources each
	// position took: Took[d][p] indexes Cards().Sources(d) (nil for a
	// declared deck). With it a test follows one card through reshuffles.
	Took [][]int
	// Public is everything every peer sees go by, one line per event:
	// actions with the cards they show, openings (with their card when
	// public), beacons.
	Public []string
	seed   []byte
	// told counts the decks the table has told of in Public (a reshuffle
	// is public), whether the dealer dealt them or the caller gave them.
	told   int
	chance uint64
}

// ShuffledDecks returns the decks shuffled with a seeded Fisher–Yates: a
// dealer's secret order.
func ShuffledDecks(decks [][]uint16, seed []byte) [][]uint16 {
	out := make([][]uint16, len(decks))
	for d, list := range decks {
		p := append([]uint16(nil), list...)
		engine.NewRand(engine.Derive(seed, "deck", uint64(d))).Shuffle(len(p), func(i, j int) { p[i], p[j] = p[j], p[i] })
		out[d] = p
	}
	return out
}

// NewSecretTable sets up g for players seats, switches every peer's state to
// secret cards before the deal, and deals from perm (nil: ShuffledDecks of
// the game's decks with seed).
func NewSecretTable(g *engine.Game, players int, opts engine.Options, perm [][]uint16, seed []byte) (*SecretTable, error) {
	t := &SecretTable{seed: seed}
	for i := 0; i < players; i++ {
		st, err := g.Setup(players, opts)
		if err != nil {
			return nil, err
		}
		cs, ok := st.(engine.CardState)
		if !ok {
			return nil, fmt.Errorf("%s has no hidden cards", g.Name)
		}
		if err := cs.UseSecretCards(); err != nil {
			return nil, err
		}
		cs.Cards().SetKnowledge(engine.NewKnowledge(i))
		t.Peers = append(t.Peers, cs)
	}
	if perm == nil {
		perm = ShuffledDecks(t.Peers[0].Cards().Decks(), seed)
		// An open deck is never shuffled: its cards lie face up in order.
		for d, list := range t.Peers[0].Cards().Decks() {
			if t.Peers[0].Cards().OpenDeck(d) {
				perm[d] = append([]uint16(nil), list...)
			}
		}
	}
	t.Perm = perm
	t.Took = make([][]int, len(perm))
	t.told = len(t.Peers[0].Cards().Decks())
	return t, t.settle()
}

// reshuffled extends Perm with every deck the game reshuffled since the
// last call (engine.Cards.Reshuffle: a Dominion discard pile, a Dragon's
// Lair discard pile): the dealer knows its sources' cards and shuffles
// them in a seeded order, as the card layer's joint shuffle would. A deck
// already in Perm (a caller replaying a recorded dealer) is kept.
func (t *SecretTable) reshuffled() {
	cs := t.Peers[0].Cards()
	for d := len(t.Perm); d < cs.NumDecks(); d++ {
		var list []uint16
		var took []int
		for i, h := range cs.Sources(d) {
			list = append(list, t.Perm[h.Deck][h.Pos])
			took = append(took, i)
		}
		engine.NewRand(engine.Derive(t.seed, "reshuffle", uint64(d))).Shuffle(len(list), func(i, j int) {
			list[i], list[j] = list[j], list[i]
			took[i], took[j] = took[j], took[i]
		})
		t.Perm = append(t.Perm, list)
		t.Took = append(t.Took, took)
	}
	// Told apart from dealing: a replay given the whole Perm must show the
	// same public stream as the game that dealt it.
	for ; t.told < cs.NumDecks(); t.told++ {
		t.Public = append(t.Public, fmt.Sprintf("deck %d reshuffled from %v", t.told, cs.Sources(t.told)))
	}
}

// ToAct is who the table waits for (the same on every peer).
func (t *SecretTable) ToAct() engine.Actor { return t.Peers[0].ToAct() }

// settle answers openings until a seat or chance is to act, or the game is
// over.
func (t *SecretTable) settle() error {
	t.reshuffled()
	for guard := 0; t.ToAct().Kind == engine.ActorCards; guard++ {
		if guard > 100000 {
			return fmt.Errorf("the cards never settle")
		}
		t.reshuffled()
		want := t.Peers[0].Openings(nil)
		if len(want) == 0 {
			return fmt.Errorf("the state waits for cards but asks for none")
		}
		o := want[0]
		card := int(t.Perm[o.Deck][o.Pos])
		line := o.String()
		if o.To == engine.Public {
			line += fmt.Sprintf(" = %d", card)
		}
		t.Public = append(t.Public, line)
		for i, p := range t.Peers {
			c := engine.NoCard
			if o.To == engine.Public || o.To == i {
				c = card
			}
			if err := p.Open(o, c); err != nil {
				return fmt.Errorf("peer %d refused %s: %w", i+1, o, err)
			}
		}
		if err := t.agree(); err != nil {
			return err
		}
		t.reshuffled()
	}
	return nil
}

// Settle answers the openings the state waits for (what Act and Chance
// do after their step), for a test that applies a step to the peers itself
// and looks at the state between the step and its openings.
func (t *SecretTable) Settle() error { return t.settle() }

// agree checks that every peer holds the same shared state.
func (t *SecretTable) agree() error {
	first := engine.Encode(t.Peers[0])
	for i, p := range t.Peers[1:] {
		if !bytes.Equal(first, engine.Encode(p)) {
			return fmt.Errorf("peer %d's shared state differs from peer 1's: %v", i+2, engine.Diff(t.Peers[0], p))
		}
	}
	return nil
}

// Act plays a for the seat to act on every peer, with the cards the move
// shows (from the dealer, as the card layer's reveal would carry them).
func (t *SecretTable) Act(a engine.Action) error {
	who := t.ToAct()
	if who.Kind != engine.ActorSeat {
		return fmt.Errorf("%s is to act, not a seat", who)
	}
	t.reshuffled()
	shown := t.Peers[who.Seat].Reveals(a, nil)
	vals := make([]int, len(shown))
	for i, h := range shown {
		if int(h.Deck) >= len(t.Perm) || int(h.Pos) >= len(t.Perm[h.Deck]) {
			return fmt.Errorf("the move shows a card that does not exist: %s", h)
		}
		vals[i] = int(t.Perm[h.Deck][h.Pos])
	}
	t.Public = append(t.Public, fmt.Sprintf("seat %d: %s shows %v", who.Seat+1, a, vals))
	for i, p := range t.Peers {
		if err := p.ApplyRevealed(who.Seat, a, vals); err != nil {
			return fmt.Errorf("peer %d refused seat %d's %s: %w", i+1, who.Seat+1, a, err)
		}
	}
	if err := t.agree(); err != nil {
		return err
	}
	return t.settle()
}

// Chance feeds the next seeded beacon to every peer (dice and other public
// randomness stay on the beacon on a secret table).
func (t *SecretTable) Chance() error {
	b := engine.Derive(t.seed, "chance", t.chance)
	t.chance++
	t.Public = append(t.Public, fmt.Sprintf("beacon %x", b))
	for i, p := range t.Peers {
		if err := p.ApplyChance(b); err != nil {
			return fmt.Errorf("peer %d: %w", i+1, err)
		}
	}
	if err := t.agree(); err != nil {
		return err
	}
	return t.settle()
}

// Step plays one step: a bot's choice on the acting seat's own peer (which
// knows its cards), or a beacon. It reports the action (zero for chance)
// and whether the game is over.
func (t *SecretTable) Step(bot engine.Bot, r *engine.Rand) (engine.Action, bool, error) {
	who := t.ToAct()
	switch who.Kind {
	case engine.ActorOver:
		return engine.Action{}, true, nil
	case engine.ActorChance:
		return engine.Action{}, false, t.Chance()
	case engine.ActorSeat:
		own := t.Peers[who.Seat]
		legal := own.Legal(nil)
		if len(legal) == 0 {
			return engine.Action{}, false, fmt.Errorf("seat %d has no legal action", who.Seat+1)
		}
		a := bot.Choose(own, legal, r)
		return a, false, t.Act(a)
	}
	return engine.Action{}, false, fmt.Errorf("unexpected actor %s", who)
}

// NextMove plays the beacons up to the next seat's move and returns that
// seat and its bot's choice, not played yet (a test looks at the peers
// before and after it plays it with Act); ok is false once the game is
// over.
func (t *SecretTable) NextMove(bot engine.Bot, r *engine.Rand) (who engine.Actor, a engine.Action, ok bool, err error) {
	for guard := 0; ; guard++ {
		who = t.ToAct()
		switch {
		case who.Kind == engine.ActorOver:
			return who, a, false, nil
		case who.Kind == engine.ActorSeat:
			own := t.Peers[who.Seat]
			legal := own.Legal(nil)
			if len(legal) == 0 {
				return who, a, false, fmt.Errorf("seat %d has no legal action", who.Seat+1)
			}
			return who, bot.Choose(own, legal, r), true, nil
		case guard > 100000:
			return who, a, false, fmt.Errorf("no seat ever acts")
		}
		if _, _, err := t.Step(bot, r); err != nil {
			return who, a, false, err
		}
	}
}

// Replay plays step number step of a spy test's game: with moves nil, the
// acting seat's bot chooses (bots by seat); otherwise it replays moves[step]
// (a zero Op is a beacon). ran out says moves has no step left.
func (t *SecretTable) Replay(step int, moves []engine.Action, bots []engine.Bot, r *engine.Rand) (a engine.Action, ranOut bool, err error) {
	switch {
	case moves == nil:
		var bot engine.Bot
		if who := t.ToAct(); who.Kind == engine.ActorSeat {
			bot = bots[who.Seat]
		}
		a, _, err = t.Step(bot, r)
	case step >= len(moves):
		return a, true, nil
	case moves[step].Op == 0:
		err = t.Chance()
	default:
		a = moves[step]
		err = t.Act(a)
	}
	if err != nil {
		return a, false, fmt.Errorf("step %d: %w", step, err)
	}
	return a, false, nil
}

// SpyView is everything seat holds: its peer's state encoding, its
// Knowledge, and every public event so far.
func (t *SecretTable) SpyView(seat int) []byte {
	e := engine.NewEncoder(nil)
	e.Blob("state", engine.Encode(t.Peers[seat]))
	t.Peers[seat].Cards().Knowledge().Encode(e)
	for _, l := range t.Public {
		e.Text("public", l)
	}
	return append([]byte(nil), e.Bytes()...)
}
