// Package present is the presentation model of a table: everything a front
// end shows, as one seat may see it, in one plain value that marshals to
// JSON with snake_case keys. The terminal UI renders it, `replay` prints
// its history, and the browser view sends it over a WebSocket. It does no
// I/O and knows nothing of terminals or sockets.
//
// Conventions: every seat number in the model is 1-based, 0 meaning "no
// seat" (a spectator, a chance step, the table itself). Times are in
// milliseconds. Lists are in seat order or in the order things happened.
//
// The parts:
//
//   - Table is the whole picture at one moment: the game, the phase, the
//     status line, whose turn it is, the Seats (name, number, colour, bot,
//     dropped), the engine's View for the viewer and its text rendering,
//     the History, the legal Actions of the viewer, the Terms (effect texts
//     of what is shown), the Scores with their breakdown, the Peers and
//     their real connection state, the Stalls (who, what, how long, whether
//     a drop may be proposed) and drop Votes, the Sync line, the Cheats
//     reported, and the Lobby (join code, addresses, who joined).
//   - Recorder builds the History for one viewer: fed the committed log
//     entries in order (Feed) it replays them with a lockstep.Verifier and
//     tells every step with the game's engine.Narrator, which says what was
//     done and what came out (the card drawn, the die rolled) as that seat
//     may know it; fed the node's events (Event) it adds what the table did
//     (joins, stalls, drops, cheats, desyncs, the end).
//   - Build puts a Table together from the Recorder, the node's Status, the
//     current state and what only the runner knows (Env: connections, bots,
//     the lobby's code and addresses, the drop delay).
//   - Actions carry a stable ID (the action's op and arguments, "3.1.-2"),
//     the label, the group (the label's leading words, "Play Bank"), the
//     game's Target (a square, a card, a pile) so a browser can make the
//     board clickable, the effect Text, and Risky; Table.Default is the
//     move to highlight first (never a risky one). A combo (Serpent City's
//     walk of several spaces, engine.Combiner) is one Action whose ID joins
//     its steps' IDs with "+" (Steps lists them): send the steps one at a
//     time, each once the one before is committed, while it is legal.
//     Choose maps an ID back to the engine action, ChooseAll to all the
//     steps of a combo.
//   - Since is what the others did after the viewer's own last move; Last
//     is the target of the newest move (the tile just laid), to highlight.
//
// What the games supply (optional interfaces in package engine, all
// presentation, none part of the rules): Narrator (each step told as one
// seat may know it, with its outcome), Scorer (score parts), ActionInformer
// (targets, texts, risk), Glossary (the terms on the table, for help),
// Compact (the essentials in a given number of lines) and Combiner.
package present
