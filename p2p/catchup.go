package p2p

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/libp2p/go-libp2p/core/protocol"
)

// CatchupProtocol is the stream protocol a peer uses to fetch envelopes
// that gossip lost, or a whole log after a restart. The request is one
// opaque query (lockstep says what it means: a range of seqs, a round, or
// "everything"); the answer is a count and that many envelopes. Every
// envelope is self-authenticating, so the asker verifies what it gets and
// any peer is as good a source as the author.
const CatchupProtocol = protocol.ID("/boardmesh/catchup/1.0.0")

const (
	maxQuery         = 64 << 10
	maxCatchupItems  = 1 << 20
	maxCatchupAnswer = 256 << 20
	catchupTimeout   = 30 * time.Second
)

// CatchupServer answers one catch-up query with envelopes.
type CatchupServer func(from peer.ID, query []byte) ([][]byte, error)

// ServeCatchup registers serve as h's catch-up handler.
func ServeCatchup(h host.Host, serve CatchupServer) {
	h.SetStreamHandler(CatchupProtocol, func(s network.Stream) {
		defer s.Close()
		s.SetDeadline(time.Now().Add(catchupTimeout))
		r := bufio.NewReader(s)
		query, err := readFrame(r, maxQuery)
		if err != nil {
			s.Reset()
			return
		}
		items, err := serve(s.Conn().RemotePeer(), query)
		if err != nil {
			s.Reset()
			return
		}
		w := bufio.NewWriter(s)
		if err := writeFrames(w, items); err != nil {
			s.Reset()
			return
		}
		w.Flush()
	})
}

// Fetch asks peer p one catch-up query and returns the envelopes it sent.
func Fetch(ctx context.Context, h host.Host, p peer.ID, query []byte) ([][]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, catchupTimeout)
	defer cancel()
	s, err := h.NewStream(ctx, p, CatchupProtocol)
	if err != nil {
		return nil, fmt.Errorf("catch-up from %s: %w", short(p), err)
	}
	defer s.Close()
	if dl, ok := ctx.Deadline(); ok {
		s.SetDeadline(dl)
	}
	w := bufio.NewWriter(s)
	if err := writeFrame(w, query); err != nil {
		s.Reset()
		return nil, fmt.Errorf("catch-up from %s: %w", short(p), err)
	}
	if err := w.Flush(); err != nil {
		s.Reset()
		return nil, fmt.Errorf("catch-up from %s: %w", short(p), err)
	}
	s.CloseWrite()
	items, err := readFrames(bufio.NewReader(s))
	if err != nil {
		s.Reset()
		return nil, fmt.Errorf("catch-up from %s: %w", short(p), err)
	}
	return items, nil
}

func writeFrame(w *bufio.Writer, b []byte) error {
	var hdr [binary.MaxVarintLen64]byte
	n := binary.PutUvarint(hdr[:], uint64(len(b)))
	if _, err := w.Write(hdr[:n]); err != nil {
		return err
	}
	_, err := w.Write(b)
	return err
}

func writeFrames(w *bufio.Writer, items [][]byte) error {
	var hdr [binary.MaxVarintLen64]byte
	n := binary.PutUvarint(hdr[:], uint64(len(items)))
	if _, err := w.Write(hdr[:n]); err != nil {
		return err
	}
	for _, it := range items {
		if err := writeFrame(w, it); err != nil {
			return err
		}
	}
	return nil
}

var errFrameTooLarge = errors.New("frame too large")

func readFrame(r *bufio.Reader, max int) ([]byte, error) {
	n, err := binary.ReadUvarint(r)
	if err != nil {
		return nil, err
	}
	if n > uint64(max) {
		return nil, fmt.Errorf("%w: %d bytes", errFrameTooLarge, n)
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(r, b); err != nil {
		return nil, err
	}
	return b, nil
}

func readFrames(r *bufio.Reader) ([][]byte, error) {
	count, err := binary.ReadUvarint(r)
	if err != nil {
		return nil, err
	}
	if count > maxCatchupItems {
		return nil, fmt.Errorf("%w: %d items", errFrameTooLarge, count)
	}
	items := make([][]byte, 0, min(count, 4096))
	total := 0
	for range count {
		b, err := readFrame(r, MaxRecord)
		if err != nil {
			return nil, err
		}
		total += len(b)
		if total > maxCatchupAnswer {
			return nil, fmt.Errorf("%w: answer over %d bytes", errFrameTooLarge, maxCatchupAnswer)
		}
		items = append(items, b)
	}
	return items, nil
}
