package lockstep_test

import (
	"bytes"
	"fmt"

	"github.com/boardmesh/boardmesh/crypto"
	"github.com/boardmesh/boardmesh/engine"
	"github.com/boardmesh/boardmesh/engine/dragonslair"
	"github.com/boardmesh/boardmesh/engine/games"
	"github.com/boardmesh/boardmesh/lockstep"
)

// Example runs the usage loop of doc.go for two peers in one process: the
// "network" hands every message to the other peer at once, the "disk" is
// a byte slice, and both seats are played by random bots.
func Example() {
	var peers []*lockstep.Node
	var disks [2][]byte
	for i := 0; i < 2; i++ {
		id, _ := crypto.GenerateIdentity(bytes.NewReader(bytes.Repeat([]byte{byte(i + 1)}, 32)))
		n, err := lockstep.New(lockstep.Config{Identity: id, Name: []string{"Ada", "Bo"}[i], Games: games.Lookup})
		if err != nil {
			panic(err)
		}
		peers = append(peers, n)
		disks[i] = lockstep.AppendLogHeader(nil)
	}
	lobby := crypto.Hash{42}
	_ = peers[0].Host(lobby, dragonslair.Game, nil)
	_ = peers[1].Join(lobby)

	// handle is the body of the usage loop: persist, then send, then show.
	handle := func() (busy bool) {
		for i, n := range peers {
			for n.HasReady() {
				rd := n.Ready()
				for _, env := range rd.Persist {
					disks[i] = lockstep.AppendRecord(disks[i], lockstep.RecordSent, env)
				}
				for _, env := range rd.Entries {
					disks[i] = lockstep.AppendRecord(disks[i], lockstep.RecordEntry, env)
				}
				for _, env := range rd.Messages {
					_ = peers[1-i].Step(env)
				}
				for _, ev := range rd.Events {
					if ev.Kind == lockstep.EventRoster || ev.Kind == lockstep.EventStarted {
						fmt.Printf("%s: %s\n", []string{"Ada", "Bo"}[i], ev.Text)
					}
				}
				n.Advance()
				busy = true
			}
		}
		return busy
	}
	handle()
	_ = peers[0].Propose()
	bot, r := engine.RandomBot{}, engine.NewRand([]byte("example"))
	for peers[0].Status().Phase != lockstep.PhaseOver {
		busy := handle()
		for _, n := range peers {
			if n.CanAct() {
				st := n.State()
				_ = n.Act(bot.Choose(st, st.Legal(nil), r))
				busy = true
			}
		}
		if !busy {
			break
		}
	}
	handle() // the last entries
	a, _ := lockstep.ParseLog(disks[0])
	b, _ := lockstep.ParseLog(disks[1])
	same := len(a.Entries) == len(b.Entries)
	for i := 0; same && i < len(a.Entries); i++ {
		same = bytes.Equal(a.Entries[i].Marshal(), b.Entries[i].Marshal())
	}
	replay, err := lockstep.Verify(b.Entries, games.Lookup)
	fmt.Println("game over:", peers[0].Status().Phase == lockstep.PhaseOver && peers[1].Status().Phase == lockstep.PhaseOver)
	fmt.Println("same log on both disks:", same)
	fmt.Println("log verifies:", err == nil && replay.Result != nil)
	// Output:
	// Ada: roster agreed: Bo, Ada
	// Bo: roster agreed: Bo, Ada
	// Ada: seats drawn; the game begins with open hands: every peer's engine holds every card drawn
	// Bo: seats drawn; the game begins with open hands: every peer's engine holds every card drawn
	// game over: true
	// same log on both disks: true
	// log verifies: true
}
