package engine

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"strconv"
	"strings"
)

// Encoder writes the canonical encoding of a state. Every value is
// self-delimiting: unsigned numbers as unsigned LEB128 varints, signed ones
// zig-zag encoded, booleans as one byte 0 or 1, byte strings and text as a
// length then the bytes. Games write their fields in a fixed order, so equal
// states give equal bytes on every platform.
//
// Every write takes a field name. In the normal (fast) mode the names cost
// nothing; in trace mode (NewTraceEncoder) the encoder also records each
// field's path and value, which is how a desync report names the fields that
// differ without any game writing a second description of its state.
type Encoder struct {
	buf    []byte
	trace  bool
	path   []string
	fields []Field
}

// Field is one named value recorded by a trace encoder.
type Field struct {
	Path  string `json:"path"`
	Value string `json:"value"`
}

// NewEncoder returns an encoder that appends to buf[:0].
func NewEncoder(buf []byte) *Encoder { return &Encoder{buf: buf[:0]} }

// NewTraceEncoder returns an encoder that also records named fields.
func NewTraceEncoder() *Encoder { return &Encoder{trace: true} }

// Reset empties the encoder for reuse, keeping its buffer.
func (e *Encoder) Reset() {
	e.buf = e.buf[:0]
	e.path = e.path[:0]
	e.fields = e.fields[:0]
}

// Bytes returns the encoding written so far.
func (e *Encoder) Bytes() []byte { return e.buf }

// Fields returns the fields a trace encoder recorded, in encoding order.
func (e *Encoder) Fields() []Field { return e.fields }

func (e *Encoder) record(name, value string) {
	p := name
	if len(e.path) > 0 {
		p = strings.Join(e.path, ".") + "." + name
	}
	e.fields = append(e.fields, Field{Path: p, Value: value})
}

// Begin opens a named group (a struct); End closes it.
func (e *Encoder) Begin(name string) {
	if e.trace {
		e.path = append(e.path, name)
	}
}

// BeginItem opens element i of the list name.
func (e *Encoder) BeginItem(name string, i int) {
	if e.trace {
		e.path = append(e.path, name+"["+strconv.Itoa(i)+"]")
	}
}

// End closes the group opened last.
func (e *Encoder) End() {
	if e.trace && len(e.path) > 0 {
		e.path = e.path[:len(e.path)-1]
	}
}

// Uint writes an unsigned number.
func (e *Encoder) Uint(name string, v uint64) {
	// The common case, one byte and no trace, is small enough to inline:
	// a state's hash writes hundreds of numbers.
	if v < 0x80 && !e.trace {
		e.buf = append(e.buf, byte(v))
		return
	}
	e.uint(name, v)
}

func (e *Encoder) uint(name string, v uint64) {
	e.buf = binary.AppendUvarint(e.buf, v)
	if e.trace {
		e.record(name, strconv.FormatUint(v, 10))
	}
}

// Int writes a signed number.
func (e *Encoder) Int(name string, v int) {
	// Zig-zag, as binary.AppendVarint writes it: one byte below 64.
	if uint(v+64) < 0x80 && !e.trace {
		e.buf = append(e.buf, byte(v<<1)^byte(v>>63))
		return
	}
	e.int(name, v)
}

func (e *Encoder) int(name string, v int) {
	e.buf = binary.AppendVarint(e.buf, int64(v))
	if e.trace {
		e.record(name, strconv.Itoa(v))
	}
}

// Bool writes a boolean.
func (e *Encoder) Bool(name string, v bool) {
	b := byte(0)
	if v {
		b = 1
	}
	e.buf = append(e.buf, b)
	if e.trace {
		e.record(name, strconv.FormatBool(v))
	}
}

// Blob writes a byte string.
func (e *Encoder) Blob(name string, b []byte) {
	e.buf = binary.AppendUvarint(e.buf, uint64(len(b)))
	e.buf = append(e.buf, b...)
	if e.trace {
		e.record(name, fmt.Sprintf("%x", b))
	}
}

// Text writes a string.
func (e *Encoder) Text(name string, s string) {
	e.buf = binary.AppendUvarint(e.buf, uint64(len(s)))
	e.buf = append(e.buf, s...)
	if e.trace {
		e.record(name, strconv.Quote(s))
	}
}

// Len writes the length of the list that follows.
func (e *Encoder) Len(name string, n int) {
	if uint(n) < 0x80 && !e.trace {
		e.buf = append(e.buf, byte(n))
		return
	}
	e.len(name, n)
}

func (e *Encoder) len(name string, n int) {
	e.buf = binary.AppendUvarint(e.buf, uint64(n))
	if e.trace {
		e.record(name+".len", strconv.Itoa(n))
	}
}

// Ints writes a list of small numbers (counts, card ids) with its length.
func (e *Encoder) Ints(name string, v []int) {
	e.buf = binary.AppendUvarint(e.buf, uint64(len(v)))
	for _, x := range v {
		e.buf = binary.AppendVarint(e.buf, int64(x))
	}
	if e.trace {
		e.record(name, fmt.Sprint(v))
	}
}

// Decoder reads what an Encoder wrote. The first error sticks: later reads
// return zero values, and Finish reports it.
type Decoder struct {
	buf []byte
	off int
	err error
}

// NewDecoder reads b.
func NewDecoder(b []byte) *Decoder { return &Decoder{buf: b} }

func (d *Decoder) fail(what string) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: bad %s at byte %d", ErrDecode, what, d.off)
	}
}

// Err returns the first error.
func (d *Decoder) Err() error { return d.err }

// Finish returns the first error, or an error if bytes are left over.
func (d *Decoder) Finish() error {
	if d.err == nil && d.off != len(d.buf) {
		d.err = fmt.Errorf("%w: %d bytes left over", ErrDecode, len(d.buf)-d.off)
	}
	return d.err
}

// Uint reads an unsigned number.
func (d *Decoder) Uint() uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.buf[d.off:])
	if n <= 0 {
		d.fail("number")
		return 0
	}
	d.off += n
	return v
}

// Int reads a signed number that fits an int32, which every game number does.
func (d *Decoder) Int() int {
	if d.err != nil {
		return 0
	}
	v, n := binary.Varint(d.buf[d.off:])
	if n <= 0 || v < -1<<31 || v > 1<<31-1 {
		d.fail("number")
		return 0
	}
	d.off += n
	return int(v)
}

// Bool reads a boolean; any byte but 0 or 1 is an error.
func (d *Decoder) Bool() bool {
	if d.err != nil {
		return false
	}
	if d.off >= len(d.buf) || d.buf[d.off] > 1 {
		d.fail("boolean")
		return false
	}
	d.off++
	return d.buf[d.off-1] == 1
}

// Len reads a list length and checks it is at most max.
func (d *Decoder) Len(max int) int {
	n := d.Uint()
	if n > uint64(max) {
		d.fail("length")
		return 0
	}
	return int(n)
}

// Blob reads a byte string of at most max bytes.
func (d *Decoder) Blob(max int) []byte {
	n := d.Len(max)
	if d.err != nil {
		return nil
	}
	if len(d.buf)-d.off < n {
		d.fail("byte string")
		return nil
	}
	b := append([]byte(nil), d.buf[d.off:d.off+n]...)
	d.off += n
	return b
}

// Text reads a string of at most max bytes.
func (d *Decoder) Text(max int) string { return string(d.Blob(max)) }

// Ints reads a list written by Encoder.Ints with at most max elements.
func (d *Decoder) Ints(max int) []int {
	n := d.Len(max)
	if n == 0 {
		return nil
	}
	v := make([]int, n)
	for i := range v {
		v[i] = d.Int()
	}
	return v
}

// Encode returns the canonical encoding of s.
func Encode(s State) []byte {
	e := NewEncoder(nil)
	s.Encode(e)
	return e.Bytes()
}

// Hash returns the state hash: SHA-256 of the canonical encoding.
func Hash(s State) [32]byte {
	var buf [512]byte
	e := Encoder{buf: buf[:0]}
	s.Encode(&e)
	return sha256.Sum256(e.buf)
}

// HashWith is Hash with a caller's encoder, to avoid allocation in loops.
func HashWith(e *Encoder, s State) [32]byte {
	e.Reset()
	s.Encode(e)
	return sha256.Sum256(e.buf)
}

// TraceFields returns every named field of s in encoding order.
func TraceFields(s State) []Field {
	e := NewTraceEncoder()
	s.Encode(e)
	return e.Fields()
}

// FieldDiff is one field whose value differs between two states. A field
// present in only one of them has "(absent)" on the other side.
type FieldDiff struct {
	Path string `json:"path"`
	A    string `json:"a"`
	B    string `json:"b"`
}

// Diff lists the fields that differ between a and b, in a's encoding
// order followed by fields only b has.
//
// A path written more than once (the elements of a list a game writes
// value by value, as a hand of card handles) is one field whose value is
// the list of them, "[v1 v2 ...]": compared by path alone, the last
// element would stand for all and every other element would show up as
// a difference of its own, or as absent, though the two lists differ in
// one place.
func Diff(a, b State) []FieldDiff {
	fa, fb := diffFields(TraceFields(a)), diffFields(TraceFields(b))
	idx := make(map[string]int, len(fb)) // lookup only; output order comes from the slices
	for i, f := range fb {
		idx[f.Path] = i
	}
	used := make([]bool, len(fb))
	var out []FieldDiff
	for _, f := range fa {
		i, ok := idx[f.Path]
		if !ok {
			out = append(out, FieldDiff{Path: f.Path, A: f.Value, B: "(absent)"})
			continue
		}
		used[i] = true
		if fb[i].Value != f.Value {
			out = append(out, FieldDiff{Path: f.Path, A: f.Value, B: fb[i].Value})
		}
	}
	for i, f := range fb {
		if !used[i] {
			out = append(out, FieldDiff{Path: f.Path, A: "(absent)", B: f.Value})
		}
	}
	return out
}

// diffFields merges the fields of a path written more than once into one
// field at the place of its first, valued "[v1 v2 ...]" (see Diff).
func diffFields(fs []Field) []Field {
	count := make(map[string]int, len(fs)) // lookup only
	for _, f := range fs {
		count[f.Path]++
	}
	out := make([]Field, 0, len(fs))
	at := make(map[string]int) // lookup only
	var lists []int            // the merged fields, in order
	for _, f := range fs {
		if count[f.Path] == 1 {
			out = append(out, f)
			continue
		}
		i, ok := at[f.Path]
		if !ok {
			at[f.Path] = len(out)
			lists = append(lists, len(out))
			out = append(out, Field{Path: f.Path, Value: "[" + f.Value})
			continue
		}
		out[i].Value += " " + f.Value
	}
	for _, i := range lists {
		out[i].Value += "]"
	}
	return out
}

// AppendAction appends the canonical encoding of an action.
func AppendAction(dst []byte, a Action) []byte {
	dst = binary.AppendUvarint(dst, uint64(a.Op))
	dst = binary.AppendUvarint(dst, uint64(len(a.Args)))
	for _, x := range a.Args {
		dst = binary.AppendVarint(dst, int64(x))
	}
	return dst
}

// MaxActionArgs bounds the arguments of one action when decoding.
const MaxActionArgs = 64

// DecodeAction reads an action written by AppendAction; b must hold
// exactly one action.
func DecodeAction(b []byte) (Action, error) {
	d := NewDecoder(b)
	op := d.Uint()
	if op > 0xffff {
		return Action{}, fmt.Errorf("%w: action op %d out of range", ErrDecode, op)
	}
	n := d.Len(MaxActionArgs)
	a := Action{Op: uint16(op)}
	if n > 0 {
		a.Args = make([]int32, n)
		for i := range a.Args {
			a.Args[i] = int32(d.Int())
		}
	}
	if err := d.Finish(); err != nil {
		return Action{}, err
	}
	// Varints can be padded; only the canonical form is accepted, so one
	// move has exactly one byte string (and one signature).
	if string(AppendAction(nil, a)) != string(b) {
		return Action{}, fmt.Errorf("%w: action is not in canonical form", ErrDecode)
	}
	return a, nil
}

// DecodeState decodes b as a state of game g and checks that b is the
// canonical encoding of what it decodes to.
func DecodeState(g *Game, b []byte) (State, error) {
	s, err := g.Decode(b)
	if err != nil {
		return nil, err
	}
	if string(Encode(s)) != string(b) {
		return nil, fmt.Errorf("%w: %s state is not in canonical form", ErrDecode, g.Name)
	}
	return s, nil
}
