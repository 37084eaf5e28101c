package dragonslair

import "github.com/boardmesh/boardmesh/engine"

// ApplyChance fixes what the state waits for with the beacon bytes: the
// heroes dealt or, on an open table, the card turned over or the cards
// peeked at.
func (s *State) ApplyChance(beacon []byte) error {
	if err := engine.CheckChance(s.ToAct(), beacon); err != nil {
		return err
	}
	switch s.phase {
	case phaseDealHeroes:
		r := engine.NewRand(beacon)
		var deal [numHeroes]hero
		for i := range deal {
			deal[i] = hero(i)
		}
		r.Shuffle(len(deal), func(i, j int) { deal[i], deal[j] = deal[j], deal[i] })
		for i := 0; i < int(s.n); i++ {
			s.seats[i].hero = deal[i]
		}
		s.push(last{ev: evHeroesDealt, seat: -1})
		s.startTurn(s.nextActive(int(s.n) - 1))
	case phaseDraw, phaseElf, phasePeek:
		// The open card source: the cards the state waits for are
		// drawn from the beacon, late bound (engine.Cards.OpenFromBeacon).
		var buf [elfLook]engine.Opening
		if err := s.cards.OpenFromBeacon(s.Openings(buf[:0]), beacon); err != nil {
			return err
		}
		s.settle()
	}
	return nil
}
