package cardsource_test

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/boardmesh/boardmesh/crypto"
	"github.com/boardmesh/boardmesh/engine/games"
	"github.com/boardmesh/boardmesh/engine/infinitecity"
	"github.com/boardmesh/boardmesh/lockstep"
	"github.com/boardmesh/boardmesh/lockstep/cardsource"
)

// TestRestartRefusesAMoveHiddenInTheCardLog: a log file is hostile too.
// A secret table's file keeps, as a card record, a move the card layer
// refused (the proof of a bad reveal, replayed on restart to prove the
// cheat anew). Here the file is edited: its log is cut before P2's last
// move, and that genuine move is written after it as a card record. A
// restart must not take it as if from the network (its log would be one
// entry longer than the file's): it stops, saying what is wrong.
func TestRestartRefusesAMoveHiddenInTheCardLog(t *testing.T) {
	nt := newNodeGameTable(t, infinitecity.Game, 2, "edited", false, nil)
	nt.play()
	lf, err := lockstep.ParseLog(nt.disk[0])
	if err != nil {
		t.Fatal(err)
	}
	last := -1
	for k, r := range lf.Records {
		if r.Type == lockstep.RecordEntry && r.Env.Kind == crypto.KindAction && r.Env.Author == nt.ids[1].ID() {
			last = k
		}
	}
	if last < 0 {
		t.Fatal("P2 made no move")
	}
	edited := lockstep.AppendLogHeader(nil)
	for _, r := range lf.Records[:last] {
		edited = lockstep.AppendRecord(edited, r.Type, r.Env)
	}
	edited = lockstep.AppendRecord(edited, lockstep.RecordCard, lf.Records[last].Env)
	ef, err := lockstep.ParseLog(edited)
	if err != nil {
		t.Fatal(err)
	}
	var k [32]byte
	_, err = lockstep.New(lockstep.Config{Identity: nt.ids[0], Name: "P1", Games: games.Lookup, Cards: cardsource.Maker(rand.NewChaCha8(k)),
		Log: ef.Entries, Sent: ef.SentBy(nt.ids[0]), CardKey: nt.keys[0], CardLog: ef.Cards})
	if err == nil || !strings.Contains(err.Error(), "card records hold a move of P2") || !strings.Contains(err.Error(), "damaged or was edited") {
		t.Fatalf("restart from the edited file: %v", err)
	}
}
