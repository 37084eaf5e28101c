package p2p

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/boardmesh/boardmesh/crypto"
	"github.com/boardmesh/boardmesh/lockstep"
	"github.com/boardmesh/boardmesh/p2p/fileio"
)

// A secret table's seat keeps its hidden-card key (lockstep's
// Ready.CardSecret) in a file of its own beside the log, never in it: a
// log is what a player hands over as a desync bundle. lockstep/cardkey.go
// holds the format; this is only the file I/O.

// CardKeyPath is the card-key file of the log at logPath.
func CardKeyPath(logPath string) string { return logPath + ".cardkey" }

// WriteCardKey writes the card-key file at path for session, privately
// (mode 0600) and durably: a temporary file fsynced, renamed over path,
// and the directory fsynced, so a crash leaves the old file or the new
// one whole, never a torn one. It returns only once the key is on disk.
func WriteCardKey(path string, session crypto.Hash, key []byte) error {
	if err := replaceSynced(path, lockstep.EncodeCardKey(session, key)); err != nil {
		return fmt.Errorf("write the hidden-card key: %w", err)
	}
	return nil
}

// ErrDamagedCardKey: the card-key file is there but holds no key. What
// that costs depends on the caller: a resumed seat cannot deal on, a
// replay cannot name the seat's cards.
var ErrDamagedCardKey = errors.New("the hidden-card key file is damaged")

// ReadCardKey reads the card-key file at path, bounded, for a resumed
// node (lockstep.Config.CardKey decodes and checks it). A missing file is
// nil, nil: an open table, or a seat that never dealt.
func ReadCardKey(path string) ([]byte, error) {
	st, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the hidden-card key: %w", err)
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file, so it cannot hold this seat's hidden-card key", path)
	}
	b, err := fileio.ReadFile(context.Background(), path, int64(lockstep.MaxCardKeyFile))
	if err != nil {
		return nil, fmt.Errorf("read the hidden-card key: %w", err)
	}
	if _, _, err := lockstep.DecodeCardKey(b); err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrDamagedCardKey, path, err)
	}
	return b, nil
}
