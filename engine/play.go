package engine

import "fmt"

// ChanceSource supplies beacon bytes for chance steps when a game is played
// without a network (simulations, tests, benchmarks): draw n of a game.
type ChanceSource interface {
	Beacon(n uint64) []byte
}

// SeededChance derives beacon n as Derive(Seed, "chance", n).
type SeededChance struct{ Seed []byte }

// Beacon returns the bytes for chance step n.
func (s SeededChance) Beacon(n uint64) []byte { return Derive(s.Seed, "chance", n) }

// Step is one entry of a played game, given to the observer of PlayOut.
type Step struct {
	Who    Actor
	Action Action // zero for chance steps
}

// PlayOut plays s to its end in place: chance steps take beacons from
// chance, seats choose with bots[seat] using botRand. It stops with an error
// after maxSteps steps (a game that does not end is a bug) or if a bot
// returns an illegal action. observe, if not nil, is called after each step
// with the state before it (only if wantPrev) and after it.
func PlayOut(s State, bots []Bot, chance ChanceSource, botRand *Rand, maxSteps int, wantPrev bool, observe func(prev, next State, st Step)) (steps int, err error) {
	var legal []Action
	var chanceN uint64
	for steps = 0; steps < maxSteps; steps++ {
		who := s.ToAct()
		var prev State
		if wantPrev {
			prev = s.Clone()
		}
		st := Step{Who: who}
		switch who.Kind {
		case ActorOver:
			return steps, nil
		case ActorChance:
			if err := s.ApplyChance(chance.Beacon(chanceN)); err != nil {
				return steps, fmt.Errorf("chance step %d: %w", chanceN, err)
			}
			chanceN++
		case ActorSeat:
			legal = s.Legal(legal[:0])
			if len(legal) == 0 {
				return steps, fmt.Errorf("seat %d is to act but has no legal action", who.Seat)
			}
			a := bots[who.Seat].Choose(s, legal, botRand)
			if err := s.Apply(who.Seat, a); err != nil {
				return steps, fmt.Errorf("bot of seat %d chose %s: %w", who.Seat, s.Describe(a), err)
			}
			st.Action = a
		}
		if observe != nil {
			observe(prev, s, st)
		}
	}
	if s.ToAct().Kind == ActorOver {
		return steps, nil
	}
	return steps, fmt.Errorf("game did not end within %d steps", maxSteps)
}
