package lockstep

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"

	"github.com/boardmesh/boardmesh/crypto"
)

// The log file of a session, as p2p stores it on disk and `boardmesh
// replay` reads it:
//
//	file    = magic record*
//	magic   = "boardmesh log v1\n"                  (17 bytes)
//	record  = length u32be | type u8 | envelope | crc u32be
//
// length counts the type byte and the envelope; crc is CRC-32C
// (Castagnoli) of the type byte and the envelope. The committed entries
// (type 1) in file order are the session log that Verify checks. Type 2
// records are this peer's own signed envelopes (Ready.Persist), written
// before they are sent so a restart never signs a different one for the
// same slot; type 3 records are state envelopes kept with a desync report.
// A reader ignores types it does not know after checking their crc.

// LogMagic starts every log file.
const LogMagic = "boardmesh log v1\n"

// RecordType says what a log file record holds.
type RecordType uint8

// The record types.
const (
	RecordEntry RecordType = 1 // a committed log entry
	RecordSent  RecordType = 2 // an envelope this peer signed
	RecordState RecordType = 3 // a state envelope of a desync report
)

// maxRecord bounds a record: an envelope of the largest body.
const maxRecord = 1 + crypto.MaxBody + 1024

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// ErrTruncated is returned by ParseLog for a file that ends inside a
// record (a crash while appending). The records before it are returned.
var ErrTruncated = errors.New("lockstep: log file ends inside a record")

// AppendLogHeader appends the file magic.
func AppendLogHeader(dst []byte) []byte { return append(dst, LogMagic...) }

// AppendRecord appends one record holding env.
func AppendRecord(dst []byte, t RecordType, env *crypto.Envelope) []byte {
	start := len(dst)
	dst = binary.BigEndian.AppendUint32(dst, uint32(1+env.Size()))
	dst = append(dst, byte(t))
	dst = env.AppendMarshal(dst)
	return binary.BigEndian.AppendUint32(dst, crc32.Checksum(dst[start+4:], castagnoli))
}

// LogFile is a parsed log file.
type LogFile struct {
	Entries []*crypto.Envelope
	Sent    []*crypto.Envelope
	States  []*crypto.Envelope
	// Good is the length of the valid prefix of the file, where a writer
	// that found a torn tail truncates before appending.
	Good int
}

// LogError names the record of a log file that cannot be read.
type LogError struct {
	Record int // 0-based record number
	Entry  int // 0-based number of the committed entry it would be, -1 if unknown
	Offset int // byte offset of the record
	Err    error
}

func (e *LogError) Error() string {
	if e.Entry >= 0 {
		return fmt.Sprintf("record %d (entry %d) at byte %d: %v", e.Record, e.Entry, e.Offset, e.Err)
	}
	return fmt.Sprintf("record %d at byte %d: %v", e.Record, e.Offset, e.Err)
}

func (e *LogError) Unwrap() error { return e.Err }

// ParseLog reads a whole log file. On error it returns what it read before
// the bad record together with a *LogError naming it; a torn last record
// wraps ErrTruncated.
func ParseLog(b []byte) (*LogFile, error) {
	lf := &LogFile{}
	if len(b) < len(LogMagic) || string(b[:len(LogMagic)]) != LogMagic {
		return lf, &LogError{Record: -1, Entry: -1, Err: errors.New("not a boardmesh log file (bad magic)")}
	}
	off := len(LogMagic)
	lf.Good = off
	for rec := 0; off < len(b); rec++ {
		fail := func(err error) (*LogFile, error) {
			return lf, &LogError{Record: rec, Entry: len(lf.Entries), Offset: off, Err: err}
		}
		if len(b)-off < 4 {
			return fail(ErrTruncated)
		}
		n := int(binary.BigEndian.Uint32(b[off:]))
		if n < 1 || n > maxRecord {
			return fail(fmt.Errorf("record length %d out of range", n))
		}
		if len(b)-off-4 < n+4 {
			return fail(ErrTruncated)
		}
		payload := b[off+4 : off+4+n]
		if crc32.Checksum(payload, castagnoli) != binary.BigEndian.Uint32(b[off+4+n:]) {
			return fail(errors.New("checksum mismatch (corrupted record)"))
		}
		t := RecordType(payload[0])
		switch t {
		case RecordEntry, RecordSent, RecordState:
			env, err := crypto.Unmarshal(payload[1:])
			if err != nil {
				return fail(err)
			}
			switch t {
			case RecordEntry:
				lf.Entries = append(lf.Entries, env)
			case RecordSent:
				lf.Sent = append(lf.Sent, env)
			default:
				lf.States = append(lf.States, env)
			}
		}
		off += 4 + n + 4
		lf.Good = off
	}
	return lf, nil
}

// EncodeLog writes a whole log file holding entries (type 1 records).
func EncodeLog(entries []*crypto.Envelope) []byte {
	b := AppendLogHeader(nil)
	for _, env := range entries {
		b = AppendRecord(b, RecordEntry, env)
	}
	return b
}
