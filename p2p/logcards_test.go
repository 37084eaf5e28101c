package p2p

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/boardmesh/boardmesh/crypto"
	"github.com/boardmesh/boardmesh/lockstep"
)

// cardEnv is a signed card envelope of author for seq.
func cardEnv(t *testing.T, id *crypto.Identity, kind crypto.Kind, seq uint64, body string) *crypto.Envelope {
	t.Helper()
	e := &crypto.Envelope{Kind: kind, Seq: seq, Body: []byte(body)}
	crypto.Sign(id, e)
	return e
}

// The log file is the node's CardStore: a card envelope appended (as a
// card or a sent record) reads back the same, before and after the file
// is opened again; one it never held, or whose bytes on disk changed, is
// an error, not a panic and not other bytes.
func TestLogCardStore(t *testing.T) {
	me, err := crypto.GenerateIdentity(&keyReader{1})
	if err != nil {
		t.Fatal(err)
	}
	other, err := crypto.GenerateIdentity(&keyReader{2})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "log")
	l, _, _, err := OpenLog(path)
	if err != nil {
		t.Fatal(err)
	}
	mine := cardEnv(t, me, crypto.KindShuffle, 3, "my shuffle")
	theirs := cardEnv(t, other, crypto.KindShare, 5, "their share")
	entry := &crypto.Envelope{Kind: crypto.KindAction, Seq: 1, Body: []byte("an action")}
	crypto.Sign(other, entry)
	if err := l.Append(lockstep.Record{Type: lockstep.RecordEntry, Env: entry}, lockstep.Record{Type: lockstep.RecordSent, Env: mine}); err != nil {
		t.Fatal(err)
	}
	if err := l.Append(lockstep.Record{Type: lockstep.RecordCard, Env: theirs}); err != nil {
		t.Fatal(err)
	}
	check := func(l *Log) {
		t.Helper()
		for _, want := range []*crypto.Envelope{mine, theirs} {
			if !l.Holds(want.Kind, want.Author, want.Seq) {
				t.Fatalf("the log does not hold the %s envelope it was given", want.Kind)
			}
			got, err := l.Card(want.Kind, want.Author, want.Seq)
			if err != nil || !crypto.Equal(got, want) {
				t.Fatalf("read back the %s envelope: %v, %v", want.Kind, got, err)
			}
		}
		if l.Holds(crypto.KindAction, entry.Author, entry.Seq) || l.Holds(crypto.KindShare, other.ID(), 6) {
			t.Fatal("the log holds a card envelope it was never given")
		}
		if _, err := l.Card(crypto.KindShare, other.ID(), 6); err == nil {
			t.Fatal("no error for a card envelope the log never held")
		}
	}
	check(l)
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	l, _, _, err = OpenLog(path)
	if err != nil {
		t.Fatal(err)
	}
	check(l)

	// Another process (or a bad disk) changes the share's bytes in place.
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)-20] ^= 1
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	if got, err := l.Card(theirs.Kind, theirs.Author, theirs.Seq); err == nil {
		t.Fatalf("read back a changed record without an error: %v", got)
	}
	if got, err := l.Card(mine.Kind, mine.Author, mine.Seq); err != nil || !crypto.Equal(got, mine) {
		t.Fatalf("the record before the change: %v, %v", got, err)
	}
	l.Close()
	if _, err := l.Card(mine.Kind, mine.Author, mine.Seq); err == nil {
		t.Fatal("no error from a closed log")
	}
}
