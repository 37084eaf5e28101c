package p2p

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/boardmesh/boardmesh/crypto"
	"github.com/boardmesh/boardmesh/engine"
	"github.com/boardmesh/boardmesh/engine/dragonslair"
	"github.com/boardmesh/boardmesh/lockstep"
)

type keyReader struct{ n byte }

func (r *keyReader) Read(p []byte) (int, error) {
	for i := range p {
		r.n = r.n*31 + 7
		p[i] = r.n
	}
	return len(p), nil
}

// someRecords returns n signed envelopes as a runner would log them: own
// envelopes as Sent then Entry, others' as Entry.
func someRecords(t *testing.T, n int) []lockstep.Record {
	t.Helper()
	me, _ := crypto.GenerateIdentity(&keyReader{1})
	other, _ := crypto.GenerateIdentity(&keyReader{2})
	var recs []lockstep.Record
	for i := 0; len(recs) < n; i++ {
		id := other
		if i%2 == 0 {
			id = me
		}
		env := &crypto.Envelope{Seq: uint64(i), Kind: crypto.KindAction, Body: bytes.Repeat([]byte(fmt.Sprintf("r%d;", i)), i+1)}
		crypto.Sign(id, env)
		if id == me {
			recs = append(recs, lockstep.Record{Type: lockstep.RecordSent, Env: env})
		}
		recs = append(recs, lockstep.Record{Type: lockstep.RecordEntry, Env: env})
	}
	return recs
}

func writeLog(t *testing.T, path string, recs []lockstep.Record) {
	t.Helper()
	l, lf, rep, err := OpenLog(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(lf.Records) != 0 || rep != nil {
		t.Fatalf("fresh log: %d records, repair %v", len(lf.Records), rep)
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

func sameRecords(t *testing.T, got, want []lockstep.Record) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d records, want %d", len(got), len(want))
	}
	for i := range want {
		if got[i].Type != want[i].Type || !crypto.Equal(got[i].Env, want[i].Env) {
			t.Fatalf("record %d differs", i)
		}
	}
}

func TestLogRoundTrip(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "s", "log")
	recs := someRecords(t, 20)
	writeLog(t, path, recs)
	l, lf, rep, err := OpenLog(path)
	if err != nil {
		t.Fatal(err)
	}
	if rep != nil {
		t.Fatalf("clean log reported a repair: %v", rep)
	}
	sameRecords(t, lf.Records, recs)
	// Appending after a reopen continues the same log, in one batch.
	more := someRecords(t, 3)
	if err := l.Append(more...); err != nil {
		t.Fatal(err)
	}
	l.Close()
	_, lf, _, err = OpenLog(path)
	if err != nil {
		t.Fatal(err)
	}
	sameRecords(t, lf.Records, append(recs, more...))
}

// TestLogSyncIsDurable: Append alone leaves records in the page cache
// (Durable does not cover them); Sync and AppendSent make them durable.
func TestLogSyncIsDurable(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "log")
	l, _, _, err := OpenLog(path)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	recs := someRecords(t, 4)
	start := l.Durable()
	if err := l.Append(recs[1]); err != nil {
		t.Fatal(err)
	}
	if l.Durable() != start {
		t.Fatalf("Append alone claims durability: %d", l.Durable())
	}
	if err := l.AppendSent(recs[0].Env); err != nil {
		t.Fatal(err)
	}
	end := int64(len(lockstep.LogMagic) + 2*lockstep.RecordFrame + 2 + recs[0].Env.Size() + recs[1].Env.Size())
	if l.Durable() != end {
		t.Fatalf("after AppendSent %d of %d bytes are durable", l.Durable(), end)
	}
}

// TestLogRoom: an open log keeps zeroed room after its records, so an
// append does not make the file longer; a crash leaves the room, and the
// reopened log reads every record, reports nothing, and appends over the
// room at the end of the records; Close gives the room back.
func TestLogRoom(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "log")
	l, _, _, err := OpenLog(path)
	if err != nil {
		t.Fatal(err)
	}
	recs := someRecords(t, 6)
	if err := l.AppendSent(recs[0].Env); err != nil {
		t.Fatal(err)
	}
	st, _ := os.Stat(path)
	if st.Size() < l.Durable()+logRoom {
		t.Fatalf("the file is %d bytes for %d of records: no room kept", st.Size(), l.Durable())
	}
	for _, r := range recs[1:3] {
		if err := l.Append(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := l.Sync(); err != nil {
		t.Fatal(err)
	}
	if st2, _ := os.Stat(path); st2.Size() != st.Size() {
		t.Fatalf("appends inside the room made the file %d bytes, from %d", st2.Size(), st.Size())
	}
	// A crash: the file as it is on disk, the room in it.
	crashed := filepath.Join(dir, "crashed")
	b, _ := os.ReadFile(path)
	os.WriteFile(crashed, b, 0o600)
	c, lf, rep, err := OpenLog(crashed)
	if err != nil || rep != nil || lf.Room != len(b)-int(l.Durable()) {
		t.Fatalf("reopen after a crash: err %v, repair %v, room %d", err, rep, lf.Room)
	}
	sameRecords(t, lf.Records, recs[:3])
	if err := c.Append(recs[3:]...); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	_, lf, rep, err = OpenLog(crashed)
	if err != nil || rep != nil || lf.Room != 0 {
		t.Fatalf("reopen after Close: err %v, repair %v, room %d", err, rep, lf.Room)
	}
	sameRecords(t, lf.Records, recs)
	if st, _ := os.Stat(crashed); st.Size() != int64(lf.Good) {
		t.Fatalf("a closed log is %d bytes, its records %d", st.Size(), lf.Good)
	}
	// A record torn in the room: cut back to the whole records, the
	// report naming just the bytes that were written.
	torn := filepath.Join(dir, "torn")
	rec := lockstep.AppendRecord(nil, recs[3].Type, recs[3].Env)
	clear(rec[len(rec)/2:])
	tb := append(append(append([]byte(nil), b[:l.Durable()]...), rec...), make([]byte, 5000)...)
	os.WriteFile(torn, tb, 0o600)
	tl, lf, rep, err := OpenLog(torn)
	if err != nil || rep == nil || rep.Torn == nil || rep.Torn.Offset != int(l.Durable()) || rep.Torn.Length > len(rec)/2 || rep.SetAside != "" {
		t.Fatalf("torn in the room: err %v, repair %+v", err, rep)
	}
	sameRecords(t, lf.Records, recs[:3])
	if err := tl.Append(recs[3]); err != nil {
		t.Fatal(err)
	}
	tl.Close()
	_, lf, rep, err = OpenLog(torn)
	if err != nil || rep != nil {
		t.Fatalf("reopen after the torn tail was cut: err %v, repair %v", err, rep)
	}
	sameRecords(t, lf.Records, recs[:4])
	l.Close()
}

// TestLogTornTail cuts the file at every byte offset inside the last
// record, as a crash in the middle of a write would, and checks that the
// reopen keeps exactly the whole records, says what it cut, and keeps no
// copy (a torn tail is what a crash leaves, not damage).
func TestLogTornTail(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "log")
	recs := someRecords(t, 6)
	writeLog(t, path, recs)
	full, _ := os.ReadFile(path)
	last := 1 + recs[len(recs)-1].Env.Size() + lockstep.RecordFrame
	wholeEnd := len(full) - last
	for cut := 1; cut < last; cut += 7 {
		torn := filepath.Join(dir, fmt.Sprintf("torn%d", cut))
		os.WriteFile(torn, full[:len(full)-cut], 0o600)
		l, lf, rep, err := OpenLog(torn)
		if err != nil {
			t.Fatalf("cut %d: %v", cut, err)
		}
		sameRecords(t, lf.Records, recs[:len(recs)-1])
		if rep == nil || rep.Torn == nil || rep.Torn.Offset != wholeEnd || rep.Torn.Length != last-cut || len(rep.Damaged) != 0 || rep.SetAside != "" {
			t.Fatalf("cut %d: repair %+v, want a torn tail of %d bytes at %d", cut, rep, last-cut, wholeEnd)
		}
		if !strings.Contains(rep.String(), "torn tail") {
			t.Fatalf("cut %d: report %q", cut, rep)
		}
		// The file now ends at the last whole record, and a new append
		// is readable after another reopen.
		if st, _ := os.Stat(torn); st.Size() != int64(wholeEnd) {
			t.Fatalf("cut %d: file is %d bytes, want %d", cut, st.Size(), wholeEnd)
		}
		if err := l.Append(recs[len(recs)-1]); err != nil {
			t.Fatal(err)
		}
		l.Close()
		_, lf, rep, err = OpenLog(torn)
		if err != nil || rep != nil {
			t.Fatalf("cut %d: reopen after repair: repair %v, err %v", cut, rep, err)
		}
		sameRecords(t, lf.Records, recs)
		if m, _ := filepath.Glob(torn + ".corrupt-*"); len(m) != 0 {
			t.Fatalf("cut %d: a torn tail was set aside as %v", cut, m)
		}
	}
}

// TestLogFlippedBitMidLog: a flipped bit in the middle of the log is
// corruption. It is reported with the record and its byte offset; the
// damaged file is kept aside byte for byte; the live log keeps every good
// record (the entries after the damage as RecordLater, so the entries
// fetched again follow the good prefix in order); nothing is lost.
func TestLogFlippedBitMidLog(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "log")
	recs := someRecords(t, 12)
	writeLog(t, path, recs)
	clean, _ := os.ReadFile(path)
	lfClean, _ := lockstep.ParseLog(clean)
	bad := append([]byte(nil), clean...)
	k := 5 // an entry of the other peer, with good records after it
	bad[lfClean.Offsets[k]+25] ^= 0x20
	os.WriteFile(path, bad, 0o600)

	l, lf, rep, err := OpenLog(path)
	if err != nil {
		t.Fatal(err)
	}
	if rep == nil || len(rep.Damaged) != 1 || rep.Torn != nil {
		t.Fatalf("repair = %+v, want one damaged record", rep)
	}
	d := rep.Damaged[0]
	if d.Record != k || d.Offset != lfClean.Offsets[k] {
		t.Fatalf("damage named at record %d byte %d, want record %d byte %d", d.Record, d.Offset, k, lfClean.Offsets[k])
	}
	msg := rep.String()
	for _, want := range []string{"corrupted", fmt.Sprintf("record %d", k), fmt.Sprintf("byte %d", lfClean.Offsets[k]), path + ".corrupt-1"} {
		if !strings.Contains(msg, want) {
			t.Errorf("report %q does not say %q", msg, want)
		}
	}
	if strings.Contains(msg, "torn") {
		t.Errorf("corruption reported as a torn tail: %q", msg)
	}
	aside, err := os.ReadFile(rep.SetAside)
	if err != nil || !bytes.Equal(aside, bad) {
		t.Fatalf("the damaged file was not kept as it was: %v", err)
	}
	if len(lf.Records) != len(recs)-1 || len(lf.Entries) != 3 || len(lf.Later) == 0 {
		t.Fatalf("kept %d records (%d entries, %d later), want %d records", len(lf.Records), len(lf.Entries), len(lf.Later), len(recs)-1)
	}
	// Appending goes on from the repaired copy; a reopen finds it clean,
	// with the prefix and the new entries in order.
	if err := l.Append(recs[k]); err != nil {
		t.Fatal(err)
	}
	l.Close()
	_, lf2, rep2, err := OpenLog(path)
	if err != nil || rep2 != nil {
		t.Fatalf("reopen: %v, %v", err, rep2)
	}
	if len(lf2.Entries) != 4 || !crypto.Equal(lf2.Entries[3], recs[k].Env) || len(lf2.Later) != len(lf.Later) || len(lf2.Sent) != len(lf.Sent) {
		t.Fatalf("reopened: %d entries, %d later, %d sent", len(lf2.Entries), len(lf2.Later), len(lf2.Sent))
	}
	// A second damage is set aside under the next free name.
	b, _ := os.ReadFile(path)
	b[len(b)-20] ^= 1
	os.WriteFile(path, b, 0o600)
	_, _, rep3, err := OpenLog(path)
	if err != nil || rep3 == nil || rep3.SetAside != path+".corrupt-2" {
		t.Fatalf("second damage: %v, %+v", err, rep3)
	}
}

func TestLogRejectsForeignFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "log")
	os.WriteFile(path, []byte("not a log at all"), 0o600)
	if _, _, _, err := OpenLog(path); err == nil {
		t.Fatal("opened a file that is not a log")
	}
	if b, _ := os.ReadFile(path); string(b) != "not a log at all" {
		t.Fatal("the foreign file was changed")
	}
	if _, _, _, err := OpenLog(dir); err == nil {
		t.Fatal("opened a directory as a log")
	}
}

// TestLogTooLarge: a log is read no further than lockstep.MaxLogFile.
func TestLogTooLarge(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "log")
	f, _ := os.Create(path)
	f.WriteString(lockstep.LogMagic)
	f.Truncate(lockstep.MaxLogFile + 1)
	f.Close()
	_, _, _, err := OpenLog(path)
	if err == nil || !strings.Contains(err.Error(), "larger than 256 MiB") {
		t.Fatalf("err = %v", err)
	}
	if st, _ := os.Stat(path); st.Size() != lockstep.MaxLogFile+1 {
		t.Fatal("an oversized log was changed")
	}
}

// TestRunnerSyncsBeforePublishing plays a Dragon's Lair table of real
// peers and checks, at every envelope a peer publishes that it signed
// itself, that the envelope is already in the durable part of its log
// file (the bytes covered by the last fsync): a crash after publishing
// can never make it sign a different one for that slot.
func TestRunnerSyncsBeforePublishing(t *testing.T) {
	t.Parallel()
	g := dragonslair.Game
	names := []string{"ada", "bob", "cy"}
	var bots []engine.Bot
	for range names {
		bots = append(bots, g.Bots[0].New())
	}
	type durable struct {
		parsed int64
		have   map[string]bool
	}
	seen := make([]durable, len(names))
	for i := range seen {
		seen[i].have = map[string]bool{}
	}
	var tbl *Table
	var mu sync.Mutex // OnPublish runs on each peer's runner goroutine
	var failed []string
	published := 0
	onPublish := func(pi int, env *crypto.Envelope) {
		mu.Lock()
		defer mu.Unlock()
		p := tbl.Peers[pi]
		if env.Author != p.Identity.ID() {
			return
		}
		published++
		d := &seen[pi]
		key := string(env.Marshal())
		if !d.have[key] && p.Log.Durable() > d.parsed {
			f, err := os.Open(p.Log.Path())
			if err != nil {
				failed = append(failed, err.Error())
				return
			}
			buf := make([]byte, p.Log.Durable())
			n, _ := f.ReadAt(buf, 0)
			f.Close()
			off := int(d.parsed)
			if off == 0 {
				off = len(lockstep.LogMagic)
			}
			for off < n {
				r, size, err := lockstep.DecodeRecord(buf[off:n])
				if err != nil {
					break
				}
				if r.Env != nil {
					d.have[string(r.Env.Marshal())] = true
				}
				off += size
			}
			d.parsed = int64(off)
		}
		if !d.have[key] && len(failed) < 5 {
			failed = append(failed, fmt.Sprintf("%s published its %s seq %d before it was synced", p.Name, env.Kind, env.Seq))
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	var err error
	tbl, err = NewTable(ctx, TableConfig{Game: g, Names: names, Bots: bots, Seed: []byte("sync"), Dir: t.TempDir(), OnPublish: onPublish})
	if err != nil {
		t.Fatal(err)
	}
	defer tbl.Close()
	if err := tbl.Run(ctx); err != nil {
		t.Fatal(err)
	}
	if published < 50 {
		t.Fatalf("only %d own envelopes published", published)
	}
	if len(failed) > 0 {
		t.Fatalf("%d of %d own envelopes were published before they were on disk, e.g.:\n%s", len(failed), published, strings.Join(failed, "\n"))
	}
}

// FuzzOpenLog writes arbitrary bytes as a log file and opens it: no
// panic; a file that opens is left clean (a second open repairs nothing)
// with the same records; a damaged one is kept aside unchanged; and the
// log takes an append after it.
func FuzzOpenLog(f *testing.F) {
	recs := someRecords(&testing.T{}, 4)
	var clean []byte
	clean = lockstep.AppendLogHeader(clean)
	for _, r := range recs {
		clean = lockstep.AppendRecord(clean, r.Type, r.Env)
	}
	f.Add(clean)
	f.Add(clean[:len(clean)-5])
	mid := append([]byte(nil), clean...)
	mid[len(lockstep.LogMagic)+40] ^= 2
	f.Add(mid)
	f.Add([]byte("not a log"))
	f.Fuzz(fuzzOne)
}

func fuzzOne(t *testing.T, b []byte) {
	recs := someRecords(t, 1)
	{
		dir, err := os.MkdirTemp("/dev/shm", "fuzzlog")
		if err != nil {
			dir = t.TempDir()
		}
		defer os.RemoveAll(dir)
		path := filepath.Join(dir, "log")
		os.WriteFile(path, b, 0o600)
		l, lf, rep, err := OpenLog(path)
		if err != nil {
			if got, _ := os.ReadFile(path); !bytes.Equal(got, b) {
				t.Fatal("a log that did not open was changed")
			}
			return
		}
		if rep != nil && rep.SetAside != "" {
			if got, _ := os.ReadFile(rep.SetAside); !bytes.Equal(got, b) {
				t.Fatal("the damaged file was not kept as it was")
			}
		}
		if err := l.Append(recs[0]); err != nil {
			t.Fatal(err)
		}
		l.Close()
		_, again, rep2, err := OpenLog(path)
		if err != nil || rep2 != nil {
			t.Fatalf("second open: %v, %v", err, rep2)
		}
		if len(again.Records) != len(lf.Records)+1 {
			t.Fatalf("second open: %d records, want %d", len(again.Records), len(lf.Records)+1)
		}
	}
}

// BenchmarkLogAppendSent times what a peer pays before each envelope it
// sends leaves: one AppendSent (a write and an fsync) of an action
// envelope (benchEnvelope), into the log's room and, for comparison,
// making the file longer each time as a log without room would. It
// reports the median.
//
//	go test -run XXX -bench LogAppendSent -benchtime 2000x -count 3 ./p2p/
func BenchmarkLogAppendSent(b *testing.B) {
	for _, room := range []bool{false, true} {
		name := "growing"
		if room {
			name = "room"
		}
		b.Run(name, func(b *testing.B) {
			ds, err := timeAppendSent(b.TempDir(), b.N, room)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(percentile(ds, 50).Microseconds()), "p50-µs")
		})
	}
}
