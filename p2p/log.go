package p2p

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/boardmesh/boardmesh/crypto"
	"github.com/boardmesh/boardmesh/lockstep"
	"github.com/boardmesh/boardmesh/p2p/fileio"
)

// The on-disk log is lockstep's log file (lockstep/logfile.go holds the
// one codec: framing, checksums, limits, the torn-tail and corruption
// rules); this file only does the file I/O around it: open, bounded read,
// repair on disk, append and fsync.

// MaxRecord bounds one record's payload, and a catch-up frame: lockstep's
// limit, kept here for the stream code.
const MaxRecord = lockstep.MaxRecord

// Log is an append-only session log file. Append writes through to the
// file at once (one write call per batch, so a crash leaves whole records
// and at most one torn tail); Sync makes everything appended durable.
// What this peer signed must be synced before it is published.
//
// While it is open the file is kept up to logRoom longer than its records,
// filled with zeros (the log's room, docs/protocol.md §6): an append then
// writes inside the file, and the fsync before each envelope this peer
// sends flushes the data alone, not a new length and new blocks too. On
// ext4 here an AppendSent takes 0.14–0.17 ms instead of 0.26–0.28 ms
// (BenchmarkLogAppendSent; docs/performance.md, "The log's room and
// bundles"). Close gives the room back.
type Log struct {
	f       *os.File
	path    string
	n       int
	size    int64 // the end of the last record: where the next append goes
	alloc   int64 // the file's length: size, then the room
	durable int64
	noRoom  bool // keep no room (the benchmark's comparison)
	buf     []byte
	// cards: where each card envelope of the file is (card and sent
	// records), for Card (lockstep.CardStore).
	cards map[cardSlot]span
}

type cardSlot struct {
	kind   crypto.Kind
	author crypto.PeerID
	seq    uint64
}

// span is one record's place in the file.
type span struct {
	off  int64
	size int
}

// Repair describes what OpenLog found wrong with a log and did about it.
// It is nil for a clean log.
type Repair struct {
	// Torn is the torn tail that was cut off (a crash while appending).
	Torn *lockstep.LogError
	// Damaged lists damaged records in the middle of the file (a flipped
	// bit, a bad disk): not a crash, and never silently cut.
	Damaged []*lockstep.LogError
	// SetAside is where the damaged original was kept, unchanged, before
	// a repaired copy replaced it.
	SetAside string
	// Records is how many whole records were kept.
	Records int
	// Entries is how many committed entries the log resumes from; Later
	// how many good entries after the damage wait for the gap to be
	// fetched again from the other peers.
	Entries, Later int
}

func (r *Repair) String() string {
	var b strings.Builder
	if len(r.Damaged) > 0 {
		d := r.Damaged[0]
		fmt.Fprintf(&b, "log is corrupted: %v", d)
		if len(r.Damaged) > 1 {
			fmt.Fprintf(&b, " (and %d more damaged places)", len(r.Damaged)-1)
		}
		fmt.Fprintf(&b, "; the damaged file is kept as %s and a repaired copy keeps its %d good records. The game resumes after the %d entries before the damage and fetches the rest from the other players", r.SetAside, r.Records, r.Entries)
		if r.Later > 0 {
			fmt.Fprintf(&b, " (%d good entries after the damage are kept aside in the log)", r.Later)
		}
		if r.Torn != nil {
			fmt.Fprintf(&b, "; it also had a torn tail of %d bytes at byte %d, cut", r.Torn.Length, r.Torn.Offset)
		}
		return b.String()
	}
	if r.Torn != nil {
		return fmt.Sprintf("log had a torn tail (the last record was cut short by a crash): cut %d bytes at byte %d, kept %d whole records", r.Torn.Length, r.Torn.Offset, r.Records)
	}
	return "log is intact"
}

// OpenLog opens or creates the log at path and reads it with lockstep's
// codec (at most lockstep.MaxLogFile bytes; the log must be a regular
// file). A torn tail is cut back to the last whole record. A damaged
// record anywhere else is corruption: the original file is kept as
// PATH.corrupt-N, a repaired copy (every good record, entries after the
// damage as lockstep.RecordLater) takes its place, and the Repair says
// so. The returned Repair is nil for a clean log.
func OpenLog(path string) (*Log, *lockstep.LogFile, *Repair, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, nil, nil, fmt.Errorf("open log: %w", err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("open log: %w", err)
	}
	l := &Log{f: f, path: path, cards: map[cardSlot]span{}}
	lf, rep, err := l.load()
	if err != nil {
		l.f.Close()
		return nil, nil, nil, err
	}
	for i, r := range lf.Records {
		l.noteCard(r.Type, r.Env, int64(lf.Offsets[i]))
	}
	return l, lf, rep, nil
}

func (l *Log) load() (*lockstep.LogFile, *Repair, error) {
	st, err := l.f.Stat()
	if err != nil {
		return nil, nil, fmt.Errorf("open log: %w", err)
	}
	if !st.Mode().IsRegular() {
		return nil, nil, fmt.Errorf("%s is not a regular file, so it cannot be a log", l.path)
	}
	if st.Size() > lockstep.MaxLogFile {
		return nil, nil, &fileio.TooLargeError{Path: l.path, Max: lockstep.MaxLogFile}
	}
	if st.Size() == 0 {
		if _, err := l.f.Write([]byte(lockstep.LogMagic)); err != nil {
			return nil, nil, fmt.Errorf("write log header: %w", err)
		}
		l.size = int64(len(lockstep.LogMagic))
		l.alloc = l.size
		if err := l.f.Sync(); err != nil {
			return nil, nil, err
		}
		l.durable = l.size
		return &lockstep.LogFile{Good: int(l.size)}, nil, syncDir(l.path)
	}
	data, err := fileio.ReadAll(l.f, l.path, lockstep.MaxLogFile)
	if err != nil {
		return nil, nil, err
	}
	lf, perr := lockstep.ParseLog(data)
	var le *lockstep.LogError
	if perr != nil && errors.As(perr, &le) && le.Record < 0 {
		return nil, nil, fmt.Errorf("%s is not a boardmesh log (bad header)", l.path)
	}
	l.n = len(lf.Records)
	if perr == nil {
		// The room a crashed writer left stays room.
		l.size, l.alloc = int64(lf.Good), int64(len(data))
		l.durable = l.size
		return lf, nil, nil
	}
	rep := &Repair{Torn: lf.Torn, Damaged: lf.Damaged, Records: len(lf.Records), Entries: len(lf.Entries), Later: len(lf.Later)}
	if len(lf.Damaged) == 0 {
		// Only a torn tail: what a crash while appending leaves. Cut it.
		if err := l.f.Truncate(int64(lf.Torn.Offset)); err != nil {
			return nil, nil, fmt.Errorf("cut torn tail of %s: %w", l.path, err)
		}
		if err := l.f.Sync(); err != nil {
			return nil, nil, err
		}
		l.size = int64(lf.Torn.Offset)
		l.alloc, l.durable = l.size, l.size
		return lf, rep, nil
	}
	fixed := lf.Repaired()
	aside, err := l.setAside(fixed)
	if err != nil {
		return nil, nil, err
	}
	rep.SetAside = aside
	// The repaired copy is a clean file: read it back as the writer will
	// continue it, so Records and Offsets match what is on disk.
	repaired, err := lockstep.ParseLog(fixed)
	if err != nil {
		return nil, nil, fmt.Errorf("repair %s: %w", l.path, err)
	}
	repaired.Damaged, repaired.Torn = lf.Damaged, lf.Torn
	return repaired, rep, nil
}

// setAside keeps the damaged file as PATH.corrupt-N (a hard link, so its
// bytes are never rewritten) and puts repaired in its place atomically. A
// crash in between leaves the damaged file at PATH, and the next open
// does it again.
func (l *Log) setAside(repaired []byte) (string, error) {
	var aside string
	for i := 1; ; i++ {
		aside = fmt.Sprintf("%s.corrupt-%d", l.path, i)
		err := os.Link(l.path, aside)
		if err == nil {
			break
		}
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		// No hard links on this file system: copy it instead.
		if err := copyNew(l.path, aside); err != nil {
			if errors.Is(err, fs.ErrExist) {
				continue
			}
			return "", fmt.Errorf("keep damaged log as %s: %w", aside, err)
		}
		break
	}
	tmp := l.path + ".repair"
	if err := writeSynced(tmp, repaired); err != nil {
		return "", fmt.Errorf("write repaired log: %w", err)
	}
	if err := os.Rename(tmp, l.path); err != nil {
		return "", fmt.Errorf("write repaired log: %w", err)
	}
	if err := syncDir(l.path); err != nil {
		return "", err
	}
	f, err := os.OpenFile(l.path, os.O_RDWR, 0o600)
	if err != nil {
		return "", fmt.Errorf("open repaired log: %w", err)
	}
	l.f.Close()
	l.f = f
	l.size = int64(len(repaired))
	l.alloc, l.durable = l.size, l.size
	return aside, nil
}

// replaceSynced makes b the private file at path, whole or not at all: a
// temporary file of mode 0600 fsynced, renamed over path, the directory
// fsynced, so a crash leaves the old file or the new one, never a torn
// one, and nobody else may read it at any point. It returns once b is on
// disk.
func replaceSynced(path string, b []byte) error {
	tmp := path + ".tmp"
	if err := writeSynced(tmp, b); err != nil {
		return err
	}
	// A temporary file left by a crash keeps the mode it had.
	if err := os.Chmod(tmp, 0o600); err != nil {
		return err
	}
	if err := os.Rename(tmp, path); err != nil {
		return err
	}
	return syncDir(path)
}

func writeSynced(path string, b []byte) error {
	return writeFileSynced(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, b)
}

// writeFileSynced writes b to path, opened with flag, and fsyncs it.
func writeFileSynced(path string, flag int, b []byte) error {
	f, err := os.OpenFile(path, flag, 0o600)
	if err != nil {
		return err
	}
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func copyNew(from, to string) error {
	src, err := os.Open(from)
	if err != nil {
		return err
	}
	defer src.Close()
	b, err := fileio.ReadAll(src, from, lockstep.MaxLogFile)
	if err != nil {
		return err
	}
	return writeFileSynced(to, os.O_WRONLY|os.O_CREATE|os.O_EXCL, b)
}

// syncDir makes a new or renamed file's directory entry durable.
func syncDir(path string) error {
	d, err := os.Open(filepath.Dir(path))
	if err != nil {
		return err
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, os.ErrInvalid) {
		return fmt.Errorf("sync %s: %w", filepath.Dir(path), err)
	}
	return nil
}

// ErrLogClosed is returned by a Log used after Close.
var ErrLogClosed = errors.New("log is closed")

// Append writes records in one write call, without syncing: a crash
// leaves all of them, a torn tail that the next OpenLog cuts, or nothing.
// Call Sync before publishing anything this peer signed.
func (l *Log) Append(recs ...lockstep.Record) error {
	if l.f == nil {
		return ErrLogClosed
	}
	if len(recs) == 0 {
		return nil
	}
	l.buf = l.buf[:0]
	for _, r := range recs {
		if r.Env == nil || 1+r.Env.Size() > lockstep.MaxRecord {
			return fmt.Errorf("log record of type %d: no envelope, or one over %s", r.Type, fileio.Size(lockstep.MaxRecord))
		}
		l.buf = lockstep.AppendRecord(l.buf, r.Type, r.Env)
	}
	start := l.size
	if l.size+int64(len(l.buf)) > lockstep.MaxLogFile {
		return fmt.Errorf("append to log %s: it would be larger than %s", l.path, fileio.Size(lockstep.MaxLogFile))
	}
	l.makeRoom(int64(len(l.buf)))
	if _, err := l.f.WriteAt(l.buf, l.size); err != nil {
		return fmt.Errorf("append to log: %w", err)
	}
	l.n += len(recs)
	l.size += int64(len(l.buf))
	l.alloc = max(l.alloc, l.size)
	for _, r := range recs {
		start += int64(l.noteCard(r.Type, r.Env, start))
	}
	if cap(l.buf) > 1<<20 {
		l.buf = nil // do not keep a large state envelope's buffer
	}
	return nil
}

// logRoom is how far past its records an open log's file is filled with
// zeros. Filling 1 MiB and its first fsync take about a millisecond here,
// once every few thousand envelopes.
const logRoom = 1 << 20

// zeros fills the room; nothing writes to it.
var zeros = make([]byte, 64<<10)

// makeRoom makes sure n more bytes after the records fall inside the
// file, filling it with zeros up to logRoom past them (never past
// MaxLogFile). It is best effort: where the disk will not take the room,
// the append makes the file longer as it would without one.
func (l *Log) makeRoom(n int64) {
	if l.size+n <= l.alloc || l.noRoom {
		return
	}
	end := min(l.size+n+logRoom, lockstep.MaxLogFile)
	for l.alloc < end {
		k, err := l.f.WriteAt(zeros[:min(end-l.alloc, int64(len(zeros)))], l.alloc)
		l.alloc += int64(k)
		if err != nil {
			return
		}
	}
}

// AppendSent appends this peer's own signed envelopes and syncs: when it
// returns nil they are on disk and may be published.
func (l *Log) AppendSent(envs ...*crypto.Envelope) error {
	recs := make([]lockstep.Record, len(envs))
	for i, e := range envs {
		recs[i] = lockstep.Record{Type: lockstep.RecordSent, Env: e}
	}
	if err := l.Append(recs...); err != nil {
		return err
	}
	return l.Sync()
}

// noteCard indexes a card envelope's record at off; it returns the
// record's size.
func (l *Log) noteCard(t lockstep.RecordType, env *crypto.Envelope, off int64) int {
	if env == nil {
		return 0
	}
	size := lockstep.RecordFrame + 1 + env.Size()
	if (t == lockstep.RecordCard || t == lockstep.RecordSent) && env.Kind.Card() {
		k := cardSlot{env.Kind, env.Author, env.Seq}
		if _, ok := l.cards[k]; !ok {
			l.cards[k] = span{off, size}
		}
	}
	return size
}

// Holds reports whether the log has a record of author's card envelope of
// kind for seq (lockstep.CardStore).
func (l *Log) Holds(kind crypto.Kind, author crypto.PeerID, seq uint64) bool {
	_, ok := l.cards[cardSlot{kind, author, seq}]
	return ok
}

// Card reads that envelope back from the file (lockstep.CardStore). The
// bytes are the disk's: the record's checksum and the envelope's slot are
// checked here, its hash by the caller.
func (l *Log) Card(kind crypto.Kind, author crypto.PeerID, seq uint64) (*crypto.Envelope, error) {
	sp, ok := l.cards[cardSlot{kind, author, seq}]
	if !ok {
		return nil, fmt.Errorf("log %s has no %s envelope of %s for seq %d", l.path, kind, author, seq)
	}
	if l.f == nil {
		return nil, ErrLogClosed
	}
	if sp.size > lockstep.MaxRecord+lockstep.RecordFrame {
		return nil, fmt.Errorf("log %s: a card record of %d bytes", l.path, sp.size)
	}
	b := make([]byte, sp.size)
	if _, err := l.f.ReadAt(b, sp.off); err != nil {
		return nil, fmt.Errorf("read log %s at byte %d: %w", l.path, sp.off, err)
	}
	r, _, err := lockstep.DecodeRecord(b)
	if err != nil {
		return nil, fmt.Errorf("log %s at byte %d: %w", l.path, sp.off, err)
	}
	if r.Env == nil || r.Env.Kind != kind || r.Env.Author != author || r.Env.Seq != seq {
		return nil, fmt.Errorf("log %s at byte %d: not the %s envelope of %s for seq %d", l.path, sp.off, kind, author, seq)
	}
	return r.Env, nil
}

// Sync makes every appended record durable (fsync), if any is not yet.
func (l *Log) Sync() error {
	if l.f == nil {
		return ErrLogClosed
	}
	if l.durable == l.size {
		return nil
	}
	if err := l.f.Sync(); err != nil {
		return fmt.Errorf("sync log: %w", err)
	}
	l.durable = l.size
	return nil
}

// Durable is how many bytes of the file are known to be on disk: the
// size at the last Sync. A crash keeps at least these.
func (l *Log) Durable() int64 { return l.durable }

// Len is the number of records in the log.
func (l *Log) Len() int { return l.n }

// Path is the file the log lives in.
func (l *Log) Path() string { return l.path }

// Close syncs the file, gives its room back (a closed log ends at its
// last record) and closes it.
func (l *Log) Close() error {
	if l.f == nil {
		return nil
	}
	err := l.Sync()
	if err == nil && l.alloc > l.size {
		if err = l.f.Truncate(l.size); err == nil {
			l.alloc = l.size
			err = l.f.Sync()
		}
	}
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	l.f = nil
	return err
}
