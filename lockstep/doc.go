// Package lockstep is the boardmesh protocol as a pure state machine: no
// goroutines, no clock, no sockets, no disk. It is modelled on etcd raft's
// RawNode. The caller (package p2p's runner, or a test's simulated network)
// feeds it received envelopes, local intents and ticks carrying the time,
// and gets back, as data, what to persist, what to send, which entries are
// now committed to the session log, and events for the player.
//
// The usage loop:
//
//	n, err := lockstep.New(lockstep.Config{Identity: id, Name: "Ada", Games: games.Lookup,
//		Log: entriesFromDisk, Sent: sentFromDisk,
//		Cards: cardsource.Maker(crand), CardKey: cardKeyFile, CardLog: cardRecordsFromDisk})
//	// host: n.Host(lobby, game, opts) ... later n.Propose() or n.ProposeMembers(admitted)
//	// joiner: n.Join(lobby)
//	for {
//		select {
//		case env := <-received:   // from gossipsub or a catch-up stream
//			n.Step(env)           // an error is a rejected envelope, already reported as an event
//		case a := <-playerChose:   // offered only while n.CanAct() (false until CaughtUp after a restart)
//			n.Act(a)
//		case now := <-ticker:
//			n.Tick(now.UnixMilli())
//		case req := <-catchUpRequests:   // a peer asks us over the catch-up stream
//			reply(n.Answer(req))
//		case ans := <-catchUpAnswers:    // the answer to one of our Ready.Requests
//			n.StepAnswer(ans)
//		}
//		for n.HasReady() {
//			rd := n.Ready()
//			if rd.CardSecret != nil {
//				writePrivateFile(lockstep.EncodeCardKey(session, rd.CardSecret)) // 0600, fsynced, first
//			}
//			appendToDisk(rd.Persist, rd.Cards, rd.Entries, rd.Keep)
//			if rd.MustSync {
//				fsync()                      // BEFORE sending anything
//			}
//			broadcast(rd.Messages)
//			fetch(rd.Requests)                   // each from its peer over the catch-up stream
//			show(rd.Events)                      // EventCheat names every cheat, seats from 1
//			n.Advance()
//		}
//	}
//
// The protocol, in short (docs/protocol.md has every byte): in the lobby
// every joiner signs a join carrying its hash-chain commitment; the host
// signs a roster; every member signs an accept of the session id, which is
// the roster's hash. Beacon round 0 draws the seats. After that the game is
// one total order of steps numbered by seq: the seat to act signs an action
// carrying the hash of the state before it; a chance step takes one reveal
// from every seated peer and feeds the beacon to the engine; wherever a turn
// begins (engine.State.Turn changes) or the game ends, every peer signs a
// checkpoint of its state hash, and the next step waits until all of them
// match. A state hash that differs from ours (in a checkpoint, an action, a
// reveal) makes a node send a state envelope, its hashes since the last
// agreed checkpoint and its canonical state; a received one is weighed
// (desync.go): one that contradicts a hash its own author signed is a lie
// that names that author and stops nothing; one that a signed hash
// disputes builds a desync report; any other is held until its author's
// next signature (or a stall) decides it.
//
// Every peer commits the same entries in the same order (the order is a
// function of the entries, not of their arrival), so honest peers end with
// identical logs, and Verify re-checks a whole log on its own. Pubsub
// neither orders nor delivers reliably: the node buffers envelopes from the
// future, de-duplicates by (author, kind, seq), re-sends its own pending
// envelopes and asks for gaps (Ready.Requests) when it falls behind.
package lockstep
