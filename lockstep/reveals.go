package lockstep

import (
	"fmt"

	"github.com/boardmesh/boardmesh/engine"
)

// Revealed is one card a move on a secret table shows from its mover's
// hand: the value the mover claims and its decryption share (nil for a
// card already public). It travels in the move's action body.
type Revealed struct {
	Handle engine.Handle
	Card   uint16
	Share  []byte
}

// MaxReveals bounds the cards one move may show; MaxShare the bytes of
// one decryption share (a ristretto255 point and a Chaum–Pedersen proof
// are 96 bytes; the bound leaves room without trusting the sender).
const (
	MaxReveals = 64
	MaxShare   = 256
)

// EncodeReveals writes the cards a move shows, canonically, for its
// envelope: a count, then per card the handle (as Handle.Arg), the value
// and the share (empty for a card already public).
func EncodeReveals(rs []Revealed) []byte {
	e := engine.NewEncoder(nil)
	e.Len("reveals", len(rs))
	for _, r := range rs {
		e.Uint("handle", uint64(r.Handle.Arg()))
		e.Uint("card", uint64(r.Card))
		e.Blob("share", r.Share)
	}
	return append([]byte(nil), e.Bytes()...)
}

// DecodeReveals reads what EncodeReveals wrote, bounded and strict: any
// other bytes are an error, never a panic.
func DecodeReveals(b []byte) ([]Revealed, error) {
	d := engine.NewDecoder(b)
	n := d.Len(MaxReveals)
	var out []Revealed
	for i := 0; i < n && d.Err() == nil; i++ {
		a := d.Uint()
		c := d.Uint()
		sh := d.Blob(MaxShare)
		if d.Err() != nil {
			break
		}
		h, ok := engine.HandleArg(int32(min(a, 1<<31-1)))
		if !ok || a > 1<<31-1 || c > 0xffff {
			return nil, fmt.Errorf("reveal %d: handle %d, card %d", i+1, a, c)
		}
		r := Revealed{Handle: h, Card: uint16(c)}
		if len(sh) > 0 {
			r.Share = append([]byte(nil), sh...)
		}
		out = append(out, r)
	}
	if err := d.Finish(); err != nil {
		return nil, fmt.Errorf("reveals: %w", err)
	}
	if !equalBytes(EncodeReveals(out), b) {
		return nil, fmt.Errorf("reveals: not canonical")
	}
	return out, nil
}

func equalBytes(a, b []byte) bool { return string(a) == string(b) }
