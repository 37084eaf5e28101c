package crypto

import (
	"encoding/binary"
	"fmt"
)

// A network message on a session topic is one envelope, or a bundle: the
// envelopes one peer sends at once (an action and the reveal and
// checkpoint that leave with it, say), as one message:
//
//	bundle = BundleTag u8 | count u8 | (length u32be | envelope)*count
//
// count is 2 to MaxBundle, each length the size of the envelope encoding
// after it, every envelope of one author, and nothing follows the last.
// An envelope starts with Version, never BundleTag, so a reader tells the
// two apart by the first byte. Each envelope in a bundle is signed on its
// own and checked on its own: a bundle adds no trust and changes no log;
// it only spares the transports and gossipsub their cost per message
// (docs/protocol.md §9.2).
const (
	BundleTag = 0xb5
	MaxBundle = 16
)

// bundleHeader is the tag and the count; bundleItem a length.
const (
	bundleHeader = 2
	bundleItem   = 4
)

// AppendBundle appends the bundle of envs (2 to MaxBundle envelopes of one
// author; Messages chooses them).
func AppendBundle(dst []byte, envs []*Envelope) []byte {
	dst = append(dst, BundleTag, byte(len(envs)))
	for _, e := range envs {
		dst = binary.BigEndian.AppendUint32(dst, uint32(e.Size()))
		dst = e.AppendMarshal(dst)
	}
	return dst
}

// Messages encodes envs, in order, as network messages: runs of one
// author's envelopes in bundles of at most MaxBundle envelopes and max
// bytes, and an envelope that fits with no neighbour alone, as itself.
// A max of 0 sends every envelope alone (for readers of lone envelopes
// only).
func Messages(envs []*Envelope, max int) [][]byte {
	var out [][]byte
	for i := 0; i < len(envs); {
		j, size := i+1, bundleHeader+bundleItem+envs[i].Size()
		for j < len(envs) && j-i < MaxBundle && envs[j].Author == envs[i].Author && size+bundleItem+envs[j].Size() <= max {
			size += bundleItem + envs[j].Size()
			j++
		}
		if j == i+1 {
			out = append(out, envs[i].Marshal())
		} else {
			out = append(out, AppendBundle(make([]byte, 0, size), envs[i:j]))
		}
		i = j
	}
	return out
}

// UnmarshalMessage decodes a network message: one envelope, or the
// envelopes of a bundle in order. Like Unmarshal it checks the format
// (each envelope's, and the bundle's: its count, its lengths, one author),
// not the signatures.
func UnmarshalMessage(b []byte) ([]*Envelope, error) {
	if len(b) == 0 || b[0] != BundleTag {
		e, err := Unmarshal(b)
		if err != nil {
			return nil, err
		}
		return []*Envelope{e}, nil
	}
	bad := func(format string, a ...any) ([]*Envelope, error) {
		return nil, fmt.Errorf("%w: bundle: %s", ErrMalformed, fmt.Sprintf(format, a...))
	}
	if len(b) < bundleHeader {
		return bad("no count")
	}
	n := int(b[1])
	if n < 2 || n > MaxBundle {
		return bad("%d envelopes, want 2 to %d", n, MaxBundle)
	}
	envs := make([]*Envelope, 0, n)
	off := bundleHeader
	for k := range n {
		if len(b)-off < bundleItem {
			return bad("ends before envelope %d", k+1)
		}
		size := binary.BigEndian.Uint32(b[off:])
		off += bundleItem
		if uint64(size) > uint64(len(b)-off) {
			return bad("envelope %d of %d bytes runs past the end", k+1, size)
		}
		e, err := Unmarshal(b[off : off+int(size)])
		if err != nil {
			return nil, fmt.Errorf("bundle envelope %d: %w", k+1, err)
		}
		if k > 0 && e.Author != envs[0].Author {
			return bad("envelope %d is of another author than the first", k+1)
		}
		envs = append(envs, e)
		off += int(size)
	}
	if off != len(b) {
		return bad("%d bytes after the last envelope", len(b)-off)
	}
	return envs, nil
}
