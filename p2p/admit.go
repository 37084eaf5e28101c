package p2p

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/boardmesh/boardmesh/crypto"
	"github.com/libp2p/go-libp2p/core/host"
	"github.com/libp2p/go-libp2p/core/network"
	"github.com/libp2p/go-libp2p/core/peer"
	"github.com/libp2p/go-libp2p/core/protocol"
)

// AdmitProtocol is the stream protocol by which a host checks that a
// joiner is live and holds the key of the join it signed, before that join
// counts: the host opens a stream to the joiner and writes a fresh 32-byte
// nonce; the joiner writes back the 64-byte ed25519 signature, by its
// identity, of AdmitMessage(lobby, nonce), and both close. Anything else
// (another length, a late answer, a bad signature) fails the challenge. A
// joiner answers only the host of the lobby it joined.
const AdmitProtocol = protocol.ID("/boardmesh/admit/1.0.0")

// admitDomain separates challenge signatures from every other signature
// of the identity (envelopes use "boardmesh/envelope/v1/...").
const admitDomain = "boardmesh/lobby-challenge/v1\x00"

// AdmitTimeout is how long a joiner has to answer the challenge.
const AdmitTimeout = 5 * time.Second

// ErrNotAdmitted is returned when a joiner fails the host's challenge.
var ErrNotAdmitted = errors.New("did not answer the host's challenge")

// AdmitMessage is what a joiner signs: the domain tag, the lobby id, the
// nonce.
func AdmitMessage(lobby crypto.Hash, nonce [32]byte) []byte {
	b := make([]byte, 0, len(admitDomain)+64)
	b = append(b, admitDomain...)
	b = append(b, lobby[:]...)
	return append(b, nonce[:]...)
}

// Challenge asks joiner p to sign a fresh nonce for lobby and checks the
// signature against p's key (the peer id of its join, which libp2p's
// handshake has also authenticated).
func Challenge(ctx context.Context, h host.Host, p peer.ID, lobby crypto.Hash) error {
	pub, err := crypto.PublicKey(crypto.PeerID(p))
	if err != nil {
		return fmt.Errorf("%s %w: not an ed25519 peer", short(p), ErrNotAdmitted)
	}
	ctx, cancel := context.WithTimeout(ctx, AdmitTimeout)
	defer cancel()
	s, err := h.NewStream(ctx, p, AdmitProtocol)
	if err != nil {
		return fmt.Errorf("%s %w: %v", short(p), ErrNotAdmitted, err)
	}
	defer s.Close()
	s.SetDeadline(time.Now().Add(AdmitTimeout))
	var nonce [32]byte
	if _, err := rand.Read(nonce[:]); err != nil {
		s.Reset()
		return err
	}
	if _, err := s.Write(nonce[:]); err != nil {
		s.Reset()
		return fmt.Errorf("%s %w: %v", short(p), ErrNotAdmitted, err)
	}
	s.CloseWrite()
	sig, err := readExactly(s, ed25519.SignatureSize)
	if err != nil {
		s.Reset()
		return fmt.Errorf("%s %w: %v", short(p), ErrNotAdmitted, err)
	}
	if !ed25519.Verify(pub, AdmitMessage(lobby, nonce), sig) {
		return fmt.Errorf("%s %w: the signature does not verify", short(p), ErrNotAdmitted)
	}
	return nil
}

// ServeAdmit answers the challenge of hostID for lobby with id's key.
func ServeAdmit(h host.Host, hostID peer.ID, lobby crypto.Hash, id *crypto.Identity) {
	key := id.PrivateKey()
	h.SetStreamHandler(AdmitProtocol, func(s network.Stream) {
		defer s.Close()
		if s.Conn().RemotePeer() != hostID {
			s.Reset()
			return
		}
		s.SetDeadline(time.Now().Add(AdmitTimeout))
		b, err := readExactly(s, 32)
		if err != nil {
			s.Reset()
			return
		}
		var nonce [32]byte
		copy(nonce[:], b)
		if _, err := s.Write(ed25519.Sign(key, AdmitMessage(lobby, nonce))); err != nil {
			s.Reset()
		}
	})
}

// readExactly reads n bytes and then the end of the stream: one byte more
// is an error, as is one less.
func readExactly(r io.Reader, n int) ([]byte, error) {
	b := make([]byte, n+1)
	got, err := io.ReadFull(r, b)
	switch {
	case got == n && (errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF)):
		return b[:n], nil
	case got > n:
		return nil, fmt.Errorf("more than %d bytes", n)
	case err != nil:
		return nil, err
	}
	return nil, fmt.Errorf("want %d bytes, got %d", n, got)
}
