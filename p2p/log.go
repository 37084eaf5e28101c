package p2p

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"

	"github.com/boardmesh/boardmesh/lockstep"
)

// The on-disk log uses lockstep's log file format (lockstep/logfile.go), so
// `boardmesh replay` and lockstep.ParseLog read it directly: a magic line,
// then records framed as length (u32 big endian), payload, CRC-32C of the
// payload (u32 big endian). A payload is a record type byte and an
// envelope; this file treats it as opaque bytes. The checksum lets a
// restart tell a whole record from one a crash cut short.
const (
	logMagic     = lockstep.LogMagic
	recordHeader = 4
	recordFrame  = 8
	// MaxRecord bounds one record; a larger length field is a torn or
	// corrupt header, not a real record (envelopes are under 1 MiB).
	MaxRecord = 4 << 20
)

var crcTable = crc32.MakeTable(crc32.Castagnoli)

// Log is an append-only file of checksummed records. Append writes through
// to the file at once (so a record is on disk, in the page cache, before
// the caller acts on it); Sync makes it durable, which the runner does at
// every turn's end.
type Log struct {
	f     *os.File
	path  string
	n     int
	size  int64
	dirty bool
}

// Repair describes a torn tail that OpenLog cut off.
type Repair struct {
	// Offset is where the last whole record ended; the file now ends there.
	Offset int64
	// Cut is how many bytes were removed.
	Cut int64
	// Records is how many whole records were kept.
	Records int
	// Reason says what was wrong with the tail.
	Reason string
}

func (r *Repair) String() string {
	return fmt.Sprintf("log had a torn tail (%s): cut %d bytes at offset %d, kept %d whole records", r.Reason, r.Cut, r.Offset, r.Records)
}

// OpenLog opens or creates the log at path and returns every whole record
// in order. A torn tail (a record cut short by a crash, or one whose
// checksum does not match) is cut back to the last whole record, and the
// returned Repair says so; it is nil for a clean log.
func OpenLog(path string) (*Log, [][]byte, *Repair, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, nil, nil, fmt.Errorf("open log: %w", err)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("open log: %w", err)
	}
	l := &Log{f: f, path: path}
	recs, rep, err := l.load()
	if err != nil {
		f.Close()
		return nil, nil, nil, err
	}
	return l, recs, rep, nil
}

func (l *Log) load() ([][]byte, *Repair, error) {
	st, err := l.f.Stat()
	if err != nil {
		return nil, nil, fmt.Errorf("open log: %w", err)
	}
	if st.Size() == 0 {
		if _, err := l.f.Write([]byte(logMagic)); err != nil {
			return nil, nil, fmt.Errorf("write log header: %w", err)
		}
		l.size = int64(len(logMagic))
		return nil, nil, l.f.Sync()
	}
	r := bufio.NewReader(l.f)
	magic := make([]byte, len(logMagic))
	if _, err := io.ReadFull(r, magic); err != nil || string(magic) != logMagic {
		return nil, nil, fmt.Errorf("%s is not a boardmesh log (bad header)", l.path)
	}
	off := int64(len(logMagic))
	var recs [][]byte
	var reason string
	hdr := make([]byte, recordHeader)
	var tail [4]byte
	for {
		n, err := io.ReadFull(r, hdr)
		if err == io.EOF {
			break
		}
		if err != nil {
			reason = fmt.Sprintf("record header cut short after %d of %d bytes", n, recordHeader)
			break
		}
		size := binary.BigEndian.Uint32(hdr)
		if size < 1 || size > MaxRecord {
			reason = fmt.Sprintf("record length %d is impossible", size)
			break
		}
		payload := make([]byte, size)
		if n, err := io.ReadFull(r, payload); err != nil {
			reason = fmt.Sprintf("record cut short after %d of %d bytes", n, size)
			break
		}
		if n, err := io.ReadFull(r, tail[:]); err != nil {
			reason = fmt.Sprintf("record checksum cut short after %d of 4 bytes", n)
			break
		}
		if crc32.Checksum(payload, crcTable) != binary.BigEndian.Uint32(tail[:]) {
			reason = "checksum mismatch"
			break
		}
		recs = append(recs, payload)
		off += recordFrame + int64(size)
	}
	l.n = len(recs)
	l.size = off
	if reason == "" {
		if _, err := l.f.Seek(off, io.SeekStart); err != nil {
			return nil, nil, err
		}
		return recs, nil, nil
	}
	rep := &Repair{Offset: off, Cut: st.Size() - off, Records: len(recs), Reason: reason}
	if err := l.f.Truncate(off); err != nil {
		return nil, nil, fmt.Errorf("cut torn tail of %s: %w", l.path, err)
	}
	if _, err := l.f.Seek(off, io.SeekStart); err != nil {
		return nil, nil, err
	}
	if err := l.f.Sync(); err != nil {
		return nil, nil, err
	}
	return recs, rep, nil
}

// ErrLogClosed is returned by a Log used after Close.
var ErrLogClosed = errors.New("log is closed")

// Append writes one record. It is one write call, so a crash leaves either
// the whole record, a torn tail that the next OpenLog cuts, or nothing.
func (l *Log) Append(rec []byte) error {
	if l.f == nil {
		return ErrLogClosed
	}
	if len(rec) < 1 || len(rec) > MaxRecord {
		return fmt.Errorf("log record of %d bytes: want 1 to %d", len(rec), MaxRecord)
	}
	buf := make([]byte, 0, recordFrame+len(rec))
	buf = binary.BigEndian.AppendUint32(buf, uint32(len(rec)))
	buf = append(buf, rec...)
	buf = binary.BigEndian.AppendUint32(buf, crc32.Checksum(rec, crcTable))
	if _, err := l.f.Write(buf); err != nil {
		return fmt.Errorf("append to log: %w", err)
	}
	l.n++
	l.size += int64(len(buf))
	l.dirty = true
	return nil
}

// Sync makes every appended record durable.
func (l *Log) Sync() error {
	if l.f == nil {
		return ErrLogClosed
	}
	if !l.dirty {
		return nil
	}
	l.dirty = false
	return l.f.Sync()
}

// Len is the number of records in the log.
func (l *Log) Len() int { return l.n }

// Path is the file the log lives in.
func (l *Log) Path() string { return l.path }

// Close syncs and closes the file.
func (l *Log) Close() error {
	if l.f == nil {
		return nil
	}
	err := l.Sync()
	if cerr := l.f.Close(); err == nil {
		err = cerr
	}
	l.f = nil
	return err
}
