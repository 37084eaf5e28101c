// Package serpentcity is Serpent City: 2–6 players circle a ring road,
// occupy Territories that produce Resources, build, fight and buy their way
// into the Capital; the first to 15 Influence Points wins, or the leader
// after round 60.
//
// The original text names several tables without giving them (the board,
// the price list, dominance, the Reward Roll, trading, both Special Card
// decks). Our design of each lives in one value, [Rules], documented in
// docs/rules/serpentcity.md; a table can replace it with JSON through the
// "rules" option or [ParseRules].
//
// Every multi-part decision of the text (splitting Movement Points, the
// Military Cards of attacker then defender, Pact card picks) is modelled as
// a sequence of small single-actor steps, so Legal stays short and the log
// of a table is one total order. Dice and card draws are chance steps; a
// deck is an unordered multiset of remaining counts, and a card's identity
// is fixed only when it is drawn.
package serpentcity
