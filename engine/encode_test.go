package engine

import (
	"bytes"
	"encoding/binary"
	"errors"
	"reflect"
	"testing"
)

// toy is a minimal State used to test the encoder, Diff and the harness.
type toy struct {
	turn   int
	scores []int
	name   string
	over   bool
}

func (t *toy) Players() int                   { return len(t.scores) }
func (t *toy) ToAct() Actor                   { return SeatActor(t.turn % len(t.scores)) }
func (t *toy) Turn() int                      { return t.turn }
func (t *toy) Legal(dst []Action) []Action    { return append(dst, Action{Op: 1}) }
func (t *toy) Apply(seat int, a Action) error { return nil }
func (t *toy) ApplyChance(b []byte) error     { return ErrNotChance }
func (t *toy) Clone() State                   { c := *t; c.scores = append([]int(nil), t.scores...); return &c }
func (t *toy) View(seat int) View             { return nil }
func (t *toy) Result() Result                 { return Result{} }
func (t *toy) Describe(a Action) string       { return "x" }
func (t *toy) Encode(e *Encoder) {
	e.Int("turn", t.turn)
	e.Len("players", len(t.scores))
	for i, s := range t.scores {
		e.BeginItem("players", i)
		e.Int("score", s)
		e.End()
	}
	e.Text("name", t.name)
	e.Bool("over", t.over)
}

func TestEncoderRoundTrip(t *testing.T) {
	e := NewEncoder(nil)
	e.Uint("u", 300)
	e.Int("i", -5)
	e.Bool("b", true)
	e.Blob("blob", []byte{1, 2, 3})
	e.Text("s", "héllo")
	e.Ints("list", []int{4, -1, 0})
	d := NewDecoder(e.Bytes())
	if d.Uint() != 300 || d.Int() != -5 || !d.Bool() {
		t.Fatal("scalar round trip failed")
	}
	if !reflect.DeepEqual(d.Blob(10), []byte{1, 2, 3}) || d.Text(10) != "héllo" {
		t.Fatal("bytes round trip failed")
	}
	if got := d.Ints(10); !reflect.DeepEqual(got, []int{4, -1, 0}) {
		t.Fatalf("Ints = %v", got)
	}
	if err := d.Finish(); err != nil {
		t.Fatal(err)
	}
}

func TestDecoderRejectsBadInput(t *testing.T) {
	cases := map[string][]byte{
		"truncated varint":  {0x80},
		"bool out of range": {2},
		"length too long":   {0x05, 'a'},
	}
	for name, b := range cases {
		d := NewDecoder(b)
		switch name {
		case "bool out of range":
			d.Bool()
		case "length too long":
			d.Blob(100)
		default:
			d.Uint()
		}
		if err := d.Finish(); !errors.Is(err, ErrDecode) {
			t.Errorf("%s: err = %v, want ErrDecode", name, err)
		}
	}
	d := NewDecoder([]byte{1, 2})
	d.Uint()
	if err := d.Finish(); err == nil {
		t.Error("trailing bytes were not reported")
	}
	if d := NewDecoder([]byte{3}); d.Len(2) != 0 || d.Err() == nil {
		t.Error("Len above max was accepted")
	}
}

func TestDiffNamesFields(t *testing.T) {
	a := &toy{turn: 3, scores: []int{5, 7}, name: "x"}
	b := &toy{turn: 3, scores: []int{5, 9}, name: "x"}
	got := Diff(a, b)
	want := []FieldDiff{{Path: "players[1].score", A: "7", B: "9"}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Diff = %+v, want %+v", got, want)
	}
	c := &toy{turn: 3, scores: []int{5, 7, 1}, name: "x"}
	got = Diff(a, c)
	want = []FieldDiff{{Path: "players.len", A: "2", B: "3"}, {Path: "players[2].score", A: "(absent)", B: "1"}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Diff with extra element = %+v, want %+v", got, want)
	}
	if d := Diff(a, a.Clone()); len(d) != 0 {
		t.Fatalf("Diff of equal states = %+v", d)
	}
}

// handToy writes a list value by value under one name, as a game writes
// a hand of card handles.
type handToy struct {
	toy
	hand []int
}

func (t *handToy) Encode(e *Encoder) {
	e.Len("hand", len(t.hand))
	for _, h := range t.hand {
		e.Uint("hand", uint64(h))
	}
	e.Int("turn", t.turn)
}

// TestDiffNamesAListWrittenValueByValue: two hands that differ in one card
// are one differing field with both lists, not one line per card, nor a
// card that is "absent" from a hand that has it.
func TestDiffNamesAListWrittenValueByValue(t *testing.T) {
	a := &handToy{toy: toy{turn: 2, scores: []int{0}}, hand: []int{11, 12, 13}}
	b := &handToy{toy: toy{turn: 2, scores: []int{0}}, hand: []int{11, 14, 13}}
	got := Diff(a, b)
	want := []FieldDiff{{Path: "hand", A: "[11 12 13]", B: "[11 14 13]"}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Diff = %+v, want %+v", got, want)
	}
	c := &handToy{toy: toy{turn: 3, scores: []int{0}}, hand: []int{11}}
	got = Diff(a, c)
	want = []FieldDiff{{Path: "hand.len", A: "3", B: "1"}, {Path: "hand", A: "[11 12 13]", B: "11"}, {Path: "turn", A: "2", B: "3"}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Diff with a shorter hand = %+v, want %+v", got, want)
	}
	if d := Diff(a, &handToy{toy: a.toy, hand: append([]int(nil), a.hand...)}); len(d) != 0 {
		t.Fatalf("Diff of equal hands = %+v", d)
	}
}

func TestTraceAndFastEncodingAgree(t *testing.T) {
	s := &toy{turn: 1, scores: []int{1, 2}, name: "n", over: true}
	fast := Encode(s)
	tr := NewTraceEncoder()
	s.Encode(tr)
	if string(fast) != string(tr.Bytes()) {
		t.Fatal("trace mode changed the bytes")
	}
	if Hash(s) != HashWith(NewEncoder(nil), s) {
		t.Fatal("Hash and HashWith disagree")
	}
}

func TestActionEncoding(t *testing.T) {
	a := Action{Op: 7, Args: []int32{-1, 0, 1 << 20}}
	b := AppendAction(nil, a)
	got, err := DecodeAction(b)
	if err != nil || !got.Equal(a) {
		t.Fatalf("DecodeAction = %v, %v", got, err)
	}
	// A padded varint decodes to the same action but is not canonical.
	if _, err := DecodeAction([]byte{0x87, 0x00, 0x00}); !errors.Is(err, ErrDecode) {
		t.Fatalf("padded action accepted: %v", err)
	}
	if _, err := DecodeAction(append(b, 0)); err == nil {
		t.Fatal("trailing byte accepted")
	}
}

// TestEncoderFastPathIsTheVarint: the one-byte fast path of Uint, Int and
// Len writes exactly what binary.AppendUvarint and AppendVarint write, and
// what a trace encoder (which always takes the general path) writes.
func TestEncoderFastPathIsTheVarint(t *testing.T) {
	fast, trace := NewEncoder(nil), NewTraceEncoder()
	var want []byte
	for v := -300; v <= 300; v++ {
		for _, e := range []*Encoder{fast, trace} {
			e.Int("i", v)
			if v >= 0 {
				e.Uint("u", uint64(v))
				e.Len("n", v)
			}
		}
		want = binary.AppendVarint(want, int64(v))
		if v >= 0 {
			want = binary.AppendUvarint(want, uint64(v))
			want = binary.AppendUvarint(want, uint64(v))
		}
	}
	for _, v := range []int{-1 << 31, 1<<31 - 1, -65, 64, -64, 63} {
		fast.Int("i", v)
		trace.Int("i", v)
		want = binary.AppendVarint(want, int64(v))
	}
	if !bytes.Equal(fast.Bytes(), want) || !bytes.Equal(trace.Bytes(), want) {
		t.Fatalf("fast %x\ntrace %x\nwant %x", fast.Bytes(), trace.Bytes(), want)
	}
}
