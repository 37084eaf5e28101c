package lockstep

import "errors"

// ErrCardKind is what Node.Step returns for an envelope of one of the card
// protocol's kinds (crypto.Kind.Card: card-key, shuffle, remask, share).
// The hidden-card protocol is its own state machine, package
// lockstep/deal, so that this package's core does not depend on the
// mental-poker group arithmetic; a runner of a secret table steps those
// envelopes into its deal.Machine instead. The node neither keeps nor
// blames them: nothing changes, no event is raised.
var ErrCardKind = errors.New("lockstep: an envelope of the card protocol (package lockstep/deal)")
