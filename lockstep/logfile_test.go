package lockstep

import (
	"bytes"
	"errors"
	"fmt"
	"testing"

	"github.com/boardmesh/boardmesh/crypto"
	"github.com/boardmesh/boardmesh/engine"
	"github.com/boardmesh/boardmesh/engine/dragonslair"
	"github.com/boardmesh/boardmesh/engine/games"
)

// testLog builds a log of n records: entries by two authors, with own
// (first author) Sent records before each of its entries, as a runner
// writes them. It returns the file and the offset of every record.
func testLog(t *testing.T, n int) ([]byte, []int, []Record) {
	t.Helper()
	me, _ := crypto.GenerateIdentity(seededReader("log/me"))
	other, _ := crypto.GenerateIdentity(seededReader("log/other"))
	b := AppendLogHeader(nil)
	var offs []int
	var recs []Record
	for i := 0; len(recs) < n; i++ {
		id := other
		if i%2 == 0 {
			id = me
		}
		env := &crypto.Envelope{Seq: uint64(i), Kind: crypto.KindAction, Body: bytes.Repeat([]byte{byte(i)}, 10+i)}
		crypto.Sign(id, env)
		if id == me {
			offs = append(offs, len(b))
			recs = append(recs, Record{RecordSent, env})
			b = AppendRecord(b, RecordSent, env)
		}
		offs = append(offs, len(b))
		recs = append(recs, Record{RecordEntry, env})
		b = AppendRecord(b, RecordEntry, env)
	}
	return b, offs, recs
}

func TestParseLogClean(t *testing.T) {
	b, offs, recs := testLog(t, 12)
	lf, err := ParseLog(b)
	if err != nil || lf.Torn != nil || len(lf.Damaged) != 0 || lf.Good != len(b) {
		t.Fatalf("clean log: %v, torn %v, damaged %v, good %d of %d", err, lf.Torn, lf.Damaged, lf.Good, len(b))
	}
	if len(lf.Records) != len(recs) || len(lf.Entries)+len(lf.Sent) != len(recs) {
		t.Fatalf("read %d records (%d entries, %d sent), want %d", len(lf.Records), len(lf.Entries), len(lf.Sent), len(recs))
	}
	for i := range recs {
		if lf.Offsets[i] != offs[i] || !crypto.Equal(lf.Records[i].Env, recs[i].Env) || lf.Records[i].Type != recs[i].Type {
			t.Fatalf("record %d differs", i)
		}
	}
}

// TestParseLogTornTail cuts the last record at every byte: a torn tail,
// and every whole record is kept. Where only zero bytes of the record
// remain (its length's high bytes), they are room, which a writer appends
// over as over a torn tail.
func TestParseLogTornTail(t *testing.T) {
	b, offs, recs := testLog(t, 6)
	last := offs[len(offs)-1]
	for cut := last + 1; cut < len(b); cut++ {
		lf, err := ParseLog(b[:cut])
		if lf.Good != last || len(lf.Records) != len(recs)-1 {
			t.Fatalf("cut at %d: good %d, %d records", cut, lf.Good, len(lf.Records))
		}
		if allZero(b[last:cut]) {
			if err != nil || lf.Torn != nil || lf.Room != cut-last {
				t.Fatalf("cut at %d: err %v, torn %+v, room %d: want %d bytes of room", cut, err, lf.Torn, lf.Room, cut-last)
			}
			continue
		}
		if !errors.Is(err, ErrTruncated) || errors.Is(err, ErrCorrupt) {
			t.Fatalf("cut at %d: err %v, want a torn tail", cut, err)
		}
		if lf.Torn == nil || lf.Torn.Offset != last || lf.Torn.Record != len(recs)-1 || lf.Torn.Length != cut-last {
			t.Fatalf("cut at %d: torn %+v", cut, lf.Torn)
		}
	}
}

// TestParseLogRoom: zero bytes after the last record are the writer's
// room, not damage; a record written only in part into the room (its
// length or its end never reached the disk, in any of its pages) is a
// torn tail of just the bytes written, with the room after it.
func TestParseLogRoom(t *testing.T) {
	b, offs, recs := testLog(t, 6)
	const room = 3000
	lf, err := ParseLog(append(append([]byte(nil), b...), make([]byte, room)...))
	if err != nil || lf.Torn != nil || lf.Room != room || lf.Good != len(b) || len(lf.Records) != len(recs) {
		t.Fatalf("room: err %v, torn %+v, room %d, good %d of %d, %d records", err, lf.Torn, lf.Room, lf.Good, len(b), len(lf.Records))
	}
	last := offs[len(offs)-1]
	whole := b[last:]
	for _, tc := range []struct {
		name string
		tear func(rec []byte) // zeroes what never reached the disk
	}{
		{"end lost", func(rec []byte) { clear(rec[len(rec)/2:]) }},
		{"crc lost", func(rec []byte) { clear(rec[len(rec)-4:]) }},
		{"length lost", func(rec []byte) { clear(rec[:4]) }},
		{"middle lost", func(rec []byte) { clear(rec[20 : len(rec)-20]) }},
		{"start lost", func(rec []byte) { clear(rec[:len(rec)/2]) }},
	} {
		rec := append([]byte(nil), whole...)
		tc.tear(rec)
		file := append(append(append([]byte(nil), b[:last]...), rec...), make([]byte, room)...)
		lf, err := ParseLog(file)
		written := len(file) - zeroTail(file)
		if !errors.Is(err, ErrTruncated) || errors.Is(err, ErrCorrupt) || lf.Torn == nil || lf.Torn.Offset != last ||
			lf.Torn.Length != written-last || lf.Room != len(file)-written || lf.Good != last || len(lf.Records) != len(recs)-1 {
			t.Fatalf("%s: err %v, torn %+v, room %d, good %d, %d records", tc.name, err, lf.Torn, lf.Room, lf.Good, len(lf.Records))
		}
	}
	// A whole last record that does not check, with room after it, is
	// cut as torn too: in the room nothing tells a write the disk changed
	// later from one it never finished (both lose only that record).
	bad := append(append([]byte(nil), b...), make([]byte, room)...)
	bad[last+30] ^= 4
	if lf, err := ParseLog(bad); !errors.Is(err, ErrTruncated) || lf.Torn == nil || lf.Torn.Offset != last || len(lf.Damaged) != 0 {
		t.Fatalf("bad last record in the room: err %v, torn %+v, damaged %v", err, lf.Torn, lf.Damaged)
	}
	// Room in the middle of the log, good records after it, is damage.
	mid := append(append(append([]byte(nil), b[:last]...), make([]byte, 100)...), whole...)
	if lf, err := ParseLog(mid); !errors.Is(err, ErrCorrupt) || len(lf.Records) != len(recs) || lf.Damaged[0].Offset != last {
		t.Fatalf("zeros mid-log: err %v, %d records, damaged %v", err, len(lf.Records), lf.Damaged)
	}
}

// TestParseLogFlippedBitMidLog: a flipped bit in the middle of the file is
// corruption, not a torn tail; it is named by record and byte offset, and
// every good record after it is still read.
func TestParseLogFlippedBitMidLog(t *testing.T) {
	b, offs, recs := testLog(t, 12)
	for _, where := range []struct {
		name string
		at   func(off int) int
	}{
		{"payload", func(off int) int { return off + 20 }},
		{"checksum", func(off int) int { return offs[6+1] - 1 }},
		{"length", func(off int) int { return off + 2 }}, // the record's length now runs past the next ones
	} {
		t.Run(where.name, func(t *testing.T) {
			bad := append([]byte(nil), b...)
			bad[where.at(offs[6])] ^= 0x10
			lf, err := ParseLog(bad)
			if !errors.Is(err, ErrCorrupt) || lf.Torn != nil {
				t.Fatalf("err %v, torn %v: want corruption", err, lf.Torn)
			}
			var le *LogError
			if !errors.As(err, &le) || le.Record != 6 || le.Offset != offs[6] {
				t.Fatalf("error %v names the wrong place, want record 6 at byte %d", err, offs[6])
			}
			if want := fmt.Sprintf("record 6 (entry 4) at byte %d", offs[6]); !bytes.Contains([]byte(err.Error()), []byte(want)) {
				t.Fatalf("message %q does not say %q", err, want)
			}
			if len(lf.Records) != len(recs)-1 || lf.Good != offs[6] {
				t.Fatalf("kept %d records (want %d), good prefix %d (want %d)", len(lf.Records), len(recs)-1, lf.Good, offs[6])
			}
			// The entries before the damage are the replayable log; the
			// ones after it are kept apart, and every Sent record stays.
			nEntries, nLater, nSent := 0, 0, 0
			for i, r := range recs {
				switch {
				case i == 6:
				case r.Type == RecordSent:
					nSent++
				case i < 6:
					nEntries++
				default:
					nLater++
				}
			}
			if len(lf.Entries) != nEntries || len(lf.Later) != nLater || len(lf.Sent) != nSent {
				t.Fatalf("entries %d later %d sent %d, want %d %d %d", len(lf.Entries), len(lf.Later), len(lf.Sent), nEntries, nLater, nSent)
			}
			// The repaired copy is clean, keeps every good record, and
			// its entries after the damage are RecordLater.
			fixed, err := ParseLog(lf.Repaired())
			if err != nil || len(fixed.Records) != len(lf.Records) || len(fixed.Entries) != nEntries || len(fixed.Later) != nLater || len(fixed.Sent) != nSent {
				t.Fatalf("repaired copy: %v, %d records, %d/%d/%d", err, len(fixed.Records), len(fixed.Entries), len(fixed.Later), len(fixed.Sent))
			}
		})
	}
}

// TestParseLogDamagedLastRecord: a whole last record whose checksum fails
// is not a torn write (a crash cuts a record short, it does not change
// it): it is corruption, so the caller keeps the file aside.
func TestParseLogDamagedLastRecord(t *testing.T) {
	b, offs, recs := testLog(t, 6)
	b[len(b)-10] ^= 1
	lf, err := ParseLog(b)
	if !errors.Is(err, ErrCorrupt) || lf.Torn != nil || len(lf.Records) != len(recs)-1 || lf.Damaged[0].Offset != offs[len(offs)-1] {
		t.Fatalf("err %v, torn %v, %d records, damaged %v", err, lf.Torn, len(lf.Records), lf.Damaged)
	}
}

// TestSentByKeepsOwnEnvelopesAfterDamage: when the damaged record is one
// of this peer's Sent records, its committed copy found after the damage
// still goes into Config.Sent, once.
func TestSentByKeepsOwnEnvelopesAfterDamage(t *testing.T) {
	me, _ := crypto.GenerateIdentity(seededReader("log/me"))
	b, offs, recs := testLog(t, 12)
	// recs[6] is an own Sent record (recs[7] its entry): damage it and an
	// earlier entry, so the entry copy is after the damage.
	if recs[6].Type != RecordSent || recs[7].Type != RecordEntry || !crypto.Equal(recs[6].Env, recs[7].Env) {
		t.Fatal("test log layout changed")
	}
	b[offs[2]+20] ^= 1 // an entry, before
	b[offs[6]+20] ^= 1 // the Sent record
	lf, err := ParseLog(b)
	if !errors.Is(err, ErrCorrupt) || len(lf.Damaged) != 2 {
		t.Fatalf("err %v, damaged %v", err, lf.Damaged)
	}
	sent := lf.SentBy(me)
	var own int
	for _, r := range recs {
		if r.Type == RecordSent {
			own++
		}
	}
	if len(sent) != own {
		t.Fatalf("SentBy has %d envelopes, want every one of the %d own", len(sent), own)
	}
	for _, env := range sent {
		if env.Author != me.ID() {
			t.Fatal("SentBy holds another's envelope")
		}
	}
	found := false
	for _, env := range sent {
		found = found || crypto.Equal(env, recs[6].Env)
	}
	if !found {
		t.Fatal("the own envelope whose Sent record is damaged is missing from SentBy")
	}
}

// contrarian is a bot that, at the state where pending was signed,
// chooses any other legal action: what a player who changes their mind
// after a restart would do. The node must not let it sign.
type contrarian struct {
	inner   engine.Bot
	pending *crypto.Envelope
	asked   bool
}

func (b *contrarian) Choose(s engine.State, legal []engine.Action, r *engine.Rand) engine.Action {
	if engine.Hash(s) == b.pending.StateHash {
		b.asked = true
		for _, a := range legal {
			if string(engine.AppendAction(nil, a)) != string(b.pending.Body) {
				return a
			}
		}
	}
	return b.inner.Choose(s, legal, r)
}

// TestResumeAfterFlippedBitMidLog plays Dragon's Lair over the simulated
// network. A peer signs an action that reaches no one (it is cut off),
// crashes, and a bit flips in the middle of its disk log, before that
// action's record. It resumes from what ParseLog keeps (the good prefix,
// and SentBy from the whole file) with a player who would now choose
// differently. It catches up from the others and re-sends the action it
// signed before the crash instead of signing another: the committed log
// holds that very envelope, no peer sees an equivocation, and every peer
// finishes with the same log.
func TestResumeAfterFlippedBitMidLog(t *testing.T) {
	g := dragonslair.Game
	for seed := 0; seed < 4; seed++ {
		t.Run(fmt.Sprint(seed), func(t *testing.T) {
			n := newSimNet(t, fmt.Sprintf("flip-%d", seed), 3, faults{drop: 20, maxDelay: 30}, games.Lookup, Config{})
			n.setBots(g)
			n.lobby(g, nil)
			n.run(40+10*seed, func() bool { return false })
			victim := 1 + seed%2
			p := n.peers[victim]
			// Wait for a turn of the victim with a choice, cut it off,
			// and let it sign its action.
			var pending *crypto.Envelope
			own := p.bot
			for try := 0; try < 50 && pending == nil; try++ {
				p.bot = nil // hold the move until the victim is cut off
				if !n.run(20000, func() bool { return p.node.CanAct() }) {
					t.Fatalf("the victim never got a move: %+v, log %d", p.node.Status().Phase, len(p.node.Log()))
				}
				p.bot = own
				st := p.node.State()
				if len(st.Legal(nil)) < 2 {
					n.step()
					continue
				}
				n.isolate(victim)
				lf, _ := ParseLog(p.disk)
				before := len(lf.Sent)
				n.step()
				lf, err := ParseLog(p.disk)
				if err != nil {
					t.Fatal(err)
				}
				for _, env := range lf.Sent[before:] {
					if env.Kind == crypto.KindAction && pending == nil {
						pending = env
					}
				}
				if pending == nil {
					n.heal()
				}
			}
			if pending == nil {
				t.Fatal("the victim signed no action while cut off")
			}
			n.crash(victim)
			lf, _ := ParseLog(p.disk)
			k := len(lf.Records) / 2
			p.disk[lf.Offsets[k]+30] ^= 0x04
			lf, err := ParseLog(p.disk)
			var le *LogError
			if !errors.As(err, &le) || !errors.Is(err, ErrCorrupt) || le.Record != k || len(lf.Later) == 0 {
				t.Fatalf("flipped bit: err %v (want record %d corrupt), %d later entries", err, k, len(lf.Later))
			}
			c := p.cfg
			c.Log, c.Sent = lf.Entries, lf.SentBy(p.id)
			node, err := New(c)
			if err != nil {
				t.Fatalf("resume: %v", err)
			}
			bot := &contrarian{inner: p.bot, pending: pending}
			p.bot = bot
			p.disk = lf.Repaired()
			p.node, p.down = node, false
			n.heal()
			if !n.run(dlStepLimit, n.allOver(n.all()...)) {
				t.Fatalf("game did not finish after the resume: %+v", n.peers[0].node.Status())
			}
			for _, q := range n.peers {
				for _, ev := range q.events {
					if ev.Kind == EventEquivocation || ev.Kind == EventDesync {
						t.Fatalf("%s saw %v: %s", q.name, ev.Kind, ev.Text)
					}
				}
			}
			n.checkAgree(n.all()...)
			log := n.peers[0].node.Log()
			var got *crypto.Envelope
			for _, env := range log {
				if env.Kind == crypto.KindAction && env.Seq == pending.Seq {
					got = env
				}
			}
			if got == nil || !crypto.Equal(got, pending) || bot.asked {
				t.Fatalf("action %d is not the action the victim signed before the crash (bot asked again: %v)", pending.Seq, bot.asked)
			}
			// The victim's disk log, repaired and continued, parses
			// clean to the whole agreed log.
			if lf, err := ParseLog(p.disk); err != nil || len(lf.Entries) != len(log) {
				t.Fatalf("victim's disk after the game: %v, %d entries of %d", err, len(lf.Entries), len(log))
			}
		})
	}
}

// FuzzParseLogRepair: on any bytes, ParseLog does not panic, names its
// damage inside the file, and what it keeps is consistent: the repaired
// copy parses clean to the same records, and a torn tail is only ever at
// the end.
func FuzzParseLogRepair(f *testing.F) {
	me, _ := crypto.GenerateIdentity(seededReader("log/me"))
	env := &crypto.Envelope{Kind: crypto.KindAction, Body: []byte("move")}
	crypto.Sign(me, env)
	clean := AppendRecord(AppendRecord(AppendRecord(AppendLogHeader(nil), RecordSent, env), RecordEntry, env), RecordState, env)
	f.Add(clean)
	f.Add(clean[:len(clean)-3])
	flipped := append([]byte(nil), clean...)
	flipped[len(LogMagic)+30] ^= 1
	f.Add(flipped)
	f.Add(append(append([]byte(nil), clean...), 0, 0, 0))
	inRoom := append(append([]byte(nil), clean...), make([]byte, 64)...)
	copy(inRoom[len(clean):], clean[len(LogMagic):len(LogMagic)+20])
	f.Add(inRoom)
	f.Fuzz(func(t *testing.T, b []byte) {
		lf, err := ParseLog(b)
		if lf == nil {
			t.Fatal("nil LogFile")
		}
		var le *LogError
		if err != nil && !errors.As(err, &le) {
			t.Fatalf("error %v is not a *LogError", err)
		}
		if le != nil && le.Record < 0 {
			return // not a log file at all
		}
		if lf.Good < len(LogMagic) || lf.Good > len(b) {
			t.Fatalf("good prefix %d of %d bytes", lf.Good, len(b))
		}
		for _, d := range lf.Damaged {
			if d.Offset < len(LogMagic) || d.Offset+d.Length > len(b) || d.Length <= 0 {
				t.Fatalf("damage %+v outside the file of %d bytes", d, len(b))
			}
		}
		if lf.Room < 0 || lf.Room > len(b)-lf.Good || !allZero(b[len(b)-lf.Room:]) {
			t.Fatalf("room of %d bytes at the end of %d, good %d", lf.Room, len(b), lf.Good)
		}
		if lf.Torn != nil && lf.Torn.Offset+lf.Torn.Length+lf.Room != len(b) {
			t.Fatalf("torn tail %+v and room %d not at the end of %d bytes", lf.Torn, lf.Room, len(b))
		}
		if (err == nil) != (lf.Torn == nil && len(lf.Damaged) == 0) {
			t.Fatalf("err %v but torn %v damaged %v", err, lf.Torn, lf.Damaged)
		}
		fixed, err := ParseLog(lf.Repaired())
		if err != nil {
			t.Fatalf("repaired copy does not parse clean: %v", err)
		}
		known := 0
		for _, r := range lf.Records {
			if r.Env != nil {
				known++
			}
		}
		if len(fixed.Records) != known || len(fixed.Entries) != len(lf.Entries) || len(fixed.Later) != len(lf.Later) ||
			len(fixed.Sent) != len(lf.Sent) || len(fixed.States) != len(lf.States) {
			t.Fatalf("repaired copy holds %d records, want %d", len(fixed.Records), known)
		}
	})
}
