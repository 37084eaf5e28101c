// Package dragonslair is The Sleeping Dragon's Lair: a push-your-luck game
// for 2 to 8 players in which each turn a player turns over cards one by
// one, walking one hall deeper into the dragon's cave with every card,
// and escapes with the treasure in the bag before a second noise wakes the
// dragon.
//
// The draw pile is late-bound: it is an unordered multiset of card counts
// with a known top part (cards peeked with the Crystal Sphere or the Elf
// Tracker) and a known bottom part (cards put under the deck). A card's
// identity is fixed by a chance step only when it is turned over or peeked,
// so no peer can know the next card before the table does. The state is a
// plain value without slices or maps, which makes Clone a copy and keeps a
// simulated game allocation-light.
//
// The English rules, and every choice made where the original text is
// silent, are in docs/rules/dragonslair.md; the tests are named after the
// rule or FAQ answer they check.
package dragonslair
