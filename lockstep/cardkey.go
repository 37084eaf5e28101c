package lockstep

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"

	"github.com/boardmesh/boardmesh/crypto"
)

// The card-key file of a secret table's seat: the private part of what
// its card layer must keep to take the deal up again after a restart
// (CardReady.Secret, Ready.CardSecret: the seat's mental-poker key). It
// lives beside the log, never in it (a log is shared as a desync bundle;
// this file never leaves the machine):
//
//	file   = magic session key crc
//	magic  = "boardmesh card key v1\n"   (22 bytes)
//	session = the session id (32 bytes)
//	key    = uvarint length (1…MaxCardKey) | the bytes
//	crc    = CRC-32C (Castagnoli) of everything before it, u32be
//
// This file is the one implementation of the format: p2p only writes it
// (0600, fsync, rename, fsync of the directory) before anything that
// depends on it is sent, and reads it back on resume.

// CardKeyMagic starts every card-key file.
const CardKeyMagic = "boardmesh card key v1\n"

// MaxCardKey bounds the key bytes a card-key file may hold; MaxCardKeyFile
// the whole file.
const (
	MaxCardKey     = 256
	MaxCardKeyFile = len(CardKeyMagic) + 32 + binary.MaxVarintLen64 + MaxCardKey + 4
)

// ErrCardKeyFile is wrapped by every error of DecodeCardKey.
var ErrCardKeyFile = errors.New("the card-key file is damaged")

// EncodeCardKey returns the card-key file for session holding key.
func EncodeCardKey(session crypto.Hash, key []byte) []byte {
	b := append([]byte(CardKeyMagic), session[:]...)
	b = binary.AppendUvarint(b, uint64(len(key)))
	b = append(b, key...)
	return binary.BigEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
}

// DecodeCardKey reads a card-key file and returns its session and key. A
// file that is cut short, damaged, of another format or too long is an
// error wrapping ErrCardKeyFile that says what is wrong in plain words.
func DecodeCardKey(b []byte) (crypto.Hash, []byte, error) {
	var s crypto.Hash
	bad := func(f string, a ...any) (crypto.Hash, []byte, error) {
		return crypto.Hash{}, nil, fmt.Errorf("%w: %s", ErrCardKeyFile, fmt.Sprintf(f, a...))
	}
	if len(b) > MaxCardKeyFile {
		return bad("it holds %d bytes, more than a card key file can (%d)", len(b), MaxCardKeyFile)
	}
	if len(b) < len(CardKeyMagic) || string(b[:len(CardKeyMagic)]) != CardKeyMagic {
		return bad("it is not a boardmesh card-key file (bad magic)")
	}
	rest := b[len(CardKeyMagic):]
	if len(rest) < len(s)+1+4 {
		return bad("it is cut short (%d bytes)", len(b))
	}
	copy(s[:], rest)
	rest = rest[len(s):]
	n, k := binary.Uvarint(rest)
	if k <= 0 || n == 0 || n > MaxCardKey {
		return bad("its key length is out of range")
	}
	rest = rest[k:]
	if uint64(len(rest)) != n+4 {
		return bad("its length (%d bytes) does not match the key length it names (cut short or extended)", len(b))
	}
	body := b[:len(b)-4]
	if crc32.Checksum(body, castagnoli) != binary.BigEndian.Uint32(b[len(b)-4:]) {
		return bad("its checksum does not match (a flipped bit or a torn write)")
	}
	return s, append([]byte(nil), rest[:n]...), nil
}
