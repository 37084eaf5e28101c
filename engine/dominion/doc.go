// Package dominion is the base game of Dominion (second edition) for 2 to 6
// players: the three phases of a turn, the Supply sized by player count,
// all 26 Kingdom cards, scoring and ties, and bots.
//
// A player's draw pile is a known top part (cards put there face up or
// after a look) over an unordered multiset of counts, so a card's identity
// is fixed by a chance step only when it is drawn or revealed; a reshuffle
// only turns the discard pile into that multiset. Card effects run on a
// small stack of frames (Throne Room and Vassal push the card they play),
// and every choice, including an opponent's Militia discard or Moat reveal,
// is asked of the seat that makes it, one at a time, so the state always
// has exactly one actor. Counts are arrays indexed by card id, which keeps
// a state compact enough to clone, hash and simulate quickly.
package dominion
