// Package cardsource is a secret table's card source for one seat: the
// glue between the engine's card contract (engine.CardState: handles,
// Openings, a seat's private Knowledge) and the hidden-card protocol
// (lockstep/deal's Machine, mental poker).
//
// A Source owns one seat's deal.Machine and that seat's engine state. It
// declares the engine's decks at setup; whenever the state waits for the
// card layer (engine.ActorCards) it declares the state's openings as one
// deal batch, at the same point of the shared state on every peer (the
// openings are a function of the shared state alone); when the batch is
// open it answers the state: a public card's value into the shared state,
// a private card's value into the recipient's Knowledge on the
// recipient's peer only (engine.NoCard on the others). A move that shows a
// card from the mover's hand carries, per card, its value and the holder's
// decryption share (Reveals, made by the mover; CheckReveals, on every
// peer, checked against the card's ciphertext before the move is applied).
//
// The Knowledge never leaves the Source's state: it is not encoded, not
// hashed and not sent; only the deal's envelopes are. Like lockstep and
// deal, the package is pure (no clock, goroutines, sockets or disk): the
// caller moves the envelopes and keeps the deal's Ready.Secret and
// Ready.Persist on disk before anything is sent.
package cardsource
