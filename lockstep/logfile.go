package lockstep

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"strings"

	"github.com/boardmesh/boardmesh/crypto"
)

// The log file of a session, as p2p stores it on disk and `boardmesh
// replay` reads it:
//
//	file    = magic record* room
//	magic   = "boardmesh log v1\n"                  (17 bytes)
//	record  = length u32be | type u8 | envelope | crc u32be
//	room    = zero bytes (none in a closed file)
//
// length counts the type byte and the envelope; crc is CRC-32C
// (Castagnoli) of the type byte and the envelope. The committed entries
// (type 1) in file order are the session log that Verify checks. Type 2
// records are this peer's own signed envelopes (Ready.Persist), written
// before they are sent so a restart never signs a different one for the
// same slot; type 3 records are state envelopes kept with a desync report;
// type 4 records are committed entries that a repair found after a damaged
// record (see ParseLog): kept, but not replayed, since the entries of the
// damaged part are missing before them; type 5 records are card envelopes
// of the other seats of a secret table that this peer's card layer took
// (Ready.Cards), in the order it took them, so a restarted seat steps
// them again between the same entries. A reader ignores types it does not
// know after checking their crc.
//
// The room is space a writer keeps filled with zeros after its last
// record while the log is open, so that an fsync after an append flushes
// the data alone: one that makes the file longer must also commit the new
// length and blocks (see p2p's Log). A record's length is never zero, so
// the room cannot be read as records; a closed file has none, and a
// crashed writer's file keeps it.
//
// This file is the one implementation of the format: p2p's Log only does
// the file I/O around it.

// LogMagic starts every log file.
const LogMagic = "boardmesh log v1\n"

// RecordType says what a log file record holds.
type RecordType uint8

// The record types.
const (
	RecordEntry RecordType = 1 // a committed log entry
	RecordSent  RecordType = 2 // an envelope this peer signed
	RecordState RecordType = 3 // a state envelope of a desync report
	RecordLater RecordType = 4 // an entry found after a damaged record
	RecordCard  RecordType = 5 // another seat's card envelope, as taken
)

const (
	// RecordFrame is the bytes a record adds around its payload: the
	// length before it and the checksum after it.
	RecordFrame = 8
	// MaxRecord bounds a record's payload (the length field): a type byte
	// and an envelope with the largest body. A larger length is damage.
	MaxRecord = 1 + crypto.MaxBody + 1024
	// MaxLogFile bounds a whole log file (256 MiB): a long game is a few
	// megabytes, and a reader never holds more than this.
	MaxLogFile = 256 << 20
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

var (
	// ErrTruncated is returned by ParseLog for a file that ends inside a
	// record (a crash while appending): a torn tail.
	ErrTruncated = errors.New("lockstep: log file ends inside a record")
	// ErrCorrupt is returned by ParseLog for a damaged record that is not
	// a torn tail: a checksum or length that cannot be right, with the
	// file going on after it (or a whole record that does not check).
	ErrCorrupt = errors.New("lockstep: corrupted log record")
)

// Record is one record of a log file.
type Record struct {
	Type RecordType
	Env  *crypto.Envelope // nil for a type this reader does not know
}

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

// DecodeRecord decodes the record at the start of b and returns it with
// its size in bytes. If b ends inside the record, the error is
// ErrTruncated (give it more bytes, or the file has a torn tail); a record
// that cannot be right wraps ErrCorrupt. It is the incremental reader the
// whole-file ParseLog is built on.
func DecodeRecord(b []byte) (Record, int, error) {
	if len(b) < 4 {
		return Record{}, 0, ErrTruncated
	}
	n := uint64(binary.BigEndian.Uint32(b))
	if n < 1 || n > MaxRecord {
		return Record{}, 0, fmt.Errorf("%w: record length %d out of range", ErrCorrupt, n)
	}
	size := int(n) + RecordFrame
	if len(b) < size {
		return Record{}, 0, ErrTruncated
	}
	payload := b[4 : 4+n]
	if crc32.Checksum(payload, castagnoli) != binary.BigEndian.Uint32(b[4+n:]) {
		return Record{}, 0, fmt.Errorf("%w: checksum mismatch", ErrCorrupt)
	}
	rec := Record{Type: RecordType(payload[0])}
	switch rec.Type {
	case RecordEntry, RecordSent, RecordState, RecordLater, RecordCard:
		env, err := crypto.Unmarshal(payload[1:])
		if err != nil {
			return Record{}, 0, fmt.Errorf("%w: %v", ErrCorrupt, err)
		}
		rec.Env = env
	}
	return rec, size, nil
}

// LogFile is a parsed log file.
type LogFile struct {
	// Entries are the committed entries before the first damaged record,
	// in order: the log a resumed node replays.
	Entries []*crypto.Envelope
	// Sent are this peer's own envelopes, from the whole file.
	Sent []*crypto.Envelope
	// States are the desync state envelopes, from the whole file.
	States []*crypto.Envelope
	// Later are the committed entries found after a damaged record (type
	// 1 there, or type 4): good, but not replayable until the entries of
	// the damaged part are fetched again.
	Later []*crypto.Envelope
	// Cards are the other seats' card envelopes before the first damaged
	// record (type 5), each with the number of entries before it: what a
	// restarted seat's card layer steps again (Config.CardLog). Those
	// after damage are left out: the peers serve them again.
	Cards []CardRecord
	// Records are every good record in file order, with their offsets.
	Records []Record
	Offsets []int
	// Damaged names each damaged part of the file (ErrCorrupt); the good
	// records after one are still read.
	Damaged []*LogError
	// Torn is the torn tail (ErrTruncated), if the file has one.
	Torn *LogError
	// Good is the length of the file before its first damaged record or
	// its torn tail.
	Good int
	// Room is the zero bytes after the last record (or after the torn
	// tail) that the writer kept for appends: not damage.
	Room int
}

// LogError names the record of a log file that cannot be read.
type LogError struct {
	// Record is the 0-based record number, -1 for the file header; Entry
	// the 0-based number (the seq) of the committed entry it would be, -1
	// if unknown. Both are 0-based like the seq that replay --at takes.
	Record int
	Entry  int
	Offset int // byte offset of the record
	Length int // bytes that could not be read from Offset on
	Err    error
}

func (e *LogError) Error() string {
	// The message is for a person: the package prefix of the sentinel
	// says nothing to them (errors.Is still finds it).
	why := strings.TrimPrefix(e.Err.Error(), "lockstep: ")
	if e.Record < 0 {
		return why
	}
	if e.Entry >= 0 {
		return fmt.Sprintf("record %d (entry %d) at byte %d: %s", e.Record, e.Entry, e.Offset, why)
	}
	return fmt.Sprintf("record %d at byte %d: %s", e.Record, e.Offset, why)
}

func (e *LogError) Unwrap() error { return e.Err }

// resyncBudget bounds the bytes ParseLog checksums while it looks for the
// next good record after damage, so a hostile file costs bounded time.
const resyncBudget = 1 << 30

// ParseLog reads a whole log file. Zero bytes after the last record are
// the writer's room (Room), not an error. A torn tail (the last record cut
// short, or written only in part into the room, as a crash while
// appending leaves) is reported in Torn and the error wraps ErrTruncated.
// Any other damage (a checksum, length or envelope that cannot be right)
// is reported in Damaged, the error wraps ErrCorrupt, and the reader looks
// for the next good record and goes on: the good records after the damage
// are kept (Sent, States, Later), never silently dropped. A file that is
// not a log at all (bad magic) is an error with Record -1.
func ParseLog(b []byte) (*LogFile, error) {
	lf := &LogFile{}
	if len(b) < len(LogMagic) || string(b[:len(LogMagic)]) != LogMagic {
		return lf, &LogError{Record: -1, Entry: -1, Err: errors.New("not a boardmesh log file (bad magic)")}
	}
	off := len(LogMagic)
	lf.Good = off
	budget := resyncBudget
	damaged := false
	for rec := 0; off < len(b); {
		r, n, err := DecodeRecord(b[off:])
		if err == nil {
			lf.add(r, off, damaged)
			off += n
			rec++
			if !damaged {
				lf.Good = off
			}
			continue
		}
		if allZero(b[off:]) {
			lf.Room = len(b) - off
			break
		}
		entry := len(lf.Entries)
		if damaged {
			entry = -1
		}
		next := lf.resync(b, off, &budget)
		if next < 0 && errors.Is(err, ErrTruncated) {
			lf.Torn = &LogError{Record: rec, Entry: entry, Offset: off, Length: len(b) - off, Err: ErrTruncated}
			break
		}
		if next < 0 && inRoom(b, off) {
			written := len(b) - zeroTail(b)
			lf.Torn = &LogError{Record: rec, Entry: entry, Offset: off, Length: written - off, Err: ErrTruncated}
			lf.Room = len(b) - written
			break
		}
		if next < 0 {
			next = len(b)
		}
		if errors.Is(err, ErrTruncated) {
			err = fmt.Errorf("%w: record length runs past a good record", ErrCorrupt)
		}
		lf.Damaged = append(lf.Damaged, &LogError{Record: rec, Entry: entry, Offset: off, Length: next - off, Err: err})
		damaged = true
		rec++
		off = next
	}
	switch {
	case len(lf.Damaged) > 0:
		return lf, lf.Damaged[0]
	case lf.Torn != nil:
		return lf, lf.Torn
	}
	return lf, nil
}

func (lf *LogFile) add(r Record, off int, damaged bool) {
	lf.Records = append(lf.Records, r)
	lf.Offsets = append(lf.Offsets, off)
	switch r.Type {
	case RecordEntry:
		if damaged {
			lf.Later = append(lf.Later, r.Env)
		} else {
			lf.Entries = append(lf.Entries, r.Env)
		}
	case RecordLater:
		lf.Later = append(lf.Later, r.Env)
	case RecordSent:
		lf.Sent = append(lf.Sent, r.Env)
	case RecordState:
		lf.States = append(lf.States, r.Env)
	case RecordCard:
		if !damaged {
			lf.Cards = append(lf.Cards, CardRecord{After: len(lf.Entries), Env: r.Env})
		}
	}
}

// CardRecord is a card envelope of another seat as the card layer took
// it: After is the number of committed entries the node held then.
type CardRecord struct {
	After int
	Env   *crypto.Envelope
}

// resync returns the offset of the next good record after the damaged one
// at off, or -1 if there is none. It tries the damaged record's own length
// first (a flipped bit in a payload leaves it right), then every byte.
func (lf *LogFile) resync(b []byte, off int, budget *int) int {
	try := func(p int) bool {
		if p >= len(b) || len(b)-p < RecordFrame+1 {
			return false
		}
		n := int(binary.BigEndian.Uint32(b[p:]))
		if n < 1 || n > MaxRecord || n+RecordFrame > len(b)-p {
			return false
		}
		if *budget < n {
			return false
		}
		*budget -= n
		_, _, err := DecodeRecord(b[p:])
		return err == nil
	}
	if len(b)-off >= 4 {
		n := int(binary.BigEndian.Uint32(b[off:]))
		if n >= 1 && n <= MaxRecord && off+RecordFrame+n < len(b) && try(off+RecordFrame+n) {
			return off + RecordFrame + n
		}
	}
	for p := off + 1; p < len(b) && *budget > 0; p++ {
		if try(p) {
			return p
		}
	}
	return -1
}

// inRoom reports whether the bad last record at off is an append cut
// short in the writer's room: its length never reached the disk (zero),
// or nothing but zeros follows the length it claims. A whole record that
// ends the file and does not check is damage, not a torn write (a crash
// cuts a write short, it does not change it).
func inRoom(b []byte, off int) bool {
	if len(b)-off < 4 {
		return false
	}
	n := int(binary.BigEndian.Uint32(b[off:]))
	if n == 0 {
		return true
	}
	end := off + RecordFrame + n
	return end < len(b) && allZero(b[end:])
}

// zeroTail is how many zero bytes end b.
func zeroTail(b []byte) int {
	n := 0
	for n < len(b) && b[len(b)-1-n] == 0 {
		n++
	}
	return n
}

func allZero(b []byte) bool {
	for _, c := range b {
		if c != 0 {
			return false
		}
	}
	return true
}

// SentBy returns what a node of id resumes with as Config.Sent: the own
// envelopes of the whole file, and its own committed entries found after
// damage whose slot has no Sent record (the Sent record itself may be the
// damaged one). So a node that resumes from the good prefix still never
// signs a second envelope for a slot it signed before the damage.
func (lf *LogFile) SentBy(id *crypto.Identity) []*crypto.Envelope {
	var sent []*crypto.Envelope
	have := map[slot]bool{}
	for _, env := range lf.Sent {
		if env.Author == id.ID() {
			sent = append(sent, env)
			have[slotOf(env)] = true
		}
	}
	for _, list := range [][]*crypto.Envelope{lf.Entries, lf.Later} {
		for _, env := range list {
			if env.Author == id.ID() && !have[slotOf(env)] {
				sent = append(sent, env)
				have[slotOf(env)] = true
			}
		}
	}
	return sent
}

// Repaired returns the log file a writer continues after damage: the
// records of the good prefix as they were, then every good record after
// it with committed entries turned into RecordLater (and the card
// envelopes among them left out), so the entries
// fetched again for the damaged part follow the prefix in order. The
// torn tail and the damaged bytes are left out (the caller keeps the
// original file aside).
func (lf *LogFile) Repaired() []byte {
	out := AppendLogHeader(nil)
	for i, r := range lf.Records {
		if r.Env == nil {
			continue
		}
		t := r.Type
		if t == RecordEntry && lf.Offsets[i] >= lf.Good {
			t = RecordLater
		}
		if t == RecordCard && lf.Offsets[i] >= lf.Good {
			// Taken after entries that are lost: stepped again at the
			// end of the prefix they would be far ahead of the deal. The
			// peers serve them again when they are due.
			continue
		}
		out = AppendRecord(out, t, r.Env)
	}
	return out
}

// EncodeLog writes a whole log file holding entries (type 1 records).
func EncodeLog(entries []*crypto.Envelope) []byte {
	b := AppendLogHeader(nil)
	for _, env := range entries {
		b = AppendRecord(b, RecordEntry, env)
	}
	return b
}
