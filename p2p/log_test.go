package p2p

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

func writeLog(t *testing.T, path string, recs [][]byte) {
	t.Helper()
	l, got, rep, err := OpenLog(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 0 || rep != nil {
		t.Fatalf("fresh log: %d records, repair %v", len(got), rep)
	}
	for _, r := range recs {
		if err := l.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
}

func someRecords(n int) [][]byte {
	var recs [][]byte
	for i := range n {
		recs = append(recs, bytes.Repeat([]byte(fmt.Sprintf("rec%d;", i)), i+1))
	}
	recs = append(recs, []byte{1}) // a one-byte record is the shortest
	return recs
}

func TestLogRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "s", "log")
	recs := someRecords(20)
	writeLog(t, path, recs)
	l, got, rep, err := OpenLog(path)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if rep != nil {
		t.Fatalf("clean log reported a repair: %v", rep)
	}
	if len(got) != len(recs) {
		t.Fatalf("got %d records, want %d", len(got), len(recs))
	}
	for i := range recs {
		if !bytes.Equal(got[i], recs[i]) {
			t.Fatalf("record %d = %q, want %q", i, got[i], recs[i])
		}
	}
	// Appending after a reopen continues the same log.
	if err := l.Append([]byte("more")); err != nil {
		t.Fatal(err)
	}
	l.Close()
	_, got, _, err = OpenLog(path)
	if err != nil || len(got) != len(recs)+1 || string(got[len(recs)]) != "more" {
		t.Fatalf("after append: %d records, err %v", len(got), err)
	}
}

// TestLogTornTail cuts the file at every byte offset inside the last
// record, as a crash in the middle of a write would, and checks that the
// reopen keeps exactly the whole records and says what it cut.
func TestLogTornTail(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "log")
	recs := someRecords(5)
	recs = append(recs, []byte("the last record, which the crash tears"))
	writeLog(t, path, recs)
	full, _ := os.ReadFile(path)
	last := len(recs[len(recs)-1]) + recordFrame
	wholeEnd := int64(len(full) - last)
	for cut := 1; cut < last; cut++ {
		torn := filepath.Join(dir, fmt.Sprintf("torn%d", cut))
		os.WriteFile(torn, full[:len(full)-cut], 0o600)
		l, got, rep, err := OpenLog(torn)
		if err != nil {
			t.Fatalf("cut %d: %v", cut, err)
		}
		if len(got) != len(recs)-1 {
			t.Fatalf("cut %d: kept %d records, want %d", cut, len(got), len(recs)-1)
		}
		if rep == nil || rep.Offset != wholeEnd || rep.Cut != int64(last-cut) || rep.Records != len(recs)-1 {
			t.Fatalf("cut %d: repair %+v, want offset %d cut %d", cut, rep, wholeEnd, last-cut)
		}
		// The file now ends at the last whole record, and a new append
		// is readable after another reopen.
		if err := l.Append([]byte("after")); err != nil {
			t.Fatal(err)
		}
		l.Close()
		_, got, rep, err = OpenLog(torn)
		if err != nil || rep != nil || len(got) != len(recs) || string(got[len(got)-1]) != "after" {
			t.Fatalf("cut %d: reopen after repair: %d records, repair %v, err %v", cut, len(got), rep, err)
		}
	}
}

func TestLogChecksumMismatch(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log")
	recs := someRecords(3)
	writeLog(t, path, recs)
	b, _ := os.ReadFile(path)
	b[len(b)-1-(recordFrame+1)] ^= 0x40 // flip a bit in the checksum of the second-to-last record (the last is one byte)
	os.WriteFile(path, b, 0o600)
	l, got, rep, err := OpenLog(path)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if rep == nil || rep.Reason != "checksum mismatch" {
		t.Fatalf("repair = %v, want a checksum mismatch", rep)
	}
	if len(got) != len(recs)-2 {
		t.Fatalf("kept %d records, want %d", len(got), len(recs)-2)
	}
}

func TestLogRejectsForeignFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log")
	os.WriteFile(path, []byte("not a log at all"), 0o600)
	if _, _, _, err := OpenLog(path); err == nil {
		t.Fatal("opened a file that is not a log")
	}
}
